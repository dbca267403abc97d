//! The rounds of one game around a gaming day, parsed from their ledger entries: for audits that
//! follow a table across rounds (a blackjack shoe, an OFC table's fantasy land), which a round's
//! own verdict cannot.

use chrono::NaiveDate;
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use rules::{GameCode, Round};

use crate::ReportError;

use rules::gaming_day::GamingDayClock;

/// Every `game` round played from the start of the gaming day before `day` to the end of `day`,
/// each with whether it was played in `day` itself.
pub(crate) fn rounds_with_lookback(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
    game: GameCode,
) -> Result<Vec<(Round, bool)>, ReportError> {
    let (start, end) = clock.bounds(day);
    let lookback = clock.bounds(day.pred_opt().unwrap_or(day)).0;
    let entries =
        report_reads::day_rounds::game_rounds(conn, cut, game.as_str(), lookback, start, end)?;
    // Every round here was accepted by ingest, so it parses; anything else is skipped.
    Ok(entries
        .iter()
        .filter_map(|e| {
            let entry = serde_json::from_slice::<serde_json::Value>(&e.entry).ok()?;
            let round = Round::parse(&entry["envelope"]["record"]).ok()?;
            Some((round, e.in_day))
        })
        .collect())
}
