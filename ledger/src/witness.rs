//! A checkpoint witness: every checkpoint the server signs is also appended to a file the
//! database's owner does not control (another disk, a mount of the inspector's, a log shipped
//! off the machine). A superuser who removes the ledger's tail, its Merkle nodes **and** the
//! checkpoint rows that cover it leaves a consistent smaller ledger in the database; the witness
//! still holds the larger checkpoint, so `serve` refuses to start and `verify --witness` names
//! the rollback.
//!
//! Format: one JSON object per line, `{"size", "created_at", "note"}`, the note being the signed
//! C2SP checkpoint exactly as stored.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::LedgerError;
use crate::storage::issued::IssuedCheckpoint;
use dozor_log::checkpoint::{open, Checkpoint, NoteVerifier};

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    size: u64,
    created_at: DateTime<Utc>,
    note: String,
}

/// The witness file of a server.
#[derive(Debug, Clone)]
pub struct Witness {
    path: PathBuf,
}

fn io(path: &Path, e: std::io::Error) -> LedgerError {
    LedgerError::Witness(format!("{}: {e}", path.display()))
}

impl Witness {
    pub fn new(path: impl Into<PathBuf>) -> Witness {
        Witness { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a signed checkpoint and waits until it is on disk.
    pub fn record(
        &self,
        size: u64,
        created_at: DateTime<Utc>,
        note: &str,
    ) -> Result<(), LedgerError> {
        let line = serde_json::to_string(&Line {
            size,
            created_at,
            note: note.to_owned(),
        })
        .map_err(|e| LedgerError::Witness(e.to_string()))?;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| io(&self.path, e))?;
        writeln!(file, "{line}").map_err(|e| io(&self.path, e))?;
        file.sync_data().map_err(|e| io(&self.path, e))
    }

    /// Every witnessed checkpoint, each opened with one of `operators` (its size and origin as
    /// signed), smallest first. A missing file holds none.
    pub fn read(&self, operators: &[NoteVerifier]) -> Result<Vec<IssuedCheckpoint>, LedgerError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(&self.path, e)),
        };
        let mut witnessed = Vec::new();
        for (n, text) in text.lines().enumerate() {
            let at = || format!("{} line {}", self.path.display(), n + 1);
            let line: Line = serde_json::from_str(text)
                .map_err(|e| LedgerError::Witness(format!("{}: {e}", at())))?;
            let (body, _) = open(&line.note, operators)
                .map_err(|e| LedgerError::Witness(format!("{}: {e}", at())))?;
            let checkpoint = Checkpoint::parse(body)
                .map_err(|e| LedgerError::Witness(format!("{}: {e}", at())))?;
            if checkpoint.size != line.size {
                return Err(LedgerError::Witness(format!(
                    "{}: size {} differs from its signed note's {}",
                    at(),
                    line.size,
                    checkpoint.size
                )));
            }
            witnessed.push(IssuedCheckpoint {
                size: checkpoint.size,
                root: checkpoint.root,
                created_at: line.created_at,
                witnessed: true,
            });
        }
        witnessed.sort_by_key(|c| c.size);
        Ok(witnessed)
    }
}
