//! API keys as the registry events give them: created with a role, perhaps expiring, revoked.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::access::{validate_key_name, Role, KEY_KEEPING_ROLES};
use crate::entry::parse_ledger_time;
use crate::registry_event::RegistryEvent;

/// How the command line on the server names itself as the creator or revoker of a key.
pub const CLI_ACTOR: &str = "cli:";

/// How the server's own nightly job names itself as the publisher of the reports it seals.
pub const SCHEDULER_ACTOR: &str = "server:nightly";

/// Who may record an event of some kind: API keys of these roles, the command line on the
/// server, and for publications the server's own nightly job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActorRule {
    pub roles: &'static [Role],
    pub scheduler: bool,
}

/// Who creates and revokes API keys.
pub const KEY_KEEPERS: ActorRule = ActorRule {
    roles: KEY_KEEPING_ROLES,
    scheduler: false,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyRevocation {
    /// Ledger index and time of the revocation event.
    pub index: u64,
    pub revoked_at: DateTime<Utc>,
    pub revoked_by: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricApiKey {
    pub key_id: String,
    /// SHA-256 of the key's token; none for a key created before it was recorded.
    pub token_sha256: Option<[u8; 32]>,
    pub name: String,
    pub role: Role,
    pub created_by: String,
    /// Ledger index and time of the creation event.
    pub index: u64,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revocation: Option<ApiKeyRevocation>,
}

#[derive(Debug, Clone, Default)]
pub struct ApiKeys {
    by_id: HashMap<String, HistoricApiKey>,
    /// Key ids by name (names are unique among all keys ever created).
    names: HashMap<String, String>,
    /// Key ids by the SHA-256 of their token.
    tokens: HashMap<[u8; 32], String>,
}

impl ApiKeys {
    pub(super) fn apply(
        &mut self,
        index: u64,
        received_at: DateTime<Utc>,
        event: &RegistryEvent,
    ) -> Result<(), String> {
        match event {
            RegistryEvent::ApiKeyCreated {
                key_id,
                token_sha256,
                name,
                role,
                created_by,
                expires_at,
                ..
            } => {
                let hex_id = key_id.len() == 16
                    && key_id
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                if !hex_id {
                    return Err(format!(
                        "API key id `{key_id}` is not 8 bytes in lower-case hex"
                    ));
                }
                // Keys created before the token's hash was recorded have none: the verifier
                // accepts their event, the gate does not honour them.
                let token_hash = token_sha256
                    .as_deref()
                    .map(|text| {
                        token_hash_of(text).ok_or_else(|| {
                            format!("API key {key_id}: token_sha256 is not lower-case hex SHA-256")
                        })
                    })
                    .transpose()?;
                if let Some(hash) = &token_hash {
                    if *key_id != crate::access::api_key_id(hash) {
                        return Err(format!(
                            "API key id `{key_id}` is not the first 8 bytes of its token's hash"
                        ));
                    }
                    if self.tokens.contains_key(hash) {
                        return Err(format!("API key {key_id}: its token is another key's"));
                    }
                }
                validate_key_name(name).map_err(|m| format!("API key `{name}`: {m}"))?;
                if self.by_id.contains_key(key_id) {
                    return Err(format!("API key {key_id} is created twice"));
                }
                if self.names.contains_key(name) {
                    return Err(format!("API key name `{name}` is used twice"));
                }
                self.check_actor(created_by, KEY_KEEPERS, index, received_at)
                    .map_err(|m| format!("API key `{name}` created by {m}"))?;
                self.names.insert(name.clone(), key_id.clone());
                if let Some(hash) = token_hash {
                    self.tokens.insert(hash, key_id.clone());
                }
                let expires_at = expires_at.as_deref().map(parse_ledger_time).transpose()?;
                self.by_id.insert(
                    key_id.clone(),
                    HistoricApiKey {
                        key_id: key_id.clone(),
                        token_sha256: token_hash,
                        name: name.clone(),
                        role: *role,
                        created_by: created_by.clone(),
                        index,
                        created_at: received_at,
                        expires_at,
                        revocation: None,
                    },
                );
            }
            RegistryEvent::ApiKeyRevoked {
                key_id,
                name,
                revoked_by,
                reason,
                ..
            } => {
                if reason.trim().is_empty() {
                    return Err(format!("revocation of API key `{name}` without a reason"));
                }
                self.check_actor(revoked_by, KEY_KEEPERS, index, received_at)
                    .map_err(|m| format!("API key `{name}` revoked by {m}"))?;
                let key = self.by_id.get_mut(key_id).ok_or_else(|| {
                    format!("revocation of API key {key_id}, which was never created")
                })?;
                if &key.name != name {
                    return Err(format!(
                        "revocation of API key {key_id} names it `{name}`, but it is `{}`",
                        key.name
                    ));
                }
                if key.revocation.is_some() {
                    return Err(format!("API key `{name}` is revoked twice"));
                }
                key.revocation = Some(ApiKeyRevocation {
                    index,
                    revoked_at: received_at,
                    revoked_by: revoked_by.clone(),
                    reason: reason.clone(),
                });
            }
            _ => return Err("not an API key event".into()),
        }
        Ok(())
    }

    /// Whether `actor` could record an event that `rule` allows at entry `index` received at
    /// `at`: `cli:<user>` (the command line on the server; the first admin key has to come
    /// from somewhere), the server's nightly job where the rule allows it, or the name of an
    /// API key of one of the rule's roles that could act then.
    pub fn check_actor(
        &self,
        actor: &str,
        rule: ActorRule,
        index: u64,
        at: DateTime<Utc>,
    ) -> Result<(), String> {
        if let Some(user) = actor.strip_prefix(CLI_ACTOR) {
            return if user.trim().is_empty() {
                Err(format!("`{actor}`, which names no user"))
            } else {
                Ok(())
            };
        }
        if actor == SCHEDULER_ACTOR {
            return if rule.scheduler {
                Ok(())
            } else {
                Err(format!(
                    "`{actor}`, which records only the reports it publishes"
                ))
            };
        }
        let key = self.by_name(actor).ok_or_else(|| {
            format!("`{actor}`, which is neither `{CLI_ACTOR}<user>` nor an API key")
        })?;
        if !rule.roles.contains(&key.role) {
            let roles: Vec<&str> = rule.roles.iter().map(|r| r.as_str()).collect();
            return Err(format!(
                "`{actor}`, whose role {} may not: this needs the role {}",
                key.role,
                roles.join(" or ")
            ));
        }
        self.acting(&key.key_id, actor, key.role, index, at)
            .map(|_| ())
            .map_err(|m| format!("`{actor}`: {m}"))
    }

    /// The key `key_id`, if it could act at entry `index` received at `at` under the name and
    /// role an event gives it: created earlier, not revoked earlier, not expired.
    pub fn acting(
        &self,
        key_id: &str,
        name: &str,
        role: Role,
        index: u64,
        at: DateTime<Utc>,
    ) -> Result<&HistoricApiKey, String> {
        let key = self
            .by_id
            .get(key_id)
            .filter(|k| k.index < index)
            .ok_or_else(|| format!("API key {key_id} was not created before entry {index}"))?;
        if key.name != name || key.role != role {
            return Err(format!(
                "the entry names API key {key_id} `{name}` ({role}), but it is `{}` ({})",
                key.name, key.role
            ));
        }
        if let Some(r) = key.revocation.as_ref().filter(|r| r.index < index) {
            return Err(format!(
                "API key `{name}` was revoked at entry {} before entry {index}",
                r.index
            ));
        }
        if key.expires_at.is_some_and(|e| e <= at) {
            return Err(format!("API key `{name}` had expired before entry {index}"));
        }
        Ok(key)
    }

    pub fn get(&self, key_id: &str) -> Option<&HistoricApiKey> {
        self.by_id.get(key_id)
    }

    /// The key whose token hashes to `token_sha256`.
    pub fn by_token(&self, token_sha256: &[u8; 32]) -> Option<&HistoricApiKey> {
        self.tokens
            .get(token_sha256)
            .and_then(|id| self.by_id.get(id))
    }

    /// The key named `name`.
    pub fn by_name(&self, name: &str) -> Option<&HistoricApiKey> {
        self.names.get(name).and_then(|id| self.by_id.get(id))
    }

    /// Every key, in the order they were created.
    pub fn all(&self) -> Vec<&HistoricApiKey> {
        let mut keys: Vec<&HistoricApiKey> = self.by_id.values().collect();
        keys.sort_by_key(|k| k.index);
        keys
    }
}

/// A SHA-256 written as 64 lower-case hex digits, as bytes.
fn token_hash_of(text: &str) -> Option<[u8; 32]> {
    let lower_hex =
        text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let bytes = hex::decode(text).ok().filter(|_| lower_hex)?;
    bytes.try_into().ok()
}
