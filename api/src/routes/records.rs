//! `POST /records`: signed round records from the tables.

use actix_web::{post, web, HttpResponse};
use chrono::{DateTime, Utc};
use ledger::storage::append::{AppendOutcome, Receipt};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::ingest::{parse_envelope, prepare};
use crate::routes::read_body;
use crate::state::AppState;

/// A record signed by its table.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct SignedRecord {
    /// The record: `type`, `table_id`, `seq_no`, `plan_id`, `game` and the game data.
    #[schema(value_type = Object)]
    record: serde_json::Value,
    /// Id of the table key that signed it (from registration or `dozor keygen`).
    key_id: String,
    /// base64 ed25519 signature of the record's RFC 8785 (JCS) canonical bytes.
    signature: String,
}

/// Where a record is in the ledger.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReceiptView {
    pub index: u64,
    /// Hash of the ledger entry (RFC 6962 leaf hash), hex.
    pub entry_hash: String,
    pub received_at: DateTime<Utc>,
    pub table_id: String,
    pub seq_no: u64,
}

impl From<&Receipt> for ReceiptView {
    fn from(r: &Receipt) -> Self {
        ReceiptView {
            index: r.index,
            entry_hash: hex::encode(r.entry_hash),
            received_at: r.received_at,
            table_id: r.table_id.clone(),
            seq_no: r.seq_no,
        }
    }
}

/// Submit a signed record. It is verified, re-adjudicated and appended durably before the
/// receipt is returned. The same record again returns the same receipt.
#[utoipa::path(
    post, path = "/api/v1/records", tag = "records",
    request_body = SignedRecord,
    responses(
        (status = 201, description = "appended", body = ReceiptView),
        (status = 200, description = "this record was appended before: its original receipt", body = ReceiptView),
        (status = 400, description = "malformed JSON or envelope", body = ErrorBody),
        (status = 409, description = "a different record holds this (table_id, seq_no)", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody),
        (status = 422, description = "bad signature, unknown table or key, wrong game, invalid record", body = ErrorBody),
        (status = 503, description = "not appended; safe to retry", body = ErrorBody),
    )
)]
#[post("/records")]
pub async fn submit(
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload, state.body_limit).await?;
    let envelope = parse_envelope(&body)?;
    let shared = state.clone();
    let submission = web::block(move || prepare(&shared, envelope)).await??;
    match state.appender.append(submission).await? {
        AppendOutcome::Appended(r) => Ok(HttpResponse::Created().json(ReceiptView::from(&r))),
        AppendOutcome::AlreadyRecorded(r) => Ok(HttpResponse::Ok().json(ReceiptView::from(&r))),
        AppendOutcome::SeqNoConflict { existing } => Err(ApiError::Conflict {
            code: "seq_no_conflict",
            message: format!(
                "table `{}` already recorded a different record under seq_no {}; logged as a significant event",
                existing.table_id, existing.seq_no
            ),
            details: json!({ "existing": ReceiptView::from(&existing) }),
        }),
        AppendOutcome::KeyNotValid { key_id, reason } => Err(ApiError::unprocessable(
            "key_not_valid",
            format!("key {key_id}: {reason}"),
            json!({ "key_id": key_id }),
        )),
    }
}
