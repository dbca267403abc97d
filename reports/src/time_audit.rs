//! Time collection audit of poker cash and Open Face Chinese tables: every hand of the day
//! played for time instead of rake against the periods its table collected time for (looked up
//! to a gaming day earlier, so a period that began before the day counts).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use rules::poker_cash::time_audit::{audit, CollectedPeriod, TimedHand};
use rules::poker_cash::Collection;
use rules::{GameCode, Round};
use serde::Serialize;

use crate::day_rounds::rounds_with_lookback;
use crate::ReportError;
use rules::gaming_day::GamingDayClock;

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

/// The day's time-collected hands against their tables' collections (the plans are not needed:
/// the signature is every day audit's).
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &rules::PlanBook,
) -> Result<TimeCollectionAudit, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, day, plans)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: ledger::storage::read_cut::LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
    _: &rules::PlanBook,
) -> Result<TimeCollectionAudit, ReportError> {
    let mut hands = Vec::new();
    let mut collections = Vec::new();
    let (mut collections_today, mut collected_h) = (0u32, 0i64);
    for game in [GameCode::PokerCash, GameCode::OpenFaceChinese] {
        for (round, in_day) in rounds_with_lookback(conn, cut, clock, day, game)? {
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
                        collected_h = collected_h
                            .checked_add(paid)
                            .ok_or_else(|| ReportError::Overflow("the day's time collection"))?;
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
        gaming_day: day,
        time_hands: u32::try_from(hands.len()).unwrap_or(u32::MAX),
        collections: collections_today,
        collected_h,
        uncollected,
    })
}

/// The audit's uncollected hands as CSV (RFC 4180, UTF-8, CRLF line ends).
pub fn to_csv(audit: &TimeCollectionAudit) -> Result<String, ReportError> {
    use crate::sheet::{Audience, Cell, CsvWriter};
    let mut writer = CsvWriter::new(Audience::Machines);
    writer.heading([
        "gaming_day",
        "table_id",
        "game",
        "seq_no",
        "played_at",
        "last_paid_until",
        "message",
    ])?;
    for u in &audit.uncollected {
        writer.row(&[
            Cell::Day(audit.gaming_day),
            Cell::Text(u.table_id.clone()),
            Cell::Text(u.game.clone()),
            Cell::unsigned(u.seq_no),
            Cell::Time(u.played_at),
            u.last_paid_until.map_or(Cell::Empty, Cell::Time),
            Cell::Text(u.message.clone()),
        ])?;
    }
    writer.into_string()
}

/// The columns of the time collection audit for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 7] = {
    use crate::sheet::column;
    [
        column("gaming_day", "Herní den", "Gaming day"),
        column("table_id", "Stůl", "Table"),
        column("game", "Hra", "Game"),
        column("seq_no", "Hra (seq_no)", "Hand (seq_no)"),
        column("played_at", "Odehráno", "Played at"),
        column(
            "last_paid_until",
            "Naposledy zaplaceno do",
            "Last paid until",
        ),
        column("message", "Nález", "Finding"),
    ]
};

/// The time collection audit as a sheet for people: one line per hand played for time that no
/// collection covers.
pub fn sheet(
    audit: &TimeCollectionAudit,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let rows = audit
        .uncollected
        .iter()
        .map(|u| {
            vec![
                Cell::Day(audit.gaming_day),
                Cell::Text(u.table_id.clone()),
                Cell::Coded {
                    code: u.game.clone(),
                    words: plans.game_name(&u.game).to_owned(),
                },
                Cell::Count(i64::try_from(u.seq_no).unwrap_or(i64::MAX)),
                Cell::Time(u.played_at),
                u.last_paid_until.map_or(Cell::Empty, Cell::Time),
                Cell::Text(u.message.clone()),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!(
            "{} {}",
            language.pick("Hra na čas", "Time"),
            audit.gaming_day
        ),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
