//! PostgreSQL storage of the ledger (diesel). SQL lives here, never in `reports`, the handlers or
//! the CLI: what reports read is in `report_reads`.
//!
//! In layers, each importing only those below it:
//! - below all: the schema and its rows (`schema`, `models`, `columns`), connecting
//!   (`connection`), where the ledger stands and its lock (`position`), the Merkle tree (`tree`),
//!   making an entry (`entries`),
//!   the partitioned ranges (`partitions`), signed checkpoints (`checkpoints`), who holds the log
//!   (`tenures`), the registry events as stored (`registry_log`) and what a check finds
//!   (`verify_failure`);
//! - above them: appending registry events (`registry_append`) and records (`append`), the
//!   registry and its keys, rotation, rollbacks, publications, archives and the reads;
//! - on top: verification (`verify` and the modules it walks with).

mod actors;
pub mod api_keys;
pub mod append;
pub mod archive;
pub mod archived_days;
pub mod checkpoints;
pub mod cluster;
mod columns;
pub mod connection;
mod copy_binary;
pub mod copy_pages;
mod copy_round_ids;
mod copy_verdicts;
pub mod cosignatures;
pub mod database;
pub mod deliveries;
mod derived_check;
pub mod entries;
mod files;
pub mod full_walk;
pub mod full_walk_progress;
pub mod issued;
pub mod models;
pub mod nightly_check;
pub mod packages;
pub mod partitions;
pub mod position;
pub mod published_reports;
pub mod read_cut;
pub mod reads;
pub mod registry;
pub mod registry_append;
pub mod registry_log;
pub mod registry_rows;
pub mod replication;
pub mod report_reads;
pub mod resolutions;
pub mod rollbacks;
pub mod rotation;
pub mod schema;
pub mod tenures;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tiles;
pub mod tree;
pub mod verification_marks;
pub mod verify;
mod verify_archived;
pub mod verify_failure;
mod verify_pages;
pub mod verify_since;

// Where callers outside the ledger have always found them.
pub use connection::{
    connect, migrate, pool, replica_pool, require_migrated, PgConnection, PgPool, PooledPg,
    CONNECTION_WAIT, MIGRATIONS, REPLICA_WAIT,
};
