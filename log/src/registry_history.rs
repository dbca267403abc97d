//! What the registry events of the ledger say: which table key was valid for which entry, which
//! API keys existed with which roles, and how each resolved finding was decided.
//!
//! A key counts for an entry only if the event adding it comes earlier in the ledger, and a
//! revocation counts only if its event comes earlier too: exactly what ingest enforced when the
//! entry was appended, since registry events and records are appended under the same lock.

mod api_keys;
mod resolutions;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;

use crate::checkpoint::NoteVerifier;
use crate::entry::{parse_ledger_time, KeyWindow};
use crate::keys::{key_id, parse_public_key};
use crate::registry_event::RegistryEvent;
pub use api_keys::{
    ActorRule, ApiKeyRevocation, ApiKeys, HistoricApiKey, CLI_ACTOR, KEY_KEEPERS, SCHEDULER_ACTOR,
};
pub use resolutions::{RecordedResolution, Resolutions};
use rules::TableLimits;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredTable {
    pub table_id: String,
    pub game: String,
    pub location: String,
    pub plan_id: String,
    /// A money wheel's segment labels in physical order.
    pub wheel_layout: Option<Vec<String>>,
    /// Ledger index of the registration.
    pub index: u64,
    /// From when the table plays under dozor (its first key's `valid_from`): records played
    /// earlier are refused.
    pub registered_from: DateTime<Utc>,
    /// Every set of limits the table posted, in ledger order (the registration's first).
    pub limits: Vec<PostedLimits>,
}

/// One posting of a table's limits: what it posted, from when, and the event that said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedLimits {
    /// Ledger index of the event.
    pub index: u64,
    pub effective_from: DateTime<Utc>,
    pub limits: TableLimits,
    pub reason: String,
    /// Who posted them (absent for registrations written before actors were recorded).
    pub actor: Option<String>,
}

/// How far before its own receipt a change of limits may say it took effect: a pit's clock
/// and the officer's entry differ by moments, never by hours (a limit cannot be loosened
/// after the bets it would excuse).
pub const LIMITS_BACKDATING_SECONDS: i64 = 60;

impl RegisteredTable {
    /// The limits in force for a round played at `played_at` and appended at ledger `index`:
    /// among the postings appended before it that took effect by then, the latest to take
    /// effect (the later event if two take effect together). `None`: the table posts none.
    pub fn limits_in_force(&self, index: u64, played_at: DateTime<Utc>) -> Option<&TableLimits> {
        self.limits
            .iter()
            .filter(|p| p.index < index && p.effective_from <= played_at)
            .max_by_key(|p| (p.effective_from, p.index))
            .map(|p| &p.limits)
    }

    /// Index of the table's last posting of limits, if any.
    pub fn last_limits_event(&self) -> Option<u64> {
        self.limits.last().map(|p| p.index)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    /// Ledger index of the revocation event.
    pub index: u64,
    pub revoked_at: DateTime<Utc>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricKey {
    pub key_id: String,
    pub table_id: String,
    pub key: VerifyingKey,
    /// Ledger index of the event that added the key.
    pub index: u64,
    pub valid_from: DateTime<Utc>,
    pub revocation: Option<Revocation>,
}

#[derive(Debug, Clone, Default)]
pub struct RegistryHistory {
    tables: HashMap<String, RegisteredTable>,
    keys: HashMap<String, HistoricKey>,
    api_keys: ApiKeys,
    resolutions: Resolutions,
    /// Published reports by name: the ledger index and SHA-256 of each publication.
    published_reports: HashMap<String, Vec<(u64, String)>>,
    /// The operator key (key id, as in envelopes) that signs registry events: the first
    /// event's signer, changed only by a `log_rotated` event.
    operator: Option<String>,
    rotations: Vec<Rotation>,
    rollbacks: Vec<AcceptedRollback>,
    archived: Vec<ArchivedRange>,
    last_event: Option<u64>,
}

/// A rollback the operator accepted (a `rollback_accepted` event): the checkpoints it names
/// were lost with the entries they covered and no longer bind the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedRollback {
    /// The event's ledger index, which is the size the ledger was restored to.
    pub index: u64,
    /// The root of the tree of the restored entries (`index` of them).
    pub restored_root: crate::merkle::Hash,
    /// The lost checkpoints' sizes and roots, smallest first.
    pub lost: Vec<(u64, crate::merkle::Hash)>,
    pub reason: String,
    pub actor: String,
}

/// Entries that left the database (a `range_archived` event): `[from, to)`, kept as the
/// inspection export it names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ArchivedRange {
    /// The event's ledger index.
    pub index: u64,
    pub from: u64,
    pub to: u64,
    /// The roots of the perfect subtrees of the tree of `to` entries, largest first.
    #[serde(skip)]
    pub frontier: Vec<crate::merkle::Hash>,
    #[serde(skip)]
    pub last_leaf_hash: crate::merkle::Hash,
    pub registry_events: u64,
    #[serde(skip)]
    pub registry_digest: crate::merkle::Hash,
    pub export_first_day: String,
    pub export_last_day: String,
    pub export_manifest_sha256: String,
    pub reason: String,
    pub actor: String,
}

impl ArchivedRange {
    /// Checks a `range_archived` event found at ledger `index`, `from` where the archived
    /// ranges before it ended.
    pub fn from_event(
        index: u64,
        event: &RegistryEvent,
        from_expected: u64,
    ) -> Result<ArchivedRange, String> {
        let RegistryEvent::RangeArchived {
            from,
            to,
            frontier,
            last_leaf_hash,
            registry_events,
            registry_digest,
            export_first_day,
            export_last_day,
            export_manifest_sha256,
            reason,
            actor,
            ..
        } = event
        else {
            return Err(format!("registry event {index} is not an archived range"));
        };
        let what = format!("the range archived at index {index}");
        if *from != from_expected {
            return Err(format!(
                "{what} starts at {from}; the archived entries end at {from_expected}"
            ));
        }
        if !(from < to && *to <= index) {
            return Err(format!(
                "{what} is [{from}, {to}): it must be a range before the event"
            ));
        }
        if !actor.starts_with(CLI_ACTOR) {
            return Err(format!(
                "{what} is recorded for `{actor}`: only the command line archives"
            ));
        }
        if reason.trim().is_empty() {
            return Err(format!("{what} gives no reason"));
        }
        let hash = |text: &str, field: &str| -> Result<crate::merkle::Hash, String> {
            let bytes = (text.len() == 64
                && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| hex::decode(text).ok())
            .flatten()
            .ok_or_else(|| format!("{what}: {field} is not lower-case hex SHA-256"))?;
            bytes
                .try_into()
                .map_err(|_| format!("{what}: {field} is not 32 bytes"))
        };
        if frontier.len() != to.count_ones() as usize {
            return Err(format!(
                "{what} names {} subtree roots; a tree of {to} entries has {}",
                frontier.len(),
                to.count_ones()
            ));
        }
        let frontier = frontier
            .iter()
            .map(|h| hash(h, "a subtree root"))
            .collect::<Result<Vec<_>, _>>()?;
        let day = |text: &str| chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok();
        if !day(export_first_day) || !day(export_last_day) || export_first_day > export_last_day {
            return Err(format!("{what}: the export's days are not a period"));
        }
        hash(export_manifest_sha256, "the export's manifest digest")?;
        Ok(ArchivedRange {
            index,
            from: *from,
            to: *to,
            frontier,
            last_leaf_hash: hash(last_leaf_hash, "last_leaf_hash")?,
            registry_events: *registry_events,
            registry_digest: hash(registry_digest, "registry_digest")?,
            export_first_day: export_first_day.clone(),
            export_last_day: export_last_day.clone(),
            export_manifest_sha256: export_manifest_sha256.clone(),
            reason: reason.clone(),
            actor: actor.clone(),
        })
    }
}

/// An accepted rollback as a verifier reports it: where the ledger was restored to, what the
/// largest lost checkpoint covered, why and by whom.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RollbackNotice {
    /// The `rollback_accepted` event's index.
    pub index: u64,
    /// The entries the ledger held after the restore (the same number).
    pub restored_size: u64,
    /// The entries the largest lost checkpoint covered.
    pub lost_size: u64,
    pub lost_checkpoints: u64,
    pub reason: String,
    pub actor: String,
}

impl RollbackNotice {
    /// One line for a person.
    pub fn describe(&self) -> String {
        format!(
            "rollback ACCEPTED at index {}: the ledger was restored to {} entries, losing entries {}..{} covered by {} signed checkpoint(s); reason: {}; accepted by {}",
            self.index,
            self.restored_size,
            self.restored_size,
            self.lost_size,
            self.lost_checkpoints,
            self.reason,
            self.actor
        )
    }
}

impl AcceptedRollback {
    /// The largest lost checkpoint's size: what the ledger held before the restore, at least.
    pub fn lost_size(&self) -> u64 {
        self.lost.last().map_or(self.index, |(size, _)| *size)
    }

    /// What a verifier tells its reader about this rollback.
    pub fn notice(&self) -> RollbackNotice {
        RollbackNotice {
            index: self.index,
            restored_size: self.index,
            lost_size: self.lost_size(),
            lost_checkpoints: self.lost.len() as u64,
            reason: self.reason.clone(),
            actor: self.actor.clone(),
        }
    }

    /// Whether the signed checkpoint of `size` entries with `root` is one this rollback lost.
    pub fn lost_checkpoint(&self, size: u64, root: &crate::merkle::Hash) -> bool {
        self.lost.iter().any(|(s, h)| *s == size && h == root)
    }

    /// Checks a `rollback_accepted` event found at ledger `index`; the rollback it records.
    pub fn from_event(index: u64, event: &RegistryEvent) -> Result<AcceptedRollback, String> {
        let RegistryEvent::RollbackAccepted {
            restored_size,
            restored_root,
            lost,
            reason,
            actor,
            ..
        } = event
        else {
            return Err(format!(
                "registry event {index} is not an accepted rollback"
            ));
        };
        if *restored_size != index {
            return Err(format!(
                "the rollback accepted at index {index} says the ledger was restored to {restored_size} entries: it must be the first entry after the restore"
            ));
        }
        if !actor.starts_with(CLI_ACTOR) {
            return Err(format!(
                "the rollback accepted at index {index} is recorded for `{actor}`: only the command line accepts a rollback"
            ));
        }
        if reason.trim().is_empty() {
            return Err(format!(
                "the rollback accepted at index {index} gives no reason"
            ));
        }
        if lost.is_empty() {
            return Err(format!(
                "the rollback accepted at index {index} names no lost checkpoint"
            ));
        }
        let hash = |text: &str| {
            hex::decode(text)
                .ok()
                .filter(|_| text.bytes().all(|b| !b.is_ascii_uppercase()))
                .and_then(|bytes| crate::merkle::Hash::try_from(bytes.as_slice()).ok())
        };
        let restored_root = hash(restored_root).ok_or_else(|| {
            format!(
                "the rollback accepted at index {index}: restored_root is not lower-case hex SHA-256"
            )
        })?;
        let mut checkpoints: Vec<(u64, crate::merkle::Hash)> = Vec::with_capacity(lost.len());
        for checkpoint in lost {
            if checkpoint.size <= index {
                return Err(format!(
                    "the rollback accepted at index {index} names a checkpoint of {} entries as lost, but the ledger still holds them",
                    checkpoint.size
                ));
            }
            if checkpoints
                .last()
                .is_some_and(|(size, _)| *size > checkpoint.size)
            {
                return Err(format!(
                    "the rollback accepted at index {index} lists its lost checkpoints out of order"
                ));
            }
            let root = hash(&checkpoint.root).ok_or_else(|| {
                    format!(
                        "the rollback accepted at index {index}: the root of the checkpoint of {} entries is not lower-case hex SHA-256",
                        checkpoint.size
                    )
                })?;
            checkpoints.push((checkpoint.size, root));
        }
        Ok(AcceptedRollback {
            index,
            restored_root,
            lost: checkpoints,
            reason: reason.clone(),
            actor: actor.clone(),
        })
    }
}

/// A recorded hand-over of the log to another operator key (a `log_rotated` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// The event's ledger index: the checkpoint of size `index + 1` is the last `from_key`
    /// signs, and may be signed by `to_key` as well.
    pub index: u64,
    pub from_key: NoteVerifier,
    pub to_key: NoteVerifier,
    pub reason: String,
    pub actor: String,
}

impl Rotation {
    /// The size of the last checkpoint the old key signs (the first the new key may sign).
    pub fn size(&self) -> u64 {
        self.index + 1
    }
}

impl RegistryHistory {
    /// Applies the event found at ledger `index`, received at `received_at`; events must come in
    /// ledger order, each naming the previous one.
    /// `signer` is the key id of the operator key whose signature on the event was verified.
    pub fn apply(
        &mut self,
        index: u64,
        received_at: DateTime<Utc>,
        signer: &str,
        event: &RegistryEvent,
    ) -> Result<(), String> {
        if self.last_event.is_some_and(|last| index <= last) {
            return Err(format!("registry event {index} is out of order"));
        }
        if let Some(operator) = self.operator.as_deref().filter(|o| *o != signer) {
            return Err(format!(
                "registry event {index} is signed by operator key {signer}, but the log's operator key there is {operator}: it changes only by a recorded rotation (log_rotated)"
            ));
        }
        let mut next_operator = signer.to_owned();
        if event.previous() != self.last_event {
            return Err(match self.last_event {
                Some(last) => format!(
                    "registry event {index} names {} as the previous registry event, but it is {last}: a registry event is missing or was inserted",
                    event.previous().map_or("none".to_owned(), |p| p.to_string())
                ),
                None => format!(
                    "registry event {index} names {} as the previous registry event, but none came before it: registry events are missing",
                    event.previous().map_or("none".to_owned(), |p| p.to_string())
                ),
            });
        }
        if let Some((actor, rule)) = actor_of(event) {
            self.api_keys
                .check_actor(actor, rule, index, received_at)
                .map_err(|m| format!("a `{}` event recorded for {m}", event.record_type()))?;
        }
        match event {
            RegistryEvent::TableRegistered {
                table_id,
                game,
                location,
                plan_id,
                wheel_layout,
                limits,
                key_id,
                public_key,
                valid_from,
                actor,
                ..
            } => {
                if self.tables.contains_key(table_id) {
                    return Err(format!("table `{table_id}` is registered twice"));
                }
                let key = self.new_key(index, table_id, key_id, public_key, valid_from)?;
                let posted = limits.iter().map(|limits| PostedLimits {
                    index,
                    effective_from: key.valid_from,
                    limits: (**limits).clone(),
                    reason: "registration".into(),
                    actor: actor.clone(),
                });
                self.tables.insert(
                    table_id.clone(),
                    RegisteredTable {
                        table_id: table_id.clone(),
                        game: game.clone(),
                        location: location.clone(),
                        plan_id: plan_id.clone(),
                        wheel_layout: wheel_layout.clone(),
                        index,
                        registered_from: key.valid_from,
                        limits: posted.collect(),
                    },
                );
                self.keys.insert(key.key_id.clone(), key);
            }
            RegistryEvent::TableLimitsSet {
                table_id,
                limits,
                effective_from,
                reason,
                actor,
                ..
            } => {
                let table = self.tables.get_mut(table_id).ok_or_else(|| {
                    format!("limits set for table `{table_id}`, which is not registered")
                })?;
                let effective_from = parse_ledger_time(effective_from)?;
                let earliest = received_at - chrono::Duration::seconds(LIMITS_BACKDATING_SECONDS);
                if effective_from < earliest {
                    return Err(format!(
                        "limits of table `{table_id}` take effect at {effective_from}, more than {LIMITS_BACKDATING_SECONDS} s before they were recorded ({received_at})"
                    ));
                }
                table.limits.push(PostedLimits {
                    index,
                    effective_from,
                    limits: (**limits).clone(),
                    reason: reason.clone(),
                    actor: Some(actor.clone()),
                });
            }
            RegistryEvent::TableKeyAdded {
                table_id,
                key_id,
                public_key,
                valid_from,
                ..
            } => {
                if !self.tables.contains_key(table_id) {
                    return Err(format!(
                        "key {key_id} is added to table `{table_id}`, which is not registered"
                    ));
                }
                let key = self.new_key(index, table_id, key_id, public_key, valid_from)?;
                self.keys.insert(key.key_id.clone(), key);
            }
            RegistryEvent::TableKeyRevoked {
                table_id,
                key_id,
                revoked_at,
                reason,
                ..
            } => {
                let revoked_at = parse_ledger_time(revoked_at)?;
                let key = self
                    .keys
                    .get_mut(key_id)
                    .filter(|k| &k.table_id == table_id)
                    .ok_or_else(|| {
                        format!(
                            "revocation of key {key_id}, which is not a key of table `{table_id}`"
                        )
                    })?;
                if key.revocation.is_some() {
                    return Err(format!("key {key_id} is revoked twice"));
                }
                key.revocation = Some(Revocation {
                    index,
                    revoked_at,
                    reason: reason.clone(),
                });
            }
            RegistryEvent::ApiKeyCreated { .. } | RegistryEvent::ApiKeyRevoked { .. } => {
                self.api_keys.apply(index, received_at, event)?;
            }
            RegistryEvent::FindingResolved { table_id, .. } => {
                if !self.tables.contains_key(table_id) {
                    return Err(format!(
                        "a resolution of a finding at table `{table_id}`, which is not registered"
                    ));
                }
                self.resolutions
                    .apply(index, received_at, event, &self.api_keys)?;
            }
            RegistryEvent::ReportPublished { name, sha256, .. } => {
                if !name.starts_with("reports/") || name.contains("..") {
                    return Err(format!(
                        "a published report named `{name}`, not under reports/"
                    ));
                }
                if sha256.len() != 64
                    || !sha256
                        .bytes()
                        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                {
                    return Err(format!(
                        "published report {name}: sha256 is not lower-case hex SHA-256"
                    ));
                }
                self.published_reports
                    .entry(name.clone())
                    .or_default()
                    .push((index, sha256.clone()));
            }
            RegistryEvent::LogRotated { .. } => {
                let rotation = Self::rotation(index, signer, event)?;
                next_operator = key_id(&rotation.to_key.key);
                self.rotations.push(rotation);
            }
            RegistryEvent::RollbackAccepted { .. } => {
                self.rollbacks
                    .push(AcceptedRollback::from_event(index, event)?);
            }
            RegistryEvent::RangeArchived { .. } => {
                let from = self.archived_below();
                self.archived
                    .push(ArchivedRange::from_event(index, event, from)?);
            }
            RegistryEvent::PackageDelivery {
                package,
                file,
                sha256,
                fingerprint,
                ..
            } => {
                let hex64 = |h: &String| {
                    h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                };
                if !package
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
                    || file.contains("..")
                {
                    return Err(format!(
                        "a delivery step of package `{package}`, file `{file}`: not a package's name or file"
                    ));
                }
                if sha256.as_ref().is_some_and(|h| !hex64(h))
                    || fingerprint.as_ref().is_some_and(|h| !hex64(h))
                {
                    return Err(format!(
                        "a delivery step of package `{package}`: a digest that is not lower-case hex SHA-256"
                    ));
                }
            }
        }
        self.operator = Some(next_operator);
        self.last_event = Some(index);
        Ok(())
    }

    /// Checks a `log_rotated` event signed by `signer`; the rotation it records.
    fn rotation(index: u64, signer: &str, event: &RegistryEvent) -> Result<Rotation, String> {
        let RegistryEvent::LogRotated {
            from_key,
            to_key,
            reason,
            actor,
            ..
        } = event
        else {
            return Err(format!("registry event {index} is not a rotation"));
        };
        let parse = |which: &str, text: &str| {
            NoteVerifier::parse(text).map_err(|e| {
                format!("log rotation {index}: {which} `{text}` is not a verifier key: {e}")
            })
        };
        let (from, to) = (parse("from_key", from_key)?, parse("to_key", to_key)?);
        if key_id(&from.key) != signer {
            return Err(format!(
                "log rotation {index} hands over key {}, but key {signer} signed it: only the key that holds the log can hand it over",
                key_id(&from.key)
            ));
        }
        if to.key == from.key {
            return Err(format!(
                "log rotation {index} hands the log to the key that holds it"
            ));
        }
        if !actor.starts_with(CLI_ACTOR) {
            return Err(format!(
                "log rotation {index} recorded for `{actor}`: only the command line rotates the log"
            ));
        }
        if reason.trim().is_empty() {
            return Err(format!("log rotation {index} gives no reason"));
        }
        Ok(Rotation {
            index,
            from_key: from,
            to_key: to,
            reason: reason.clone(),
            actor: actor.clone(),
        })
    }

    /// The rollbacks the operator accepted, in ledger order.
    pub fn accepted_rollbacks(&self) -> &[AcceptedRollback] {
        &self.rollbacks
    }

    /// The ranges archived, in ledger order (each starting where the one before ended).
    pub fn archived_ranges(&self) -> &[ArchivedRange] {
        &self.archived
    }

    /// The entries below this index have left the database (0: none have).
    pub fn archived_below(&self) -> u64 {
        self.archived.last().map_or(0, |a| a.to)
    }

    /// Whether the signed checkpoint of `size` entries with `root` was lost in a rollback the
    /// operator accepted (so it no longer binds the ledger).
    pub fn lost_in_accepted_rollback(&self, size: u64, root: &crate::merkle::Hash) -> bool {
        self.rollbacks.iter().any(|r| r.lost_checkpoint(size, root))
    }

    /// The log's recorded rotations, in ledger order.
    pub fn rotations(&self) -> &[Rotation] {
        &self.rotations
    }

    /// Whether `key` held the log at tree size `size`, so that it may sign the checkpoint of
    /// that size: with no rotation recorded, any operator key may (the caller knows which it
    /// trusts); otherwise the key that held the log from the rotation that gave it (the
    /// checkpoint of that size included) to the rotation that handed it on (included).
    pub fn check_checkpoint_signer(&self, key: &NoteVerifier, size: u64) -> Result<(), String> {
        let Some(first) = self.rotations.first() else {
            return Ok(());
        };
        let mut tenures = vec![(&first.from_key, 0, Some(first.size()))];
        for (n, rotation) in self.rotations.iter().enumerate() {
            let until = self.rotations.get(n + 1).map(Rotation::size);
            tenures.push((&rotation.to_key, rotation.size(), until));
        }
        if tenures.iter().any(|(holder, from, until)| {
            *holder == key && *from <= size && until.is_none_or(|until| size <= until)
        }) {
            return Ok(());
        }
        let holders: Vec<String> = tenures
            .iter()
            .filter(|(_, from, until)| *from <= size && until.is_none_or(|until| size <= until))
            .map(|(holder, _, _)| format!("`{holder}`"))
            .collect();
        Err(format!(
            "signed by `{key}`, but by the log's recorded rotations size {size} is {}'s to sign",
            holders.join(" or ")
        ))
    }

    /// The key id of the operator key that signs the next registry event (none before the
    /// first).
    pub fn operator(&self) -> Option<&str> {
        self.operator.as_deref()
    }

    fn new_key(
        &self,
        index: u64,
        table_id: &str,
        id: &str,
        public_key: &str,
        valid_from: &str,
    ) -> Result<HistoricKey, String> {
        let key = parse_public_key(public_key).map_err(|e| format!("key {id}: {e}"))?;
        if key_id(&key) != id {
            return Err(format!("key id {id} does not match its public key"));
        }
        if self.keys.contains_key(id) {
            return Err(format!("key {id} is added twice"));
        }
        Ok(HistoricKey {
            key_id: id.to_owned(),
            table_id: table_id.to_owned(),
            key,
            index,
            valid_from: parse_ledger_time(valid_from)?,
            revocation: None,
        })
    }

    /// The key as the ledger knew it just before entry `index`: `None` if it was not added yet;
    /// a revocation recorded later does not count.
    pub fn table_key_at(&self, key_id: &str, index: u64) -> Option<KeyWindow<'_>> {
        let key = self.keys.get(key_id).filter(|k| k.index < index)?;
        let table = self.tables.get(&key.table_id)?;
        Some(KeyWindow {
            table_id: &key.table_id,
            key: &key.key,
            table_registered_from: table.registered_from,
            valid_from: key.valid_from,
            revoked_at: key
                .revocation
                .as_ref()
                .filter(|r| r.index < index)
                .map(|r| r.revoked_at),
        })
    }

    /// A table key as the events so far give it.
    pub fn table_key(&self, key_id: &str) -> Option<&HistoricKey> {
        self.keys.get(key_id)
    }

    pub fn table(&self, table_id: &str) -> Option<&RegisteredTable> {
        self.tables.get(table_id)
    }

    /// The table a round appended at ledger `index` is judged on, as the events before it
    /// give it: its wheel's segment order and the limits it posted for the round's time. Every
    /// judge of a round (ingest, the database verify, the offline verify, a resolution's check)
    /// sets the table up here, so they cannot disagree.
    pub fn table_setup(
        &self,
        plan: &rules::Plan,
        round: &rules::Round,
        index: u64,
    ) -> Result<rules::TableSetup, rules::RecordError> {
        let table = self.tables.get(round.table_id());
        rules::TableSetup::for_table(
            plan,
            round.game(),
            table.and_then(|t| t.wheel_layout.as_deref()),
            table.and_then(|t| t.limits_in_force(index, round.played_at())),
        )
    }

    pub fn tables(&self) -> impl Iterator<Item = &RegisteredTable> {
        self.tables.values()
    }

    /// Every key, in the order they were added.
    pub fn keys(&self) -> Vec<&HistoricKey> {
        let mut keys: Vec<&HistoricKey> = self.keys.values().collect();
        keys.sort_by_key(|k| k.index);
        keys
    }

    /// API keys as the registry events give them.
    pub fn api_keys(&self) -> &ApiKeys {
        &self.api_keys
    }

    /// Resolutions of findings, in ledger order.
    pub fn resolutions(&self) -> &Resolutions {
        &self.resolutions
    }

    /// Each publication of the report `name`: ledger index and SHA-256, in ledger order.
    /// Every publication of a report whose name starts with `prefix`: name, index, SHA-256, in
    /// index order.
    pub fn published_under(&self, prefix: &str) -> Vec<(&str, u64, &str)> {
        let mut found: Vec<(&str, u64, &str)> = self
            .published_reports
            .iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .flat_map(|(name, seals)| {
                seals
                    .iter()
                    .map(move |(index, sha256)| (name.as_str(), *index, sha256.as_str()))
            })
            .collect();
        found.sort_by_key(|(_, index, _)| *index);
        found
    }

    pub fn published_report(&self, name: &str) -> &[(u64, String)] {
        self.published_reports.get(name).map_or(&[], Vec::as_slice)
    }

    /// Index of the last registry event applied.
    pub fn last_event(&self) -> Option<u64> {
        self.last_event
    }
}

/// Who keeps tables and their keys.
pub const TABLE_KEEPERS: ActorRule = ActorRule {
    roles: crate::access::TABLE_KEEPING_ROLES,
    scheduler: false,
};

/// Who may seal a report into the ledger.
pub const PUBLISHERS: ActorRule = ActorRule {
    roles: crate::access::PUBLISHING_ROLES,
    scheduler: true,
};

/// The actor an event names and the rule it is held to (API key events and resolutions check
/// their own actors as they are applied). Events written before actors were recorded name
/// none and are not held to a rule.
fn actor_of(event: &RegistryEvent) -> Option<(&str, ActorRule)> {
    match event {
        RegistryEvent::TableRegistered { actor, .. }
        | RegistryEvent::TableKeyAdded { actor, .. }
        | RegistryEvent::TableKeyRevoked { actor, .. } => {
            actor.as_deref().map(|a| (a, TABLE_KEEPERS))
        }
        RegistryEvent::TableLimitsSet { actor, .. } => Some((actor, TABLE_KEEPERS)),
        RegistryEvent::ReportPublished { actor, .. } => actor.as_deref().map(|a| (a, PUBLISHERS)),
        RegistryEvent::ApiKeyCreated { .. }
        | RegistryEvent::ApiKeyRevoked { .. }
        | RegistryEvent::FindingResolved { .. }
        | RegistryEvent::PackageDelivery { .. }
        | RegistryEvent::LogRotated { .. }
        | RegistryEvent::RollbackAccepted { .. }
        | RegistryEvent::RangeArchived { .. } => None,
    }
}

/// Who acts from the command line, as the ledger records it.
pub fn cli_actor() -> String {
    let user = ["USER", "LOGNAME"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|user| !user.trim().is_empty())
        .unwrap_or_else(|| "unknown".into());
    format!("{}{user}", CLI_ACTOR)
}

/// The key id of the operator key that signs the registry events of the tests.
#[cfg(test)]
pub(crate) const TEST_OPERATOR: &str = "0123456789abcdef";

/// A history in which entry 0 registered roulette table R1 under `plan_id`, with `key`, valid
/// from 2026-11-20 10:00 UTC; for the tests of the checks built on the history.
#[cfg(test)]
pub(crate) fn with_roulette_table_r1(
    plan_id: &str,
    key: &ed25519_dalek::SigningKey,
) -> RegistryHistory {
    let registered_at = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_default();
    let registered = RegistryEvent::TableRegistered {
        actor: Some("cli:root".into()),
        table_id: "R1".into(),
        previous: None,
        game: "roulette".into(),
        location: "Praha".into(),
        plan_id: plan_id.into(),
        wheel_layout: None,
        limits: None,
        key_id: crate::keys::key_id(&key.verifying_key()),
        public_key: crate::keys::encode_public_key(&key.verifying_key()),
        valid_from: crate::entry::format_time(registered_at),
    };
    let mut history = RegistryHistory::default();
    history
        .apply(0, registered_at, TEST_OPERATOR, &registered)
        .unwrap_or_else(|e| unreachable!("registering R1: {e}"));
    history
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{FindingState, Role};
    use crate::entry::format_time;
    use crate::keys::encode_public_key;
    use ed25519_dalek::SigningKey;

    fn t(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn at0() -> DateTime<Utc> {
        t("2026-11-21T12:00:00Z")
    }

    fn public(n: u8) -> (String, String) {
        let key = SigningKey::from_bytes(&[n; 32]).verifying_key();
        (key_id(&key), encode_public_key(&key))
    }

    fn registered(previous: Option<u64>) -> RegistryEvent {
        let (key_id, public_key) = public(1);
        RegistryEvent::TableRegistered {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous,
            game: "roulette".into(),
            location: "Praha".into(),
            plan_id: "69games-ziva-hra".into(),
            wheel_layout: None,
            limits: None,
            key_id,
            public_key,
            valid_from: format_time(t("2026-11-20T10:00:00Z")),
        }
    }

    #[test]
    fn keys_count_from_their_event_and_revocations_from_theirs() {
        let mut history = RegistryHistory::default();
        history
            .apply(3, at0(), TEST_OPERATOR, &registered(None))
            .unwrap();
        let (first, _) = public(1);
        let (second, second_public) = public(2);
        history
            .apply(
                10,
                at0(),
                TEST_OPERATOR,
                &RegistryEvent::TableKeyAdded {
                    actor: Some("cli:root".into()),
                    table_id: "R1".into(),
                    previous: Some(3),
                    key_id: second.clone(),
                    public_key: second_public,
                    valid_from: format_time(t("2026-11-21T00:00:00Z")),
                },
            )
            .unwrap();
        history
            .apply(
                20,
                at0(),
                TEST_OPERATOR,
                &RegistryEvent::TableKeyRevoked {
                    actor: Some("cli:root".into()),
                    table_id: "R1".into(),
                    previous: Some(10),
                    key_id: first.clone(),
                    revoked_at: format_time(t("2026-11-21T06:00:00Z")),
                    reason: "rotated".into(),
                },
            )
            .unwrap();
        // Not yet added at its own event's index, known just after.
        assert!(history.table_key_at(&first, 3).is_none());
        assert!(history.table_key_at(&second, 10).is_none());
        assert_eq!(history.table_key_at(&second, 11).unwrap().table_id, "R1");
        // Before the revocation event the key is unrevoked, from the next entry on it is revoked.
        assert_eq!(history.table_key_at(&first, 20).unwrap().revoked_at, None);
        assert_eq!(
            history.table_key_at(&first, 21).unwrap().revoked_at,
            Some(t("2026-11-21T06:00:00Z"))
        );
        assert_eq!(history.keys().len(), 2);
        assert_eq!(history.last_event(), Some(20));
    }

    #[test]
    fn published_reports_are_kept_by_name_and_must_name_a_report() {
        let mut history = RegistryHistory::default();
        let published = |previous, name: &str, sha256: String| RegistryEvent::ReportPublished {
            actor: Some("cli:root".into()),
            previous,
            name: name.into(),
            sha256,
            size_bytes: 10,
        };
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let name = "reports/daily-2026-11-10.csv";
        history
            .apply(0, at0(), TEST_OPERATOR, &published(None, name, a.clone()))
            .unwrap();
        history
            .apply(
                1,
                at0(),
                TEST_OPERATOR,
                &published(Some(0), name, b.clone()),
            )
            .unwrap();
        assert_eq!(history.published_report(name), [(0, a.clone()), (1, b)]);
        assert!(history.published_report("reports/other.csv").is_empty());
        assert_eq!(
            history.published_under("reports/"),
            [
                (name, 0, a.as_str()),
                (name, 1, history.published_report(name)[1].1.as_str())
            ]
        );
        assert!(history.published_under("reports/mf/").is_empty());
        let err = history
            .apply(
                2,
                at0(),
                TEST_OPERATOR,
                &published(Some(1), "../etc/passwd", a.clone()),
            )
            .unwrap_err();
        assert!(err.contains("not under reports/"), "{err}");
        let err = history
            .apply(
                2,
                at0(),
                TEST_OPERATOR,
                &published(Some(1), name, "A".repeat(64)),
            )
            .unwrap_err();
        assert!(err.contains("not lower-case hex"), "{err}");
    }

    #[test]
    fn a_missing_or_inconsistent_event_is_named() {
        let mut history = RegistryHistory::default();
        let err = history
            .apply(5, at0(), TEST_OPERATOR, &registered(Some(2)))
            .unwrap_err();
        assert!(err.contains("none came before it"), "{err}");
        history
            .apply(5, at0(), TEST_OPERATOR, &registered(None))
            .unwrap();
        let err = history
            .apply(9, at0(), TEST_OPERATOR, &registered(Some(5)))
            .unwrap_err();
        assert!(err.contains("registered twice"), "{err}");
        let revoke_other = RegistryEvent::TableKeyRevoked {
            actor: Some("cli:root".into()),
            table_id: "R2".into(),
            previous: Some(5),
            key_id: public(1).0,
            revoked_at: format_time(t("2026-11-21T06:00:00Z")),
            reason: "x".into(),
        };
        let err = history
            .apply(9, at0(), TEST_OPERATOR, &revoke_other)
            .unwrap_err();
        assert!(err.contains("not a key of table `R2`"), "{err}");
        let skipped = RegistryEvent::TableKeyAdded {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous: Some(7),
            key_id: public(3).0,
            public_key: public(3).1,
            valid_from: format_time(t("2026-11-21T06:00:00Z")),
        };
        let err = history
            .apply(9, at0(), TEST_OPERATOR, &skipped)
            .unwrap_err();
        assert!(err.contains("is missing or was inserted"), "{err}");
        let wrong_id = RegistryEvent::TableKeyAdded {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous: Some(5),
            key_id: public(4).0,
            public_key: public(3).1,
            valid_from: format_time(t("2026-11-21T06:00:00Z")),
        };
        let err = history
            .apply(9, at0(), TEST_OPERATOR, &wrong_id)
            .unwrap_err();
        assert!(err.contains("does not match"), "{err}");
    }

    fn api_key(previous: Option<u64>, id: &str, name: &str, role: Role) -> RegistryEvent {
        RegistryEvent::ApiKeyCreated {
            previous,
            key_id: id.into(),
            token_sha256: Some(format!("{id}{}", "0".repeat(48))),
            name: name.into(),
            role,
            created_by: "cli:root".into(),
            expires_at: Some(format_time(t("2026-12-31T00:00:00Z"))),
        }
    }

    fn resolution(previous: u64, state: FindingState, key: (&str, &str, Role)) -> RegistryEvent {
        RegistryEvent::FindingResolved {
            previous: Some(previous),
            table_id: "R1".into(),
            round_index: 4,
            finding: 1,
            kind: "overpaid".into(),
            rules_version: "2026.11.1".into(),
            state,
            amount_settled_h: None,
            reason: (state == FindingState::Dismissed).then(|| "camera".into()),
            comment: "looked at it".into(),
            key_id: key.0.into(),
            key_name: key.1.into(),
            key_role: key.2,
        }
    }

    #[test]
    fn resolutions_are_made_by_a_compliance_key_that_could_act_and_follow_the_states() {
        const OFFICER: (&str, &str, Role) = ("00000000000000aa", "officer", Role::Compliance);
        const NIGHTLY: (&str, &str, Role) = ("00000000000000bb", "nightly", Role::Reporter);
        let mut history = RegistryHistory::default();
        history
            .apply(0, at0(), TEST_OPERATOR, &registered(None))
            .unwrap();
        history
            .apply(
                1,
                at0(),
                TEST_OPERATOR,
                &api_key(Some(0), OFFICER.0, OFFICER.1, OFFICER.2),
            )
            .unwrap();
        history
            .apply(
                2,
                at0(),
                TEST_OPERATOR,
                &api_key(Some(1), NIGHTLY.0, NIGHTLY.1, NIGHTLY.2),
            )
            .unwrap();
        // Names and ids are unique.
        let err = history
            .apply(
                3,
                at0(),
                TEST_OPERATOR,
                &api_key(Some(2), "00000000000000cc", "officer", Role::Admin),
            )
            .unwrap_err();
        assert!(err.contains("used twice"), "{err}");
        // A reporter key may not resolve; a compliance key may, once per allowed step.
        let err = history
            .apply(
                5,
                at0(),
                TEST_OPERATOR,
                &resolution(2, FindingState::Confirmed, NIGHTLY),
            )
            .unwrap_err();
        assert!(err.contains("may not resolve findings"), "{err}");
        history
            .apply(
                5,
                at0(),
                TEST_OPERATOR,
                &resolution(2, FindingState::Escalated, OFFICER),
            )
            .unwrap();
        let err = history
            .apply(
                6,
                at0(),
                TEST_OPERATOR,
                &resolution(5, FindingState::Escalated, OFFICER),
            )
            .unwrap_err();
        assert!(
            err.contains("is escalated; it cannot become escalated"),
            "{err}"
        );
        history
            .apply(
                6,
                at0(),
                TEST_OPERATOR,
                &resolution(5, FindingState::Dismissed, OFFICER),
            )
            .unwrap();
        assert_eq!(
            history.resolutions().state_of((4, 1)),
            FindingState::Dismissed
        );
        assert_eq!(history.resolutions().state_of((4, 0)), FindingState::Open);
        // The name and role must be the key's; after its expiry or revocation it cannot act.
        let err = history
            .apply(
                7,
                at0(),
                TEST_OPERATOR,
                &resolution(
                    6,
                    FindingState::Escalated,
                    ("00000000000000aa", "officer", Role::Admin),
                ),
            )
            .unwrap_err();
        assert!(err.contains("but it is `officer` (compliance)"), "{err}");
        let err = history
            .apply(
                7,
                t("2027-01-01T00:00:00Z"),
                TEST_OPERATOR,
                &resolution(6, FindingState::Escalated, OFFICER),
            )
            .unwrap_err();
        assert!(err.contains("had expired"), "{err}");
        let revoked = RegistryEvent::ApiKeyRevoked {
            previous: Some(6),
            key_id: OFFICER.0.into(),
            name: OFFICER.1.into(),
            revoked_by: "cli:root".into(),
            reason: "left the company".into(),
        };
        history.apply(7, at0(), TEST_OPERATOR, &revoked).unwrap();
        let err = history
            .apply(
                8,
                at0(),
                TEST_OPERATOR,
                &resolution(7, FindingState::Escalated, OFFICER),
            )
            .unwrap_err();
        assert!(err.contains("was revoked at entry 7"), "{err}");
        assert_eq!(history.resolutions().all().len(), 2);
        assert_eq!(history.api_keys().all().len(), 2);
        assert_eq!(history.resolutions().resolved_findings().count(), 1);
    }

    #[test]
    fn a_resolution_must_name_the_finding_as_before_and_come_after_its_round() {
        const OFFICER: (&str, &str, Role) = ("00000000000000aa", "officer", Role::Compliance);
        let mut history = RegistryHistory::default();
        history
            .apply(0, at0(), TEST_OPERATOR, &registered(None))
            .unwrap();
        history
            .apply(
                1,
                at0(),
                TEST_OPERATOR,
                &api_key(Some(0), OFFICER.0, OFFICER.1, OFFICER.2),
            )
            .unwrap();
        let err = history
            .apply(
                3,
                at0(),
                TEST_OPERATOR,
                &resolution(1, FindingState::Confirmed, OFFICER),
            )
            .unwrap_err();
        assert!(err.contains("does not come before it"), "{err}");
        history
            .apply(
                5,
                at0(),
                TEST_OPERATOR,
                &resolution(1, FindingState::Escalated, OFFICER),
            )
            .unwrap();
        let mut other_kind = resolution(5, FindingState::Confirmed, OFFICER);
        if let RegistryEvent::FindingResolved { kind, .. } = &mut other_kind {
            *kind = "underpaid".into();
        }
        let err = history
            .apply(6, at0(), TEST_OPERATOR, &other_kind)
            .unwrap_err();
        assert!(
            err.contains("entry 5 resolved it as a `overpaid` finding"),
            "{err}"
        );
        let mut unknown_table = resolution(5, FindingState::Confirmed, OFFICER);
        if let RegistryEvent::FindingResolved { table_id, .. } = &mut unknown_table {
            *table_id = "R9".into();
        }
        let err = history
            .apply(6, at0(), TEST_OPERATOR, &unknown_table)
            .unwrap_err();
        assert!(err.contains("`R9`, which is not registered"), "{err}");
    }

    #[test]
    fn api_keys_are_managed_from_the_command_line_or_by_an_admin_key_that_could_act() {
        let by = |previous: u64, id: &str, name: &str, role: Role, by: &str| {
            let mut event = api_key(Some(previous), id, name, role);
            if let RegistryEvent::ApiKeyCreated { created_by, .. } = &mut event {
                *created_by = by.into();
            }
            event
        };
        let revoke = |previous: u64, id: &str, name: &str, by: &str| RegistryEvent::ApiKeyRevoked {
            previous: Some(previous),
            key_id: id.into(),
            name: name.into(),
            revoked_by: by.into(),
            reason: "rotated".into(),
        };
        let mut history = RegistryHistory::default();
        // The first admin key comes from the command line; it creates the others.
        history
            .apply(
                0,
                at0(),
                TEST_OPERATOR,
                &api_key(None, "00000000000000a1", "alice", Role::Admin),
            )
            .unwrap();
        history
            .apply(
                1,
                at0(),
                TEST_OPERATOR,
                &by(0, "00000000000000a2", "officer", Role::Compliance, "alice"),
            )
            .unwrap();
        history
            .apply(
                2,
                at0(),
                TEST_OPERATOR,
                &by(1, "00000000000000a3", "nightly", Role::Reporter, "alice"),
            )
            .unwrap();
        // Not by a compliance key, an unknown name, or `cli:` naming no one.
        for (actor, expected) in [
            (
                "officer",
                "`officer`, whose role compliance may not: this needs the role admin",
            ),
            ("bob", "which is neither `cli:<user>` nor an API key"),
            ("cli:", "which names no user"),
        ] {
            let err = history
                .apply(
                    3,
                    at0(),
                    TEST_OPERATOR,
                    &by(2, "00000000000000b1", "second", Role::Reporter, actor),
                )
                .unwrap_err();
            assert!(err.contains(expected), "{actor}: {err}");
        }
        // The admin revokes itself; from then on it can neither create nor revoke.
        history
            .apply(
                3,
                at0(),
                TEST_OPERATOR,
                &revoke(2, "00000000000000a1", "alice", "alice"),
            )
            .unwrap();
        let err = history
            .apply(
                4,
                at0(),
                TEST_OPERATOR,
                &by(3, "00000000000000b2", "third", Role::Reporter, "alice"),
            )
            .unwrap_err();
        assert!(
            err.contains("was revoked at entry 3 before entry 4"),
            "{err}"
        );
        let err = history
            .apply(
                4,
                at0(),
                TEST_OPERATOR,
                &revoke(3, "00000000000000a2", "officer", "alice"),
            )
            .unwrap_err();
        assert!(err.contains("revoked by `alice`"), "{err}");
        // Another admin (expiring 2026-12-31, as every key here) cannot act after its expiry.
        history
            .apply(
                4,
                at0(),
                TEST_OPERATOR,
                &by(3, "00000000000000a4", "carol", Role::Admin, "cli:root"),
            )
            .unwrap();
        let err = history
            .apply(
                5,
                t("2027-01-02T00:00:00Z"),
                TEST_OPERATOR,
                &by(4, "00000000000000b3", "fourth", Role::Reporter, "carol"),
            )
            .unwrap_err();
        assert!(err.contains("had expired"), "{err}");
        history
            .apply(
                5,
                at0(),
                TEST_OPERATOR,
                &by(4, "00000000000000b3", "fourth", Role::Reporter, "carol"),
            )
            .unwrap();
        assert_eq!(history.api_keys().all().len(), 5);
    }

    #[test]
    fn tables_and_publications_name_an_actor_whose_role_allowed_it_then() {
        let api = |previous: Option<u64>, id: &str, name: &str, role: Role| {
            let mut event = api_key(previous, id, name, role);
            if let RegistryEvent::ApiKeyCreated { expires_at, .. } = &mut event {
                *expires_at = None;
            }
            event
        };
        let register = |previous: u64, table: &str, actor: &str| {
            // Each table its own key: R1 key 31, R2 key 32, ...
            let (key_id, public_key) = public(30 + table[1..].parse::<u8>().unwrap());
            RegistryEvent::TableRegistered {
                actor: Some(actor.into()),
                table_id: table.into(),
                previous: Some(previous),
                game: "roulette".into(),
                location: "Praha".into(),
                plan_id: "69games-ziva-hra".into(),
                wheel_layout: None,
                limits: None,
                key_id,
                public_key,
                valid_from: format_time(t("2026-11-21T06:00:00Z")),
            }
        };
        let publish = |previous: u64, actor: &str| RegistryEvent::ReportPublished {
            actor: Some(actor.into()),
            previous: Some(previous),
            name: "reports/daily-2026-11-20.csv".into(),
            sha256: "ab".repeat(32),
            size_bytes: 10,
        };
        let mut history = RegistryHistory::default();
        // Entries 0-2: an admin, a compliance officer and a reporter, from the command line.
        for (i, (id, name, role)) in [
            ("00000000000000a1", "admin-1", Role::Admin),
            ("00000000000000a2", "officer-1", Role::Compliance),
            ("00000000000000a3", "nightly", Role::Reporter),
        ]
        .into_iter()
        .enumerate()
        {
            let previous = i.checked_sub(1).map(|p| p as u64);
            history
                .apply(
                    i as u64,
                    at0(),
                    TEST_OPERATOR,
                    &api(previous, id, name, role),
                )
                .unwrap();
        }
        // A table is registered by an admin key or the command line, by no one else.
        history
            .apply(3, at0(), TEST_OPERATOR, &register(2, "R1", "admin-1"))
            .unwrap();
        history
            .apply(4, at0(), TEST_OPERATOR, &register(3, "R2", "cli:root"))
            .unwrap();
        for (actor, expected) in [
            (
                "officer-1",
                "`officer-1`, whose role compliance may not: this needs the role admin",
            ),
            ("server:nightly", "records only the reports it publishes"),
            ("mallory", "neither `cli:<user>` nor an API key"),
        ] {
            let err = history
                .apply(5, at0(), TEST_OPERATOR, &register(4, "R3", actor))
                .unwrap_err();
            assert!(
                err.contains("`table_registered` event recorded for"),
                "{err}"
            );
            assert!(err.contains(expected), "{actor}: {err}");
        }
        // A report is sealed at the request of a key that may read it, the command line or
        // the nightly job; not an admin's.
        history
            .apply(5, at0(), TEST_OPERATOR, &publish(4, "officer-1"))
            .unwrap();
        history
            .apply(6, at0(), TEST_OPERATOR, &publish(5, "nightly"))
            .unwrap();
        history
            .apply(7, at0(), TEST_OPERATOR, &publish(6, "server:nightly"))
            .unwrap();
        let err = history
            .apply(8, at0(), TEST_OPERATOR, &publish(7, "admin-1"))
            .unwrap_err();
        assert!(
            err.contains(
                "whose role admin may not: this needs the role compliance or regulator or reporter"
            ),
            "{err}"
        );
        // Once revoked, the admin registers nothing more.
        let revoked = RegistryEvent::ApiKeyRevoked {
            previous: Some(7),
            key_id: "00000000000000a1".into(),
            name: "admin-1".into(),
            revoked_by: "cli:root".into(),
            reason: "left".into(),
        };
        history.apply(8, at0(), TEST_OPERATOR, &revoked).unwrap();
        let err = history
            .apply(9, at0(), TEST_OPERATOR, &register(8, "R4", "admin-1"))
            .unwrap_err();
        assert!(
            err.contains("was revoked at entry 8 before entry 9"),
            "{err}"
        );
    }

    /// The operator key of the tests' rotations: the verifier key under `origin` and its key id.
    fn operator_key(seed: u8, origin: &str) -> (String, String) {
        let signer =
            crate::checkpoint::NoteSigner::new(origin, SigningKey::from_bytes(&[seed; 32]))
                .unwrap();
        let verifier = signer.verifier();
        (verifier.to_string(), key_id(&verifier.key))
    }

    fn rotated(previous: u64, from: &str, to: &str, actor: &str) -> RegistryEvent {
        RegistryEvent::LogRotated {
            previous: Some(previous),
            from_key: from.to_owned(),
            to_key: to.to_owned(),
            reason: "the seal's HSM replaced".into(),
            actor: actor.to_owned(),
        }
    }

    #[test]
    fn only_the_key_holding_the_log_signs_and_only_a_recorded_rotation_changes_it() {
        let (old, old_id) = operator_key(1, "casino.example/ledger");
        let (new, new_id) = operator_key(2, "casino.example/ledger-2027");
        let (_, stranger_id) = operator_key(3, "casino.example/ledger");
        let mut history = RegistryHistory::default();
        history.apply(0, at0(), &old_id, &registered(None)).unwrap();
        assert_eq!(history.operator(), Some(old_id.as_str()));
        // Another key cannot sign the log's events...
        let err = history
            .apply(1, at0(), &stranger_id, &rotated(0, &old, &new, "cli:root"))
            .unwrap_err();
        assert!(err.contains("recorded rotation"), "{err}");
        // ...nor hand over a key it does not hold, and only from the command line, with a reason.
        let mut other = history.clone();
        let err = other
            .apply(1, at0(), &old_id, &rotated(0, &new, &old, "cli:root"))
            .unwrap_err();
        assert!(err.contains("only the key that holds the log"), "{err}");
        let err = other
            .apply(1, at0(), &old_id, &rotated(0, &old, &new, "officer"))
            .unwrap_err();
        assert!(err.contains("only the command line"), "{err}");
        let err = other
            .apply(1, at0(), &old_id, &rotated(0, &old, &old, "cli:root"))
            .unwrap_err();
        assert!(err.contains("to the key that holds it"), "{err}");
        // The holder hands it over: from then on only the new key signs.
        history
            .apply(1, at0(), &old_id, &rotated(0, &old, &new, "cli:root"))
            .unwrap();
        assert_eq!(history.operator(), Some(new_id.as_str()));
        let [rotation] = history.rotations() else {
            panic!("one rotation: {:?}", history.rotations())
        };
        assert_eq!((rotation.index, rotation.size()), (1, 2));
        assert_eq!(rotation.to_key.name, "casino.example/ledger-2027");
        let (old, new) = (rotation.from_key.clone(), rotation.to_key.clone());
        let revoke = RegistryEvent::ApiKeyRevoked {
            previous: Some(1),
            key_id: "nobody".into(),
            name: "nobody".into(),
            revoked_by: "cli:root".into(),
            reason: "test".into(),
        };
        let err = history.apply(2, at0(), &old_id, &revoke).unwrap_err();
        assert!(err.contains("is signed by operator key"), "{err}");
        assert_eq!(history.last_event(), Some(1));
        // Checkpoints: the old key up to the tree ending with the rotation (size 2), the new
        // key from that tree on.
        let (old, new) = (&old, &new);
        for (key, size, holds) in [
            (old, 1, true),
            (old, 2, true),
            (old, 3, false),
            (new, 1, false),
            (new, 2, true),
            (new, 9, true),
        ] {
            let checked = history.check_checkpoint_signer(key, size);
            assert_eq!(
                checked.is_ok(),
                holds,
                "{} at {size}: {checked:?}",
                key.name
            );
        }
    }

    fn rollback_accepted(
        previous: u64,
        restored_size: u64,
        lost: &[(u64, &str)],
        actor: &str,
    ) -> RegistryEvent {
        RegistryEvent::RollbackAccepted {
            previous: Some(previous),
            restored_size,
            restored_root: "cc".repeat(32),
            lost: lost
                .iter()
                .map(|(size, root)| crate::registry_event::LostCheckpoint {
                    size: *size,
                    root: (*root).to_owned(),
                })
                .collect(),
            reason: "restored from last night's backup after the disk failed".into(),
            actor: actor.to_owned(),
        }
    }

    #[test]
    fn an_accepted_rollback_names_what_was_lost_from_the_size_it_stands_at() {
        let (_, operator_id) = operator_key(1, "casino.example/ledger");
        let root_a = "aa".repeat(32);
        let root_b = "bb".repeat(32);
        let mut history = RegistryHistory::default();
        history
            .apply(0, at0(), &operator_id, &registered(None))
            .unwrap();
        // Refused: a size other than its own index, a "lost" checkpoint the ledger still
        // holds, no checkpoint, out of order, an upper-case root, an actor not on the command
        // line, no reason.
        for (event, wanted) in [
            (
                rollback_accepted(0, 4, &[(9, &root_a)], "cli:root"),
                "must be the first entry after the restore",
            ),
            (
                rollback_accepted(0, 5, &[(5, &root_a)], "cli:root"),
                "the ledger still holds them",
            ),
            (
                rollback_accepted(0, 5, &[], "cli:root"),
                "names no lost checkpoint",
            ),
            (
                rollback_accepted(0, 5, &[(9, &root_a), (7, &root_b)], "cli:root"),
                "out of order",
            ),
            (
                rollback_accepted(0, 5, &[(9, &root_a.to_uppercase())], "cli:root"),
                "lower-case hex",
            ),
            (
                rollback_accepted(0, 5, &[(9, &root_a)], "officer"),
                "only the command line",
            ),
        ] {
            let err = history
                .clone()
                .apply(5, at0(), &operator_id, &event)
                .unwrap_err();
            assert!(err.contains(wanted), "{wanted}: {err}");
        }
        let mut no_reason = rollback_accepted(0, 5, &[(9, &root_a)], "cli:root");
        if let RegistryEvent::RollbackAccepted { reason, .. } = &mut no_reason {
            *reason = " ".into();
        }
        let err = history
            .clone()
            .apply(5, at0(), &operator_id, &no_reason)
            .unwrap_err();
        assert!(err.contains("gives no reason"), "{err}");
        // Accepted at index 5 (the ledger restored to 5 entries), two checkpoints lost.
        history
            .apply(
                5,
                at0(),
                &operator_id,
                &rollback_accepted(0, 5, &[(7, &root_b), (9, &root_a)], "cli:root"),
            )
            .unwrap();
        let [rollback] = history.accepted_rollbacks() else {
            panic!("one rollback: {:?}", history.accepted_rollbacks())
        };
        assert_eq!((rollback.index, rollback.lost_size()), (5, 9));
        // Exactly the named checkpoints are excused: same size, same root.
        assert!(history.lost_in_accepted_rollback(7, &[0xbb; 32]));
        assert!(history.lost_in_accepted_rollback(9, &[0xaa; 32]));
        assert!(!history.lost_in_accepted_rollback(9, &[0xbb; 32]));
        assert!(!history.lost_in_accepted_rollback(8, &[0xaa; 32]));
    }

    fn range_archived(
        previous: u64,
        from: u64,
        to: u64,
        roots: usize,
        actor: &str,
    ) -> RegistryEvent {
        RegistryEvent::RangeArchived {
            previous: Some(previous),
            from,
            to,
            frontier: vec!["ab".repeat(32); roots],
            last_leaf_hash: "cd".repeat(32),
            registry_events: 1,
            registry_digest: "ef".repeat(32),
            export_first_day: "2026-10-01".into(),
            export_last_day: "2026-10-31".into(),
            export_manifest_sha256: "01".repeat(32),
            reason: "October kept as its export".into(),
            actor: actor.into(),
        }
    }

    #[test]
    fn archived_ranges_follow_one_another_before_their_event() {
        let (_, operator_id) = operator_key(1, "casino.example/ledger");
        let mut history = RegistryHistory::default();
        history
            .apply(0, at0(), &operator_id, &registered(None))
            .unwrap();
        // Refused: a range not starting at 0, one reaching past its own event, 48 entries
        // named by one subtree root (48 = 32 + 16 has two), an actor not on the command line.
        for (index, event, wanted) in [
            (70, range_archived(0, 16, 32, 1, "cli:root"), "starts at 16"),
            (
                40,
                range_archived(0, 0, 48, 2, "cli:root"),
                "a range before the event",
            ),
            (
                70,
                range_archived(0, 0, 48, 1, "cli:root"),
                "names 1 subtree roots",
            ),
            (
                70,
                range_archived(0, 0, 32, 1, "officer"),
                "only the command line",
            ),
        ] {
            let err = history
                .clone()
                .apply(index, at0(), &operator_id, &event)
                .unwrap_err();
            assert!(err.contains(wanted), "{wanted}: {err}");
        }
        history
            .apply(
                70,
                at0(),
                &operator_id,
                &range_archived(0, 0, 48, 2, "cli:root"),
            )
            .unwrap();
        assert_eq!(history.archived_below(), 48);
        // The next one starts where it ended.
        let err = history
            .clone()
            .apply(
                90,
                at0(),
                &operator_id,
                &range_archived(70, 0, 64, 1, "cli:root"),
            )
            .unwrap_err();
        assert!(err.contains("the archived entries end at 48"), "{err}");
        history
            .apply(
                90,
                at0(),
                &operator_id,
                &range_archived(70, 48, 64, 1, "cli:root"),
            )
            .unwrap();
        let archived: Vec<(u64, u64, u64)> = history
            .archived_ranges()
            .iter()
            .map(|a| (a.index, a.from, a.to))
            .collect();
        assert_eq!(archived, [(70, 0, 48), (90, 48, 64)]);
    }
}
