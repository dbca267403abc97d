//! Where a night's reports are named in the ledger and kept under the data directory: the
//! nightly job writes them there, the archive and the inspection export look them up.

use chrono::NaiveDate;
use dozor_verify::format::NIGHTLY_PREFIX;

/// The file whose seal marks a night as done.
pub const SUMMARY: &str = "night.json";

/// The folder (and ledger name prefix) of one night's reports.
pub fn night_prefix(day: NaiveDate) -> String {
    format!("{NIGHTLY_PREFIX}{day}/")
}

/// The ledger name of the summary whose seal marks the night of gaming day `day` as done.
pub fn summary_name(day: NaiveDate) -> String {
    format!("{}{SUMMARY}", night_prefix(day))
}
