//! How far a full walk in the background has come, kept outside the database after each
//! segment so that a walk stopped or killed goes on from there. Kept as a note signed by the
//! operator key: a progress file changed by anyone else (which could skip entries) does not
//! open, and the walk starts over.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::LedgerError;
use dozor_log::checkpoint::{open, NoteSigner, NoteVerifier};
use dozor_log::merkle::{parse_lower_hex, Frontier, Hash};

/// The file in the data directory a walk's progress is kept in.
pub const PROGRESS_FILE: &str = "full-walk.progress";

/// The first line of the progress note.
const ORIGIN: &str = "dozor full walk progress";

/// A walk's progress: where it goes, how far it came, and what it found on the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkProgress {
    /// The signed checkpoint the walk ends at (chosen when it started): its size and root.
    pub target: u64,
    pub target_root: String,
    /// The first stored entry (those before it are archived and walked first).
    pub from: u64,
    /// The next entry to walk.
    pub next: u64,
    /// The leaf hash of entry `next - 1`, and the roots of the tree of `next` entries (largest
    /// first), all lower-case hex.
    pub last_leaf_hash: String,
    pub frontier: Vec<String>,
    pub rounds_readjudicated: u64,
    pub rounds_sharing_an_id: u64,
    /// Signed checkpoints met on the way, with their roots found.
    pub checkpoints_met: u64,
    /// Segments walked (each in a snapshot of its own), and how often the walk went on after a
    /// stop.
    pub segments: u64,
    pub resumed: u64,
    pub started_at: String,
    pub updated_at: String,
}

impl WalkProgress {
    /// The tree of the entries walked and the last one's leaf hash; none if the hex does not
    /// read (a progress file that opens was written by a walk, so it does).
    pub fn tree(&self) -> Option<(Frontier, Hash)> {
        let roots = self
            .frontier
            .iter()
            .map(|r| parse_lower_hex(r))
            .collect::<Option<Vec<Hash>>>()?;
        let frontier = Frontier::from_subtree_roots(self.next, &roots)?;
        Some((frontier, parse_lower_hex(&self.last_leaf_hash)?))
    }

    /// Sets the tree of the entries walked and the last one's leaf hash.
    pub fn set_tree(&mut self, frontier: &Frontier, last_leaf_hash: &Hash) {
        self.next = frontier.size();
        self.frontier = frontier.subtree_roots().iter().map(hex::encode).collect();
        self.last_leaf_hash = hex::encode(last_leaf_hash);
    }

    /// Replaces the progress kept at `path`, signed by `operator`: written whole under another
    /// name, flushed, renamed.
    pub fn write(&self, path: &Path, operator: &NoteSigner) -> Result<(), LedgerError> {
        let json = serde_json::to_string(self)
            .map_err(|e| LedgerError::key(format!("a walk's progress: {e}")))?;
        let note = operator
            .sign(&format!("{ORIGIN}\n{json}\n"))
            .map_err(|e| LedgerError::key(format!("signing a walk's progress: {e}")))?;
        super::files::replace(path, note.as_bytes())
    }

    /// The progress kept at `path`, if there is a file, and whether it opened with the
    /// operator's key `verifier` (`Err` says why not: the walk then starts over).
    pub fn read(
        path: &Path,
        verifier: &NoteVerifier,
    ) -> Result<Option<Result<WalkProgress, String>>, LedgerError> {
        let note = match std::fs::read_to_string(path) {
            Ok(note) => note,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LedgerError::io(format!("{}", path.display()), e)),
        };
        Ok(Some(opened(&note, verifier)))
    }

    /// Removes the progress kept at `path` (the walk ended); none is no error.
    pub fn remove(path: &Path) -> Result<(), LedgerError> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(LedgerError::io(format!("{}", path.display()), e))
            }
            _ => Ok(()),
        }
    }
}

/// The progress a note holds, if it is signed by `verifier` and reads.
fn opened(note: &str, verifier: &NoteVerifier) -> Result<WalkProgress, String> {
    let (text, _) = open(note, std::slice::from_ref(verifier))
        .map_err(|e| format!("not signed by the operator key: {e}"))?;
    let json = text
        .strip_prefix(ORIGIN)
        .and_then(|rest| rest.strip_prefix('\n'))
        .ok_or("not a walk's progress")?;
    let progress: WalkProgress =
        serde_json::from_str(json.trim_end()).map_err(|e| format!("does not read: {e}"))?;
    if progress.tree().is_none() || progress.next > progress.target {
        return Err("its tree does not read".into());
    }
    Ok(progress)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn progress() -> WalkProgress {
        let mut frontier = Frontier::default();
        for leaf in 0u8..5 {
            frontier.push([leaf; 32]);
        }
        let mut progress = WalkProgress {
            target: 9,
            target_root: hex::encode([7u8; 32]),
            from: 0,
            next: 0,
            last_leaf_hash: String::new(),
            frontier: Vec::new(),
            rounds_readjudicated: 3,
            rounds_sharing_an_id: 0,
            checkpoints_met: 1,
            segments: 2,
            resumed: 0,
            started_at: "2026-11-29T00:00:00Z".into(),
            updated_at: "2026-11-29T00:01:00Z".into(),
        };
        progress.set_tree(&frontier, &[4u8; 32]);
        progress
    }

    #[test]
    fn progress_opens_only_with_the_operator_key_and_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(PROGRESS_FILE);
        let key = |seed: u8| ed25519_dalek::SigningKey::from_bytes(&[seed; 32]);
        let operator = NoteSigner::new("dozor.test/operator", key(1)).unwrap();
        let other = NoteSigner::new("dozor.test/operator", key(2)).unwrap();
        let written = progress();
        written.write(&path, &operator).unwrap();
        let read = WalkProgress::read(&path, &operator.verifier()).unwrap();
        assert_eq!(read, Some(Ok(written.clone())));
        // Five leaves: subtrees of 4 and 1.
        assert_eq!(read.unwrap().unwrap().tree().unwrap().0.size(), 5);
        assert!(matches!(
            WalkProgress::read(&path, &other.verifier()).unwrap(),
            Some(Err(_))
        ));
        // A later `next`, written over the signed text, skips entries: it does not open.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"next\":5", "\"next\":8")).unwrap();
        assert!(matches!(
            WalkProgress::read(&path, &operator.verifier()).unwrap(),
            Some(Err(_))
        ));
        WalkProgress::remove(&path).unwrap();
        assert_eq!(
            WalkProgress::read(&path, &operator.verifier()).unwrap(),
            None
        );
        WalkProgress::remove(&path).unwrap();
    }
}
