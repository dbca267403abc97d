//! The rows an append writes beside its entries: a round's verdict, findings and round id, and
//! the significant events of records refused or received late.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::outcome::Receipt;
use crate::error::LedgerError;
use crate::ingest::submission::{Derived, Submission};
use crate::storage::columns::to_i64;
use crate::storage::models::{FindingRow, NewAdjudication, NewSignificantEvent, RoundIdRow};

/// The rows of a round's derived data, as the writer inserts them.
#[derive(Default)]
pub(crate) struct DerivedRows<'a> {
    pub verdicts: Vec<NewAdjudication<'a>>,
    pub findings: Vec<FindingRow>,
    pub round_ids: Vec<RoundIdRow>,
}

pub(crate) fn push_derived<'a>(
    index: i64,
    d: &'a Derived,
    rows: &mut DerivedRows<'a>,
) -> Result<(), LedgerError> {
    if let Some(round_id) = &d.round_id {
        rows.round_ids.push(RoundIdRow {
            table_id: d.table_id.clone(),
            round_id: round_id.clone(),
            ledger_index: index,
        });
    }
    rows.verdicts.push(verdict_row(index, d));
    rows.findings.extend(finding_rows(index, d)?);
    Ok(())
}

/// The verdict row of the round `d` at `index`.
pub(crate) fn verdict_row(index: i64, d: &Derived) -> NewAdjudication<'_> {
    // In the rules' order, by name: the order the arrays keep and `verify` expects.
    let kinds = &d.statistics.by_kind;
    NewAdjudication {
        kind_names: kinds.iter().map(|k| k.kind.as_str()).collect(),
        kind_bets: kinds.iter().map(|k| k.bets).collect(),
        kind_stakes_h: kinds.iter().map(|k| k.stakes_h).collect(),
        kind_paid_h: kinds.iter().map(|k| k.paid_h).collect(),
        kind_expected_payout_mh: kinds.iter().map(|k| k.expected_payout_mh).collect(),
        kind_variance_h2: kinds.iter().map(|k| k.variance_h2).collect(),
        kind_third_moment_h3: kinds.iter().map(|k| k.third_moment_h3).collect(),
        ..verdict_columns(index, d)
    }
}

/// [`verdict_row`] without its arrays per bet kind (left empty): what a check compares column
/// by column, the kinds compared with the figures they are made from.
pub(crate) fn verdict_columns(index: i64, d: &Derived) -> NewAdjudication<'_> {
    NewAdjudication {
        ledger_index: index,
        table_id: &d.table_id,
        game: &d.game,
        plan_id: &d.plan_id,
        rules_version: &d.rules_version,
        played_at: d.played_at,
        void: d.void,
        stakes_h: d.stakes_h,
        expected_paid_h: d.expected_paid_h,
        paid_h: d.paid_h,
        rtp_stakes_h: d.statistics.rtp_stakes_h,
        expected_payout_mh: d.statistics.expected_payout_mh,
        payout_variance_h2: d.statistics.payout_variance_h2,
        payout_third_moment_h3: d.statistics.payout_third_moment_h3,
        finding_count: i32::try_from(d.findings.len()).unwrap_or(i32::MAX),
        verdict: &d.verdict,
        tournament_fee_h: d.report_figures.tournament_fee_h,
        tournament_overlay_h: d.report_figures.tournament_overlay_h,
        time_collection: d.report_figures.time_collection,
        wheel_result: d.report_figures.wheel_result,
        kind_names: Vec::new(),
        kind_bets: Vec::new(),
        kind_stakes_h: Vec::new(),
        kind_paid_h: Vec::new(),
        kind_expected_payout_mh: Vec::new(),
        kind_variance_h2: Vec::new(),
        kind_third_moment_h3: Vec::new(),
    }
}

/// The finding rows of the round `d` at `index`, in the verdict's order.
pub(crate) fn finding_rows(index: i64, d: &Derived) -> Result<Vec<FindingRow>, LedgerError> {
    d.findings
        .iter()
        .enumerate()
        .map(|(position, f)| {
            Ok(FindingRow {
                position: i32::try_from(position).map_err(|_| LedgerError::OutOfRange {
                    what: "finding position",
                    value: position as i128,
                })?,
                ledger_index: index,
                table_id: d.table_id.clone(),
                game: d.game.clone(),
                played_at: d.played_at,
                kind: f.kind.as_str().to_owned(),
                bet_ids: json!(f.bet_ids.clone().unwrap_or_default()),
                expected_h: f.expected_h,
                actual_h: f.actual_h,
                amount_h: f.amount_h,
                message: f.message.clone(),
            })
        })
        .collect()
}

/// The significant event of a submission refused for what the ledger already holds at
/// `existing`: `details` and the refused record's hash and envelope, kept as evidence.
pub(super) fn refusal_event(
    kind: &str,
    s: &Submission,
    existing: &Receipt,
    occurred_at: DateTime<Utc>,
    mut details: serde_json::Value,
) -> Result<NewSignificantEvent, LedgerError> {
    if let Some(map) = details.as_object_mut() {
        map.insert(
            "rejected_record_hash".into(),
            json!(hex::encode(s.record_hash)),
        );
        map.insert("rejected_envelope".into(), s.envelope_evidence());
    }
    Ok(NewSignificantEvent {
        id: (),
        occurred_at,
        kind: kind.into(),
        table_id: s.table_id.clone(),
        seq_no: to_i64("sequence number", s.seq_no)?,
        ledger_index: Some(to_i64("ledger index", existing.index)?),
        details,
    })
}

/// The significant event of a round received after its late-record window.
pub(super) fn late_record(
    s: &Submission,
    d: &Derived,
    index: i64,
    received_at: DateTime<Utc>,
) -> Result<Option<NewSignificantEvent>, LedgerError> {
    let Some(window) = s.late_after else {
        return Ok(None);
    };
    let late_by = received_at - d.played_at;
    if late_by <= window {
        return Ok(None);
    }
    Ok(Some(NewSignificantEvent {
        id: (),
        occurred_at: received_at,
        kind: "late_record".into(),
        table_id: s.table_id.clone(),
        seq_no: to_i64("sequence number", s.seq_no)?,
        ledger_index: Some(index),
        details: json!({
            "message": "a round received after the late-record window; the report of its gaming day changed after the day closed",
            "played_at": d.played_at,
            "received_at": received_at,
            "late_by_seconds": late_by.num_seconds(),
            "window_seconds": window.num_seconds(),
        }),
    }))
}
