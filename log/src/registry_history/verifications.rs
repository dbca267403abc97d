//! The operator's checks of its own ledger (`ledger_verified` events, verification marks): what
//! each covered and found, and where the next incremental check starts.

use super::api_keys::{CLI_ACTOR, SCHEDULER_ACTOR};
use crate::merkle::{parse_lower_hex, Frontier, Hash};
use crate::registry_event::{RegistryEvent, VerificationFailure, VerificationScope, VerifiedTree};

/// A verification mark as the ledger records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerificationMark {
    /// The event's ledger index.
    pub index: u64,
    pub scope: VerificationScope,
    pub from: u64,
    pub to: u64,
    /// The root of the tree of `to` entries (lower-case hex), as a passing check found it.
    pub root: Option<String>,
    /// That tree as its perfect subtrees, and the leaf hash of entry `to - 1`.
    #[serde(skip)]
    pub end: Option<(Frontier, Hash)>,
    pub checks: Vec<String>,
    pub failure: Option<VerificationFailure>,
    pub started_at: String,
    pub finished_at: String,
    pub actor: String,
}

impl VerificationMark {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    /// One line for a person.
    pub fn describe(&self) -> String {
        let result = match &self.failure {
            None => "passed".to_owned(),
            Some(f) => format!("FAILED at index {}: {}", f.index, f.reason),
        };
        format!(
            "{} verification of entries {}..{} (mark at index {}, {} – {}, by {}): {result}",
            self.scope.as_str(),
            self.from,
            self.to,
            self.index,
            self.started_at,
            self.finished_at,
            self.actor
        )
    }

    /// Checks a `ledger_verified` event found at ledger `index`, `verified_to` where the last
    /// passing mark before it ended (0 for none) and `first_held` the first entry the database
    /// held (past the archived ranges): the mark it records.
    pub fn from_event(
        index: u64,
        event: &RegistryEvent,
        verified_to: u64,
        first_held: u64,
    ) -> Result<VerificationMark, String> {
        let RegistryEvent::LedgerVerified {
            scope,
            from,
            to,
            checks,
            verified,
            failure,
            started_at,
            finished_at,
            actor,
            ..
        } = event
        else {
            return Err(format!("registry event {index} is not a verification mark"));
        };
        let what = format!("the verification mark at index {index}");
        if !(from < to && *to <= index) {
            return Err(format!(
                "{what} covers [{from}, {to}): it must be entries before the mark"
            ));
        }
        let expected_from = match scope {
            VerificationScope::Incremental => verified_to,
            VerificationScope::Full => first_held,
        };
        if *from != expected_from {
            return Err(format!(
                "{what} is {} from entry {from}; it must start at {expected_from} ({})",
                scope.as_str(),
                match scope {
                    VerificationScope::Incremental => "where the last passing check ended",
                    VerificationScope::Full => "the first entry the database holds",
                }
            ));
        }
        if *actor != SCHEDULER_ACTOR && !actor.starts_with(CLI_ACTOR) {
            return Err(format!(
                "{what} is recorded for `{actor}`: only the command line or the nightly job verifies"
            ));
        }
        if checks.is_empty() {
            return Err(format!("{what} names no check"));
        }
        let end = match (verified, failure) {
            (Some(tree), None) => Some(verified_end(&what, *to, tree)?),
            (None, Some(f))
                if f.index >= *from && f.index <= *to && !f.reason.trim().is_empty() =>
            {
                None
            }
            (None, Some(_)) => {
                return Err(format!(
                    "{what}: its failure must name an entry it covers and why"
                ))
            }
            _ => {
                return Err(format!(
                    "{what} must give either the tree it verified or its failure"
                ))
            }
        };
        for (time, field) in [(started_at, "started_at"), (finished_at, "finished_at")] {
            chrono::DateTime::parse_from_rfc3339(time)
                .map_err(|_| format!("{what}: {field} is not an RFC 3339 time"))?;
        }
        Ok(VerificationMark {
            index,
            scope: *scope,
            from: *from,
            to: *to,
            root: verified.as_ref().map(|t| t.root.clone()),
            end,
            checks: checks.clone(),
            failure: failure.clone(),
            started_at: started_at.clone(),
            finished_at: finished_at.clone(),
            actor: actor.clone(),
        })
    }
}

/// The tree a passing mark verified, checked: its subtree roots make its root.
fn verified_end(what: &str, to: u64, tree: &VerifiedTree) -> Result<(Frontier, Hash), String> {
    let roots = tree
        .frontier
        .iter()
        .map(|h| {
            parse_lower_hex(h)
                .ok_or_else(|| format!("{what}: a subtree root is not lower-case hex SHA-256"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let frontier = Frontier::from_subtree_roots(to, &roots).ok_or_else(|| {
        format!(
            "{what} names {} subtree roots; a tree of {to} entries has {}",
            roots.len(),
            to.count_ones()
        )
    })?;
    if parse_lower_hex(&tree.root) != Some(frontier.root()) {
        return Err(format!("{what}: its subtree roots do not make its root"));
    }
    let last_leaf_hash = parse_lower_hex(&tree.last_leaf_hash)
        .ok_or_else(|| format!("{what}: last_leaf_hash is not lower-case hex SHA-256"))?;
    Ok((frontier, last_leaf_hash))
}
