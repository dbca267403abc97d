//! What reports read of the ledger and its derived tables: each function takes typed
//! parameters and gives typed rows; `reports` turns the rows into reports. One file per report
//! area; [`with_archived`] adds the figures kept of archived gaming days to them. Figures a
//! query sums or counts are columns of their own, never read from a verdict's JSON.

pub mod daily;
pub mod day_rounds;
pub mod exact_f64;
pub mod findings;
pub mod inspection;
pub mod mf;
pub mod monthly;
pub mod nightly;
pub mod periods;
pub mod round_sums;
pub mod tables;
pub mod tax;
pub mod wheels;
pub mod with_archived;

/// `a + b` of two sums a report adds, refused on overflow.
pub(crate) fn checked_sum(a: i64, b: i64) -> Result<i64, crate::LedgerError> {
    a.checked_add(b).ok_or(crate::LedgerError::OutOfRange {
        what: "a report's sum",
        value: i128::from(a) + i128::from(b),
    })
}
