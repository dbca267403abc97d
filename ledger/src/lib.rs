//! The ledger: canonical signed records, the hash chain, and their PostgreSQL storage.
//!
//! Entry i is the RFC 8785 canonical JSON of `{index, received_at, prev_hash, envelope}`;
//! its hash is the RFC 6962 leaf hash SHA-256(0x00 ‖ entry), and `prev_hash` of entry i is the
//! hash of entry i−1 (32 zero bytes for entry 0).

pub mod access;
pub mod canonical;
pub mod canonical_scan;
pub mod checkpoint;
pub mod entry;
pub mod entry_check;
pub mod envelope;
pub mod error;
pub mod ingest;
pub mod json_compare;
pub mod keys;
pub mod merkle;
pub mod operator_key;
pub mod parallel;
pub mod registration;
pub mod registry_event;
pub mod registry_history;
pub mod resolution_check;
pub mod signature_batch;
pub mod storage;
pub mod witness;

pub use entry::{leaf_hash, Entry, GENESIS_PREV_HASH};
pub use envelope::Envelope;
pub use error::LedgerError;
