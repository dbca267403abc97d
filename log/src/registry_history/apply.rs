//! Applying a registry event to the history, in stages: its place in the ledger (order, signer,
//! the previous event it names), its actor's right to act, then what the event records.

use chrono::{DateTime, Utc};

use super::actors::actor_of;
use super::history::RegistryHistory;
use super::rollbacks::{AcceptedRollback, ArchivedRange};
use super::rotation::Rotation;
use super::tables::{
    HistoricKey, PostedLimits, RegisteredTable, Revocation, LIMITS_BACKDATING_SECONDS,
};
use super::verifications::VerificationMark;
use crate::entry::parse_ledger_time;
use crate::keys::{key_id, parse_public_key};
use crate::registry_event::RegistryEvent;

/// Whether `text` is lower-case hex SHA-256 (64 digits).
fn is_lower_hex_sha256(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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
        self.check_place(index, signer, event)?;
        if let Some((actor, rule)) = actor_of(event) {
            self.api_keys
                .check_actor(actor, rule, index, received_at)
                .map_err(|m| format!("a `{}` event recorded for {m}", event.record_type()))?;
        }
        let rotated_to = self.record(index, received_at, signer, event)?;
        self.operator = Some(rotated_to.unwrap_or_else(|| signer.to_owned()));
        self.last_event = Some(index);
        Ok(())
    }

    /// The event's place: after the last one applied, signed by the key holding the log, and
    /// naming the last one as its previous.
    fn check_place(&self, index: u64, signer: &str, event: &RegistryEvent) -> Result<(), String> {
        if self.last_event.is_some_and(|last| index <= last) {
            return Err(format!("registry event {index} is out of order"));
        }
        if let Some(operator) = self.operator.as_deref().filter(|o| *o != signer) {
            return Err(format!(
                "registry event {index} is signed by operator key {signer}, but the log's operator key there is {operator}: it changes only by a recorded rotation (log_rotated)"
            ));
        }
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
        Ok(())
    }

    /// Records what the event says; the key id of the operator key it hands the log to, for a
    /// rotation.
    fn record(
        &mut self,
        index: u64,
        received_at: DateTime<Utc>,
        signer: &str,
        event: &RegistryEvent,
    ) -> Result<Option<String>, String> {
        match event {
            RegistryEvent::TableRegistered { .. } => self.register_table(index, event)?,
            RegistryEvent::TableLimitsSet { .. } => self.set_limits(index, received_at, event)?,
            RegistryEvent::TableKeyAdded {
                table_id,
                key_id,
                public_key,
                valid_from,
                ..
            } => self.add_table_key(index, table_id, key_id, public_key, valid_from)?,
            RegistryEvent::TableKeyRevoked {
                table_id,
                key_id,
                revoked_at,
                reason,
                ..
            } => self.revoke_table_key(index, table_id, key_id, revoked_at, reason)?,
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
                self.publish_report(index, name, sha256)?;
            }
            RegistryEvent::LogRotated { .. } => {
                let rotation = Rotation::from_event(index, signer, event)?;
                let next_operator = key_id(&rotation.to_key.key);
                self.rotations.push(rotation);
                return Ok(Some(next_operator));
            }
            RegistryEvent::RollbackAccepted { .. } => {
                self.rollbacks
                    .push(AcceptedRollback::from_event(index, event)?);
            }
            RegistryEvent::LedgerVerified { .. } => {
                let mark = VerificationMark::from_event(
                    index,
                    event,
                    self.verified_to(),
                    self.archived_below(),
                )?;
                self.verifications.push(mark);
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
            } => check_delivery(package, file, sha256.as_deref(), fingerprint.as_deref())?,
        }
        Ok(None)
    }

    /// A `table_registered` event: a new table, its first key and the limits it posts.
    fn register_table(&mut self, index: u64, event: &RegistryEvent) -> Result<(), String> {
        let RegistryEvent::TableRegistered {
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
        } = event
        else {
            return Err(format!(
                "registry event {index} is not a table's registration"
            ));
        };
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
        Ok(())
    }

    /// A `table_limits_set` event: limits a registered table posts, taking effect no earlier
    /// than a moment before they were recorded.
    fn set_limits(
        &mut self,
        index: u64,
        received_at: DateTime<Utc>,
        event: &RegistryEvent,
    ) -> Result<(), String> {
        let RegistryEvent::TableLimitsSet {
            table_id,
            limits,
            effective_from,
            reason,
            actor,
            ..
        } = event
        else {
            return Err(format!("registry event {index} is not a table's limits"));
        };
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| format!("limits set for table `{table_id}`, which is not registered"))?;
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
        Ok(())
    }

    /// A `table_key_added` event: another key of a registered table.
    fn add_table_key(
        &mut self,
        index: u64,
        table_id: &str,
        key_id: &str,
        public_key: &str,
        valid_from: &str,
    ) -> Result<(), String> {
        if !self.tables.contains_key(table_id) {
            return Err(format!(
                "key {key_id} is added to table `{table_id}`, which is not registered"
            ));
        }
        let key = self.new_key(index, table_id, key_id, public_key, valid_from)?;
        self.keys.insert(key.key_id.clone(), key);
        Ok(())
    }

    /// A `table_key_revoked` event: a key of the table it names, revoked once.
    fn revoke_table_key(
        &mut self,
        index: u64,
        table_id: &str,
        key_id: &str,
        revoked_at: &str,
        reason: &str,
    ) -> Result<(), String> {
        let revoked_at = parse_ledger_time(revoked_at)?;
        let key = self
            .keys
            .get_mut(key_id)
            .filter(|k| k.table_id == table_id)
            .ok_or_else(|| {
                format!("revocation of key {key_id}, which is not a key of table `{table_id}`")
            })?;
        if key.revocation.is_some() {
            return Err(format!("key {key_id} is revoked twice"));
        }
        key.revocation = Some(Revocation {
            index,
            revoked_at,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// A `report_published` event: a report under reports/ sealed by its SHA-256.
    fn publish_report(&mut self, index: u64, name: &str, sha256: &str) -> Result<(), String> {
        if !name.starts_with("reports/") || name.contains("..") {
            return Err(format!(
                "a published report named `{name}`, not under reports/"
            ));
        }
        if !is_lower_hex_sha256(sha256) {
            return Err(format!(
                "published report {name}: sha256 is not lower-case hex SHA-256"
            ));
        }
        self.published_reports
            .entry(name.to_owned())
            .or_default()
            .push((index, sha256.to_owned()));
        Ok(())
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
}

/// A `package_delivery` event: a step of a package's delivery, naming the package and file
/// plainly and its digests as lower-case hex SHA-256.
fn check_delivery(
    package: &str,
    file: &str,
    sha256: Option<&str>,
    fingerprint: Option<&str>,
) -> Result<(), String> {
    if !package
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        || file.contains("..")
    {
        return Err(format!(
            "a delivery step of package `{package}`, file `{file}`: not a package's name or file"
        ));
    }
    if sha256.is_some_and(|h| !is_lower_hex_sha256(h))
        || fingerprint.is_some_and(|h| !is_lower_hex_sha256(h))
    {
        return Err(format!(
            "a delivery step of package `{package}`: a digest that is not lower-case hex SHA-256"
        ));
    }
    Ok(())
}
