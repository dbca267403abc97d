//! The quarterly gambling tax (daň z hazardních her, zákon č. 187/2016 Sb.) from the ledger.
//!
//! Each category of the rate table is one partial base (dílčí základ daně, § 3): the stakes
//! received less the wins paid and the stakes returned, over the quarter's gaming days. A
//! partial base is the amount by which the stakes exceed the rest, so a negative difference makes
//! a base of zero; the law neither sets it against another base nor carries it into a later
//! quarter (docs/TAX.md). The base is rounded up to whole hundreds of koruny and multiplied by
//! the category's rate (§ 5 odst. 2); the tax is the sum of the partial taxes (§ 5 odst. 1).
//! Rates are data ([`RateTable`]); a quarter in which a category's rate changes is split at the
//! change, each part a base of its own at its own rate.

mod assess;
mod due;
mod error;
mod quarter;
mod rates;
mod report;
mod sheets;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use rules::gaming_day::GamingDayClock;

use crate::ReportError;

pub use assess::{
    assess, round_up, segments, tax_of, GameSums, SegmentSums, BASE_ROUNDING_H, NEGATIVE_BASE_RULE,
    TAX_ROUNDING_H,
};
pub use due::{due_date, easter_sunday, is_public_holiday, is_working_day, next_working_day};
pub use error::TaxError;
pub use quarter::Quarter;
pub use rates::{Category, Rate, RateTable, BUNDLED, MAX_RATE_BP};
pub use report::{CategoryTax, GameLine, PartTax, TaxReport};
pub use sheets::{sheet, to_csv};

/// Every adjudicated record played in `[start, end)`, summed per game. A time collection is a
/// `poker_cash` record whose bets are the players' payments.
fn game_sums(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<BTreeMap<String, GameSums>, ReportError> {
    Ok(
        report_reads::with_archived::game_totals(conn, cut, start, end)?
            .into_iter()
            .map(|r| {
                (
                    r.game,
                    GameSums {
                        counts: r.counts,
                        wins_h: r.wins_h,
                        time_collection_h: r.time_collection_h,
                        tournaments: r.tournaments,
                    },
                )
            })
            .collect(),
    )
}

/// The quarter's tax from the ledger's verdicts, under `rates`.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    quarter: Quarter,
    rates: &RateTable,
) -> Result<TaxReport, TaxError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, quarter, rates)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    quarter: Quarter,
    rates: &RateTable,
) -> Result<TaxReport, TaxError> {
    let mut sums = SegmentSums::new();
    for (first, end) in segments(quarter, rates)? {
        let games = game_sums(conn, cut, clock.start_of(first), clock.start_of(end))?;
        sums.push(((first, end), games));
    }
    let mut report = assess(quarter, clock, rates, &sums)?;
    report.covers = Some(cut.into());
    let (starts_at, ends_at) = quarter.bounds(clock);
    report.archived_days = crate::archived::days_within(conn, cut, starts_at, ends_at)?;
    Ok(report)
}

#[cfg(test)]
mod tests;
