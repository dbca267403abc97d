//! What a verification established: the export's figures, its witnesses and its findings.

use serde::Serialize;

use crate::options::Cosigner;

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
