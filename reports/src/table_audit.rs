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

use crate::day_rounds::rounds_with_lookback;
use crate::ReportError;
use rules::gaming_day::GamingDayClock;

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

/// The day's roulette spins and poker cash hands, each against its table's round before it, and
/// the day's hands played for time against their tables' collections.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &rules::PlanBook,
) -> Result<TableAudit, ReportError> {
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
) -> Result<TableAudit, ReportError> {
    let mut facts = Vec::new();
    let mut today: HashSet<(String, u64)> = HashSet::new();
    let mut games: HashMap<String, GameCode> = HashMap::new();
    let (mut spins, mut spins_with_directions, mut hands) = (0u32, 0u32, 0u32);
    for game in [
        GameCode::Roulette,
        GameCode::PokerCash,
        GameCode::OpenFaceChinese,
    ] {
        for (round, in_day) in rounds_with_lookback(conn, cut, clock, day, game)? {
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
        gaming_day: day,
        spins,
        spins_with_directions,
        hands,
        findings,
    })
}

/// The audit's findings as CSV (RFC 4180, UTF-8, CRLF line ends).
pub fn to_csv(audit: &TableAudit) -> Result<String, ReportError> {
    use crate::sheet::{Audience, Cell, CsvWriter};
    let mut writer = CsvWriter::new(Audience::Machines);
    writer.heading([
        "gaming_day",
        "kind",
        "table_id",
        "game",
        "seq_no",
        "played_at",
        "previous_seq_no",
        "message",
    ])?;
    for f in &audit.findings {
        writer.row(&[
            Cell::Day(audit.gaming_day),
            Cell::Text(f.kind.clone()),
            Cell::Text(f.table_id.clone()),
            Cell::Text(f.game.clone()),
            Cell::unsigned(f.seq_no),
            Cell::Time(f.played_at),
            f.previous_seq_no.map_or(Cell::Empty, Cell::unsigned),
            Cell::Text(f.message.clone()),
        ])?;
    }
    writer.into_string()
}

/// The columns of the table audit for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 8] = {
    use crate::sheet::column;
    [
        column("gaming_day", "Herní den", "Gaming day"),
        column("kind", "Nález", "Finding"),
        column("table_id", "Stůl", "Table"),
        column("game", "Hra", "Game"),
        column("seq_no", "Kolo (seq_no)", "Round (seq_no)"),
        column("played_at", "Odehráno", "Played at"),
        column(
            "previous_seq_no",
            "Porovnáno s kolem (seq_no)",
            "Compared with round (seq_no)",
        ),
        column("message", "Popis", "Description"),
    ]
};

/// The table audit as a sheet for people: one line per round out of order with its table's
/// round before it.
pub fn sheet(
    audit: &TableAudit,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let seq = |n: u64| Cell::Count(i64::try_from(n).unwrap_or(i64::MAX));
    let rows = audit
        .findings
        .iter()
        .map(|f| {
            vec![
                Cell::Day(audit.gaming_day),
                Cell::Coded {
                    code: f.kind.clone(),
                    words: crate::words::table_audit_kind(&f.kind, language),
                },
                Cell::Text(f.table_id.clone()),
                Cell::Coded {
                    code: f.game.clone(),
                    words: plans.game_name(&f.game).to_owned(),
                },
                seq(f.seq_no),
                Cell::Time(f.played_at),
                f.previous_seq_no.map_or(Cell::Empty, seq),
                Cell::Text(f.message.clone()),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!(
            "{} {}",
            language.pick("Audit stolů", "Table audit"),
            audit.gaming_day
        ),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
