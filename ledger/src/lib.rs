//! The ledger: ingest of signed records and the PostgreSQL storage of the log `dozor-log`
//! defines (entries, the hash chain, the Merkle tree, checkpoints, the registry), with what is
//! derived from each round and the database's own verification.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `log` and `rules`; `reports`, `api`, `bench` and
//! `cli` build on it. `storage` is in layers: its bottom (schema, models, connection, position,
//! tree, partitions, checkpoints) imports nothing above it; ingest's own types are in `ingest`.

pub mod cpu_time;
pub mod error;
pub mod ingest;
pub mod operator_key;
pub mod storage;
pub mod throttle;
pub mod tile_publish;
pub mod witness;

pub use error::LedgerError;
