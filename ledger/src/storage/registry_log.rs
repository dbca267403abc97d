//! The registry as the ledger holds it: the operator-signed registry events, read in order and
//! applied to a [`RegistryHistory`]. Who may sign for a table comes from here, never from the
//! `table_keys` rows, which anyone with the writer role could add to.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::models::LedgerRow;
use super::schema::registry_entries;
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use dozor_log::entry_check::{check_entry, Signers, Subject};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;

/// Applies to `history` the registry events after its last one, each checked, signed by one of
/// `operators` and consistent with those before it; their indexes. On the first that is not,
/// `history` keeps the events before it.
pub fn follow(
    conn: &mut PgConnection,
    history: &mut RegistryHistory,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Result<Vec<u64>, VerifyFailure>, LedgerError> {
    let rows = events_after(conn, history.last_event())?;
    Ok(apply(history, &rows, operators))
}

/// The stored registry events after ledger index `after` (all of them for none), in order.
pub fn events_after(
    conn: &mut PgConnection,
    after: Option<u64>,
) -> Result<Vec<LedgerRow>, LedgerError> {
    let after = after.map_or(-1, |i| i as i64);
    Ok(registry_entries::table
        .filter(registry_entries::seq_no.is_null())
        .filter(registry_entries::idx.gt(after))
        .order(registry_entries::idx.asc())
        .select(registry_entries::all_columns)
        .load(conn)?)
}

/// The stored registry events of `record_type`, as `(index, entry)` in ledger order.
pub(crate) fn events_of_type(
    conn: &mut PgConnection,
    record_type: &str,
) -> Result<Vec<(i64, Vec<u8>)>, LedgerError> {
    Ok(registry_entries::table
        .filter(registry_entries::record_type.eq(record_type))
        .order(registry_entries::idx.asc())
        .select((registry_entries::idx, registry_entries::entry))
        .load(conn)?)
}

/// The entry of the latest stored registry event of `record_type`, if there is one.
pub(crate) fn latest_event_of_type(
    conn: &mut PgConnection,
    record_type: &str,
) -> Result<Option<Vec<u8>>, LedgerError> {
    Ok(registry_entries::table
        .filter(registry_entries::record_type.eq(record_type))
        .order(registry_entries::idx.desc())
        .select(registry_entries::entry)
        .first(conn)
        .optional()?)
}

/// Applies `rows` (registry events in ledger order) to `history`, skipping those it holds
/// already; the indexes applied, or the first that does not verify.
pub fn apply(
    history: &mut RegistryHistory,
    rows: &[LedgerRow],
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Vec<u64>, VerifyFailure> {
    let known = history.last_event();
    let mut indexes = Vec::with_capacity(rows.len());
    for row in rows
        .iter()
        .filter(|r| known.is_none_or(|k| r.idx as u64 > k))
    {
        let index = row.idx as u64;
        if let Err(reason) = signed_event(&row.entry, index, operators).and_then(|signed| {
            history.apply(index, signed.received_at, &signed.signer, &signed.event)
        }) {
            return Err(VerifyFailure { index, reason });
        }
        indexes.push(index);
    }
    Ok(indexes)
}

/// A registry event as stored, its signature verified.
pub(crate) struct SignedEvent {
    pub received_at: DateTime<Utc>,
    /// Key id of the operator key that signed it.
    pub signer: String,
    pub event: RegistryEvent,
}

/// The registry event stored as entry `index`, when it was received and who signed it: the
/// entry checked, its record a registry event, signed by one of `operators`.
pub(crate) fn signed_event(
    bytes: &[u8],
    index: u64,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<SignedEvent, String> {
    let none = RegistryHistory::default();
    let signers = Signers {
        operators,
        tables: &none,
    };
    let not_registry = || "stored without a sequence number but not a registry event".to_owned();
    let entry = check_entry(bytes, index, signers)?;
    if !matches!(entry.subject, Subject::Registry(_)) {
        return Err(not_registry());
    }
    entry.verify_signature()?;
    match entry.subject {
        Subject::Registry(event) => Ok(SignedEvent {
            received_at: entry.received_at,
            signer: entry.key_id.to_owned(),
            event,
        }),
        _ => Err(not_registry()),
    }
}

/// When each table's posted limits first took effect, as the registry events received before
/// `before` give it; tables that post none are absent. For reports, which name the tables
/// judged by the plan's limits alone (verification checks the events themselves).
pub fn limits_posted_from(
    conn: &mut PgConnection,
    before: DateTime<Utc>,
) -> Result<HashMap<String, DateTime<Utc>>, LedgerError> {
    let entries: Vec<Vec<u8>> = registry_entries::table
        .filter(registry_entries::seq_no.is_null())
        .filter(registry_entries::record_type.eq_any(["table_registered", "table_limits_set"]))
        .filter(registry_entries::received_at.lt(before))
        .order(registry_entries::idx.asc())
        .select(registry_entries::entry)
        .load(conn)?;
    let mut posted: HashMap<String, DateTime<Utc>> = HashMap::new();
    for entry in entries {
        let (table_id, from) = match RegistryEvent::from_entry(&entry) {
            Ok(RegistryEvent::TableRegistered {
                table_id,
                limits: Some(_),
                valid_from,
                ..
            }) => (table_id, valid_from),
            Ok(RegistryEvent::TableLimitsSet {
                table_id,
                effective_from,
                ..
            }) => (table_id, effective_from),
            _ => continue,
        };
        if let Ok(from) = dozor_log::entry::parse_ledger_time(&from) {
            let earliest = posted.entry(table_id).or_insert(from);
            *earliest = (*earliest).min(from);
        }
    }
    Ok(posted)
}
