//! Checking a signed submission before it is appended: envelope, table, key, signature, game,
//! plan, round structure — then re-adjudication. Anything that fails here changes nothing.

use chrono::Utc;
use ledger::envelope::EnvelopeText;
use ledger::storage::append::{Derived, Submission};
use rules::{RecordError, RecordHeader, Round};
use serde_json::json;

use crate::error::ApiError;
use crate::state::AppState;

/// How far a table's clock may run ahead of the server's before its rounds are refused.
pub const MAX_CLOCK_SKEW_SECONDS: i64 = 300;

/// Parses a request body (or one item of a batch) as an envelope, its record left as text.
pub fn parse_envelope(body: &[u8]) -> Result<EnvelopeText<'_>, ApiError> {
    serde_json::from_slice::<EnvelopeText>(body).map_err(|e| {
        let code = if e.is_data() {
            "invalid_envelope"
        } else {
            "malformed_json"
        };
        ApiError::BadRequest {
            code,
            message: format!("body is not a valid envelope {{record, key_id, signature}}: {e}"),
            details: json!({ "line": e.line(), "column": e.column() }),
        }
    })
}

pub fn record_error(e: RecordError) -> ApiError {
    let details = match &e {
        RecordError::Invalid { field, .. } => json!({ "field": field }),
        _ => json!({}),
    };
    let code = match &e {
        RecordError::UnsupportedType(_) => "unsupported_record_type",
        RecordError::UnsupportedGame(_) => "unsupported_game",
        _ => "invalid_record",
    };
    ApiError::unprocessable(code, e.to_string(), details)
}

/// Everything short of appending; blocking (may read the database on a cache miss).
pub fn prepare(state: &AppState, envelope: EnvelopeText<'_>) -> Result<Submission, ApiError> {
    let header = RecordHeader::read_json(envelope.record.get()).map_err(record_error)?;
    let table = state
        .directory
        .table(state, &header.table_id)?
        .ok_or_else(|| {
            ApiError::unprocessable(
                "unknown_table",
                format!("table `{}` is not registered", header.table_id),
                json!({ "table_id": header.table_id }),
            )
        })?;
    let key = state
        .directory
        .key(state, &envelope.key_id)?
        .ok_or_else(|| {
            ApiError::unprocessable(
                "unknown_key",
                format!("key `{}` is not registered", envelope.key_id),
                json!({ "key_id": envelope.key_id }),
            )
        })?;
    if key.table_id != table.table_id {
        return Err(ApiError::unprocessable(
            "key_table_mismatch",
            format!(
                "key {} belongs to table `{}`, not `{}`",
                key.key_id, key.table_id, table.table_id
            ),
            json!({ "key_id": key.key_id, "table_id": table.table_id }),
        ));
    }
    if !key.valid_at(Utc::now()) {
        return Err(ApiError::unprocessable(
            "key_not_valid",
            format!("key {} is revoked or not yet valid", key.key_id),
            json!({ "key_id": key.key_id, "revoked_at": key.revoked_at, "valid_from": key.valid_from }),
        ));
    }
    let canonical = envelope.verify(&key.public_key).map_err(|e| match e {
        ledger::LedgerError::Canonical(m) => {
            ApiError::unprocessable("invalid_record", m, json!({}))
        }
        other => ApiError::unprocessable(
            "bad_signature",
            other.to_string(),
            json!({ "key_id": key.key_id }),
        ),
    })?;
    if header.plan_id != table.plan_id {
        return Err(ApiError::unprocessable(
            "plan_mismatch",
            format!(
                "table `{}` plays under plan `{}`, the record names `{}`",
                table.table_id, table.plan_id, header.plan_id
            ),
            json!({ "expected": table.plan_id, "got": header.plan_id }),
        ));
    }
    let derived = match header.record_type.as_str() {
        kind if rules::is_adjudicated(kind) => {
            if header.game.as_deref() != Some(table.game.as_str()) {
                return Err(ApiError::unprocessable(
                    "wrong_game",
                    format!(
                        "table `{}` plays `{}`, the record is `{}`",
                        table.table_id,
                        table.game,
                        header.game.unwrap_or_default()
                    ),
                    json!({ "expected": table.game }),
                ));
            }
            // Parsed from the canonical bytes: the round judged is exactly the one stored.
            let canonical_text = std::str::from_utf8(&canonical).map_err(|_| {
                ApiError::unprocessable("invalid_record", "record is not UTF-8", json!({}))
            })?;
            let round =
                Round::parse_json_with_header(&header, canonical_text).map_err(record_error)?;
            let latest = Utc::now() + chrono::Duration::seconds(MAX_CLOCK_SKEW_SECONDS);
            if round.played_at() > latest {
                return Err(ApiError::unprocessable(
                    "played_at_in_future",
                    format!(
                        "played_at {} is later than the server's clock allows (skew tolerance {MAX_CLOCK_SKEW_SECONDS} s)",
                        round.played_at()
                    ),
                    json!({ "field": "played_at" }),
                ));
            }
            Some(adjudicate(state, &table, &round)?)
        }
        other => return Err(record_error(RecordError::UnsupportedType(other.to_owned()))),
    };
    Ok(Submission::new(
        envelope.key_id,
        envelope.signature,
        canonical,
        header.record_type,
        header.table_id,
        header.seq_no,
        derived,
    ))
}

fn adjudicate(
    state: &AppState,
    table: &ledger::storage::models::GamingTableRow,
    round: &Round,
) -> Result<Derived, ApiError> {
    let plan = state.plans.get(round.plan_id()).ok_or_else(|| {
        ApiError::unprocessable(
            "unknown_plan",
            format!("plan `{}` is not known to this server", round.plan_id()),
            json!({}),
        )
    })?;
    let setup = rules::TableSetup::for_table(plan, round.game(), table.wheel_layout.as_deref())
        .map_err(record_error)?;
    derive_at(plan, &setup, round)
}

/// What is stored beside a round's entry: its verdict and statistics under `plan`.
pub fn derive(plan: &rules::Plan, round: &Round) -> Result<Derived, ApiError> {
    derive_at(plan, &rules::TableSetup::NONE, round)
}

/// [`derive`] on a table set up as `setup`.
pub fn derive_at(
    plan: &rules::Plan,
    setup: &rules::TableSetup,
    round: &Round,
) -> Result<Derived, ApiError> {
    let verdict = rules::adjudicate_at(plan, setup, round).map_err(record_error)?;
    let statistics = rules::round_statistics_at(plan, setup, round).map_err(record_error)?;
    Ok(Derived::new(round.played_at(), &verdict, statistics)?)
}
