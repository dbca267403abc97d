//! Reports over the ledger's derived data: findings and per-game payout/RTP reports.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `ledger` (whose `storage::report_reads` holds
//! every query it runs), `log`, `verify` (the export's format), `rules` and `delivery`; `api`,
//! `bench` and `cli` build on it. It holds no SQL.

pub mod archived;
pub mod chi_square;
pub mod coverage;
pub mod daily;
pub mod day_audit;
mod day_rounds;
pub mod deviation;
pub mod error;

pub mod fantasy;
pub mod findings;
pub mod html;
pub mod inspection;
pub mod mf;
pub mod month_page;
pub mod monthly;
pub mod night_names;
pub mod nightly;
pub mod periods;
pub mod provisional;
pub mod round_layout;
pub mod round_view;
pub mod sheet;
pub mod shoes;
pub mod table_audit;
pub mod tax;
pub mod time_audit;
pub mod wheels;
pub mod words;
pub mod workbench_page;

pub use error::ReportError;
