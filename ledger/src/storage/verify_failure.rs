//! What a check of the ledger found first: the index it failed at and why.

use serde::Serialize;

/// The first entry (or registry event, row, checkpoint) a check of the ledger refuses.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyFailure {
    pub index: u64,
    pub reason: String,
}
