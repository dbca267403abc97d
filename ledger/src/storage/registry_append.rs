//! Appending a registry event: signed by the operator key that holds the log, under the append
//! lock the caller took, in the caller's transaction (which has written the event's rows in the
//! registry tables).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;
use serde::Serialize;

use super::columns::to_i64;
use super::entries::{self, EntryParts};
use super::models::LedgerRow;
use super::position::Position;
use super::schema::{ledger_entries, registry_entries};
use crate::error::LedgerError;
use dozor_log::registry_event::RegistryEvent;
use dozor_log::Envelope;

/// Where a registry event went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RegistryReceipt {
    pub index: u64,
    #[serde(serialize_with = "hex_hash")]
    pub entry_hash: [u8; 32],
    pub received_at: DateTime<Utc>,
}

fn hex_hash<S: serde::Serializer>(hash: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(hash))
}

/// Index of the last registry event in the ledger.
pub(crate) fn last_registry_event(conn: &mut PgConnection) -> Result<Option<u64>, LedgerError> {
    let last: Option<i64> = registry_entries::table
        .select(diesel::dsl::max(registry_entries::idx))
        .first(conn)?;
    Ok(last.map(|i| i as u64))
}

/// Appends a registry event signed by `operator` at `position` (the caller holds the lock and
/// has written the event's rows in the registry tables in the same transaction).
pub(crate) fn append_registry_event(
    conn: &mut PgConnection,
    position: &Position,
    event: &RegistryEvent,
    operator: &SigningKey,
) -> Result<RegistryReceipt, LedgerError> {
    super::tenures::check_holder(conn, &operator.verifying_key())?;
    let envelope = Envelope::sign(event.to_record()?, operator)?;
    let canonical = dozor_log::canonical::canonical_text(&envelope.record)?;
    // Made (or refused as too large) before anything of it is written.
    let entry = entries::build(
        position.next_index,
        position.received_at,
        position.prev_hash,
        EntryParts {
            key_id: &envelope.key_id,
            signature: &envelope.signature,
            canonical_record: &canonical,
        },
    )?;
    let span = super::partitions::span(conn)?;
    super::partitions::ensure_room(conn, span, position.next_index, 1)?;
    diesel::insert_into(ledger_entries::table)
        .values(&LedgerRow {
            idx: to_i64("ledger index", position.next_index)?,
            received_at: position.received_at,
            prev_hash: position.prev_hash.to_vec(),
            leaf_hash: entry.hash.to_vec(),
            entry: entry.bytes,
            record_type: event.record_type().to_owned(),
            table_id: event.table_id().map(str::to_owned),
            seq_no: None,
            key_id: envelope.key_id.clone(),
            record_hash: dozor_log::entry::record_hash(canonical.as_bytes()).to_vec(),
        })
        .execute(conn)?;
    let mut frontier = super::tree::frontier(conn, position.next_index)?;
    super::tree::append_nodes(conn, &frontier.push(entry.hash))?;
    Ok(RegistryReceipt {
        index: position.next_index,
        entry_hash: entry.hash,
        received_at: position.received_at,
    })
}
