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

pub use error::LedgerError;
