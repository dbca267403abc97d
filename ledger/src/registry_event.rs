//! Table registrations and key changes as ledger entries, signed by the operator.
//!
//! Keeping them in the ledger (not only in database tables) lets a verifier work out which key
//! was valid for every record from the ledger alone. Each event names the index of the previous
//! registry event, so a verifier holding the events can tell that none was left out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Record types of registry events; table keys may not sign these.
pub const REGISTRY_TYPES: [&str; 3] = ["table_registered", "table_key_added", "table_key_revoked"];

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
        key_id: String,
        /// base64 ed25519 public key.
        public_key: String,
        valid_from: String,
    },
    /// Another key for a table (rotation); older keys stay valid until revoked.
    TableKeyAdded {
        table_id: String,
        previous: Option<u64>,
        key_id: String,
        public_key: String,
        valid_from: String,
    },
    /// A key is not valid for records received at or after `revoked_at`.
    TableKeyRevoked {
        table_id: String,
        previous: Option<u64>,
        key_id: String,
        revoked_at: String,
        reason: String,
    },
}

impl RegistryEvent {
    pub fn record_type(&self) -> &'static str {
        match self {
            RegistryEvent::TableRegistered { .. } => "table_registered",
            RegistryEvent::TableKeyAdded { .. } => "table_key_added",
            RegistryEvent::TableKeyRevoked { .. } => "table_key_revoked",
        }
    }

    pub fn table_id(&self) -> &str {
        match self {
            RegistryEvent::TableRegistered { table_id, .. }
            | RegistryEvent::TableKeyAdded { table_id, .. }
            | RegistryEvent::TableKeyRevoked { table_id, .. } => table_id,
        }
    }

    pub fn previous(&self) -> Option<u64> {
        match self {
            RegistryEvent::TableRegistered { previous, .. }
            | RegistryEvent::TableKeyAdded { previous, .. }
            | RegistryEvent::TableKeyRevoked { previous, .. } => *previous,
        }
    }

    pub fn to_record(&self) -> Result<Value, crate::LedgerError> {
        serde_json::to_value(self)
            .map_err(|e| crate::LedgerError::Canonical(format!("registry event: {e}")))
    }

    pub fn from_record(record: &Value) -> Result<RegistryEvent, String> {
        RegistryEvent::deserialize(record).map_err(|e| format!("registry event: {e}"))
    }

    /// The event inside an entry's bytes (read back from storage; verifiers use
    /// [`crate::entry_check::check_entry`]).
    pub fn from_entry(entry: &[u8]) -> Result<RegistryEvent, String> {
        #[derive(Deserialize)]
        struct Entry {
            envelope: Envelope,
        }
        #[derive(Deserialize)]
        struct Envelope {
            record: Value,
        }
        let entry: Entry =
            serde_json::from_slice(entry).map_err(|e| format!("entry is not an entry: {e}"))?;
        RegistryEvent::from_record(&entry.envelope.record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_round_trip_and_refuse_unknown_fields() {
        let event = RegistryEvent::TableKeyRevoked {
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
}
