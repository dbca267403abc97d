//! Offline verification of an inspection export (no database, no network), in named stages;
//! the first failure names its file and line. This crate and `dozor-log` (the log format) and
//! `dozor-rules` (the plan's rules) are all a regulator needs to read to trust a verification.
//!
//! Place in the map (docs/ARCHITECTURE.md): above `log` and `rules` only, on the regulator's path
//! `cli → verify → log → rules`; `reports` uses its format to write exports.

use std::path::Path;

use dozor_log::checkpoint::NoteVerifier;
use dozor_log::entry_check::Signers;

pub mod format;

mod chain;
mod context;
mod entries;
mod error;
mod files;
mod kept;
mod late;
mod lines;
mod manifest;
mod opened;
mod options;
mod registry;
mod report;
mod resolved;
mod round;
mod sealed_reports;
mod source;
mod verdicts;

pub use crate::format::*;
pub use error::InspectionError;
pub use kept::{PinReport, ProvenBy};
pub use options::{
    Chunking, Cosigner, PinnedCheckpoint, VerifyOptions, WitnessPolicy, SIGNATURE_BATCH,
};
pub use report::{InspectionReport, SealedPackage};
pub use round::{find_round, FoundRound, WhichRound};
pub use source::{locate_export, ExportSource, SourceError};

use chain::{check_extends, check_tree};
use entries::check_entries;
use manifest::check_manifest;
use opened::{open_export, OpenedExport};
use registry::{check_registry_proofs, load_plans};

/// Verifies an export offline, in stages; the first failure names its file and line.
/// `progress(done, total)` is called every few thousand entries.
pub fn verify_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
    options: VerifyOptions,
    progress: impl FnMut(u64, u64),
) -> Result<InspectionReport, InspectionError> {
    // 1. Every file is listed in MANIFEST with its SHA-256, and no other exists.
    let manifest = check_manifest(dir)?;
    // 2. export.json and the two signed checkpoints; 3. registry and keys: the operator's
    //    events, in order, give every table key's validity and which operator key signed when.
    let OpenedExport {
        info,
        checkpoint,
        latest,
        operators,
        registry,
    } = open_export(dir, operator_keys)?;
    let plans = load_plans(dir, &registry.history)?;
    // 4. Entries: canonical form, chain, keys, signatures and verdicts.
    let entries = check_entries(
        dir,
        &manifest,
        &info,
        &registry,
        &operators,
        &plans,
        options.clone(),
        progress,
    )?;
    // 5. Tree: the entries are leaves of the signed checkpoint's tree, registry events of the
    //    latest one's.
    let run_end = check_tree(dir, &info, &checkpoint, &entries.leaves)?;
    check_registry_proofs(&registry, &latest)?;
    // 6. Reports and resolutions: each report matches its seal; each resolution its round.
    let reports_sealed =
        sealed_reports::check_sealed_reports(&manifest.reports, &registry.history, &info)?;
    let signers = Signers {
        operators: &operators,
        tables: &registry.history,
    };
    let round_files = resolved::RoundFiles {
        dir,
        history: &registry.history,
        latest: &latest,
        signers,
        plans: &plans,
    };
    let resolved = resolved::check_resolved_findings(round_files)?;
    // 7. The rounds played in the period but received after it.
    let late = late::check_late_rounds(round_files, &info)?;
    // 8. The latest checkpoint extends the export's; the witnesses' checkpoint and the one
    //    pinned on an earlier visit are prefixes of it.
    check_extends(dir, &info, &checkpoint, &latest, run_end)?;
    let tree = kept::ProvenTree {
        dir,
        info: &info,
        checkpoint: &checkpoint,
        latest: &latest,
        leaves: &entries.leaves,
    };
    let witnessed =
        kept::check_witnessed(&tree, &options.witnesses, operator_keys, &registry.history)?;
    let pin = match &options.pin {
        Some(pin) => Some(kept::check_pin(
            &tree,
            pin,
            operator_keys,
            &registry.history,
        )?),
        None => None,
    };
    let verification_marks_proven = kept::check_marks(&tree, &registry.history)?;
    let (witnessed_size, cosigned_by) =
        witnessed.map_or((None, Vec::new()), |w| (Some(w.size), w.cosigned_by));

    let table_audit = rules::table_audit::audit_tables(entries.facts);
    Ok(InspectionReport {
        table_audit,
        witnessed_size,
        pin,
        origin: info.origin,
        period: (info.from, info.to),
        period_entries: info.period_entries,
        first_index: info.period_first_index,
        checkpoint_size: checkpoint.size,
        checkpoint_root: hex::encode(checkpoint.root),
        latest_size: latest.size,
        cosigned_by,
        files_checked: manifest.files,
        registry_events: registry.leaves.len() as u64,
        signatures_checked: entries.total,
        rounds_readjudicated: entries.rounds_readjudicated,
        resolutions: resolved.resolutions,
        resolved_findings_readjudicated: resolved.readjudicated,
        late_rounds: late.rounds,
        late_rounds_readjudicated: late.readjudicated,
        late_round_findings: late.findings,
        reports_sealed,
        accepted_rollbacks: registry
            .history
            .accepted_rollbacks()
            .iter()
            .map(|r| r.notice())
            .collect(),
        verification_marks: registry.history.verification_marks().to_vec(),
        verification_marks_proven,
        ministry_packages: registry
            .history
            .published_under(crate::format::SEALED_PREFIX)
            .into_iter()
            .map(|(name, index, sha256)| SealedPackage {
                name: name.to_owned(),
                index,
                sha256: sha256.to_owned(),
            })
            .collect(),
    })
}
