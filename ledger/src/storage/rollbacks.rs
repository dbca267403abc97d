//! A restore to an earlier point, accepted by the operator. A ledger restored from a backup
//! holds fewer entries than checkpoints signed before the restore (kept in the witness file)
//! cover; `serve` refuses it and `verify` names the loss. The operator may accept the loss: a
//! `rollback_accepted` registry event, signed by the key that holds the log and appended as the
//! first entry after the restore, lists the lost checkpoints. From then on those checkpoints no
//! longer bind the ledger; every other signed checkpoint still does, and the acceptance itself
//! stays in the ledger for every verifier to see.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::issued::IssuedCheckpoint;
use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event};
use super::schema::registry_entries;
use crate::error::LedgerError;
use dozor_log::checkpoint::{NoteSigner, NoteVerifier};
use dozor_log::registry_event::{LostCheckpoint, RegistryEvent};
use dozor_log::registry_history::{AcceptedRollback, RegistryHistory};

/// Every accepted rollback of the ledger, in order: those of its registry replayed in full —
/// each event's signature, the operator's tenure from signed rotations, the chain of
/// `previous` — with `operators` the keys that held the log. A `rollback_accepted` row the
/// replay does not honour, or a registry that does not replay, is refused: an acceptance counts
/// only as part of a registry that verifies.
pub fn accepted(
    conn: &mut PgConnection,
    operators: &[NoteVerifier],
) -> Result<Vec<AcceptedRollback>, LedgerError> {
    let stored: Vec<i64> = registry_entries::table
        .filter(registry_entries::record_type.eq("rollback_accepted"))
        .order(registry_entries::idx.asc())
        .select(registry_entries::idx)
        .load(conn)?;
    if stored.is_empty() {
        return Ok(Vec::new());
    }
    let keys: HashMap<String, VerifyingKey> = operators
        .iter()
        .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
        .collect();
    let mut history = RegistryHistory::default();
    if let Err(failure) = super::registry_log::follow(conn, &mut history, &keys)? {
        return Err(LedgerError::RolledBack(format!(
            "the ledger records an accepted rollback, but its registry does not verify at index {}: {}",
            failure.index, failure.reason
        )));
    }
    let honoured = history.accepted_rollbacks();
    for index in stored {
        if !honoured.iter().any(|r| i64::try_from(r.index) == Ok(index)) {
            return Err(LedgerError::RolledBack(format!(
                "entry {index} is stored as an accepted rollback, but no operator-signed registry event there accepts one"
            )));
        }
    }
    Ok(honoured.to_vec())
}

/// The witnessed checkpoints that still bind the ledger: all but those lost in a rollback the
/// operator accepted.
pub fn binding(
    witnessed: Vec<IssuedCheckpoint>,
    rollbacks: &[AcceptedRollback],
) -> Vec<IssuedCheckpoint> {
    witnessed
        .into_iter()
        .filter(|c| !rollbacks.iter().any(|r| r.lost_checkpoint(c.size, &c.root)))
        .collect()
}

/// What an acceptance recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedReceipt {
    /// The event's index: the size the ledger was restored to.
    pub index: u64,
    pub received_at: DateTime<Utc>,
    /// The lost checkpoints, smallest first.
    pub lost: Vec<LostCheckpoint>,
}

/// Accepts that the ledger was restored to an earlier point: the witnessed checkpoints larger
/// than the ledger (and not already accepted as lost) are recorded as lost, in a
/// `rollback_accepted` event signed by `operator`. Refused when there is nothing to accept, when
/// a checkpoint the ledger still covers has another root (a rewrite, not a restore), and when the
/// database's own checkpoints are larger than its entries (entries deleted from this database,
/// not a restore of it).
pub fn accept(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    witnessed: Vec<IssuedCheckpoint>,
    reason: &str,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<AcceptedReceipt, LedgerError> {
    if reason.trim().is_empty() {
        return Err(LedgerError::key(
            "accepting a rollback needs a reason".into(),
        ));
    }
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        super::checkpoints::check_signer(conn, operator)?;
        let size = position.next_index;
        // The database's own checkpoints must still hold: a restore brings them back with the
        // entries they cover.
        super::issued::check_not_rolled_back(conn, &[]).map_err(|e| {
            LedgerError::RolledBack(format!(
                "{e}: the database's own checkpoints are larger than its entries, which no restore leaves; nothing was accepted"
            ))
        })?;
        let operators = super::tenures::operator_chain(conn, &operator.verifier())?;
        let previous = accepted(conn, &operators)?;
        let mut lost: Vec<LostCheckpoint> = Vec::new();
        for checkpoint in binding(witnessed, &previous) {
            if checkpoint.size <= size {
                let root = super::tree::root(conn, checkpoint.size)?;
                if root != checkpoint.root {
                    return Err(LedgerError::RolledBack(format!(
                        "the witnessed checkpoint of {} entries has another root than the ledger: its entries were rewritten, which accepting a rollback does not excuse",
                        checkpoint.size
                    )));
                }
                continue;
            }
            let entry = LostCheckpoint {
                size: checkpoint.size,
                root: hex::encode(checkpoint.root),
            };
            if !lost.contains(&entry) {
                lost.push(entry);
            }
        }
        if lost.is_empty() {
            return Err(LedgerError::key(format!(
                "no rollback to accept: no witnessed checkpoint is larger than the ledger's {size} entries"
            )));
        }
        lost.sort_by(|a, b| (a.size, &a.root).cmp(&(b.size, &b.root)));
        let event = RegistryEvent::RollbackAccepted {
            previous: last_registry_event(conn)?,
            restored_size: size,
            restored_root: hex::encode(super::tree::root(conn, size)?),
            lost: lost.clone(),
            reason: reason.to_owned(),
            actor: actor.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, operator.signing_key())?;
        Ok(AcceptedReceipt {
            index: receipt.index,
            received_at: receipt.received_at,
            lost,
        })
    })
}
