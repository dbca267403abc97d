//! A check of the ledger recorded: its result appended as an operator-signed registry event
//! (a verification mark), refused unless the ledger's registry accepts it where it lands.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event, RegistryReceipt};
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::entry::format_time;
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_event::{
    RegistryEvent, VerificationFailure, VerificationScope, VerifiedTree,
};
use dozor_log::registry_history::RegistryHistory;

/// A check's result, to be recorded.
#[derive(Debug, Clone)]
pub struct MarkToRecord {
    pub scope: VerificationScope,
    pub from: u64,
    pub to: u64,
    pub checks: Vec<String>,
    /// The tree of `to` entries and the leaf hash of entry `to - 1`, if the check passed.
    pub end: Option<(Frontier, Hash)>,
    /// The first failure, if it did not.
    pub failure: Option<VerifyFailure>,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    /// `cli:<user>` or `server:nightly`.
    pub actor: String,
}

impl MarkToRecord {
    fn event(&self, previous: Option<u64>) -> RegistryEvent {
        RegistryEvent::LedgerVerified {
            previous,
            scope: self.scope,
            from: self.from,
            to: self.to,
            checks: self.checks.clone(),
            verified: self.end.as_ref().map(|(frontier, last_leaf)| VerifiedTree {
                root: hex::encode(frontier.root()),
                frontier: frontier.subtree_roots().iter().map(hex::encode).collect(),
                last_leaf_hash: hex::encode(last_leaf),
            }),
            failure: self.failure.as_ref().map(|f| VerificationFailure {
                index: f.index,
                reason: f.reason.clone(),
            }),
            started_at: format_time(self.started_at),
            finished_at: format_time(self.finished_at),
            actor: self.actor.clone(),
        }
    }
}

/// Appends `mark`, signed by `operator`, under the append lock; refused (nothing appended) if
/// the registry's history as the ledger holds it now would not accept it there (another check
/// recorded meanwhile, say), so that every verifier accepts what is recorded.
pub fn record(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    operators: &HashMap<String, VerifyingKey>,
    mark: &MarkToRecord,
    now: DateTime<Utc>,
) -> Result<RegistryReceipt, LedgerError> {
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        super::checkpoints::check_signer(conn, operator)?;
        let event = mark.event(last_registry_event(conn)?);
        let mut history = RegistryHistory::default();
        super::registry_log::follow(conn, &mut history, operators)?
            .map_err(|f| LedgerError::key(format!("the registry does not read: {}", f.reason)))?;
        let signer = dozor_log::keys::key_id(&operator.verifier().key);
        history
            .apply(position.next_index, position.received_at, &signer, &event)
            .map_err(|e| LedgerError::key(format!("the mark is not recorded: {e}")))?;
        append_registry_event(conn, &position, &event, operator.signing_key())
    })
}
