//! Why a publication of tiles stopped.

use std::path::PathBuf;

use crate::error::LedgerError;

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A published file holds other bytes than the ledger gives it: never overwritten.
    #[error("{} is published already with other bytes; published tiles are never rewritten: does the folder hold another ledger's tiles?", path.display())]
    Conflict { path: PathBuf },
    /// The folder's checkpoint does not belong to this ledger as it stands.
    #[error("publish folder: {0}")]
    Folder(String),
    /// A failure a test asked for, after this many files.
    #[error("stopped on purpose after {0} files")]
    Injected(usize),
}
