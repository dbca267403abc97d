//! What the registry events of the ledger say: which table key was valid for which entry, which
//! API keys existed with which roles, and how each resolved finding was decided.
//!
//! A key counts for an entry only if the event adding it comes earlier in the ledger, and a
//! revocation counts only if its event comes earlier too: exactly what ingest enforced when the
//! entry was appended, since registry events and records are appended under the same lock.

pub(crate) mod actors;
pub(crate) mod api_keys;
mod apply;
pub(crate) mod history;
pub(crate) mod resolutions;
pub(crate) mod rollbacks;
pub(crate) mod rotation;
pub(crate) mod tables;
pub(crate) mod verifications;

pub use actors::{cli_actor, PUBLISHERS, TABLE_KEEPERS};
pub use api_keys::{
    ActorRule, ApiKeyRevocation, ApiKeys, HistoricApiKey, CLI_ACTOR, KEY_KEEPERS, SCHEDULER_ACTOR,
};
pub use history::RegistryHistory;
pub use resolutions::{RecordedResolution, Resolutions};
pub use rollbacks::{AcceptedRollback, ArchivedRange, RollbackNotice};
pub use rotation::Rotation;
pub use tables::{
    HistoricKey, PostedLimits, RegisteredTable, Revocation, LIMITS_BACKDATING_SECONDS,
};
pub use verifications::VerificationMark;

/// The key id of the operator key that signs the registry events of the tests.
#[cfg(test)]
pub(crate) const TEST_OPERATOR: &str = "0123456789abcdef";

/// A history in which entry 0 registered roulette table R1 under `plan_id`, with `key`, valid
/// from 2026-11-20 10:00 UTC; for the tests of the checks built on the history.
#[cfg(test)]
pub(crate) fn with_roulette_table_r1(
    plan_id: &str,
    key: &ed25519_dalek::SigningKey,
) -> history::RegistryHistory {
    let registered_at = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
        .map(|t| t.with_timezone(&chrono::Utc))
        .unwrap_or_default();
    let registered = crate::registry_event::RegistryEvent::TableRegistered {
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
    let mut history = history::RegistryHistory::default();
    history
        .apply(0, registered_at, TEST_OPERATOR, &registered)
        .unwrap_or_else(|e| unreachable!("registering R1: {e}"));
    history
}

#[cfg(test)]
mod tests;
