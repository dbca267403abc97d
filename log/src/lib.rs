//! The log format: what a regulator reads to trust a dozor ledger, with no database, network or
//! async runtime.
//!
//! Entry i is the RFC 8785 canonical JSON of `{index, received_at, prev_hash, envelope}`;
//! its hash is the RFC 6962 leaf hash SHA-256(0x00 ‖ entry), and `prev_hash` of entry i is the
//! hash of entry i−1 (32 zero bytes for entry 0). Checkpoints are C2SP signed notes over the
//! Merkle tree of those hashes.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `rules` only; `verify`, `witness`, `ledger` and
//! the simulator build on it. CI keeps it free of any database, network or async runtime.

pub mod access;
pub mod canonical;
pub mod canonical_scan;
pub mod checkpoint;
pub mod cosignature;
pub mod entry;
pub mod entry_check;
pub mod envelope;
pub mod error;
pub mod json_compare;
pub mod judge;
pub mod keys;
pub mod merkle;
pub mod ordered_pool;
pub mod parallel;
pub mod registration;
pub mod registry_event;
pub mod registry_history;
pub mod resolution_check;
pub mod signature_batch;
mod signed_note;
pub mod strict_signature;
pub mod tiles;
pub mod tlog_witness;

pub use entry::{leaf_hash, Entry, GENESIS_PREV_HASH};
pub use envelope::Envelope;
pub use error::LogError;
