//! Which operator key holds the log, and which held it before: read from the ledger's
//! `log_rotated` registry events (and the checkpoints that name the next key), never from a row a
//! database role could write alone.

use diesel::prelude::*;

use super::checkpoints::{successor, CheckpointRow};
use super::registry_log::{events_of_type, latest_event_of_type};
use super::schema::checkpoints as checkpoint_rows;
use crate::error::LedgerError;
use dozor_log::checkpoint::NoteVerifier;
use dozor_log::registry_event::RegistryEvent;

/// A recorded rotation, as read back from the ledger (its signature is checked where the
/// registry is followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRotation {
    pub index: u64,
    pub from_key: NoteVerifier,
    pub to_key: NoteVerifier,
}

/// Every `log_rotated` event of the ledger, in order.
pub fn rotations(conn: &mut PgConnection) -> Result<Vec<StoredRotation>, LedgerError> {
    events_of_type(conn, "log_rotated")?
        .into_iter()
        .map(|(idx, entry)| {
            let index = u64::try_from(idx).unwrap_or_default();
            let mislabelled = |found: String| LedgerError::MislabelledEntry {
                index,
                stored: "log_rotated",
                found,
            };
            let RegistryEvent::LogRotated {
                from_key, to_key, ..
            } = RegistryEvent::from_entry(&entry).map_err(mislabelled)?
            else {
                return Err(mislabelled("another registry event".into()));
            };
            let key = |text: &str| {
                NoteVerifier::parse(text).map_err(|e| {
                    LedgerError::key(format!("the rotation at index {index} names `{text}`: {e}"))
                })
            };
            Ok(StoredRotation {
                index,
                from_key: key(&from_key)?,
                to_key: key(&to_key)?,
            })
        })
        .collect()
}

/// The operator keys that held the log, oldest first, ending with `holder`'s: what verifies the
/// registry events and checkpoints signed before the last rotation. Refused when the ledger's
/// rotations do not chain, or hand the log to another key than `holder`.
pub fn operator_chain(
    conn: &mut PgConnection,
    holder: &NoteVerifier,
) -> Result<Vec<NoteVerifier>, LedgerError> {
    let rotations = rotations(conn)?;
    let mut chain: Vec<NoteVerifier> = Vec::with_capacity(rotations.len() + 1);
    for rotation in &rotations {
        if chain.last().is_some_and(|last| *last != rotation.from_key) {
            return Err(LedgerError::key(format!(
                "the rotation at index {} hands over `{}`, which did not hold the log",
                rotation.index, rotation.from_key
            )));
        }
        if chain.is_empty() {
            chain.push(rotation.from_key.clone());
        }
        chain.push(rotation.to_key.clone());
    }
    match chain.last() {
        None => Ok(vec![holder.clone()]),
        Some(last) if last == holder => Ok(chain),
        Some(last) => Err(LedgerError::key(format!(
            "the log was handed to `{last}` (rotation at index {}); the operator key given is `{holder}`",
            rotations.last().map_or(0, |r| r.index)
        ))),
    }
}

/// Which operator key signed the log's registry events where: each key from the entry after
/// the rotation that handed it the log to the rotation that handed it on (inclusive).
#[derive(Debug, Clone)]
pub struct Tenures {
    /// Each key and the index of the rotation that ended its tenure (none: it holds the log).
    keys: Vec<(ed25519_dalek::VerifyingKey, Option<u64>)>,
}

impl Tenures {
    /// The tenures of the keys that held the log up to `holder` (see [`operator_chain`]).
    pub fn read(
        conn: &mut PgConnection,
        holder: &ed25519_dalek::VerifyingKey,
    ) -> Result<Tenures, LedgerError> {
        let rotations = rotations(conn)?;
        let mut keys: Vec<(ed25519_dalek::VerifyingKey, Option<u64>)> = rotations
            .iter()
            .map(|r| (r.from_key.key, Some(r.index)))
            .collect();
        keys.push((*holder, None));
        Ok(Tenures { keys })
    }

    /// The operator key that signs registry event `index`, by key id (as envelopes name it).
    pub fn at(&self, index: u64) -> std::collections::HashMap<String, ed25519_dalek::VerifyingKey> {
        let key = self
            .keys
            .iter()
            .find(|(_, until)| until.is_none_or(|until| index <= until))
            .map(|(key, _)| *key);
        key.into_iter()
            .map(|key| (dozor_log::keys::key_id(&key), key))
            .collect()
    }
}

/// Refuses `operator` unless it holds the log: no rotation handed the log to another key. Asked
/// before every operator-signed append, so a server still running with a key handed over signs
/// nothing more.
pub fn check_holder(
    conn: &mut PgConnection,
    operator: &ed25519_dalek::VerifyingKey,
) -> Result<(), LedgerError> {
    let latest = latest_event_of_type(conn, "log_rotated")?;
    let Some(entry) = latest else {
        return Ok(());
    };
    match RegistryEvent::from_entry(&entry) {
        Ok(RegistryEvent::LogRotated { to_key, .. })
            if NoteVerifier::parse(&to_key).is_ok_and(|k| k.key == *operator) =>
        {
            Ok(())
        }
        Ok(RegistryEvent::LogRotated { to_key, .. }) => Err(LedgerError::key(format!(
            "the log was handed to `{to_key}`; this operator key no longer signs it"
        ))),
        _ => Err(LedgerError::key(
            "the ledger's latest rotation does not read as one".into(),
        )),
    }
}

/// The first checkpoint above `size` that hands the log to another key: what a witness that
/// cosigned `size` is shown before any later checkpoint, so it learns of the rotation from the
/// key that held the log.
pub fn rotation_checkpoint_after(
    conn: &mut PgConnection,
    size: u64,
) -> Result<Option<CheckpointRow>, LedgerError> {
    let rows: Vec<CheckpointRow> = checkpoint_rows::table
        .filter(checkpoint_rows::size.gt(i64::try_from(size).unwrap_or(i64::MAX)))
        .filter(
            checkpoint_rows::note
                .like(format!("%\n{}%", dozor_log::checkpoint::ROTATION_EXTENSION)),
        )
        .order(checkpoint_rows::size.asc())
        .select(CheckpointRow::as_select())
        .load(conn)?;
    for row in rows {
        if successor(&row)?.is_some() {
            return Ok(Some(row));
        }
    }
    Ok(None)
}
