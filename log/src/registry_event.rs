//! The registry: facts the operator signs into the ledger — table registrations and table key
//! changes, API keys and their revocation, and compliance officers' resolutions of findings.
//!
//! Keeping them in the ledger (not only in database tables) lets a verifier work out which key
//! was valid for every record, and who could decide what, from the ledger alone. Each event
//! names the index of the previous registry event, so a verifier holding the events can tell
//! that none was left out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use rules::TableLimits;

use crate::access::{FindingState, Role};

/// Record types of registry events; table keys may not sign these.
pub const REGISTRY_TYPES: [&str; 13] = [
    "table_registered",
    "table_limits_set",
    "table_key_added",
    "table_key_revoked",
    "api_key_created",
    "api_key_revoked",
    "finding_resolved",
    "report_published",
    "package_delivery",
    "log_rotated",
    "rollback_accepted",
    "range_archived",
    "ledger_verified",
];

pub fn is_registry_type(record_type: &str) -> bool {
    REGISTRY_TYPES.contains(&record_type)
}

/// One change to the set of tables and their keys. Times are RFC 3339 UTC with microseconds,
/// as in entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RegistryEvent {
    /// A table and its first key, valid from `valid_from`.
    TableRegistered {
        table_id: String,
        /// Index of the previous registry event; `null` for the first.
        previous: Option<u64>,
        game: String,
        location: String,
        plan_id: String,
        /// A money wheel's segment labels in physical order; absent for other games.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wheel_layout: Option<Vec<String>>,
        /// The limits the table posts from `valid_from` on; absent: none posted (its bets are
        /// judged by the plan's limits alone).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limits: Option<Box<TableLimits>>,
        key_id: String,
        /// base64 ed25519 public key.
        public_key: String,
        valid_from: String,
        /// Who registered it: an admin key's name, or `cli:<user>` from the command line.
        /// Absent only in events written before actors were recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actor: Option<String>,
    },
    /// New posted limits of a table (its vývěska changed), in force for rounds played from
    /// `effective_from` on and appended after this event.
    TableLimitsSet {
        table_id: String,
        previous: Option<u64>,
        limits: Box<TableLimits>,
        effective_from: String,
        /// Why they changed (e.g. "high-limit evening"), as the pit boss gave it.
        reason: String,
        /// Who set them: an admin key's name, or `cli:<user>` from the command line.
        actor: String,
    },
    /// Another key for a table (rotation); older keys stay valid until revoked.
    TableKeyAdded {
        table_id: String,
        previous: Option<u64>,
        key_id: String,
        public_key: String,
        valid_from: String,
        /// Who added it, as for a registration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actor: Option<String>,
    },
    /// A key is not valid for records received at or after `revoked_at`.
    TableKeyRevoked {
        table_id: String,
        previous: Option<u64>,
        key_id: String,
        revoked_at: String,
        reason: String,
        /// Who revoked it, as for a registration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actor: Option<String>,
    },
    /// An API key (a bearer token for the HTTP API) with its role. Only the hash of the token
    /// is kept anywhere; the key is named by its id, the first 8 bytes of that hash.
    ApiKeyCreated {
        previous: Option<u64>,
        key_id: String,
        /// SHA-256 of the token, lower-case hex: the gate honours a token only when an
        /// operator-signed event names its hash (the token itself is never kept). Absent only in
        /// events written before it was recorded; such a key is no longer honoured.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token_sha256: Option<String>,
        /// Unique among all keys ever created.
        name: String,
        role: Role,
        /// The name of the admin key that created it, or `cli:<user>` from the command line.
        created_by: String,
        /// The key is refused from this time on; absent: until revoked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_at: Option<String>,
    },
    /// An API key refused from this entry on.
    ApiKeyRevoked {
        previous: Option<u64>,
        key_id: String,
        name: String,
        revoked_by: String,
        reason: String,
    },
    /// A compliance officer's decision about a finding: confirmed, dismissed or escalated. The
    /// finding is the `finding`-th (from 0) of the verdict that rules `rules_version` give the
    /// round at `round_index`; the key that decided is named with its role.
    FindingResolved {
        previous: Option<u64>,
        table_id: String,
        round_index: u64,
        finding: u32,
        /// The finding's kind (e.g. `overpaid`), as a check that the right finding is meant.
        kind: String,
        rules_version: String,
        state: FindingState,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount_settled_h: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        comment: String,
        key_id: String,
        key_name: String,
        key_role: Role,
    },
    /// A report as published (in an inspection export, say): its SHA-256 sealed in the ledger,
    /// so a verifier can tell the file was not changed since.
    ReportPublished {
        previous: Option<u64>,
        /// The report's path in an export, e.g. `reports/daily-2026-11-10.csv`.
        name: String,
        /// SHA-256 of the file's bytes, lower-case hex.
        sha256: String,
        size_bytes: u64,
        /// Whose request sealed it: the name of a key that may read it, `cli:<user>`, or
        /// `server:nightly` (the server's own nightly job). Absent only in events written
        /// before actors were recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        actor: Option<String>,
    },
    /// The Ministry's side of a package's delivery as dozor saw it: a download of the sealed
    /// file, a notification, or a confirmation received (trusted or not).
    PackageDelivery {
        previous: Option<u64>,
        step: DeliveryStep,
        /// The package's name; empty for a notification that names none.
        package: String,
        /// The file concerned: the sealed file served, the notification's path, the
        /// confirmation's file name.
        file: String,
        /// SHA-256 of that file (served or received), lower-case hex; none for a notification.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
        /// Who: the TLS client certificate's subject (downloads, notifications) or the
        /// confirmation's sealer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// SHA-256 of that certificate, lower-case hex.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fingerprint: Option<String>,
        /// What was said: the notification's content, the confirmation's result, or why a
        /// confirmation was not trusted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The log handed to a new operator key, and with it perhaps a new origin: signed by the
    /// key that held the log until now. Every later registry event and checkpoint is signed by
    /// `to_key`; the checkpoint of the tree that ends with this event, signed by `from_key`,
    /// names `to_key` too, for the witnesses.
    LogRotated {
        previous: Option<u64>,
        /// The verifier key (C2SP signed-note form `origin+id+key`) that held the log.
        from_key: String,
        /// The verifier key that holds it from now on.
        to_key: String,
        reason: String,
        /// Who rotated it: `cli:<user>` (only the command line can).
        actor: String,
    },
    /// The operator accepts that the ledger was rolled back (restored from a backup to an
    /// earlier point): the checkpoints in `lost`, signed earlier and kept outside the database,
    /// cover entries the restored ledger no longer holds. Appended as the first entry after the
    /// restore, at index `restored_size`; the lost checkpoints no longer bind the ledger, every
    /// other checkpoint still does.
    RollbackAccepted {
        previous: Option<u64>,
        /// The ledger's size when the rollback was accepted: this event's own index.
        restored_size: u64,
        /// The root of the tree of those `restored_size` entries (lower-case hex): the
        /// acceptance holds for this ledger only.
        restored_root: String,
        /// The signed checkpoints larger than `restored_size` that the restore lost, smallest
        /// first.
        lost: Vec<LostCheckpoint>,
        reason: String,
        /// Who accepted it: `cli:<user>` (only the command line can).
        actor: String,
    },
    /// The entries `[from, to)` left the database, kept as a verified inspection export: their
    /// rows are gone, the tree over them stays (its interior nodes and the leaves' hashes), and
    /// so do the registry events among them. `from` is where the previous archived range ended
    /// (0 for the first); `to` a boundary of the database's ranges, covered by a signed
    /// checkpoint.
    RangeArchived {
        previous: Option<u64>,
        from: u64,
        to: u64,
        /// The roots of the perfect subtrees that make up the tree of the first `to` entries,
        /// largest first (lower-case hex): where the tree goes on from.
        frontier: Vec<String>,
        /// The leaf hash of entry `to - 1`, the `prev_hash` of entry `to`.
        last_leaf_hash: String,
        /// How many registry events the range holds (kept apart, for the registry's history),
        /// and the SHA-256 of their leaf hashes in index order.
        registry_events: u64,
        registry_digest: String,
        /// The inspection export that holds the range: its gaming days and the SHA-256 of its
        /// MANIFEST.
        export_first_day: String,
        export_last_day: String,
        export_manifest_sha256: String,
        reason: String,
        /// Who archived it: `cli:<user>` (only the command line can).
        actor: String,
    },
    /// The operator's own check of the ledger in its database (a verification mark): entries
    /// `[from, to)` were checked (each hash, link and signature, each round judged again, the
    /// rows and tree nodes derived from them), `to` the size of a signed checkpoint. An
    /// incremental check starts where the last passing one ended; a full walk at the first
    /// entry the database holds.
    LedgerVerified {
        previous: Option<u64>,
        scope: VerificationScope,
        from: u64,
        to: u64,
        /// What was checked, by name (docs/VERIFY.md).
        checks: Vec<String>,
        /// The tree a passing check found: present exactly when there is no failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        verified: Option<VerifiedTree>,
        /// The first failure a failing check found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure: Option<VerificationFailure>,
        started_at: String,
        finished_at: String,
        /// Who ran it: `cli:<user>`, or `server:nightly` (the server's nightly job).
        actor: String,
    },
}

/// Which entries a verification mark covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationScope {
    /// What was appended since the last passing check.
    Incremental,
    /// Every entry the database holds.
    Full,
}

impl VerificationScope {
    pub fn as_str(self) -> &'static str {
        match self {
            VerificationScope::Incremental => "incremental",
            VerificationScope::Full => "full",
        }
    }
}

/// The tree of the first `to` entries as a passing check found it: where the next incremental
/// check goes on from, with no stored node or row of the verified range trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifiedTree {
    /// The tree's root (lower-case hex).
    pub root: String,
    /// The roots of the perfect subtrees that make it up, largest first (lower-case hex).
    pub frontier: Vec<String>,
    /// The leaf hash of entry `to - 1` (lower-case hex): the `prev_hash` of entry `to`.
    pub last_leaf_hash: String,
}

/// The first failure a verification found: the entry and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationFailure {
    pub index: u64,
    pub reason: String,
}

/// A signed checkpoint a restore lost: its size and root (lower-case hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostCheckpoint {
    pub size: u64,
    pub root: String,
}

/// What happened to a delivered package on the Ministry's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStep {
    /// The Ministry downloaded the sealed file.
    Downloaded,
    /// The Ministry called a notification URL.
    Notified,
    /// A confirmation sealed by the Ministry said the package was accepted (`OK: …`).
    Confirmed,
    /// A confirmation sealed by the Ministry listed errors: the package was not accepted.
    Rejected,
    /// A file offered as the Ministry's confirmation whose seal does not hold, or that does
    /// not open: kept as evidence, never trusted.
    ConfirmationRefused,
}

impl DeliveryStep {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStep::Downloaded => "downloaded",
            DeliveryStep::Notified => "notified",
            DeliveryStep::Confirmed => "confirmed",
            DeliveryStep::Rejected => "rejected",
            DeliveryStep::ConfirmationRefused => "confirmation_refused",
        }
    }
}

impl RegistryEvent {
    pub fn record_type(&self) -> &'static str {
        match self {
            RegistryEvent::TableRegistered { .. } => "table_registered",
            RegistryEvent::TableLimitsSet { .. } => "table_limits_set",
            RegistryEvent::TableKeyAdded { .. } => "table_key_added",
            RegistryEvent::TableKeyRevoked { .. } => "table_key_revoked",
            RegistryEvent::ApiKeyCreated { .. } => "api_key_created",
            RegistryEvent::ApiKeyRevoked { .. } => "api_key_revoked",
            RegistryEvent::FindingResolved { .. } => "finding_resolved",
            RegistryEvent::ReportPublished { .. } => "report_published",
            RegistryEvent::PackageDelivery { .. } => "package_delivery",
            RegistryEvent::LogRotated { .. } => "log_rotated",
            RegistryEvent::RollbackAccepted { .. } => "rollback_accepted",
            RegistryEvent::RangeArchived { .. } => "range_archived",
            RegistryEvent::LedgerVerified { .. } => "ledger_verified",
        }
    }

    /// The gaming table the event is about; none for API keys.
    pub fn table_id(&self) -> Option<&str> {
        match self {
            RegistryEvent::TableRegistered { table_id, .. }
            | RegistryEvent::TableLimitsSet { table_id, .. }
            | RegistryEvent::TableKeyAdded { table_id, .. }
            | RegistryEvent::TableKeyRevoked { table_id, .. }
            | RegistryEvent::FindingResolved { table_id, .. } => Some(table_id),
            RegistryEvent::ApiKeyCreated { .. }
            | RegistryEvent::ApiKeyRevoked { .. }
            | RegistryEvent::ReportPublished { .. }
            | RegistryEvent::PackageDelivery { .. }
            | RegistryEvent::LogRotated { .. }
            | RegistryEvent::RollbackAccepted { .. }
            | RegistryEvent::RangeArchived { .. }
            | RegistryEvent::LedgerVerified { .. } => None,
        }
    }

    pub fn previous(&self) -> Option<u64> {
        match self {
            RegistryEvent::TableRegistered { previous, .. }
            | RegistryEvent::TableLimitsSet { previous, .. }
            | RegistryEvent::TableKeyAdded { previous, .. }
            | RegistryEvent::TableKeyRevoked { previous, .. }
            | RegistryEvent::ApiKeyCreated { previous, .. }
            | RegistryEvent::ApiKeyRevoked { previous, .. }
            | RegistryEvent::FindingResolved { previous, .. }
            | RegistryEvent::ReportPublished { previous, .. }
            | RegistryEvent::PackageDelivery { previous, .. }
            | RegistryEvent::LogRotated { previous, .. }
            | RegistryEvent::RollbackAccepted { previous, .. }
            | RegistryEvent::RangeArchived { previous, .. }
            | RegistryEvent::LedgerVerified { previous, .. } => *previous,
        }
    }

    pub fn to_record(&self) -> Result<Value, crate::error::LogError> {
        serde_json::to_value(self)
            .map_err(|e| crate::error::LogError::Canonical(format!("registry event: {e}")))
    }

    pub fn from_record(record: &Value) -> Result<RegistryEvent, String> {
        RegistryEvent::deserialize(record).map_err(|e| format!("registry event: {e}"))
    }

    /// The event inside an entry's bytes (read back from storage; verifiers use
    /// [`crate::entry_check::check_entry`]).
    pub fn from_entry(entry: &[u8]) -> Result<RegistryEvent, String> {
        RegistryEvent::with_signer(entry).map(|(_, event)| event)
    }

    /// The event inside an entry's bytes and the key id its envelope names as the signer (not
    /// verified here).
    pub fn with_signer(entry: &[u8]) -> Result<(String, RegistryEvent), String> {
        #[derive(Deserialize)]
        struct Entry {
            envelope: Envelope,
        }
        #[derive(Deserialize)]
        struct Envelope {
            key_id: String,
            record: Value,
        }
        let entry: Entry =
            serde_json::from_slice(entry).map_err(|e| format!("entry is not an entry: {e}"))?;
        let event = RegistryEvent::from_record(&entry.envelope.record)?;
        Ok((entry.envelope.key_id, event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_round_trip_and_refuse_unknown_fields() {
        let event = RegistryEvent::TableKeyRevoked {
            actor: Some("cli:root".into()),
            table_id: "R1".into(),
            previous: Some(4),
            key_id: "00112233aabbccdd".into(),
            revoked_at: "2026-11-21T10:00:00.000000Z".into(),
            reason: "lost".into(),
        };
        let record = event.to_record().unwrap();
        assert_eq!(record["type"], "table_key_revoked");
        assert_eq!(RegistryEvent::from_record(&record).unwrap(), event);
        let mut extra = record.clone();
        extra["valid_from"] = json!("2026-11-21T10:00:00.000000Z");
        assert!(RegistryEvent::from_record(&extra).is_err());
        assert!(RegistryEvent::from_record(&json!({"type": "round"})).is_err());
        assert!(is_registry_type(event.record_type()));
        assert!(!is_registry_type("round"));
    }

    #[test]
    fn api_key_and_resolution_events_carry_roles_and_states_by_name() {
        let created = RegistryEvent::ApiKeyCreated {
            previous: None,
            key_id: "0011223344556677".into(),
            token_sha256: Some(format!("0011223344556677{}", "0".repeat(48))),
            name: "officer-1".into(),
            role: Role::Compliance,
            created_by: "cli:root".into(),
            expires_at: None,
        };
        let record = created.to_record().unwrap();
        assert_eq!(record["type"], "api_key_created");
        assert_eq!(record["role"], "compliance");
        assert!(record.get("expires_at").is_none());
        assert_eq!(RegistryEvent::from_record(&record).unwrap(), created);
        assert_eq!(created.table_id(), None);
        let mut bad_role = record.clone();
        bad_role["role"] = json!("root");
        assert!(RegistryEvent::from_record(&bad_role).is_err());

        let resolved = RegistryEvent::FindingResolved {
            previous: Some(3),
            table_id: "R1".into(),
            round_index: 7,
            finding: 0,
            kind: "overpaid".into(),
            rules_version: "2026.11.1".into(),
            state: FindingState::Dismissed,
            amount_settled_h: None,
            reason: Some("video shows a correct payout".into()),
            comment: "checked".into(),
            key_id: "0011223344556677".into(),
            key_name: "officer-1".into(),
            key_role: Role::Compliance,
        };
        let record = resolved.to_record().unwrap();
        assert_eq!(record["state"], "dismissed");
        assert!(record.get("amount_settled_h").is_none());
        assert_eq!(RegistryEvent::from_record(&record).unwrap(), resolved);
        assert_eq!(resolved.table_id(), Some("R1"));
        let mut open = record.clone();
        open["state"] = json!("reopened");
        assert!(RegistryEvent::from_record(&open).is_err());
    }
}
