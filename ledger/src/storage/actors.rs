//! Who records a registry event: checked under the append lock against the ledger's own
//! operator-signed events (never the key rows), by the rule `verify` holds the event to, so the
//! ledger never holds an event its verification would refuse.

use std::collections::HashMap;

use diesel::PgConnection;
use ed25519_dalek::SigningKey;

use super::append::Position;
use crate::registry_history::{ActorRule, ApiKeys, RegistryHistory, CLI_ACTOR, SCHEDULER_ACTOR};
use crate::LedgerError;

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
    let check = |keys: &ApiKeys| {
        keys.check_actor(actor, rule, position.next_index, position.received_at)
            .map_err(refuse)
    };
    // The command line and the scheduler name no key: nothing to read.
    if actor.starts_with(CLI_ACTOR) || actor == SCHEDULER_ACTOR {
        return check(&ApiKeys::default());
    }
    let verifier = operator.verifying_key();
    let operators = HashMap::from([(crate::keys::key_id(&verifier), verifier)]);
    let mut history = RegistryHistory::default();
    if let Err(failure) = super::registry_log::follow(conn, &mut history, &operators)? {
        return Err(refuse(format!(
            "the ledger's registry does not verify at entry {}: {}",
            failure.index, failure.reason
        )));
    }
    check(history.api_keys())
}
