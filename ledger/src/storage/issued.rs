//! Checkpoints once signed bind the ledger for good: the tree must still have, at each signed
//! size, the signed root. A tree smaller than the largest signed checkpoint is a rollback
//! (entries deleted with their Merkle nodes); another root at a signed size is a rewrite.

use std::collections::{HashMap, VecDeque};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::checkpoints::{self, CheckpointRow};
use super::columns::hash32;
use super::schema::checkpoints as checkpoints_table;
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use dozor_log::checkpoint::{open, Checkpoint, NoteVerifier};
use dozor_log::merkle::{Frontier, Hash};

/// A checkpoint as signed.
#[derive(Debug, Clone)]
pub struct IssuedCheckpoint {
    pub size: u64,
    pub root: Hash,
    pub created_at: DateTime<Utc>,
    /// Read from the witness file (outside the database), not from the checkpoints table.
    pub witnessed: bool,
}

impl IssuedCheckpoint {
    fn describe(&self) -> String {
        let kept = if self.witnessed {
            " (kept in the witness file)"
        } else {
            ""
        };
        format!("a checkpoint signed at {}{kept}", self.created_at)
    }
}

fn opened(
    row: &CheckpointRow,
    operators: &HashMap<String, VerifyingKey>,
    history: &dozor_log::registry_history::RegistryHistory,
) -> Result<IssuedCheckpoint, String> {
    let what = format!(
        "the checkpoint of size {} stored at {}",
        row.size, row.created_at
    );
    let verifier = NoteVerifier::parse(&row.verifier_key).map_err(|e| format!("{what}: {e}"))?;
    if !operators.contains_key(&dozor_log::keys::key_id(&verifier.key)) {
        return Err(format!(
            "{what} is signed by a key that is not an operator key given"
        ));
    }
    history
        .check_checkpoint_signer(&verifier, row.size.max(0) as u64)
        .map_err(|e| format!("{what} is {e}"))?;
    let (text, _) = open(&row.note, &[verifier]).map_err(|e| format!("{what}: {e}"))?;
    let checkpoint = Checkpoint::parse(text).map_err(|e| format!("{what}: {e}"))?;
    if checkpoint.size != row.size as u64 || checkpoint.root.as_slice() != row.root.as_slice() {
        return Err(format!("{what}: its columns differ from its signed note"));
    }
    Ok(IssuedCheckpoint {
        size: checkpoint.size,
        root: checkpoint.root,
        created_at: row.created_at,
        witnessed: false,
    })
}

/// Every stored checkpoint, each signed by one of `operators` that held the log at its size
/// (by `history`'s rotations), smallest first.
pub fn load(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    history: &dozor_log::registry_history::RegistryHistory,
) -> Result<Result<Vec<IssuedCheckpoint>, VerifyFailure>, LedgerError> {
    load_sizes(conn, operators, history, 0..=u64::MAX)
}

/// [`load`], of the checkpoints whose size is in `sizes` only (a walk in segments checks each
/// segment's).
pub fn load_sizes(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    history: &dozor_log::registry_history::RegistryHistory,
    sizes: std::ops::RangeInclusive<u64>,
) -> Result<Result<Vec<IssuedCheckpoint>, VerifyFailure>, LedgerError> {
    let bound = |size: u64| i64::try_from(size).unwrap_or(i64::MAX);
    let rows: Vec<CheckpointRow> = checkpoints_table::table
        .filter(checkpoints_table::size.between(bound(*sizes.start()), bound(*sizes.end())))
        .order(checkpoints_table::size.asc())
        .select(CheckpointRow::as_select())
        .load(conn)?;
    let mut issued = Vec::with_capacity(rows.len());
    for row in &rows {
        match opened(row, operators, history) {
            Ok(c) => issued.push(c),
            Err(reason) => {
                return Ok(Err(VerifyFailure {
                    index: row.size.max(0) as u64,
                    reason,
                }))
            }
        }
    }
    Ok(Ok(issued))
}

/// The issued checkpoints a walk over the entries has still to reach.
#[derive(Debug, Default)]
pub struct PendingCheckpoints(VecDeque<IssuedCheckpoint>);

impl PendingCheckpoints {
    pub fn new(mut issued: Vec<IssuedCheckpoint>) -> Self {
        issued.sort_by_key(|c| c.size);
        PendingCheckpoints(issued.into())
    }

    /// Checks those of the walk's size now (`frontier.size()` entries seen); the first whose
    /// root the entries do not give.
    pub fn reached(&mut self, frontier: &Frontier) -> Result<(), VerifyFailure> {
        while let Some(next) = self.0.front() {
            if next.size > frontier.size() {
                break;
            }
            if next.size == frontier.size() && next.root != frontier.root() {
                return Err(VerifyFailure {
                    index: next.size.saturating_sub(1),
                    reason: format!(
                        "{} for {} entries has another root than the entries give: the first {} entries were rewritten after it was signed",
                        next.describe(), next.size, next.size
                    ),
                });
            }
            self.0.pop_front();
        }
        Ok(())
    }

    /// After the last entry: any checkpoint still pending is larger than the ledger.
    pub fn finish(&self, size: u64) -> Result<(), VerifyFailure> {
        match self.0.back() {
            Some(largest) if largest.size > size => Err(VerifyFailure {
                index: size,
                reason: rollback(largest, size),
            }),
            _ => Ok(()),
        }
    }
}

fn rollback(largest: &IssuedCheckpoint, size: u64) -> String {
    format!(
        "rollback: {} covers {} entries, but the ledger holds {size}: entries were removed after they were signed",
        largest.describe(),
        largest.size
    )
}

/// At start: the ledger is not smaller than the largest checkpoint (of the table, and of the
/// witness file's `witnessed` if one is kept), and the tree has its root at its size. (`verify`
/// checks every checkpoint and its signature.)
pub fn check_not_rolled_back(
    conn: &mut PgConnection,
    witnessed: &[IssuedCheckpoint],
) -> Result<(), LedgerError> {
    let stored = match checkpoints::latest(conn)? {
        Some(latest) => Some(IssuedCheckpoint {
            size: latest.size as u64,
            root: hash32(&latest.root, "checkpoint root")?,
            created_at: latest.created_at,
            witnessed: false,
        }),
        None => None,
    };
    let largest_witnessed = witnessed.iter().max_by_key(|c| c.size).cloned();
    for issued in [stored, largest_witnessed].into_iter().flatten() {
        check_one(conn, &issued)?;
    }
    Ok(())
}

fn check_one(conn: &mut PgConnection, issued: &IssuedCheckpoint) -> Result<(), LedgerError> {
    let size = super::position::size(conn)?;
    if issued.size > size {
        return Err(LedgerError::RolledBack(rollback(issued, size)));
    }
    let root = super::tree::root(conn, issued.size)?;
    if root != issued.root {
        return Err(LedgerError::RolledBack(format!(
            "{} for {} entries has another root than the stored tree: the ledger was rewritten after it was signed",
            issued.describe(),
            issued.size
        )));
    }
    Ok(())
}
