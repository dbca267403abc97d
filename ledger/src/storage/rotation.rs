//! Handing the log to another operator key (and perhaps origin): the `log_rotated` registry
//! event signed by the key that holds the log, and the checkpoint of the tree that ends with it,
//! signed by that key and naming the next one for the witnesses — appended under the append lock
//! in one transaction. Which key holds the log is read from these events (see [`super::tenures`]).

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::checkpoints::{self, CheckpointRow};
use super::columns::insert_row;
use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event};
use super::schema::checkpoints as checkpoint_rows;
use crate::error::LedgerError;
use dozor_log::checkpoint::{Checkpoint, NoteSigner, NoteVerifier};
use dozor_log::registry_event::RegistryEvent;

/// What is read of the rotations, where callers outside the ledger have always found it.
pub use super::tenures::{
    check_holder, operator_chain, rotation_checkpoint_after, rotations, StoredRotation, Tenures,
};

/// Where a rotation went: the event's index and the checkpoint naming the next key.
#[derive(Debug, Clone)]
pub struct RotationReceipt {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    pub checkpoint: CheckpointRow,
}

/// Hands the log from `current` (which must hold it) to `next`: appends the `log_rotated`
/// event signed by `current`, then stores the checkpoint of the tree ending with it, signed by
/// `current` with the rotation extension naming `next`.
pub fn rotate(
    conn: &mut PgConnection,
    current: &NoteSigner,
    next: &NoteVerifier,
    reason: &str,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<RotationReceipt, LedgerError> {
    if reason.trim().is_empty() {
        return Err(LedgerError::key("a rotation needs a reason".into()));
    }
    if next.key == current.verifier().key {
        return Err(LedgerError::key(
            "the new key is the key that holds the log".into(),
        ));
    }
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        checkpoints::check_signer(conn, current)?;
        operator_chain(conn, &current.verifier())?;
        let event = RegistryEvent::LogRotated {
            previous: last_registry_event(conn)?,
            from_key: current.verifier().to_string(),
            to_key: next.to_string(),
            reason: reason.to_owned(),
            actor: actor.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, current.signing_key())?;
        let size = receipt.index + 1;
        let root = super::tree::root(conn, size).map_err(LedgerError::from)?;
        let body = Checkpoint {
            origin: current.name().to_owned(),
            size,
            root,
        };
        let note = current.sign(&body.rotation_text(next))?;
        let row = CheckpointRow {
            size: i64::try_from(size).map_err(|_| LedgerError::OutOfRange {
                what: "tree size",
                value: i128::from(size),
            })?,
            root: root.to_vec(),
            note,
            verifier_key: current.verifier().to_string(),
            created_at: receipt.received_at,
        };
        Ok(RotationReceipt {
            index: receipt.index,
            received_at: receipt.received_at,
            checkpoint: insert_row(conn, checkpoint_rows::table, row)?,
        })
    })
}
