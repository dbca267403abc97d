//! That a resolution names a real finding: the round it points at, re-adjudicated from its
//! signed record, has a finding of that kind at that position. Verifiers do this from the ledger
//! alone (the database walk and the offline export check alike), never from the findings table.

use crate::entry_check::{CheckedEntry, Subject};
use crate::registry_history::{RecordedResolution, RegistryHistory};

/// What checking a resolved finding found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingCheck {
    /// Re-adjudication gives that finding at that position.
    Confirmed,
    /// Resolved under another rules version: the round is a round of the table, but its
    /// findings are not re-derived (as with verdicts of other rules versions).
    OtherRulesVersion,
}

/// Checks `resolution` against `round`, the checked entry at its `round_index`.
pub fn check_resolved_finding<'p>(
    resolution: &RecordedResolution,
    round: &CheckedEntry<'_>,
    history: &RegistryHistory,
    plan: impl FnOnce(&str) -> Option<&'p rules::Plan>,
) -> Result<FindingCheck, String> {
    let reference = format!("{}.{}", resolution.round_index, resolution.finding);
    let Subject::Record(header) = &round.subject else {
        return Err(format!(
            "resolution of finding {reference}: entry {} is not a round",
            resolution.round_index
        ));
    };
    if !rules::is_adjudicated(&header.record_type) || header.table_id != resolution.table_id {
        return Err(format!(
            "resolution of finding {reference} at table `{}`: entry {} is not a round of that table",
            resolution.table_id, resolution.round_index
        ));
    }
    if resolution.rules_version != rules::RULES_VERSION {
        return Ok(FindingCheck::OtherRulesVersion);
    }
    let parsed =
        rules::Round::parse_json_with_header(header, round.record).map_err(|e| e.to_string())?;
    let plan = plan(parsed.plan_id())
        .ok_or_else(|| format!("plan {} is not available", parsed.plan_id()))?;
    let layout = history
        .table(parsed.table_id())
        .and_then(|t| t.wheel_layout.as_deref());
    let setup =
        rules::TableSetup::for_table(plan, parsed.game(), layout).map_err(|e| e.to_string())?;
    let verdict = rules::adjudicate_at(plan, &setup, &parsed).map_err(|e| e.to_string())?;
    let found = usize::try_from(resolution.finding)
        .ok()
        .and_then(|n| verdict.findings.get(n));
    match found {
        Some(f) if f.kind.as_str() == resolution.kind => Ok(FindingCheck::Confirmed),
        Some(f) => Err(format!(
            "resolution of finding {reference} names a `{}` finding; re-adjudication gives `{}` there",
            resolution.kind,
            f.kind.as_str()
        )),
        None => Err(format!(
            "resolution of finding {reference}: re-adjudication gives the round {} finding(s)",
            verdict.findings.len()
        )),
    }
}
