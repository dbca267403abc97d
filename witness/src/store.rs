//! The witness's state in an embedded store (redb: copy-on-write B-trees, each commit fsynced):
//! each log's latest cosigned checkpoint, every checkpoint it cosigned, and the refused
//! checkpoints that may prove a log misbehaved.
//!
//! Checking a request against the latest checkpoint and recording the new one happen in one
//! write transaction (redb admits one writer at a time), and the cosignature leaves the witness
//! only after that transaction committed: a crash before the commit released nothing, a crash
//! after it left the new size stored. Either way the witness can never cosign a fork.

use std::path::Path;

use dozor_log::checkpoint::NoteVerifier;
use dozor_log::merkle::Hash;
use redb::{ReadableDatabase as _, ReadableTable as _, TableDefinition};
use serde::{Deserialize, Serialize};

/// origin → size (8 bytes, big-endian) ‖ root (32 bytes) ‖ the log's signed note.
const LATEST: TableDefinition<&str, &[u8]> = TableDefinition::new("latest");
/// (origin, size) → the checkpoint note with the witness's cosignature.
const COSIGNED: TableDefinition<(&str, u64), &str> = TableDefinition::new("cosigned");
/// sequence → a refused checkpoint kept as evidence (JSON).
const EVIDENCE: TableDefinition<u64, &str> = TableDefinition::new("evidence");
/// SHA-256 of a refused request (kind, note, old size, proof) → the sequence of its evidence:
/// the same request sent again is kept once.
const EVIDENCE_SEEN: TableDefinition<&[u8], u64> = TableDefinition::new("evidence_seen");
/// origin → (refused notes kept, refused notes only counted once the log's bound was reached).
const EVIDENCE_COUNT: TableDefinition<&str, (u64, u64)> = TableDefinition::new("evidence_count");

/// The most refused checkpoints kept for one log. A log's key can sign forks without end; the
/// first ones prove the misbehaviour, the rest are counted, so the store cannot be filled.
pub const MAX_EVIDENCE_PER_LOG: u64 = 1_000;

/// origin → the verifier key a cosigned rotation handed the log of that origin to.
const HANDED_TO: TableDefinition<&str, &str> = TableDefinition::new("handed_to");
/// verifier key → the size at which a cosigned rotation retired it (8 bytes, big-endian) ‖ the
/// verifier key it handed the log to.
const RETIRED: TableDefinition<&str, &[u8]> = TableDefinition::new("retired");

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the witness store: {0}")]
    Store(String),
    #[error("the witness store holds a malformed record for {0}")]
    Corrupt(String),
}

macro_rules! store_error {
    ($($t:ty),*) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Store(e.to_string())
            }
        }
    )*};
}
store_error!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError
);

/// A log's latest cosigned checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Latest {
    pub size: u64,
    pub root: Hash,
    /// The log's signed note, as it was sent.
    pub note: String,
}

/// The size (8 bytes big-endian) a stored value starts with.
fn size_prefix(bytes: &[u8]) -> Option<u64> {
    bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_be_bytes)
}

impl Latest {
    fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = self.size.to_be_bytes().to_vec();
        bytes.extend_from_slice(&self.root);
        bytes.extend_from_slice(self.note.as_bytes());
        bytes
    }

    fn from_bytes(origin: &str, bytes: &[u8]) -> Result<Latest, StoreError> {
        let corrupt = || StoreError::Corrupt(origin.to_owned());
        let size = size_prefix(bytes).ok_or_else(corrupt)?;
        let root = bytes
            .get(8..40)
            .and_then(|b| Hash::try_from(b).ok())
            .ok_or_else(corrupt)?;
        let note = std::str::from_utf8(&bytes[40..]).map_err(|_| corrupt())?;
        Ok(Latest {
            size,
            root,
            note: note.to_owned(),
        })
    }
}

impl Retirement {
    fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = self.size.to_be_bytes().to_vec();
        bytes.extend_from_slice(self.successor.as_bytes());
        bytes
    }

    fn from_bytes(key: &str, bytes: &[u8]) -> Result<Retirement, StoreError> {
        let corrupt = || StoreError::Corrupt(key.to_owned());
        let size = size_prefix(bytes).ok_or_else(corrupt)?;
        let successor = std::str::from_utf8(&bytes[8..]).map_err(|_| corrupt())?;
        Ok(Retirement {
            size,
            successor: successor.to_owned(),
        })
    }
}

/// A checkpoint, validly signed by its log, that the witness refused because it does not extend
/// the one it had cosigned: a fork (same size, another root) or a tree the proof does not show
/// consistent. Kept for the regulator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub origin: String,
    /// `fork`, `inconsistent`, `after_rotation` (signed by a key a rotation retired, beyond
    /// its last size) or `second_rotation` (a retired key handing the log to another key).
    pub kind: String,
    pub received_at: String,
    pub old_size: u64,
    /// The consistency proof sent, base64 lines.
    pub proof: Vec<String>,
    /// The refused checkpoint, as signed by the log.
    pub note: String,
    /// The witness's latest cosigned checkpoint then.
    pub cosigned_note: String,
    pub why: String,
}

/// A log's key handed to another (a cosigned checkpoint with the rotation extension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handover {
    /// The verifier key that signed the rotation checkpoint, retired from its size on.
    pub from_key: String,
    /// The verifier key (and its name, the origin) that follows the log from that size on.
    pub to_key: NoteVerifier,
}

/// A key retired by a rotation: the size of its last checkpoint and its successor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retirement {
    pub size: u64,
    pub successor: String,
}

/// What a decision on an add-checkpoint sees, read in the same transaction: the log's latest
/// cosigned checkpoint; whether the key that signed the request was retired by a rotation; and,
/// for a rotation to another origin, that origin's latest cosigned checkpoint.
pub struct State {
    pub latest: Option<Latest>,
    pub retired: Option<Retirement>,
    pub successor_latest: Option<Latest>,
}

/// What to do with a log's state, decided on the state read in the same transaction.
pub enum Outcome<R> {
    /// Record `to` as the latest (and `cosigned_note` among those cosigned) and, for a
    /// rotation, the handover (the successor's log starting at `to`), then answer.
    Advance {
        to: Latest,
        cosigned_note: String,
        handover: Option<Box<Handover>>,
        then: R,
    },
    /// Keep `evidence` and answer; the state does not change.
    KeepEvidence { evidence: Box<Evidence>, then: R },
    /// Answer; nothing is written.
    Answer(R),
}

pub struct Store {
    db: redb::Database,
}

/// Keeps a refused checkpoint: once per request, at most [`MAX_EVIDENCE_PER_LOG`] for its log
/// (beyond that it is counted).
fn keep_evidence(txn: &redb::WriteTransaction, evidence: &Evidence) -> Result<(), StoreError> {
    use sha2::{Digest as _, Sha256};
    let mut hasher = Sha256::new();
    for part in [
        &evidence.kind,
        &evidence.note,
        &evidence.old_size.to_string(),
    ]
    .into_iter()
    .chain(&evidence.proof)
    {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let digest = hasher.finalize();
    let mut seen = txn.open_table(EVIDENCE_SEEN)?;
    if seen.get(digest.as_slice())?.is_some() {
        return Ok(());
    }
    let mut counts = txn.open_table(EVIDENCE_COUNT)?;
    let (kept, not_kept) = counts
        .get(evidence.origin.as_str())?
        .map_or((0, 0), |c| c.value());
    if kept >= MAX_EVIDENCE_PER_LOG {
        counts.insert(evidence.origin.as_str(), (kept, not_kept.saturating_add(1)))?;
        return Ok(());
    }
    let mut table = txn.open_table(EVIDENCE)?;
    let next = table.last()?.map_or(0, |(k, _)| k.value() + 1);
    let json = serde_json::to_string(evidence).map_err(|e| StoreError::Store(e.to_string()))?;
    table.insert(next, json.as_str())?;
    seen.insert(digest.as_slice(), next)?;
    counts.insert(evidence.origin.as_str(), (kept + 1, not_kept))?;
    Ok(())
}

impl Store {
    /// Opens the store at `path`, creating it if there is none.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db = redb::Database::create(path)?;
        // Create the tables, so readers never meet a store without them.
        let txn = db.begin_write()?;
        txn.open_table(LATEST)?;
        txn.open_table(COSIGNED)?;
        txn.open_table(EVIDENCE)?;
        txn.open_table(EVIDENCE_SEEN)?;
        txn.open_table(EVIDENCE_COUNT)?;
        txn.open_table(HANDED_TO)?;
        txn.open_table(RETIRED)?;
        txn.commit()?;
        Ok(Store { db })
    }

    /// The latest checkpoint cosigned for `origin`.
    pub fn latest(&self, origin: &str) -> Result<Option<Latest>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(LATEST)?;
        let stored = table.get(origin)?;
        stored
            .map(|v| Latest::from_bytes(origin, v.value()))
            .transpose()
    }

    /// The key a cosigned rotation handed `origin`'s log to, if any.
    pub fn handed_to(&self, origin: &str) -> Result<Option<NoteVerifier>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(HANDED_TO)?;
        let stored = table.get(origin)?;
        stored
            .map(|v| {
                NoteVerifier::parse(v.value()).map_err(|_| StoreError::Corrupt(origin.to_owned()))
            })
            .transpose()
    }

    /// Decides on `origin`'s state (see [`State`]; `signer` is the verifier key that signed the
    /// request, `successor` the origin a rotation in it hands the log to) with `decide`, and
    /// writes what it decided, all in one transaction committed (to disk) before the answer is
    /// returned.
    pub fn update<R>(
        &self,
        origin: &str,
        signer: &str,
        successor: Option<&str>,
        decide: impl FnOnce(State) -> Outcome<R>,
    ) -> Result<R, StoreError> {
        let txn = self.db.begin_write()?;
        let answer = {
            let mut latest = txn.open_table(LATEST)?;
            let read_latest = |table: &redb::Table<&str, &[u8]>, origin: &str| {
                table
                    .get(origin)?
                    .map(|v| Latest::from_bytes(origin, v.value()))
                    .transpose()
            };
            let mut retired = txn.open_table(RETIRED)?;
            let state = State {
                latest: read_latest(&latest, origin)?,
                retired: retired
                    .get(signer)?
                    .map(|v| Retirement::from_bytes(signer, v.value()))
                    .transpose()?,
                successor_latest: match successor.filter(|s| *s != origin) {
                    Some(other) => read_latest(&latest, other)?,
                    None => None,
                },
            };
            match decide(state) {
                Outcome::Advance {
                    to,
                    cosigned_note,
                    handover,
                    then,
                } => {
                    latest.insert(origin, to.to_bytes().as_slice())?;
                    txn.open_table(COSIGNED)?
                        .insert((origin, to.size), cosigned_note.as_str())?;
                    if let Some(handover) = handover.as_deref() {
                        let successor = handover.to_key.to_string();
                        let retirement = Retirement {
                            size: to.size,
                            successor: successor.clone(),
                        };
                        retired
                            .insert(handover.from_key.as_str(), retirement.to_bytes().as_slice())?;
                        let next_origin = handover.to_key.name.as_str();
                        txn.open_table(HANDED_TO)?
                            .insert(next_origin, successor.as_str())?;
                        if next_origin != origin {
                            // The successor's log starts where this one was handed over.
                            latest.insert(next_origin, to.to_bytes().as_slice())?;
                        }
                    }
                    then
                }
                Outcome::KeepEvidence { evidence, then } => {
                    keep_evidence(&txn, &evidence)?;
                    then
                }
                Outcome::Answer(then) => return Ok(then),
            }
        };
        txn.commit()?;
        Ok(answer)
    }

    /// The latest checkpoint cosigned for the log whose origin hashes (SHA-256, hex) to
    /// `origin_hash`, with its cosignature.
    pub fn latest_cosigned_by_hash(&self, origin_hash: &str) -> Result<Option<String>, StoreError> {
        use sha2::{Digest as _, Sha256};
        let txn = self.db.begin_read()?;
        let latest = txn.open_table(LATEST)?;
        for row in latest.iter()? {
            let (origin, value) = row?;
            let origin = origin.value();
            if hex::encode(Sha256::digest(origin.as_bytes())) != origin_hash {
                continue;
            }
            let size = Latest::from_bytes(origin, value.value())?.size;
            let cosigned = txn.open_table(COSIGNED)?;
            let note = cosigned.get((origin, size))?;
            return Ok(note.map(|n| n.value().to_owned()));
        }
        Ok(None)
    }

    /// Every checkpoint cosigned for `origin` (all logs when `None`), by origin and size.
    pub fn cosigned(&self, origin: Option<&str>) -> Result<Vec<(String, u64, String)>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(COSIGNED)?;
        let mut out = Vec::new();
        for row in table.iter()? {
            let (key, note) = row?;
            let (o, size) = key.value();
            if origin.is_none_or(|wanted| wanted == o) {
                out.push((o.to_owned(), size, note.value().to_owned()));
            }
        }
        Ok(out)
    }

    /// How many refused checkpoints of `origin` were not kept because its bound was reached.
    pub fn evidence_not_kept(&self, origin: &str) -> Result<u64, StoreError> {
        let txn = self.db.begin_read()?;
        let counts = txn.open_table(EVIDENCE_COUNT)?;
        let count = counts.get(origin)?.map_or(0, |c| c.value().1);
        Ok(count)
    }

    /// The refused checkpoints kept as evidence, oldest first.
    pub fn evidence(&self) -> Result<Vec<Evidence>, StoreError> {
        let txn = self.db.begin_read()?;
        let table = txn.open_table(EVIDENCE)?;
        let mut out = Vec::new();
        for row in table.iter()? {
            let (key, json) = row?;
            out.push(
                serde_json::from_str(json.value())
                    .map_err(|_| StoreError::Corrupt(format!("evidence {}", key.value())))?,
            );
        }
        Ok(out)
    }
}
