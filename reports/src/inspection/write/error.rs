//! What can stop an inspection export.

use std::path::PathBuf;

use chrono::NaiveDate;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("the period must run forwards ({from} .. {to})")]
    BadPeriod { from: NaiveDate, to: NaiveDate },
    #[error("{0} exists and is not empty")]
    NotEmpty(PathBuf),
    #[error("no signed checkpoint covers the period yet; wait for the next checkpoint and retry")]
    NoCheckpoint,
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error(transparent)]
    Report(#[from] crate::ReportError),
    #[error("Merkle tree: {0}")]
    Tree(#[from] ledger::storage::tree::TreeError),
    #[error("a stored checkpoint: {0}")]
    Checkpoint(#[from] dozor_log::checkpoint::NoteError),
    #[error("plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("Merkle node ({level}, {index}) is missing from the stored tree")]
    MissingNode { level: u32, index: u64 },
    #[error("registry event {index}: {reason}")]
    Registry { index: u64, reason: String },
    #[error("the period's entries start at index {first_index}, but the entries below {archived_below} are archived: they are in the inspection export that archived them (`dozor verify` on the database lists it); export a period after them")]
    Archived {
        first_index: u64,
        archived_below: u64,
    },
    #[error("a resolved finding's round is missing from the ledger")]
    MissingResolvedRound,
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}
