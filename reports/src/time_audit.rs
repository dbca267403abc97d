//! Time collection audit of poker cash and Open Face Chinese tables: every hand of the day
//! played for time instead of rake against the periods its table collected time for (looked up
//! to a gaming day earlier, so a period that began before the day counts).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use rules::poker_cash::time_audit::{audit, CollectedPeriod, TimedHand};
use rules::poker_cash::Collection;
use rules::{GameCode, Round};
use serde::Serialize;

use crate::day_audit::{day_audit_entry_points, DayAudit, DayRead, Words};
use crate::sheet::columns::{GAME, HAND_SEQ_NO, PLAYED_AT, TABLE};
use crate::sheet::{column, Cell, Column, Language};
use crate::ReportError;

/// A hand played for time that no collection of its table covers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct UncollectedHand {
    pub table_id: String,
    pub game: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    /// When the time the table last collected for ran out, if it collected any before.
    pub last_paid_until: Option<DateTime<Utc>>,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TimeCollectionAudit {
    pub gaming_day: NaiveDate,
    /// Hands of the day played for time.
    pub time_hands: u32,
    /// Collections made in the day, and what they took.
    pub collections: u32,
    pub collected_h: i64,
    /// Time-collected hands outside every collected period: the casino took neither rake nor
    /// time for them.
    pub uncollected: Vec<UncollectedHand>,
}

day_audit_entry_points!(TimeCollectionAudit, UncollectedHand, uncollected);

/// The columns of the time collection audit for people.
const PEOPLE_COLUMNS: [Column; 6] = [
    TABLE,
    GAME,
    HAND_SEQ_NO,
    PLAYED_AT,
    column(
        "last_paid_until",
        "Naposledy zaplaceno do",
        "Last paid until",
    ),
    column("message", "Nález", "Finding"),
];

impl DayAudit for TimeCollectionAudit {
    const COLUMNS: &'static [Column] = &PEOPLE_COLUMNS;

    /// The day's time-collected hands against their tables' collections.
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<TimeCollectionAudit, ReportError> {
        let mut hands = Vec::new();
        let mut collections = Vec::new();
        let (mut collections_today, mut collected_h) = (0u32, 0i64);
        for game in [GameCode::PokerCash, GameCode::OpenFaceChinese] {
            for (round, in_day) in at.rounds(conn, game)? {
                match round {
                    // A void hand is dealt again: nothing to collect for it.
                    Round::PokerCash(h)
                        if in_day && h.collection == Collection::Time && h.void.is_none() =>
                    {
                        hands.push((game, h.table_id, h.seq_no, h.played_at));
                    }
                    Round::OpenFaceChinese(h) if in_day && h.collection == Collection::Time => {
                        hands.push((game, h.table_id, h.seq_no, h.played_at));
                    }
                    Round::TimeCollection(c) => {
                        if in_day {
                            collections_today += 1;
                            let paid = c.players.iter().map(|p| p.paid_h).sum::<i64>();
                            collected_h = collected_h.checked_add(paid).ok_or_else(|| {
                                ReportError::Overflow("the day's time collection")
                            })?;
                        }
                        collections.push(CollectedPeriod::of(&c));
                    }
                    _ => {}
                }
            }
        }
        hands.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
        let timed: Vec<TimedHand<'_>> = hands
            .iter()
            .map(|(_, table_id, seq_no, played_at)| TimedHand {
                table_id,
                seq_no: *seq_no,
                played_at: *played_at,
            })
            .collect();
        let uncollected = audit(&timed, &collections)
            .into_iter()
            .map(|u| {
                let game = hands
                    .iter()
                    .find(|h| h.1 == u.table_id && h.2 == u.seq_no)
                    .map_or("", |h| h.0.as_str());
                UncollectedHand {
                    table_id: u.table_id.to_owned(),
                    game: game.to_owned(),
                    seq_no: u.seq_no,
                    played_at: u.played_at,
                    last_paid_until: u.last_paid_until,
                    message: u.message(),
                }
            })
            .collect();
        Ok(TimeCollectionAudit {
            gaming_day: at.day,
            time_hands: u32::try_from(hands.len()).unwrap_or(u32::MAX),
            collections: collections_today,
            collected_h,
            uncollected,
        })
    }

    fn cells(line: &UncollectedHand, words: Words<'_>) -> Vec<Cell> {
        vec![
            Cell::Text(line.table_id.clone()),
            words.game(&line.game),
            Cell::unsigned(line.seq_no),
            Cell::Time(line.played_at),
            line.last_paid_until.map_or(Cell::Empty, Cell::Time),
            words.coded(&line.message, crate::words::finding_message),
        ]
    }

    fn sheet_name(&self, l: Language) -> String {
        format!("{} {}", l.pick("Hra na čas", "Time"), self.gaming_day)
    }
}
