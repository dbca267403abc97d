//! Who may act through which registry events, and who acts from the command line.

use super::api_keys::{ActorRule, CLI_ACTOR};
use crate::access::{PUBLISHING_ROLES, TABLE_KEEPING_ROLES};
use crate::registry_event::RegistryEvent;

/// Who keeps tables and their keys.
pub const TABLE_KEEPERS: ActorRule = ActorRule {
    roles: TABLE_KEEPING_ROLES,
    scheduler: false,
};

/// Who may seal a report into the ledger.
pub const PUBLISHERS: ActorRule = ActorRule {
    roles: PUBLISHING_ROLES,
    scheduler: true,
};

/// The actor an event names and the rule it is held to (API key events and resolutions check
/// their own actors as they are applied). Events written before actors were recorded name
/// none and are not held to a rule.
pub(super) fn actor_of(event: &RegistryEvent) -> Option<(&str, ActorRule)> {
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
        | RegistryEvent::RangeArchived { .. }
        | RegistryEvent::LedgerVerified { .. } => None,
    }
}

/// An operator's act only the command line does (archiving, accepting a rollback, rotating the
/// log): recorded for a command-line actor, with a reason. `what` names the event, `recorded`
/// says how it names its actor, `act` what only the command line does.
pub(super) fn check_command_line_act(
    what: &str,
    recorded: &str,
    act: &str,
    actor: &str,
    reason: &str,
) -> Result<(), String> {
    if !actor.starts_with(CLI_ACTOR) {
        return Err(format!(
            "{what} {recorded} `{actor}`: only the command line {act}"
        ));
    }
    if reason.trim().is_empty() {
        return Err(format!("{what} gives no reason"));
    }
    Ok(())
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
