//! The registry's history as the events so far give it, and what it answers: which key was
//! valid when, which table plays how, who held the log, what was published.

use std::collections::HashMap;

use super::api_keys::ApiKeys;
use super::resolutions::Resolutions;
use super::rollbacks::{AcceptedRollback, ArchivedRange};
use super::rotation::Rotation;
use super::tables::{HistoricKey, RegisteredTable};
use super::verifications::VerificationMark;
use crate::checkpoint::NoteVerifier;
use crate::entry::KeyWindow;
use crate::merkle::Hash;

#[derive(Debug, Clone, Default)]
pub struct RegistryHistory {
    pub(super) tables: HashMap<String, RegisteredTable>,
    pub(super) keys: HashMap<String, HistoricKey>,
    pub(super) api_keys: ApiKeys,
    pub(super) resolutions: Resolutions,
    /// Published reports by name: the ledger index and SHA-256 of each publication.
    pub(super) published_reports: HashMap<String, Vec<(u64, String)>>,
    /// The operator key (key id, as in envelopes) that signs registry events: the first
    /// event's signer, changed only by a `log_rotated` event.
    pub(super) operator: Option<String>,
    pub(super) rotations: Vec<Rotation>,
    pub(super) rollbacks: Vec<AcceptedRollback>,
    pub(super) archived: Vec<ArchivedRange>,
    pub(super) verifications: Vec<VerificationMark>,
    pub(super) last_event: Option<u64>,
}

impl RegistryHistory {
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

    /// The operator's checks of its ledger (verification marks), in ledger order.
    pub fn verification_marks(&self) -> &[VerificationMark] {
        &self.verifications
    }

    /// The passing check that reached furthest (the later of two that reached as far): where
    /// the next incremental check goes on from.
    pub fn last_verified(&self) -> Option<&VerificationMark> {
        self.verifications
            .iter()
            .filter(|m| m.passed())
            .max_by_key(|m| (m.to, m.index))
    }

    /// Where the next incremental check starts: the end of the furthest passing check, else the
    /// first entry the database holds.
    pub fn verified_to(&self) -> u64 {
        self.last_verified().map_or(self.archived_below(), |m| m.to)
    }

    /// Whether the signed checkpoint of `size` entries with `root` was lost in a rollback the
    /// operator accepted (so it no longer binds the ledger).
    pub fn lost_in_accepted_rollback(&self, size: u64, root: &Hash) -> bool {
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
