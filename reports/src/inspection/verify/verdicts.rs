//! The verdicts, checked with the entries (stage 4): a round's exported verdict against
//! re-adjudication with the exported plan, on the table set up as its registration in the
//! ledger says (a wheel's segment order).

use super::entries::Context;

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

/// Re-adjudicates a round with the exported plan and compares with the exported verdict;
/// whether it was re-adjudicated (a verdict of another rules version is only checked to be one).
pub(super) fn readjudicate(
    index: u64,
    header: &rules::RecordHeader,
    record: &str,
    exported: &str,
    context: &Context<'_>,
) -> Result<bool, VerdictError> {
    if !exported.contains(context.rules_version_marker) {
        if !ledger::canonical_scan::is_canonical(exported) {
            return Err(VerdictError::NotCanonical);
        }
        return Ok(false);
    }
    let round = rules::Round::parse_json_with_header(header, record)?;
    let plan = context
        .plans
        .get(round.plan_id())
        .ok_or_else(|| VerdictError::MissingPlan(round.plan_id().to_owned()))?;
    let setup = context.signers.tables.table_setup(plan, &round, index)?;
    let verdict = rules::adjudicate_at(plan, &setup, &round)?;
    // The verdict types serialize in canonical form (tested), so no re-sorting is needed.
    if !ledger::json_compare::serializes_to(&verdict, exported.as_bytes()) {
        return Err(VerdictError::Differs);
    }
    Ok(true)
}
