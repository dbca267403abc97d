//! The rounds played in the period but received after it: each in late-rounds.jsonl, signed,
//! a leaf of the latest checkpoint's tree, played inside the period and received after its
//! last entry, and re-adjudicated with the exported plan.

use dozor_log::entry_check::Subject;
use dozor_log::judge::{self, JudgeError};

use crate::error::{fail, InspectionError};
use crate::files::read_text;
use crate::format::{ExportInfo, LATE_ROUNDS, LATE_ROUNDS_PROOFS};
use crate::resolved::{load_rounds, RoundFiles};

/// What checking the late rounds found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LateRounds {
    pub rounds: u64,
    pub readjudicated: u64,
    /// Findings their re-adjudication gives.
    pub findings: u64,
}

pub(super) fn check_late_rounds(
    files: RoundFiles<'_>,
    info: &ExportInfo,
) -> Result<LateRounds, InspectionError> {
    let text = read_text(files.dir, LATE_ROUNDS)?;
    let rounds = load_rounds(
        files.dir,
        &text,
        files.latest,
        files.signers,
        LATE_ROUNDS,
        LATE_ROUNDS_PROOFS,
    )?;
    if rounds.len() as u64 != info.late_rounds {
        return Err(fail(
            LATE_ROUNDS,
            format!(
                "{} rounds; export.json says {}",
                rounds.len(),
                info.late_rounds
            ),
        ));
    }
    let period_end = info.period_first_index + info.period_entries;
    let mut checked = LateRounds {
        rounds: rounds.len() as u64,
        ..LateRounds::default()
    };
    for (index, (item, entry)) in &rounds {
        let Subject::Record(header) = &entry.subject else {
            return Err(fail(item, "not a table's record"));
        };
        if !rules::is_adjudicated(&header.record_type) {
            return Err(fail(item, "not a round"));
        }
        if *index < period_end {
            return Err(fail(
                item,
                format!("received in the period or before it (its entries end at {period_end})"),
            ));
        }
        let round = rules::Round::parse_json_with_header(header, entry.record)
            .map_err(|e| fail(item, e.to_string()))?;
        let played = round.played_at();
        if played < info.starts_at || played >= info.ends_at {
            return Err(fail(
                item,
                format!("played at {played}, outside the period"),
            ));
        }
        let findings = judge::judge(
            &round,
            *index,
            |p| files.plans.get(p),
            files.history,
            |judged| judged.verdict.findings.len() as u64,
        )
        .map_err(|e| match e {
            JudgeError::UnknownPlan(p) => fail(item, format!("plan {p} is not in the export")),
            other => fail(item, other.to_string()),
        })?;
        checked.readjudicated += 1;
        checked.findings += findings;
    }
    Ok(checked)
}
