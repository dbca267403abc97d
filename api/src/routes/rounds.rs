//! A table's records one by one: what a finding points at, as JSON with its verdict, findings
//! and the signed checkpoint that covers it.

use actix_web::{get, web, HttpResponse};
use reports::round_view::{self, RecordRef, RecordView};

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::on_primary;

async fn answer(
    Authorized { state, .. }: Authorized,
    table_id: String,
    what: RecordRef,
) -> Result<HttpResponse, ApiError> {
    let described = match &what {
        RecordRef::SeqNo(n) => format!("no record {n} of table `{table_id}`"),
        RecordRef::RoundId(id) => format!("no round `{id}` of table `{table_id}`"),
    };
    let found = on_primary(state, move |conn, state| {
        round_view::find(conn, &state.clock, &table_id, &what)
    })
    .await?;
    found
        .map(|view| HttpResponse::Ok().json(view))
        .ok_or_else(|| ApiError::not_found("unknown_record", described))
}

/// A table's record by its `seq_no`: the signed record as JSON, its ledger index and hash, the
/// verdict and findings of a round, and the first signed checkpoint covering it with the
/// inclusion proof.
#[utoipa::path(operation_id = "table_record", get, tag = "tables",
    params(("table_id" = String, Path), ("seq_no" = u64, Path, description = "The record's number in its table's sequence")),
    responses((status = 200, body = RecordView), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
#[get("/tables/{table_id}/records/{seq_no}")]
pub async fn by_seq_no(
    authorized: Authorized,
    path: web::Path<(String, u64)>,
) -> Result<HttpResponse, ApiError> {
    let (table_id, seq_no) = path.into_inner();
    answer(authorized, table_id, RecordRef::SeqNo(seq_no)).await
}

/// A table's round by the `round_id` its record gives, as `GET …/records/{seq_no}` answers.
#[utoipa::path(operation_id = "table_round", get, tag = "tables",
    params(("table_id" = String, Path), ("round_id" = String, Path, description = "The round's id in its record")),
    responses((status = 200, body = RecordView), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
#[get("/tables/{table_id}/rounds/{round_id}")]
pub async fn by_round_id(
    authorized: Authorized,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (table_id, round_id) = path.into_inner();
    answer(authorized, table_id, RecordRef::RoundId(round_id)).await
}
