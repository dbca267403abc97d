//! What an append answers for each record.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::ingest::submission::Submission;

/// Proof of acceptance: where the record is in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Receipt {
    pub index: u64,
    pub entry_hash: [u8; 32],
    pub received_at: DateTime<Utc>,
    pub table_id: String,
    pub seq_no: u64,
}

#[derive(Debug, Clone)]
pub enum AppendOutcome {
    /// Newly appended.
    Appended(Receipt),
    /// The same record was appended before; its original receipt.
    AlreadyRecorded(Receipt),
    /// A different record already holds this `(table_id, seq_no)`; logged as a significant event.
    SeqNoConflict { existing: Receipt },
    /// Another round of the table already has this `round_id`; logged as a significant event.
    RoundIdConflict { existing: Receipt, round_id: String },
    /// The signing key is unknown, of another table, or not valid at the time of receipt.
    KeyNotValid { key_id: String, reason: String },
    /// The table posted new limits after the round was judged: nothing was appended; the round
    /// (handed back) must be judged again (ingest does so itself).
    LimitsChanged(Box<Submission>),
}
