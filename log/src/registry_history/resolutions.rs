//! Resolutions of findings as the registry events give them: each made by a key that could
//! resolve findings at that moment, each a step the finding's state may take.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::api_keys::ApiKeys;
use crate::access::{Decision, FindingState, Role, RESOLVING_ROLES};
use crate::registry_event::RegistryEvent;

/// A finding: the `finding`-th of the verdict of the round at ledger index `round_index`.
pub type FindingRef = (u64, u32);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedResolution {
    /// Ledger index and time of the resolution's entry.
    pub index: u64,
    pub resolved_at: DateTime<Utc>,
    pub table_id: String,
    pub round_index: u64,
    pub finding: u32,
    pub kind: String,
    pub rules_version: String,
    pub decision: Decision,
    pub key_id: String,
    pub key_name: String,
    pub key_role: Role,
}

#[derive(Debug, Clone, Default)]
pub struct Resolutions {
    list: Vec<RecordedResolution>,
    /// Each resolved finding's state now, and the position of its first resolution in `list`.
    findings: HashMap<FindingRef, (FindingState, usize)>,
}

impl Resolutions {
    pub(super) fn apply(
        &mut self,
        index: u64,
        received_at: DateTime<Utc>,
        event: &RegistryEvent,
        keys: &ApiKeys,
    ) -> Result<(), String> {
        let RegistryEvent::FindingResolved {
            table_id,
            round_index,
            finding,
            kind,
            rules_version,
            state,
            amount_settled_h,
            reason,
            comment,
            key_id,
            key_name,
            key_role,
            ..
        } = event
        else {
            return Err("not a resolution".into());
        };
        if *round_index >= index {
            return Err(format!(
                "resolution of a finding of entry {round_index}, which does not come before it"
            ));
        }
        keys.acting(key_id, key_name, *key_role, index, received_at)?;
        if !RESOLVING_ROLES.contains(key_role) {
            return Err(format!(
                "API key `{key_name}` has the role {key_role}, which may not resolve findings"
            ));
        }
        let decision = Decision {
            state: *state,
            amount_settled_h: *amount_settled_h,
            reason: reason.clone(),
            comment: comment.clone(),
        };
        decision
            .validate()
            .map_err(|(field, m)| format!("resolution {field}: {m}"))?;
        let at = (*round_index, *finding);
        let now = match self.findings.get(&at) {
            None => FindingState::Open,
            Some((now, first)) => {
                let first = &self.list[*first];
                if (&first.kind, &first.table_id, &first.rules_version)
                    != (kind, table_id, rules_version)
                {
                    return Err(format!(
                        "resolution of finding {round_index}.{finding} as a `{kind}` finding of table `{table_id}` (rules {rules_version}); entry {} resolved it as a `{}` finding of table `{}` (rules {})",
                        first.index, first.kind, first.table_id, first.rules_version
                    ));
                }
                *now
            }
        };
        if !now.may_become(*state) {
            return Err(format!(
                "finding {round_index}.{finding} is {now}; it cannot become {state}"
            ));
        }
        let position = self.findings.get(&at).map_or(self.list.len(), |(_, p)| *p);
        self.findings.insert(at, (*state, position));
        self.list.push(RecordedResolution {
            index,
            resolved_at: received_at,
            table_id: table_id.clone(),
            round_index: *round_index,
            finding: *finding,
            kind: kind.clone(),
            rules_version: rules_version.clone(),
            decision,
            key_id: key_id.clone(),
            key_name: key_name.clone(),
            key_role: *key_role,
        });
        Ok(())
    }

    /// Every resolution, in ledger order.
    pub fn all(&self) -> &[RecordedResolution] {
        &self.list
    }

    /// A finding's state after every resolution applied so far.
    pub fn state_of(&self, finding: FindingRef) -> FindingState {
        self.findings
            .get(&finding)
            .map_or(FindingState::Open, |(state, _)| *state)
    }

    /// The first resolution of each resolved finding (what names its kind and rules), by round.
    pub fn resolved_findings(&self) -> impl Iterator<Item = &RecordedResolution> {
        let mut firsts: Vec<usize> = self.findings.values().map(|(_, p)| *p).collect();
        firsts.sort_unstable();
        firsts.into_iter().map(|p| &self.list[p])
    }
}
