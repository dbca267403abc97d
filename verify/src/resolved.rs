//! The resolved findings of an export: every resolution in registry.jsonl names a round shipped
//! in resolved-rounds.jsonl, signed and included in the latest checkpoint's tree, whose
//! re-adjudication has a finding of that kind at that position.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::error::{fail, InspectionError};
use crate::files::{hash_hex, read_text};
use crate::format::{REGISTRY, RESOLVED_ROUNDS, RESOLVED_ROUNDS_PROOFS};
use crate::registry::{included, proofs_for};
use dozor_log::checkpoint::Checkpoint;
use dozor_log::entry::leaf_hash;
use dozor_log::entry_check::{check_entry_text, CheckedEntry, Signers};
use dozor_log::registry_history::RegistryHistory;
use dozor_log::resolution_check::{check_resolved_finding, FindingCheck};

/// What checking the resolutions found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ResolvedFindings {
    /// Resolutions in registry.jsonl.
    pub resolutions: u64,
    /// Resolved findings found again by re-adjudicating their rounds.
    pub readjudicated: u64,
}

/// What checking a file of rounds needs: the export's folder, the registry, the latest
/// checkpoint, who signs which entries, and the plans by id.
#[derive(Clone, Copy)]
pub(super) struct RoundFiles<'a> {
    pub(super) dir: &'a Path,
    pub(super) history: &'a RegistryHistory,
    pub(super) latest: &'a Checkpoint,
    pub(super) signers: Signers<'a>,
    pub(super) plans: &'a HashMap<String, rules::Plan>,
}

pub(super) fn check_resolved_findings(
    files: RoundFiles<'_>,
) -> Result<ResolvedFindings, InspectionError> {
    let RoundFiles {
        dir,
        history,
        latest,
        signers,
        plans,
    } = files;
    let text = read_text(dir, RESOLVED_ROUNDS)?;
    let rounds = load_rounds(
        dir,
        &text,
        latest,
        signers,
        RESOLVED_ROUNDS,
        RESOLVED_ROUNDS_PROOFS,
    )?;

    let mut named = std::collections::HashSet::new();
    let mut readjudicated = 0;
    for resolution in history.resolutions().resolved_findings() {
        let item = format!("{REGISTRY} (index {})", resolution.index);
        named.insert(resolution.round_index);
        // An archived round is in the export that archived it, which checked the resolution
        // if it was made by then (the range_archived event is in registry.jsonl).
        if resolution.round_index < history.archived_below()
            && !rounds.contains_key(&resolution.round_index)
        {
            continue;
        }
        let Some((_, round)) = rounds.get(&resolution.round_index) else {
            return Err(fail(
                item,
                format!(
                    "resolves a finding of entry {}, which {RESOLVED_ROUNDS} does not hold",
                    resolution.round_index
                ),
            ));
        };
        match check_resolved_finding(resolution, round, history, |id| plans.get(id)) {
            Ok(FindingCheck::Confirmed) => readjudicated += 1,
            Ok(FindingCheck::OtherRulesVersion) => {}
            Err(message) => return Err(fail(item, message)),
        }
    }
    if let Some((index, (item, _))) = rounds.iter().find(|(i, _)| !named.contains(*i)) {
        return Err(fail(
            item,
            format!("no resolution in {REGISTRY} names entry {index}"),
        ));
    }
    Ok(ResolvedFindings {
        resolutions: history.resolutions().all().len() as u64,
        readjudicated,
    })
}

/// The lines of a file of rounds (resolved-rounds.jsonl, late-rounds.jsonl) by ledger index,
/// each checked: canonical, signed by a key of its table valid when it was received, and a leaf
/// of the latest checkpoint's tree by its inclusion proof in `proofs_file`.
pub(super) fn load_rounds<'t>(
    dir: &Path,
    text: &'t str,
    latest: &Checkpoint,
    signers: Signers<'_>,
    file: &str,
    proofs_file: &str,
) -> Result<BTreeMap<u64, (String, CheckedEntry<'t>)>, InspectionError> {
    let proofs = proofs_for(dir, proofs_file, latest)?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != proofs.proofs.len() {
        return Err(fail(
            proofs_file,
            format!("{} proofs for {} rounds", proofs.proofs.len(), lines.len()),
        ));
    }
    let mut rounds = BTreeMap::new();
    for (n, (line, proof)) in lines.into_iter().zip(&proofs.proofs).enumerate() {
        let item = format!("{file} line {} (index {})", n + 1, proof.index);
        if rounds
            .last_key_value()
            .is_some_and(|(last, _)| *last >= proof.index)
        {
            return Err(fail(item, "rounds are not in ascending ledger order"));
        }
        let entry = check_entry_text(line, proof.index, signers).map_err(|m| fail(&item, m))?;
        entry.verify_signature().map_err(|m| fail(&item, m))?;
        let path = proof
            .proof
            .iter()
            .map(|h| hash_hex(proofs_file, h))
            .collect::<Result<Vec<_>, _>>()?;
        if !included(proof.index, &leaf_hash(line.as_bytes()), &path, latest) {
            return Err(fail(
                item,
                format!(
                    "not in the tree of the latest checkpoint (size {}): the inclusion proof fails",
                    latest.size
                ),
            ));
        }
        rounds.insert(proof.index, (item, entry));
    }
    Ok(rounds)
}
