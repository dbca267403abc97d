//! Fantasy-land audit of Open Face Chinese tables: a hand's verdict says who earned fantasy
//! land for the next hand (a verdict sees one hand only), so the deal of each hand of the day is
//! checked here against the hand before it at the same table.

use chrono::NaiveDate;
use diesel::PgConnection;
use rules::ofc::audit_fantasy_sequence;
use rules::{GameCode, PlanBook, Round};
use serde::Serialize;

use crate::day_rounds::rounds_with_lookback;
use crate::ReportError;
use rules::gaming_day::GamingDayClock;

/// A deal that does not follow from the previous hand.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FantasyLine {
    pub table_id: String,
    pub previous_seq_no: u64,
    pub seq_no: u64,
    /// e.g. `anna: earned fantasy land with 15 cards in the previous hand, dealt 14`.
    pub message: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FantasyAudit {
    pub gaming_day: NaiveDate,
    /// Open Face Chinese hands played in the day.
    pub hands: u32,
    pub mismatches: Vec<FantasyLine>,
}

/// The OFC hands of `day`, each against the table's hand before it (looked up to a gaming day
/// earlier, so the first hand of the day is checked too).
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &rules::PlanBook,
) -> Result<FantasyAudit, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, day, plans)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: ledger::storage::read_cut::LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &PlanBook,
) -> Result<FantasyAudit, ReportError> {
    let mut hands = Vec::new();
    let mut today = std::collections::HashSet::new();
    for (round, in_day) in rounds_with_lookback(conn, cut, clock, day, GameCode::OpenFaceChinese)? {
        if let Round::OpenFaceChinese(hand) = round {
            // A hand that cannot have happened earns nothing and is its own finding.
            if rules::Game::check_possible(&hand).is_err() {
                continue;
            }
            if in_day {
                today.insert((hand.table_id.clone(), hand.seq_no));
            }
            hands.push(hand);
        }
    }
    // Dealing order is each table's sequence order (hands may reach the ledger out of order).
    hands.sort_by(|a, b| (&a.table_id, a.seq_no).cmp(&(&b.table_id, b.seq_no)));
    let mismatches = audit_fantasy_sequence(&hands, |h| {
        plans
            .get(&h.plan_id)
            .and_then(|p| p.open_face_chinese.as_ref())
    })
    .into_iter()
    .filter(|m| today.contains(&(m.table_id.clone(), m.seq_no)))
    .map(|m| FantasyLine {
        table_id: m.table_id,
        previous_seq_no: m.previous_seq_no,
        seq_no: m.seq_no,
        message: m.message,
    })
    .collect();
    Ok(FantasyAudit {
        gaming_day: day,
        hands: u32::try_from(today.len()).unwrap_or(u32::MAX),
        mismatches,
    })
}

/// CSV (RFC 4180, UTF-8, CRLF line ends): one line per mismatch.
pub fn to_csv(audit: &FantasyAudit) -> Result<String, ReportError> {
    use crate::sheet::{Audience, Cell, CsvWriter};
    let mut w = CsvWriter::new(Audience::Machines);
    w.heading([
        "gaming_day",
        "table_id",
        "previous_seq_no",
        "seq_no",
        "message",
    ])?;
    for m in &audit.mismatches {
        w.row(&[
            Cell::Day(audit.gaming_day),
            Cell::Text(m.table_id.clone()),
            Cell::unsigned(m.previous_seq_no),
            Cell::unsigned(m.seq_no),
            Cell::Text(m.message.clone()),
        ])?;
    }
    w.into_string()
}

/// The columns of the fantasy-land audit for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 5] = {
    use crate::sheet::column;
    [
        column("gaming_day", "Herní den", "Gaming day"),
        column("table_id", "Stůl", "Table"),
        column(
            "previous_seq_no",
            "Předchozí hra (seq_no)",
            "Previous hand (seq_no)",
        ),
        column("seq_no", "Hra (seq_no)", "Hand (seq_no)"),
        column("message", "Nesoulad", "Mismatch"),
    ]
};

/// The fantasy-land audit as a sheet for people: one line per deal that does not follow from
/// the hand before it.
pub fn sheet(
    audit: &FantasyAudit,
    _plans: &PlanBook,
    _language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let seq = |n: u64| Cell::Count(i64::try_from(n).unwrap_or(i64::MAX));
    let rows = audit
        .mismatches
        .iter()
        .map(|m| {
            vec![
                Cell::Day(audit.gaming_day),
                Cell::Text(m.table_id.clone()),
                seq(m.previous_seq_no),
                seq(m.seq_no),
                Cell::Text(m.message.clone()),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("Fantasy Land {}", audit.gaming_day),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
