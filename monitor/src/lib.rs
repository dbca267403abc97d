//! `dozor monitor`: the regulator's program that follows many casinos' ledgers as they publish
//! them (C2SP tlog-tiles), without asking anyone: every checkpoint's signature and witnesses,
//! the tree grown only by appending, every entry and its signature, the registry events in
//! order, every round re-judged by the one judge, the casino's own verdict compared with the
//! monitor's, and the monitor's own tallies per gaming day and game.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `log` and `rules`; of `ledger` only its
//! managed PostgreSQL cluster (`storage::cluster`), never its ledger, the API or the reports.
//! The checks are pure modules (`checkpoint_check`, `tree_check`, `bundle_check`,
//! `verdict_lines`, `tally`); the network (`fetch`) and the state (`store`) are at the edges,
//! and `follow` joins them for one casino, `run` for all of them.

pub mod alerts;
pub mod bundle_check;
pub mod checkpoint_check;
pub mod config;
pub mod consistency;
pub mod error;
pub mod fetch;
pub mod follow;
pub mod follow_bundles;
pub mod http;
pub mod http_config;
pub mod metrics;
pub mod record_runs;
pub mod run;
pub mod step;
pub mod store;
pub mod tally;
pub mod tile_math;
pub mod tree_check;
pub mod verdict_lines;
pub mod view;

#[cfg(test)]
mod test_log;
