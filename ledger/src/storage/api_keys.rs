//! API keys: created and revoked as registry events in the ledger, indexed by the hash of their
//! token for authentication.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;
use thiserror::Error;

use super::actors::check_actor;
use super::columns::{insert_row, to_i64};
use super::models::{ApiKeyRevocationRow, ApiKeyRow};
use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event, RegistryReceipt};
use super::schema::{api_key_revocations, api_keys};
use crate::error::LedgerError;
use dozor_log::access::{api_key_id, validate_key_name, ApiKeySecret, Role};
use dozor_log::entry::{format_time, to_micros};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::KEY_KEEPERS;

#[derive(Debug, Error)]
pub enum ApiKeyError {
    #[error("{0}")]
    InvalidName(String),
    #[error("an API key named `{0}` exists already (names are never reused)")]
    NameTaken(String),
    #[error("the expiry {0} is not in the future")]
    ExpiryPassed(DateTime<Utc>),
    #[error("no API key `{0}`")]
    UnknownKey(String),
    #[error("API key `{0}` is already revoked")]
    AlreadyRevoked(String),
    #[error("a revocation needs a reason and who revoked it: {0}")]
    BadReason(String),
    #[error(transparent)]
    Storage(#[from] LedgerError),
}

crate::error::storage_error_from_diesel!(ApiKeyError);

/// A key to create; its secret is made by the caller (randomness stays outside).
#[derive(Debug, Clone)]
pub struct NewApiKey<'a> {
    pub name: &'a str,
    pub role: Role,
    /// The admin key's name, or `cli:<user>` from the command line.
    pub created_by: &'a str,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A key with its revocation, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRecord {
    pub key: ApiKeyRow,
    pub revocation: Option<ApiKeyRevocationRow>,
}

impl ApiKeyRecord {
    pub fn role(&self) -> Result<Role, LedgerError> {
        Role::parse(&self.key.role).ok_or_else(|| LedgerError::BadStoredValue {
            what: "role",
            owner: format!("API key {}", self.key.key_id),
            value: self.key.role.clone(),
        })
    }
}

/// Creates an API key for the token of `secret`: an operator-signed `api_key_created` entry and
/// its row, in one transaction.
pub fn create_api_key(
    conn: &mut PgConnection,
    operator: &SigningKey,
    new: &NewApiKey<'_>,
    secret: &ApiKeySecret,
    now: DateTime<Utc>,
) -> Result<(ApiKeyRecord, RegistryReceipt), ApiKeyError> {
    validate_key_name(new.name).map_err(ApiKeyError::InvalidName)?;
    let expires_at = new.expires_at.map(to_micros);
    if let Some(e) = expires_at.filter(|e| *e <= now) {
        return Err(ApiKeyError::ExpiryPassed(e));
    }
    let hash = secret.token_hash();
    let key_id = api_key_id(&hash);
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        check_actor(conn, operator, new.created_by, KEY_KEEPERS, &position)?;
        let taken: i64 = api_keys::table
            .filter(api_keys::name.eq(new.name))
            .count()
            .get_result(conn)?;
        if taken > 0 {
            return Err(ApiKeyError::NameTaken(new.name.to_owned()));
        }
        let event = RegistryEvent::ApiKeyCreated {
            previous: last_registry_event(conn)?,
            key_id: key_id.clone(),
            token_sha256: Some(hex::encode(hash)),
            name: new.name.to_owned(),
            role: new.role,
            created_by: new.created_by.to_owned(),
            expires_at: expires_at.map(format_time),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        let row = ApiKeyRow {
            key_id,
            token_sha256: hash.to_vec(),
            name: new.name.to_owned(),
            role: new.role.as_str().to_owned(),
            created_by: new.created_by.to_owned(),
            created_at: position.received_at,
            expires_at,
            ledger_index: to_i64("ledger index", receipt.index)?,
        };
        Ok((
            ApiKeyRecord {
                key: insert_row(conn, api_keys::table, row)?,
                revocation: None,
            },
            receipt,
        ))
    })
}

/// Revokes the key named `key` (its id or its name) from now on: an operator-signed
/// `api_key_revoked` entry and its row.
pub fn revoke_api_key(
    conn: &mut PgConnection,
    operator: &SigningKey,
    key: &str,
    revoked_by: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(ApiKeyRecord, RegistryReceipt), ApiKeyError> {
    if let Some(problem) = dozor_log::access::reason_problem(reason) {
        return Err(ApiKeyError::BadReason(problem));
    }
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        check_actor(conn, operator, revoked_by, KEY_KEEPERS, &position)?;
        let found = find(conn, key)?.ok_or_else(|| ApiKeyError::UnknownKey(key.to_owned()))?;
        if found.revocation.is_some() {
            return Err(ApiKeyError::AlreadyRevoked(found.key.name));
        }
        let event = RegistryEvent::ApiKeyRevoked {
            previous: last_registry_event(conn)?,
            key_id: found.key.key_id.clone(),
            name: found.key.name.clone(),
            revoked_by: revoked_by.to_owned(),
            reason: reason.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, operator)?;
        let revocation = ApiKeyRevocationRow {
            key_id: found.key.key_id.clone(),
            revoked_at: position.received_at,
            revoked_by: revoked_by.to_owned(),
            reason: reason.to_owned(),
            ledger_index: to_i64("ledger index", receipt.index)?,
        };
        Ok((
            ApiKeyRecord {
                key: found.key,
                revocation: Some(insert_row(conn, api_key_revocations::table, revocation)?),
            },
            receipt,
        ))
    })
}

/// The key with this id or name.
pub fn find(conn: &mut PgConnection, key: &str) -> Result<Option<ApiKeyRecord>, LedgerError> {
    Ok(api_keys::table
        .left_join(api_key_revocations::table)
        .filter(api_keys::key_id.eq(key).or(api_keys::name.eq(key)))
        .select((
            ApiKeyRow::as_select(),
            Option::<ApiKeyRevocationRow>::as_select(),
        ))
        .first(conn)
        .optional()?
        .map(|(key, revocation)| ApiKeyRecord { key, revocation }))
}

/// Every key ever created, oldest first.
pub fn list(conn: &mut PgConnection) -> Result<Vec<ApiKeyRecord>, LedgerError> {
    Ok(api_keys::table
        .left_join(api_key_revocations::table)
        .order(api_keys::ledger_index.asc())
        .select((
            ApiKeyRow::as_select(),
            Option::<ApiKeyRevocationRow>::as_select(),
        ))
        .load(conn)?
        .into_iter()
        .map(|(key, revocation)| ApiKeyRecord { key, revocation })
        .collect())
}
