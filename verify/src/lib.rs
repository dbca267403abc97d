//! Offline verification of an inspection export (no database, no network), in named stages;
//! the first failure names its file and line. This crate and `dozor-log` (the log format) and
//! `dozor-rules` (the plan's rules) are all a regulator needs to read to trust a verification.

use std::path::Path;

use serde::{Deserialize, Serialize};

use dozor_log::checkpoint::{Checkpoint, NoteVerifier};
use dozor_log::cosignature::CosignatureVerifier;
use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::Hash;

pub mod format;

mod chain;
mod entries;
mod late;
mod lines;
mod manifest;
mod registry;
mod resolved;
mod round;
pub use round::{find_round, FoundRound, WhichRound};
mod sealed_reports;
mod verdicts;

pub use crate::format::*;
use chain::{check_extends, check_tree, open_checkpoint};
pub use entries::SIGNATURE_BATCH;
use entries::{check_entries, ENTRY_BLOCK};
use manifest::check_manifest;
use registry::{
    check_registry_proofs, included, load_plans, load_registry, operator_signers, proofs_for,
};

/// The first thing that is wrong with an export, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{item}: {message}")]
pub struct InspectionError {
    /// File, and line or index where it applies.
    pub item: String,
    pub message: String,
}

impl From<dozor_log::parallel::WorkerPanicked> for InspectionError {
    fn from(_: dozor_log::parallel::WorkerPanicked) -> Self {
        fail(ENTRIES, "a verification thread failed")
    }
}

pub(crate) fn fail(item: impl Into<String>, message: impl Into<String>) -> InspectionError {
    InspectionError {
        item: item.into(),
        message: message.into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct InspectionReport {
    pub origin: String,
    pub period: (String, String),
    pub period_entries: u64,
    pub first_index: u64,
    pub checkpoint_size: u64,
    pub checkpoint_root: String,
    pub latest_size: u64,
    /// The witnesses whose cosignatures of the latest checkpoint verified (those given).
    pub cosigned_by: Vec<Cosigner>,
    pub files_checked: usize,
    pub registry_events: u64,
    pub signatures_checked: u64,
    pub rounds_readjudicated: u64,
    /// Resolutions of findings in the registry, and the resolved findings found again by
    /// re-adjudicating their rounds.
    pub resolutions: u64,
    pub resolved_findings_readjudicated: u64,
    /// Rounds played in the period but received after it: each proven in the ledger and
    /// re-adjudicated, and the findings that gives.
    pub late_rounds: u64,
    pub late_rounds_readjudicated: u64,
    pub late_round_findings: u64,
    /// Report files whose SHA-256 matched their `report_published` event.
    pub reports_sealed: u64,
    /// The Ministry's packages sealed in the registry (`reports/mf/…`): which were delivered.
    pub ministry_packages: Vec<SealedPackage>,
    /// The audits that follow a table from round to round (the roulette wheel reversed every
    /// spin, the poker button and big blind moved one player a hand) over the exported rounds:
    /// what they found. Findings, not failures: the rounds are the casino's evidence.
    pub table_audit: Vec<rules::table_audit::AuditFinding>,
    /// Restores to an earlier point the operator accepted (in the registry up to the latest
    /// checkpoint): what each lost.
    pub accepted_rollbacks: Vec<dozor_log::registry_history::RollbackNotice>,
}

/// A Ministry package's seal: its name, the ledger index of the seal and the ZIP's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SealedPackage {
    pub name: String,
    pub index: u64,
    pub sha256: String,
}

pub(crate) fn read(dir: &Path, name: &str) -> Result<Vec<u8>, InspectionError> {
    std::fs::read(dir.join(name)).map_err(|e| fail(name, format!("cannot read: {e}")))
}

pub(crate) fn json<T: for<'de> Deserialize<'de>>(
    dir: &Path,
    name: &str,
) -> Result<T, InspectionError> {
    serde_json::from_slice(&read(dir, name)?).map_err(|e| fail(name, format!("not valid: {e}")))
}

pub(crate) fn hash_hex(item: &str, text: &str) -> Result<Hash, InspectionError> {
    hex::decode(text)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| fail(item, format!("`{text}` is not a 32-byte hex hash")))
}

/// Options of [`verify_export`].
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    pub signatures: SignatureCheck,
    /// Re-adjudicate every round and compare with its exported verdict (otherwise only that
    /// every round has exactly one verdict line).
    pub readjudicate: bool,
    /// How the entries are divided into work; any division gives the same result.
    pub chunking: Chunking,
    /// The witnesses whose cosignatures of the export's latest checkpoint count, and how many
    /// must be there.
    pub witnesses: WitnessPolicy,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            signatures: SignatureCheck::Batch,
            readjudicate: true,
            chunking: Chunking::default(),
            witnesses: WitnessPolicy::default(),
        }
    }
}

/// Which witnesses' cosignatures count (C2SP tlog-cosignature keys) and how many the export's
/// latest checkpoint must carry. The latest checkpoint is proven to extend the one the entries
/// are cut at, so its cosignatures vouch for every exported entry.
#[derive(Debug, Clone, Default)]
pub struct WitnessPolicy {
    pub keys: Vec<CosignatureVerifier>,
    pub quorum: usize,
}

/// A witness's cosignature of the export's latest checkpoint that verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cosigner {
    pub witness: String,
    /// When the witness cosigned (POSIX seconds).
    pub timestamp: u64,
}

/// Entries read at a time (a block) and checked together by one thread (a chunk, whose
/// signatures are one batch). The defaults suit exports of any size; small ones let tests
/// cross many block and chunk boundaries with few entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    pub block: usize,
    pub chunk: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            block: ENTRY_BLOCK,
            chunk: SIGNATURE_BATCH,
        }
    }
}

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
    let cosigned_by = chain::check_witnessed(dir, &options.witnesses)?;
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
    let resolved =
        resolved::check_resolved_findings(dir, &registry.history, &latest, signers, &plans)?;
    // 7. The rounds played in the period but received after it.
    let late = late::check_late_rounds(dir, &info, &registry.history, &latest, signers, &plans)?;
    // 8. The latest checkpoint extends the export's.
    check_extends(dir, &info, &checkpoint, &latest, run_end)?;

    let table_audit = rules::table_audit::audit_tables(entries.facts);
    Ok(InspectionReport {
        table_audit,
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

/// An export opened: export.json, its two checkpoints and the registry events.
pub(crate) struct OpenedExport {
    pub(crate) info: ExportInfo,
    pub(crate) checkpoint: Checkpoint,
    pub(crate) latest: Checkpoint,
    pub(crate) operators: std::collections::HashMap<String, ed25519_dalek::VerifyingKey>,
    pub(crate) registry: registry::Registry,
}

/// Stages 2 and 3, what the export is: export.json of a known format, and its two checkpoints,
/// each signed by one of the operator keys; the registry events, the operator's in order; and
/// each checkpoint signed by the key that held the log at its size.
pub(crate) fn open_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
) -> Result<OpenedExport, InspectionError> {
    let info: ExportInfo = json(dir, EXPORT_JSON)?;
    if info.format != FORMAT {
        return Err(fail(
            EXPORT_JSON,
            format!("unknown format `{}`", info.format),
        ));
    }
    let (checkpoint, checkpoint_signer) = open_checkpoint(dir, CHECKPOINT, operator_keys)?;
    let (latest, latest_signer) = open_checkpoint(dir, CHECKPOINT_LATEST, operator_keys)?;
    let operators = operator_signers(operator_keys);
    let registry = load_registry(dir, &latest, &operators)?;
    for (name, signed, signer) in [
        (CHECKPOINT, &checkpoint, &checkpoint_signer),
        (CHECKPOINT_LATEST, &latest, &latest_signer),
    ] {
        chain::check_signer(name, signed, signer, &info.origin, &registry.history)?;
    }
    Ok(OpenedExport {
        info,
        checkpoint,
        latest,
        operators,
        registry,
    })
}
