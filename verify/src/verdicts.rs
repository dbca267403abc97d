//! The verdicts, checked with the entries (stage 4): a round's exported verdict against
//! re-adjudication with the exported plan, on the table set up as its registration in the
//! ledger says (a wheel's segment order).

use dozor_log::judge::{self, JudgeError};
use rules::table_audit::Fact;

use crate::context::Context;

/// Why an exported verdict does not stand.
#[derive(Debug, thiserror::Error)]
pub(super) enum VerdictError {
    #[error("the verdict is not canonical JSON")]
    NotCanonical,
    #[error("plan {0} is not in the export")]
    MissingPlan(String),
    #[error(transparent)]
    Record(#[from] rules::RecordError),
    #[error("the verdict differs from re-adjudication with the exported plan")]
    Differs,
}

/// A round's re-adjudication: whether it was re-adjudicated, and what the audits across rounds
/// need of it.
pub(super) struct Readjudicated {
    pub(super) readjudicated: bool,
    pub(super) fact: Option<Fact>,
}

/// What the audits across rounds need of a round that is not re-adjudicated (read only for the
/// games they follow).
pub(super) fn fact_only(header: &rules::RecordHeader, record: &str) -> Option<Fact> {
    if !Fact::wanted(header.game.as_deref()) {
        return None;
    }
    // Most spins carry no wheel evidence and give the audit nothing: known without reading
    // them. The record is canonical JSON, so `"spin":{` can only be the evidence's key.
    if header.game.as_deref() == Some("roulette") && !record.contains("\"spin\":{") {
        return None;
    }
    // Ingest read every round it accepted; one that does not read is the verdict's to report.
    let round = rules::Round::parse_json_with_header(header, record).ok()?;
    Fact::of(&round)
}

/// Re-adjudicates a round with the exported plan and compares with the exported verdict;
/// whether it was re-adjudicated (a verdict of another rules version is only checked to be one).
pub(super) fn readjudicate(
    index: u64,
    header: &rules::RecordHeader,
    record: &str,
    exported: &str,
    context: &Context<'_>,
) -> Result<Readjudicated, VerdictError> {
    if context
        .rules_version_marker
        .find(exported.as_bytes())
        .is_none()
    {
        if !dozor_log::canonical_scan::is_canonical(exported) {
            return Err(VerdictError::NotCanonical);
        }
        return Ok(Readjudicated {
            readjudicated: false,
            fact: fact_only(header, record),
        });
    }
    let round = rules::Round::parse_json_with_header(header, record)?;
    // The verdict types serialize in canonical form (tested), so no re-sorting is needed.
    let same = judge::judge(
        &round,
        index,
        |p| context.plans.get(p),
        context.signers.tables,
        |judged| dozor_log::json_compare::serializes_to(&judged.verdict, exported.as_bytes()),
    )
    .map_err(|e| match e {
        JudgeError::UnknownPlan(p) => VerdictError::MissingPlan(p),
        JudgeError::Record(e) | JudgeError::Setup(e) => VerdictError::Record(e),
    })?;
    if !same {
        return Err(VerdictError::Differs);
    }
    Ok(Readjudicated {
        readjudicated: true,
        fact: Fact::of(&round),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A canonical roulette record (keys sorted, no spaces), with or without the wheel's
    /// evidence.
    fn spin(seq_no: u64, evidence: bool) -> String {
        let spin = if evidence {
            r#""spin":{"ball":"clockwise","ball_revolutions":8,"rotor":"counterclockwise"},"#
        } else {
            ""
        };
        format!(
            r#"{{"bets":[],"game":"roulette","outcome":{{"number":5,"result":"number"}},"plan_id":"69games-ziva-hra","played_at":"2026-11-10T18:00:00Z","seq_no":{seq_no},{spin}"table_id":"R1","type":"round"}}"#
        )
    }

    #[test]
    fn a_spin_read_for_the_table_audit_alone_is_the_spin_re_adjudication_reads() {
        for evidence in [false, true] {
            let text = spin(7, evidence);
            assert!(dozor_log::canonical_scan::is_canonical(&text), "{text}");
            let header = rules::RecordHeader::read_json(&text).unwrap();
            let round = rules::Round::parse_json_with_header(&header, &text).unwrap();
            let quick = fact_only(&header, &text);
            assert_eq!(quick, Fact::of(&round));
            assert_eq!(quick.is_some(), evidence);
        }
    }
}
