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
    /// The witnesses whose cosignatures verified (those given), of the latest checkpoint or
    /// of the latest one they cosigned (`witnessed_size`), proven a prefix of it.
    pub cosigned_by: Vec<Cosigner>,
    /// The size of the checkpoint the witnesses' quorum cosigned; none without witness keys.
    pub witnessed_size: Option<u64>,
    /// The checkpoint kept from an earlier visit (`--pin`), proven a prefix of the ledger.
    pub pin: Option<crate::kept::PinReport>,
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
    /// The operator's own checks of its ledger (verification marks, in the registry up to the
    /// latest checkpoint), each checked as a registry event: what each covered and found.
    pub verification_marks: Vec<dozor_log::registry_history::VerificationMark>,
    /// Passing marks whose tree (their entries under the root they name) was proven a prefix
    /// of the export's ledger: each of them, since a mark naming another tree fails the export.
    pub verification_marks_proven: u64,
}

/// A Ministry package's seal: its name, the ledger index of the seal and the ZIP's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SealedPackage {
    pub name: String,
    pub index: u64,
    pub sha256: String,
}

impl InspectionReport {
    /// Every round re-adjudicated: the period's entries' and the late ones'.
    pub fn all_rounds_readjudicated(&self) -> u64 {
        self.rounds_readjudicated + self.late_rounds_readjudicated
    }

    /// What the verification established, in one line: the period's entries, the rounds played
    /// in the period wherever they arrived (late ones counted as rounds and named as late), the
    /// signatures, resolutions and seals, the tree, the witnesses and the pinned checkpoint.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} entries received in {}..{} (plus chain links) and {} rounds played in it but received later; {} rounds re-adjudicated ({} of them late, with {} findings), {} signatures, {} resolutions ({} resolved findings found again), {} reports matching their seals, {} Ministry packages sealed, all leaves of checkpoint {} checked",
            self.period_entries,
            self.period.0,
            self.period.1,
            self.late_rounds,
            self.all_rounds_readjudicated(),
            self.late_rounds_readjudicated,
            self.late_round_findings,
            self.signatures_checked,
            self.resolutions,
            self.resolved_findings_readjudicated,
            self.reports_sealed,
            self.ministry_packages.len(),
            self.checkpoint_size,
        );
        if let Some(size) = self.witnessed_size {
            let names: Vec<&str> = self
                .cosigned_by
                .iter()
                .map(|c| c.witness.as_str())
                .collect();
            line.push_str(&format!(
                "; witnessed up to {size} entries by {}",
                names.join(", ")
            ));
        }
        if let Some(pin) = &self.pin {
            line.push_str(&format!(
                "; pinned checkpoint {} ({} entries) is a prefix of the ledger",
                pin.file, pin.size
            ));
        }
        line
    }
}
