//! Table audit of a gaming day: the checks that follow a table from round to round — the
//! roulette wheel reversed every spin, the poker button and big blind moved one player a hand,
//! every hand played for time inside a period its table collected (`rules::table_audit`). Each table is followed from up to a gaming day earlier, so the day's
//! first round is compared with the one before it.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use rules::table_audit::{audit, Fact};
use rules::GameCode;
use serde::Serialize;

use crate::day_audit::{day_audit_entry_points, DayAudit, DayRead, Words};
use crate::sheet::columns::{DESCRIPTION, GAME, PLAYED_AT, TABLE};
use crate::sheet::{column, Cell, Column, Language};
use crate::ReportError;

/// A round the audit found out of order with the round of its table before it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TableAuditLine {
    /// `rotor_not_reversed`, `rotor_reversed_after_no_spin`, `button_out_of_turn`,
    /// `big_blind_out_of_turn` or `time_not_collected`.
    pub kind: String,
    pub table_id: String,
    pub game: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    /// The table's round it was compared with (none for a hand played for time, compared with
    /// the table's collections).
    pub previous_seq_no: Option<u64>,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TableAudit {
    pub gaming_day: NaiveDate,
    /// Roulette spins of the day, and how many carried the wheel's directions.
    pub spins: u32,
    pub spins_with_directions: u32,
    /// Poker cash hands of the day that were played (not void, not impossible).
    pub hands: u32,
    pub findings: Vec<TableAuditLine>,
}

day_audit_entry_points!(TableAudit, TableAuditLine, findings);

/// The columns of the table audit for people.
const PEOPLE_COLUMNS: [Column; 7] = [
    column("kind", "Nález", "Finding"),
    TABLE,
    GAME,
    column("seq_no", "Kolo (seq_no)", "Round (seq_no)"),
    PLAYED_AT,
    column(
        "previous_seq_no",
        "Porovnáno s kolem (seq_no)",
        "Compared with round (seq_no)",
    ),
    DESCRIPTION,
];

impl DayAudit for TableAudit {
    const COLUMNS: &'static [Column] = &PEOPLE_COLUMNS;

    /// The day's roulette spins and poker cash hands, each against its table's round before
    /// it, and the day's hands played for time against their tables' collections.
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<TableAudit, ReportError> {
        let mut facts = Vec::new();
        let mut today: HashSet<(String, u64)> = HashSet::new();
        let mut games: HashMap<String, GameCode> = HashMap::new();
        let (mut spins, mut spins_with_directions, mut hands) = (0u32, 0u32, 0u32);
        for game in [
            GameCode::Roulette,
            GameCode::PokerCash,
            GameCode::OpenFaceChinese,
        ] {
            for (round, in_day) in at.rounds(conn, game)? {
                let fact = Fact::of(&round);
                if in_day {
                    spins += u32::from(matches!(round, rules::Round::Roulette(_)));
                    match &fact {
                        Some(Fact::Spin(_)) => spins_with_directions += 1,
                        Some(Fact::Hand(_)) => hands += 1,
                        _ => {}
                    }
                }
                let Some(fact) = fact else {
                    continue;
                };
                if in_day {
                    today.insert((fact.table_id().to_owned(), fact.seq_no()));
                }
                games.insert(fact.table_id().to_owned(), game);
                facts.push(fact);
            }
        }
        let findings = audit(facts)
            .into_iter()
            .filter(|f| today.contains(&(f.table_id.clone(), f.seq_no)))
            .map(|f| TableAuditLine {
                kind: f.kind.as_str().to_owned(),
                game: games.get(&f.table_id).map_or("", |g| g.as_str()).to_owned(),
                table_id: f.table_id,
                seq_no: f.seq_no,
                played_at: f.played_at,
                previous_seq_no: f.previous_seq_no,
                message: f.message,
            })
            .collect();
        Ok(TableAudit {
            gaming_day: at.day,
            spins,
            spins_with_directions,
            hands,
            findings,
        })
    }

    fn cells(line: &TableAuditLine, words: Words<'_>) -> Vec<Cell> {
        vec![
            words.coded(&line.kind, crate::words::table_audit_kind),
            Cell::Text(line.table_id.clone()),
            words.game(&line.game),
            Cell::unsigned(line.seq_no),
            Cell::Time(line.played_at),
            line.previous_seq_no.map_or(Cell::Empty, Cell::unsigned),
            words.coded(&line.message, crate::words::finding_message),
        ]
    }

    fn sheet_name(&self, l: Language) -> String {
        format!(
            "{} {}",
            l.pick("Audit stolů", "Table audit"),
            self.gaming_day
        )
    }
}
