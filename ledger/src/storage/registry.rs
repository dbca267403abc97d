//! Gaming tables and their ed25519 keys (registration, rotation, revocation).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::{SigningKey, VerifyingKey};
use thiserror::Error;

use super::actors::check_actor;
use super::models::{GamingTableRow, KeyRevocationRow, TableKeyRow};
use super::position::{lock_and_position, Position};
use super::registry_append::{append_registry_event, last_registry_event, RegistryReceipt};
use super::schema::{gaming_tables, table_key_revocations, table_keys};
use crate::error::LedgerError;
use dozor_log::entry::{format_time, to_micros};
use dozor_log::keys::{encode_public_key, key_id};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::{LIMITS_BACKDATING_SECONDS, TABLE_KEEPERS};
use rules::TableLimits;

#[derive(Debug, Error)]
pub enum RegistryError {
    #[error("table `{0}` is already registered")]
    TableExists(String),
    #[error("table `{0}` is not registered")]
    UnknownTable(String),
    #[error("key {0} is already registered")]
    KeyExists(String),
    #[error("key {key_id} does not belong to table `{table_id}`")]
    UnknownKey { table_id: String, key_id: String },
    #[error("key {0} is already revoked")]
    AlreadyRevoked(String),
    #[error("a table may not use the operator's key")]
    OperatorKey,
    #[error("a revocation needs a reason: {0}")]
    BadReason(String),
    #[error("{0}")]
    BadEffectiveTime(String),
    #[error(transparent)]
    Storage(#[from] LedgerError),
}

crate::error::storage_error_from_diesel!(RegistryError);

/// A table with its whole key history.
#[derive(Debug, Clone)]
pub struct TableWithKeys {
    pub table: GamingTableRow,
    pub keys: Vec<(TableKeyRow, Option<KeyRevocationRow>)>,
}

pub struct NewTable<'a> {
    pub table_id: &'a str,
    pub game: &'a str,
    pub location: &'a str,
    pub plan_id: &'a str,
    /// A money wheel's segment labels in physical order (checked against the plan by the caller).
    pub wheel_layout: Option<&'a [String]>,
    /// From when the table plays under dozor (its first key's `valid_from`); the registration's
    /// receipt time if `None`. Records played earlier are refused.
    pub plays_from: Option<DateTime<Utc>>,
    /// The limits the table posts from then on (checked against the plan by the caller).
    pub limits: Option<&'a TableLimits>,
}

/// A unique violation means the thing exists already: `conflict`; anything else stays a
/// storage error.
fn unique_or(conflict: RegistryError) -> impl FnOnce(diesel::result::Error) -> RegistryError {
    move |e| match e {
        diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        ) => conflict,
        other => other.into(),
    }
}

/// Registers a table and its first key, valid from `table.plays_from` (the registration's
/// receipt time if not given); the registration is a ledger entry signed by `operator`.
pub fn register_table(
    conn: &mut PgConnection,
    operator: &SigningKey,
    table: NewTable<'_>,
    key: &VerifyingKey,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(TableWithKeys, RegistryReceipt), RegistryError> {
    not_the_operator(operator, key)?;
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        check_actor(conn, operator, actor, TABLE_KEEPERS, &position)?;
        let at = position.received_at;
        let row = GamingTableRow {
            table_id: table.table_id.to_owned(),
            game: table.game.to_owned(),
            location: table.location.to_owned(),
            plan_id: table.plan_id.to_owned(),
            registered_at: at,
            wheel_layout: table.wheel_layout.map(<[String]>::to_vec),
        };
        diesel::insert_into(gaming_tables::table)
            .values(&row)
            .execute(conn)
            .map_err(unique_or(RegistryError::TableExists(
                table.table_id.to_owned(),
            )))?;
        let plays_from = table.plays_from.map_or(at, to_micros);
        let key_row = insert_key(conn, table.table_id, key, plays_from, at)?;
        let event = RegistryEvent::TableRegistered {
            table_id: row.table_id,
            previous: last_registry_event(conn)?,
            game: row.game,
            location: row.location,
            plan_id: row.plan_id,
            wheel_layout: row.wheel_layout,
            limits: table.limits.cloned().map(Box::new),
            key_id: key_row.key_id,
            public_key: encode_public_key(key),
            valid_from: format_time(plays_from),
            actor: Some(actor.to_owned()),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        let found = find_table(conn, table.table_id)?
            .ok_or_else(|| RegistryError::UnknownTable(table.table_id.to_owned()))?;
        Ok((found, receipt))
    })
}

/// Refuses a reason that cannot be kept (see [`dozor_log::access::reason_problem`]).
fn check_reason(reason: &str) -> Result<(), RegistryError> {
    match dozor_log::access::reason_problem(reason) {
        Some(problem) => Err(RegistryError::BadReason(problem)),
        None => Ok(()),
    }
}

fn not_the_operator(operator: &SigningKey, key: &VerifyingKey) -> Result<(), RegistryError> {
    if operator.verifying_key() == *key {
        return Err(RegistryError::OperatorKey);
    }
    Ok(())
}

fn insert_key(
    conn: &mut PgConnection,
    table_id: &str,
    key: &VerifyingKey,
    valid_from: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<TableKeyRow, RegistryError> {
    let row = TableKeyRow {
        key_id: key_id(key),
        table_id: table_id.to_owned(),
        public_key: key.as_bytes().to_vec(),
        valid_from,
        registered_at: now,
    };
    diesel::insert_into(table_keys::table)
        .values(&row)
        .execute(conn)
        .map_err(unique_or(RegistryError::KeyExists(row.key_id.clone())))?;
    Ok(row)
}

/// Adds a key to a table (rotation); the old keys stay valid until revoked. A ledger entry
/// signed by `operator`.
pub fn add_key(
    conn: &mut PgConnection,
    operator: &SigningKey,
    table_id: &str,
    key: &VerifyingKey,
    valid_from: DateTime<Utc>,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(TableKeyRow, RegistryReceipt), RegistryError> {
    not_the_operator(operator, key)?;
    conn.transaction(|conn| {
        let position = lock_for_table_change(conn, operator, actor, table_id, now)?;
        let valid_from = to_micros(valid_from);
        let row = insert_key(conn, table_id, key, valid_from, position.received_at)?;
        let event = RegistryEvent::TableKeyAdded {
            table_id: table_id.to_owned(),
            previous: last_registry_event(conn)?,
            key_id: row.key_id.clone(),
            public_key: encode_public_key(key),
            valid_from: format_time(valid_from),
            actor: Some(actor.to_owned()),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        Ok((row, receipt))
    })
}

/// Takes the append lock for a change of the registered table `table_id` by `actor`, who must
/// be one who keeps tables.
fn lock_for_table_change(
    conn: &mut PgConnection,
    operator: &SigningKey,
    actor: &str,
    table_id: &str,
    now: DateTime<Utc>,
) -> Result<Position, RegistryError> {
    let position = lock_and_position(conn, now)?;
    check_actor(conn, operator, actor, TABLE_KEEPERS, &position)?;
    if find_table(conn, table_id)?.is_none() {
        return Err(RegistryError::UnknownTable(table_id.to_owned()));
    }
    Ok(position)
}

/// New posted limits of a table, as asked for (checked against the plan by the caller).
#[derive(Debug, Clone, Copy)]
pub struct LimitsChange<'a> {
    pub table_id: &'a str,
    pub limits: &'a TableLimits,
    /// From when they are in force; the change's receipt time if `None`. Never more than
    /// [`LIMITS_BACKDATING_SECONDS`] before it.
    pub effective_from: Option<DateTime<Utc>>,
    pub reason: &'a str,
}

/// Records a table's new posted limits: a ledger entry signed by `operator`, naming `actor`.
/// Rounds appended after it and played from `effective_from` on are judged by them.
pub fn set_limits(
    conn: &mut PgConnection,
    operator: &SigningKey,
    change: LimitsChange<'_>,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(DateTime<Utc>, RegistryReceipt), RegistryError> {
    check_reason(change.reason)?;
    conn.transaction(|conn| {
        let position = lock_for_table_change(conn, operator, actor, change.table_id, now)?;
        let at = position.received_at;
        let effective_from = change.effective_from.map_or(at, to_micros);
        if effective_from < at - chrono::Duration::seconds(LIMITS_BACKDATING_SECONDS) {
            return Err(RegistryError::BadEffectiveTime(format!(
                "effective_from {} is more than {LIMITS_BACKDATING_SECONDS} s before now ({}): posted limits cannot be changed after the rounds they would judge",
                format_time(effective_from),
                format_time(at)
            )));
        }
        let event = RegistryEvent::TableLimitsSet {
            table_id: change.table_id.to_owned(),
            previous: last_registry_event(conn)?,
            limits: Box::new(change.limits.clone()),
            effective_from: format_time(effective_from),
            reason: change.reason.to_owned(),
            actor: actor.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        Ok((effective_from, receipt))
    })
}

/// A table key's revocation, as asked for.
#[derive(Debug, Clone, Copy)]
pub struct KeyRevocation<'a> {
    pub table_id: &'a str,
    pub key_id: &'a str,
    /// Records the key signs received from then on are rejected.
    pub revoked_at: DateTime<Utc>,
    pub reason: &'a str,
}

/// Revokes a key from `revoked_at` on: records it signs received after that are rejected. A
/// ledger entry signed by `operator`, naming `actor`; it counts for entries after it in the
/// ledger.
pub fn revoke_key(
    conn: &mut PgConnection,
    operator: &SigningKey,
    revocation: KeyRevocation<'_>,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(KeyRevocationRow, RegistryReceipt), RegistryError> {
    let KeyRevocation {
        table_id,
        key_id: key,
        revoked_at,
        reason,
    } = revocation;
    check_reason(reason)?;
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        check_actor(conn, operator, actor, TABLE_KEEPERS, &position)?;
        let owner: Option<String> = table_keys::table
            .find(key)
            .select(table_keys::table_id)
            .first(conn)
            .optional()?;
        if owner.as_deref() != Some(table_id) {
            return Err(RegistryError::UnknownKey {
                table_id: table_id.to_owned(),
                key_id: key.to_owned(),
            });
        }
        let row = KeyRevocationRow {
            key_id: key.to_owned(),
            revoked_at: to_micros(revoked_at),
            reason: reason.to_owned(),
            recorded_at: position.received_at,
        };
        diesel::insert_into(table_key_revocations::table)
            .values(&row)
            .execute(conn)
            .map_err(unique_or(RegistryError::AlreadyRevoked(key.to_owned())))?;
        let event = RegistryEvent::TableKeyRevoked {
            table_id: table_id.to_owned(),
            previous: last_registry_event(conn)?,
            key_id: key.to_owned(),
            revoked_at: format_time(row.revoked_at),
            reason: reason.to_owned(),
            actor: Some(actor.to_owned()),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        Ok((row, receipt))
    })
}

pub fn find_table(
    conn: &mut PgConnection,
    table_id: &str,
) -> Result<Option<TableWithKeys>, RegistryError> {
    let Some(table) = gaming_tables::table
        .find(table_id)
        .select(GamingTableRow::as_select())
        .first(conn)
        .optional()?
    else {
        return Ok(None);
    };
    let keys = table_keys::table
        .left_join(table_key_revocations::table)
        .filter(table_keys::table_id.eq(table_id))
        .order(table_keys::valid_from.asc())
        .select((
            TableKeyRow::as_select(),
            Option::<KeyRevocationRow>::as_select(),
        ))
        .load(conn)?;
    Ok(Some(TableWithKeys { table, keys }))
}

pub fn list_tables(conn: &mut PgConnection) -> Result<Vec<TableWithKeys>, RegistryError> {
    let ids: Vec<String> = gaming_tables::table
        .select(gaming_tables::table_id)
        .order(gaming_tables::table_id.asc())
        .load(conn)?;
    let mut tables = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(t) = find_table(conn, &id)? {
            tables.push(t);
        }
    }
    Ok(tables)
}

/// A key as ingest needs it: its table, public key and validity window.
#[derive(Debug, Clone)]
pub struct KeyValidity {
    pub key_id: String,
    pub table_id: String,
    pub public_key: VerifyingKey,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

impl KeyValidity {
    pub fn valid_at(&self, t: DateTime<Utc>) -> bool {
        self.valid_from <= t && self.revoked_at.is_none_or(|r| t < r)
    }
}

fn validity(
    key: TableKeyRow,
    revocation: Option<KeyRevocationRow>,
) -> Result<KeyValidity, LedgerError> {
    let bad_key = || LedgerError::BadStoredValue {
        what: "public key",
        owner: format!("table key {}", key.key_id),
        value: hex::encode(&key.public_key),
    };
    let bytes: [u8; 32] = key
        .public_key
        .as_slice()
        .try_into()
        .map_err(|_| bad_key())?;
    let public_key = VerifyingKey::from_bytes(&bytes).map_err(|_| bad_key())?;
    Ok(KeyValidity {
        key_id: key.key_id,
        table_id: key.table_id,
        public_key,
        valid_from: key.valid_from,
        revoked_at: revocation.map(|r| r.revoked_at),
    })
}

/// Looks up keys by id, with their revocation if any.
pub fn keys_by_id(conn: &mut PgConnection, ids: &[&str]) -> Result<Vec<KeyValidity>, LedgerError> {
    let rows: Vec<(TableKeyRow, Option<KeyRevocationRow>)> = table_keys::table
        .left_join(table_key_revocations::table)
        .filter(table_keys::key_id.eq_any(ids))
        .select((
            TableKeyRow::as_select(),
            Option::<KeyRevocationRow>::as_select(),
        ))
        .load(conn)?;
    rows.into_iter().map(|(k, r)| validity(k, r)).collect()
}

/// Every key ever registered, for a full verification walk.
pub fn all_keys(conn: &mut PgConnection) -> Result<Vec<KeyValidity>, LedgerError> {
    key_rows(conn)?
        .into_iter()
        .map(|(k, r)| validity(k, r))
        .collect()
}

/// Every table key row, with its revocation row if it has one.
pub(crate) fn key_rows(
    conn: &mut PgConnection,
) -> Result<Vec<(TableKeyRow, Option<KeyRevocationRow>)>, LedgerError> {
    Ok(table_keys::table
        .left_join(table_key_revocations::table)
        .select((
            TableKeyRow::as_select(),
            Option::<KeyRevocationRow>::as_select(),
        ))
        .load(conn)?)
}
