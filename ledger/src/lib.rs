//! The ledger: canonical signed records, the hash chain, and their PostgreSQL storage.
//!
//! Entry i is the RFC 8785 canonical JSON of `{index, received_at, prev_hash, envelope}`;
//! its hash is the RFC 6962 leaf hash SHA-256(0x00 ‖ entry), and `prev_hash` of entry i is the
//! hash of entry i−1 (32 zero bytes for entry 0).

pub mod error;
pub mod ingest;
pub mod operator_key;
pub mod storage;
pub mod witness;

// The log format lives in `dozor-log` (what a regulator reads needs no database); its modules
// are re-exported so the ledger's users name one crate.
pub use dozor_log::{
    access, canonical, canonical_scan, checkpoint, cosignature, entry, entry_check, envelope,
    json_compare, judge, keys, merkle, parallel, registration, registry_event, registry_history,
    resolution_check, signature_batch, strict_signature, tlog_witness,
};
pub use dozor_log::{leaf_hash, Entry, Envelope, LogError, GENESIS_PREV_HASH};
pub use error::LedgerError;
