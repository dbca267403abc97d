//! `POST /records`: signed round records from the tables.

use actix_web::http::StatusCode;
use actix_web::{post, web, HttpRequest, HttpResponse, ResponseError as _};
use chrono::{DateTime, Utc};
use ledger::ingest::IngestError;
use ledger::storage::append::{AppendOutcome, Receipt, Submission};
use serde::Serialize;
use serde_json::json;
use utoipa::{IntoResponses, ToSchema};

use crate::error::{ApiError, ErrorBody};
use crate::gate::TableSigned;
use crate::metrics::{IngestResult, Metrics};
use crate::routes::body::{bounded_array, read_json_body, BoundedArrayError};

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

/// What a submission of records is refused for before its records are read: its body's time,
/// size and type, and its address's rate.
#[derive(IntoResponses)]
pub enum BodyRefusals {
    #[response(status = 408, description = "the body did not arrive in time")]
    Late(ErrorBody),
    #[response(
        status = 413,
        description = "the body is over the server's limit (`payload_too_large`), or a record's ledger entry would be over 65 535 bytes, what an entry of the published tiles holds (`entry_too_large`, with `entry_bytes`, `limit_bytes`, `record_bytes` and `record_limit_bytes` in details; in a batch, that record's result); nothing was appended"
    )]
    TooLarge(ErrorBody),
    #[response(status = 415, description = "body not declared application/json")]
    NotJson(ErrorBody),
    #[response(
        status = 429,
        description = "too many requests from this address; see Retry-After"
    )]
    TooMany(ErrorBody),
}

/// Submit a signed record. It is verified, re-adjudicated and appended durably before the
/// receipt is returned. The same record again returns the same receipt.
#[utoipa::path(operation_id = "submit_record",
    post, tag = "records",
    request_body = SignedRecord,
    responses(
        (status = 201, description = "appended", body = ReceiptView),
        (status = 200, description = "this record was appended before: its original receipt", body = ReceiptView),
        (status = 400, description = "malformed JSON or envelope", body = ErrorBody),
        (status = 409, description = "a different record holds this (table_id, seq_no), or another round of the table has this round_id", body = ErrorBody),
        BodyRefusals,
        (status = 422, description = "bad signature, unknown table or key, wrong game, invalid record, played before the table's registration or the key's validity", body = ErrorBody),
        (status = 503, description = "not appended; safe to retry", body = ErrorBody),
    )
)]
#[post("/records")]
pub async fn submit(
    TableSigned { state }: TableSigned,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_json_body(&request, payload, state.body_limit).await?;
    let shared = state.clone();
    let submission = web::block(move || {
        let envelope = ledger::ingest::parse_envelope(&body)?;
        shared.ingest.prepare(envelope)
    })
    .await?
    .inspect_err(|_| {
        state
            .metrics
            .records_ingested(crate::metrics::UNKNOWN_GAME, IngestResult::Refused, 1)
    })?;
    let counted = Counted::of(&submission);
    let outcome = state.ingest.append(submission).await;
    counted.count(&state.metrics, &outcome);
    let (status, receipt) = receipt_of(outcome?)?;
    Ok(HttpResponse::build(status).json(receipt))
}

/// What the ingest counter needs of a submission, taken before the writer consumes it.
struct Counted {
    game: String,
    findings: bool,
}

impl Counted {
    fn of(submission: &Submission) -> Counted {
        match &submission.derived {
            Some(derived) => Counted {
                game: derived.game.clone(),
                findings: !derived.findings.is_empty(),
            },
            // Operation records (table periods, the cage) are counted under their type.
            None => Counted {
                game: submission.record_type.clone(),
                findings: false,
            },
        }
    }

    fn count(&self, metrics: &Metrics, outcome: &Result<AppendOutcome, IngestError>) {
        let result = match outcome {
            Ok(AppendOutcome::Appended(_)) if self.findings => IngestResult::Findings,
            Ok(AppendOutcome::Appended(_)) => IngestResult::Clean,
            Ok(AppendOutcome::AlreadyRecorded(_)) => IngestResult::Duplicate,
            Ok(AppendOutcome::SeqNoConflict { .. } | AppendOutcome::RoundIdConflict { .. }) => {
                IngestResult::Conflict
            }
            Ok(AppendOutcome::KeyNotValid { .. }) => IngestResult::Refused,
            Ok(AppendOutcome::LimitsChanged(_)) | Err(_) => IngestResult::Unavailable,
        };
        metrics.records_ingested(&self.game, result, 1);
    }
}

/// 201 with the receipt of a new entry, 200 with the original one, or the error.
fn receipt_of(outcome: AppendOutcome) -> Result<(StatusCode, ReceiptView), ApiError> {
    match outcome {
        AppendOutcome::Appended(r) => Ok((StatusCode::CREATED, ReceiptView::from(&r))),
        AppendOutcome::AlreadyRecorded(r) => Ok((StatusCode::OK, ReceiptView::from(&r))),
        AppendOutcome::SeqNoConflict { existing } => Err(ApiError::Conflict {
            code: "seq_no_conflict",
            message: format!(
                "table `{}` already recorded a different record under seq_no {}; logged as a significant event",
                existing.table_id, existing.seq_no
            ),
            details: json!({ "existing": ReceiptView::from(&existing) }),
        }),
        AppendOutcome::RoundIdConflict { existing, round_id } => Err(ApiError::Conflict {
            code: "round_id_conflict",
            message: format!(
                "table `{}` already recorded round `{round_id}` under seq_no {}; a round is recorded once, and this one is logged as a significant event",
                existing.table_id, existing.seq_no
            ),
            details: json!({ "round_id": round_id, "existing": ReceiptView::from(&existing) }),
        }),
        AppendOutcome::KeyNotValid { key_id, reason } => Err(ApiError::unprocessable(
            "key_not_valid",
            format!("key {key_id}: {reason}"),
            json!({ "key_id": key_id }),
        )),
        // Ingest judges such a round again itself; only one it gave up on comes here.
        AppendOutcome::LimitsChanged(_) => Err(ledger::ingest::IngestError::Unavailable {
            reason: "the table's posted limits changed while the round was judged; retry",
            cause: "table limits changed during ingest".into(),
        }
        .into()),
    }
}

/// Most records in one batch request.
pub const MAX_BATCH: usize = 1_000;

/// Largest batch body: what a full batch of ordinary records needs (16 MiB), never more than
/// `MAX_BATCH` records at the per-record limit.
pub fn batch_body_limit(record_limit: usize) -> usize {
    record_limit.saturating_mul(MAX_BATCH).min(16 << 20)
}

/// What became of one record of a batch: `status` is what `POST /records` would have answered.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchItem {
    pub status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<ReceiptView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BatchResult {
    /// One per submitted record, in the order submitted.
    pub results: Vec<BatchItem>,
}

/// Submit up to 1 000 signed records at once (e.g. from a gateway in front of several tables).
/// Each is handled exactly as by `POST /records`, on its own: one bad record does not affect the
/// others, and every receipt comes only once its record is durable.
#[utoipa::path(operation_id = "submit_records",
    post, tag = "records",
    request_body = Vec<SignedRecord>,
    responses(
        (status = 200, description = "one result per record, in order", body = BatchResult),
        (status = 400, description = "not a JSON array of envelopes, or more than 1 000", body = ErrorBody),
        BodyRefusals,
    )
)]
#[post("/records/batch")]
pub async fn submit_batch(
    TableSigned { state }: TableSigned,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_json_body(&request, payload, batch_body_limit(state.body_limit)).await?;
    let record_limit = state.body_limit;
    let shared = state.clone();
    let prepared = web::block(move || -> Result<_, ApiError> {
        // Each item stays text until its own turn: one parse per record, none of the whole body;
        // counted as read, so an array of millions of tiny items is refused at the 1 001st.
        let items = bounded_array(&body, MAX_BATCH).map_err(|e| match e {
            BoundedArrayError::TooMany => ApiError::bad_request(
                "batch_too_large",
                format!("more than {MAX_BATCH} records; at most {MAX_BATCH} per batch"),
            ),
            BoundedArrayError::Json(e) => {
                ApiError::bad_request("malformed_json", format!("body is not a JSON array: {e}"))
            }
        })?;
        Ok(items
            .into_iter()
            .map(|item| {
                // Each record is held to the limit of `POST /records`.
                if item.get().len() > record_limit {
                    return Err(ApiError::TooLarge {
                        limit: record_limit,
                    });
                }
                let envelope =
                    serde_json::from_str(item.get()).map_err(|e| ApiError::BadRequest {
                        code: "invalid_envelope",
                        message: format!("not a valid envelope {{record, key_id, signature}}: {e}"),
                        details: json!({}),
                    })?;
                Ok(shared.ingest.prepare(envelope)?)
            })
            .collect::<Vec<_>>())
    })
    .await??;
    let mut positions = Vec::new();
    let mut submissions = Vec::new();
    let mut results: Vec<Option<Result<AppendOutcome, ApiError>>> = Vec::new();
    for (n, p) in prepared.into_iter().enumerate() {
        match p {
            Ok(s) => {
                positions.push(n);
                submissions.push(s);
                results.push(None);
            }
            Err(e) => results.push(Some(Err(e))),
        }
    }
    let counted: Vec<Counted> = submissions.iter().map(Counted::of).collect();
    let refused = results.iter().filter(|r| r.is_some()).count();
    state.metrics.records_ingested(
        crate::metrics::UNKNOWN_GAME,
        IngestResult::Refused,
        refused as u64,
    );
    for ((n, outcome), counted) in positions
        .into_iter()
        .zip(state.ingest.append_all(submissions).await)
        .zip(&counted)
    {
        counted.count(&state.metrics, &outcome);
        results[n] = Some(outcome.map_err(ApiError::from));
    }
    let results = results
        .into_iter()
        .map(|r| {
            match r
                .unwrap_or_else(|| Err(ApiError::internal("missing result")))
                .and_then(receipt_of)
            {
                Ok((status, receipt)) => BatchItem {
                    status: status.as_u16(),
                    receipt: Some(receipt),
                    error: None,
                },
                Err(e) => BatchItem {
                    status: e.status_code().as_u16(),
                    receipt: None,
                    error: Some(e.body()),
                },
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(BatchResult { results }))
}
