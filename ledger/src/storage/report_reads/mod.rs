//! What reports read of the ledger and its derived tables: each function takes typed
//! parameters and gives typed rows; `reports` turns the rows into reports. One file per report
//! area. Figures a query sums or counts are columns of their own, never read from a verdict's
//! JSON.

pub mod daily;
pub mod day_rounds;
pub mod findings;
pub mod inspection;
pub mod mf;
pub mod monthly;
pub mod nightly;
pub mod periods;
pub mod tables;
pub mod tax;
pub mod wheels;
