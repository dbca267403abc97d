//! Who records a registry event: checked under the append lock against the ledger's own
//! operator-signed events (never the key rows), by the rule `verify` holds the event to, so the
//! ledger never holds an event its verification would refuse.
//!
//! Only the acting key's own events are read: its creation (found through the `api_keys` row,
//! which serves as an index only — the entry it points to must be an operator-signed creation of
//! a key of that name) and any revocation of it after that. What `verify` does over the whole
//! registry, this does for one key, so a registration or a seal does not hold the append lock
//! for a replay of every registry event.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;

use super::position::Position;
use super::registry_log::signed_event;
use super::schema::{api_keys, registry_entries};
use super::tenures::Tenures;
use crate::error::LedgerError;
use dozor_log::access::Role;
use dozor_log::entry::parse_ledger_time;
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::{ActorRule, ApiKeys, CLI_ACTOR, SCHEDULER_ACTOR};

/// Refuses unless `actor` may record an event of `rule` at `position`.
pub(crate) fn check_actor(
    conn: &mut PgConnection,
    operator: &SigningKey,
    actor: &str,
    rule: ActorRule,
    position: &Position,
) -> Result<(), LedgerError> {
    let refuse = |why: String| LedgerError::ActorNotAllowed {
        actor: actor.to_owned(),
        why: format!("`{actor}` may not do this: {why}"),
    };
    // The command line and the scheduler name no key: the rule alone decides.
    if actor.starts_with(CLI_ACTOR) || actor == SCHEDULER_ACTOR {
        return ApiKeys::default()
            .check_actor(actor, rule, position.next_index, position.received_at)
            .map_err(refuse);
    }
    let operators = Tenures::read(conn, &operator.verifying_key())?;
    let key = match created_key(conn, &operators, actor)? {
        Ok(key) => key,
        Err(why) => return Err(refuse(why)),
    };
    if !rule.roles.contains(&key.role) {
        let roles: Vec<&str> = rule.roles.iter().map(|r| r.as_str()).collect();
        return Err(refuse(format!(
            "its role {} may not: this needs the role {}",
            key.role,
            roles.join(" or ")
        )));
    }
    if key.expires_at.is_some_and(|e| e <= position.received_at) {
        return Err(refuse("the key has expired".into()));
    }
    if let Some(index) = revocation_of(conn, &operators, &key)? {
        return Err(refuse(format!("the key was revoked at entry {index}")));
    }
    Ok(())
}

/// An API key as its operator-signed creation gives it.
struct CreatedKey {
    key_id: String,
    role: Role,
    index: u64,
    expires_at: Option<DateTime<Utc>>,
}

/// The creation event of the key named `name`, checked: the operator signed it and it creates
/// a key of that name.
fn created_key(
    conn: &mut PgConnection,
    operators: &Tenures,
    name: &str,
) -> Result<Result<CreatedKey, String>, LedgerError> {
    let found: Option<(i64, Vec<u8>)> = api_keys::table
        .inner_join(registry_entries::table.on(registry_entries::idx.eq(api_keys::ledger_index)))
        .filter(api_keys::name.eq(name))
        .select((registry_entries::idx, registry_entries::entry))
        .first(conn)
        .optional()?;
    let Some((index, bytes)) = found else {
        return Ok(Err(format!(
            "it is neither `{CLI_ACTOR}<user>` nor an API key"
        )));
    };
    let index = index as u64;
    Ok(
        match signed_event(&bytes, index, &operators.at(index)).map(|signed| signed.event) {
            Ok(RegistryEvent::ApiKeyCreated {
                key_id,
                name: created,
                role,
                expires_at,
                ..
            }) if created == name => expires_at
                .as_deref()
                .map(parse_ledger_time)
                .transpose()
                .map(|expires_at| CreatedKey {
                    key_id,
                    role,
                    index,
                    expires_at,
                }),
            Ok(_) => Err(format!(
                "its key row points at entry {index}, which does not create it"
            )),
            Err(reason) => Err(format!(
                "its creation at entry {index} does not verify: {reason}"
            )),
        },
    )
}

/// The first operator-signed revocation of `key` after its creation, if any.
fn revocation_of(
    conn: &mut PgConnection,
    operators: &Tenures,
    key: &CreatedKey,
) -> Result<Option<u64>, LedgerError> {
    let rows: Vec<(i64, Vec<u8>)> = registry_entries::table
        .filter(registry_entries::seq_no.is_null())
        .filter(registry_entries::idx.gt(key.index as i64))
        .filter(registry_entries::record_type.eq("api_key_revoked"))
        .order(registry_entries::idx.asc())
        .select((registry_entries::idx, registry_entries::entry))
        .load(conn)?;
    Ok(rows.into_iter().find_map(|(index, bytes)| {
        let index = index as u64;
        match signed_event(&bytes, index, &operators.at(index)).map(|signed| signed.event) {
            Ok(RegistryEvent::ApiKeyRevoked { key_id, .. }) if key_id == key.key_id => Some(index),
            _ => None,
        }
    }))
}
