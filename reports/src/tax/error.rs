//! What can go wrong in assessing a quarter's tax.

use chrono::NaiveDate;

use crate::ReportError;

#[derive(Debug, thiserror::Error)]
pub enum TaxError {
    /// The rate table could not be read or is not valid.
    #[error("{origin}: {reason}")]
    Rates { origin: String, reason: String },
    #[error("the rate table `{table}` has no rate for `{category}` on {day} (in {quarter})")]
    NoRate {
        table: String,
        category: String,
        day: NaiveDate,
        quarter: String,
    },
    #[error("game `{0}` in the ledger is in no category of the rate table")]
    UnknownGame(String),
    #[error(transparent)]
    Report(#[from] ReportError),
}
