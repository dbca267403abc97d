//! Checking a signed submission before it is appended: envelope, table, key, signature, game,
//! plan, round structure — then re-adjudication. Anything that fails here changes nothing.

use chrono::{DateTime, Utc};
use ledger::envelope::EnvelopeText;
use ledger::storage::append::{Derived, Submission};
use ledger::storage::registry::KeyValidity;
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

/// A record's canonical bytes and header from one reading of its text: a canonical record (as
/// tables send them) is checked and its header found in the same pass; any other is parsed,
/// canonicalized and read from the parsed value.
fn read_record(text: &str) -> Result<(String, RecordHeader), ApiError> {
    let invalid = |m: String| ApiError::unprocessable("invalid_record", m, json!({}));
    let members = text
        .starts_with('{')
        .then(|| ledger::canonical_scan::canonical_members(text, 1))
        .flatten();
    if let Some(members) = members {
        let member = |name: &str| members.iter().find(|m| m.key == name).map(|m| m.value);
        let header = RecordHeader::from_member_texts(member).map_err(record_error)?;
        return Ok((text.to_owned(), header));
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("record is not JSON: {e}")))?;
    let header = RecordHeader::read(&value).map_err(record_error)?;
    let canonical = ledger::canonical::canonical_text(&value).map_err(|e| match e {
        ledger::LedgerError::Canonical(m) => invalid(m),
        other => invalid(other.to_string()),
    })?;
    Ok((canonical, header))
}

/// Everything short of appending; blocking (may read the database on a cache miss).
pub fn prepare(state: &AppState, envelope: EnvelopeText<'_>) -> Result<Submission, ApiError> {
    let (canonical, header) = read_record(envelope.record.get())?;
    rules::string_limits::check_string_lengths(&canonical).map_err(record_error)?;
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
    envelope
        .verify_canonical(&key.public_key, canonical.as_bytes())
        .map_err(|e| {
            ApiError::unprocessable(
                "bad_signature",
                e.to_string(),
                json!({ "key_id": key.key_id }),
            )
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
            // Parsed from the canonical text: the round judged is exactly the one stored.
            let round = Round::parse_json_with_header(&header, &canonical).map_err(record_error)?;
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
            played_within_registration(state, &key, round.played_at())?;
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
    )
    .late_after(state.clock.late_after))
}

/// A round played before its table was registered or before the key that signed it became
/// valid is refused: a closed gaming day cannot gain rounds from before the table existed.
fn played_within_registration(
    state: &AppState,
    key: &KeyValidity,
    played_at: DateTime<Utc>,
) -> Result<(), ApiError> {
    if let Some(from) = state.directory.registered_from(&key.table_id)? {
        if played_at < from {
            return Err(ApiError::unprocessable(
                "played_before_registration",
                format!(
                    "played_at {played_at} is before table `{}` was registered (it plays from {from})",
                    key.table_id
                ),
                json!({ "field": "played_at", "registered_from": from }),
            ));
        }
    }
    if played_at < key.valid_from {
        return Err(ApiError::unprocessable(
            "played_before_key",
            format!(
                "played_at {played_at} is before key {} became valid ({})",
                key.key_id, key.valid_from
            ),
            json!({ "field": "played_at", "key_id": key.key_id, "valid_from": key.valid_from }),
        ));
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError as _;

    #[test]
    fn a_record_reads_the_same_whether_it_arrives_canonical_or_not() {
        let canonical = r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","x":[1,{"a":null,"b":"é"}]}"#;
        let inner_out_of_order = r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","x":[1,{"b":"é","a":null}]}"#;
        let written_otherwise = r#"{ "type": "round", "table_id": "R01", "seq_no": 7,
            "x": [1, {"a": null, "b": "\u00e9"}], "plan_id": "p" }"#;
        for text in [canonical, inner_out_of_order, written_otherwise] {
            let (bytes, header) = read_record(text).unwrap();
            assert_eq!(bytes, canonical, "{text}");
            assert_eq!(
                (header.record_type.as_str(), header.table_id.as_str()),
                ("round", "R01")
            );
            assert_eq!((header.seq_no, header.plan_id.as_str()), (7, "p"));
        }
    }

    #[test]
    fn a_record_without_a_canonical_form_or_a_header_is_refused() {
        for (text, field) in [
            (
                r#"{"plan_id":"p","seq_no":7,"table_id":"R01","type":"round","stake":1.5}"#,
                None,
            ),
            (
                r#"{"plan_id":"p","seq_no":-1,"table_id":"R01","type":"round"}"#,
                Some("seq_no"),
            ),
            (
                r#"{"plan_id":"p","seq_no":7,"type":"round"}"#,
                Some("table_id"),
            ),
            (
                r#"{"plan_id":"p", "seq_no":7, "type":"round"}"#,
                Some("table_id"),
            ),
            (r#"[1,2]"#, None),
        ] {
            let error = read_record(text).unwrap_err();
            assert_eq!(error.status_code().as_u16(), 422, "{text}");
            let body = error.body();
            assert_eq!(body.code, "invalid_record", "{text}");
            if let Some(field) = field {
                assert_eq!(body.details["field"], field, "{text}");
            }
        }
    }
}
