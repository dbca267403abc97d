//! The operator's recorded departures from an append-only ledger: rollbacks it accepted (the
//! checkpoints lost with them) and ranges archived out of the database.

use super::actors::check_command_line_act;
use crate::merkle::{parse_lower_hex, Hash};
use crate::registry_event::RegistryEvent;

/// A rollback the operator accepted (a `rollback_accepted` event): the checkpoints it names
/// were lost with the entries they covered and no longer bind the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedRollback {
    /// The event's ledger index, which is the size the ledger was restored to.
    pub index: u64,
    /// The root of the tree of the restored entries (`index` of them).
    pub restored_root: Hash,
    /// The lost checkpoints' sizes and roots, smallest first.
    pub lost: Vec<(u64, Hash)>,
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
    pub frontier: Vec<Hash>,
    #[serde(skip)]
    pub last_leaf_hash: Hash,
    pub registry_events: u64,
    #[serde(skip)]
    pub registry_digest: Hash,
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
        check_command_line_act(&what, "is recorded for", "archives", actor, reason)?;
        let hash = |text: &str, field: &str| -> Result<Hash, String> {
            parse_lower_hex(text)
                .ok_or_else(|| format!("{what}: {field} is not lower-case hex SHA-256"))
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
    pub fn lost_checkpoint(&self, size: u64, root: &Hash) -> bool {
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
        check_command_line_act(
            &format!("the rollback accepted at index {index}"),
            "is recorded for",
            "accepts a rollback",
            actor,
            reason,
        )?;
        if lost.is_empty() {
            return Err(format!(
                "the rollback accepted at index {index} names no lost checkpoint"
            ));
        }
        let restored_root = parse_lower_hex(restored_root).ok_or_else(|| {
            format!(
                "the rollback accepted at index {index}: restored_root is not lower-case hex SHA-256"
            )
        })?;
        let mut checkpoints: Vec<(u64, Hash)> = Vec::with_capacity(lost.len());
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
            let root = parse_lower_hex(&checkpoint.root).ok_or_else(|| {
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
