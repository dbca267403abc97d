//! Reading the ledger: head, single entries, sequence gaps, significant events.

use actix_web::{get, web, HttpResponse};
use chrono::{DateTime, Utc};
use ledger::storage::reads;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ErrorBody};
use crate::gate::{Authorized, Public};
use crate::routes::blocking::on_primary;
use crate::routes::reading::{self, GapView};

#[derive(Debug, Serialize, ToSchema)]
pub struct HeadView {
    /// Number of entries.
    pub size: u64,
    /// Hash of the last entry, hex; null for an empty ledger.
    pub head_hash: Option<String>,
    pub last_received_at: Option<DateTime<Utc>>,
}

/// Size and head hash of the ledger.
#[utoipa::path(operation_id = "ledger_head", get, tag = "ledger", responses((status = 200, body = HeadView)))]
#[get("/ledger/head")]
pub async fn head(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let head = on_primary(state, |conn, _| ledger::storage::append::head(conn)).await?;
    Ok(HttpResponse::Ok().json(HeadView {
        size: head.map_or(0, |h| h.index + 1),
        head_hash: head.map(|h| hex::encode(h.hash)),
        last_received_at: head.map(|h| h.received_at),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EntryView {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    /// Hash of the previous entry, hex.
    pub prev_hash: String,
    /// SHA-256(0x00 ‖ entry), hex.
    pub entry_hash: String,
    /// The entry exactly as hashed (RFC 8785 canonical JSON), as a string.
    pub entry: String,
    /// The re-adjudication of the round, if the entry is a round.
    #[schema(value_type = Option<Object>)]
    pub verdict: Option<serde_json::Value>,
}

/// One ledger entry with its hashes and verdict. An archived entry answers 410
/// `entry_archived`: its range, the `range_archived` entry, the inspection export that holds it
/// (gaming days and MANIFEST SHA-256) and what the ledger kept of it (receipt time, leaf and
/// record hashes).
#[utoipa::path(operation_id = "ledger_entry", get, tag = "ledger",
    params(("index" = u64, Path)), responses((status = 200, body = EntryView),
        (status = 404, body = ErrorBody),
        (status = 410, description = "the entry is archived (`entry_archived`); where it is in `details`", body = ErrorBody)))]
#[get("/ledger/entries/{index}")]
pub async fn entry(
    Authorized { state, .. }: Authorized,
    path: web::Path<u64>,
) -> Result<HttpResponse, ApiError> {
    let index = path.into_inner();
    let found = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let Some(row) = reads::entry(conn, index)? else {
            return match ledger::storage::archive::archived_entry(conn, index)? {
                Some(archived) => Err(entry_archived(&archived)),
                None => Ok(None),
            };
        };
        let verdict = reads::verdict(conn, index)?;
        Ok(Some((row, verdict)))
    })
    .await?;
    let (row, verdict) =
        found.ok_or_else(|| ApiError::not_found("unknown_entry", format!("no entry {index}")))?;
    Ok(HttpResponse::Ok().json(EntryView {
        index,
        received_at: row.received_at,
        prev_hash: hex::encode(&row.prev_hash),
        entry_hash: hex::encode(&row.leaf_hash),
        entry: String::from_utf8_lossy(&row.entry).into_owned(),
        verdict,
    }))
}

/// The answer for an archived entry: where it went, and what the ledger kept of it.
fn entry_archived(archived: &ledger::storage::archive::ArchivedEntry) -> ApiError {
    let range = &archived.range;
    ApiError::Gone {
        code: "entry_archived",
        message: format!(
            "entry {} is archived: entries {}..{} left the database at ledger entry {}, kept as the inspection export of {} to {} (MANIFEST SHA-256 {})",
            archived.index,
            range.from,
            range.to,
            range.index,
            range.export_first_day,
            range.export_last_day,
            range.export_manifest_sha256
        ),
        details: serde_json::json!({
            "index": archived.index,
            "range": {"from": range.from, "to": range.to},
            "range_archived_index": range.index,
            "export": {
                "first_day": range.export_first_day,
                "last_day": range.export_last_day,
                "manifest_sha256": range.export_manifest_sha256,
            },
            "received_at": archived.received_at,
            "entry_hash": hex::encode(archived.leaf_hash),
            "record_hash": hex::encode(archived.record_hash),
        }),
    }
}

/// Gaps in every table's `seq_no` sequence.
#[utoipa::path(operation_id = "ledger_gaps", get, tag = "ledger", responses((status = 200, body = Vec<GapView>)))]
#[get("/ledger/gaps")]
pub async fn gaps(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    reading::gaps(state, None).await
}

/// The kinds of significant events (the `kind` filter's values).
pub const EVENT_KINDS: &[&str] = &["seq_no_conflict", "round_id_conflict", "late_record"];

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    pub table_id: Option<String>,
    /// Only events of this kind: `seq_no_conflict` (a different record under a used sequence
    /// number, refused), `round_id_conflict` (a second round under a used round id, refused)
    /// or `late_record` (a round received after the late-record window, stored).
    pub kind: Option<String>,
    pub since: Option<DateTime<Utc>>,
    /// At most this many (1-1000, default 100).
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EventView {
    pub id: i64,
    pub occurred_at: DateTime<Utc>,
    /// `seq_no_conflict`, `round_id_conflict` or `late_record`
    pub kind: String,
    pub table_id: String,
    pub seq_no: i64,
    pub ledger_index: Option<i64>,
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}

/// Significant events: rejected submissions an inspector must see (with the evidence).
#[utoipa::path(operation_id = "significant_events", get, tag = "ledger", params(EventQuery),
    responses((status = 200, body = Vec<EventView>), (status = 400, body = ErrorBody)))]
#[get("/significant-events")]
pub async fn significant_events(
    Authorized { state, .. }: Authorized,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "limit must be 1-1000",
        ));
    }
    if let Some(kind) = q.kind.as_deref() {
        if !EVENT_KINDS.contains(&kind) {
            return Err(ApiError::bad_request(
                "invalid_query",
                format!("kind is one of {}, not `{kind}`", EVENT_KINDS.join(", ")),
            ));
        }
    }
    let rows = on_primary(state, move |conn, _| {
        let filter = reads::EventFilter {
            table_id: q.table_id.as_deref(),
            kind: q.kind.as_deref(),
            since: q.since,
        };
        reads::significant_events(conn, filter, limit)
    })
    .await?;
    let views: Vec<EventView> = rows
        .into_iter()
        .map(|r| EventView {
            id: r.id,
            occurred_at: r.occurred_at,
            kind: r.kind,
            table_id: r.table_id,
            seq_no: r.seq_no,
            ledger_index: r.ledger_index,
            details: r.details,
        })
        .collect();
    Ok(HttpResponse::Ok().json(views))
}

fn tree_error(e: ledger::storage::tree::TreeError) -> ApiError {
    use dozor_log::merkle::ProofError;
    use ledger::storage::tree::TreeError;
    match e {
        // Well-formed, but about a tree or leaf the ledger does not have (yet).
        TreeError::Proof(
            p @ (ProofError::IndexOutOfRange { .. }
            | ProofError::SizeTooLarge { .. }
            | ProofError::BadRange { .. }),
        ) => ApiError::not_found("no_such_proof", p.to_string()),
        TreeError::Proof(p) => ApiError::internal(p),
        incomplete @ TreeError::Incomplete { .. } => ApiError::internal(incomplete),
        TreeError::Storage(s) => s.into(),
    }
}

/// A proof's tree sizes start at 1: a query that gives 0 for one is refused.
fn sizes_start_at_one(given: &[Option<u64>]) -> Result<(), ApiError> {
    if given.contains(&Some(0)) {
        return Err(ApiError::bad_request(
            "invalid_query",
            "tree sizes start at 1",
        ));
    }
    Ok(())
}

/// The tree size a query gives, or the ledger's size now.
fn size_or_now(conn: &mut diesel::PgConnection, given: Option<u64>) -> Result<u64, ApiError> {
    match given {
        Some(size) => Ok(size),
        None => Ok(reads::size(conn)?),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct InclusionQuery {
    /// Ledger index of the entry.
    pub index: u64,
    /// Tree size to prove against; the current size if omitted.
    pub size: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InclusionProofView {
    pub index: u64,
    pub size: u64,
    /// Leaf hash of the entry (its entry_hash), hex.
    pub leaf_hash: String,
    /// Root of the tree of `size` entries, hex.
    pub root: String,
    /// RFC 6962 audit path, leaf to root, hex.
    pub proof: Vec<String>,
}

/// RFC 6962 inclusion proof of an entry in the tree of a given size.
#[utoipa::path(operation_id = "inclusion_proof", get, tag = "ledger", params(InclusionQuery),
    responses((status = 200, body = InclusionProofView), (status = 400, body = ErrorBody),
              (status = 404, description = "no entry `index` in a tree of `size`, or no tree of `size` entries yet", body = ErrorBody)))]
#[get("/ledger/proof/inclusion")]
pub async fn inclusion_proof(
    Public { state }: Public,
    query: web::Query<InclusionQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    sizes_start_at_one(&[q.size])?;
    let view = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let size = size_or_now(conn, q.size)?;
        let (root, proof) =
            ledger::storage::tree::inclusion_proof(conn, q.index, size).map_err(tree_error)?;
        // The leaf's hash stays when its entry is archived.
        let leaf_hash = reads::leaf_hash_at(conn, q.index)?
            .ok_or_else(|| ApiError::internal("entry vanished"))?;
        Ok(InclusionProofView {
            index: q.index,
            size,
            leaf_hash: hex::encode(leaf_hash),
            root: hex::encode(root),
            proof: proof.iter().map(hex::encode).collect(),
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyQuery {
    /// The older tree size (at least 1).
    pub first: u64,
    /// The newer tree size; the current size if omitted.
    pub second: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConsistencyProofView {
    pub first: u64,
    pub second: u64,
    pub first_root: String,
    pub second_root: String,
    /// RFC 6962 consistency proof, hex.
    pub proof: Vec<String>,
}

/// RFC 6962 consistency proof: the tree of `second` entries extends the tree of `first`.
#[utoipa::path(operation_id = "consistency_proof", get, tag = "ledger", params(ConsistencyQuery),
    responses((status = 200, body = ConsistencyProofView), (status = 400, body = ErrorBody),
              (status = 404, description = "`first` above `second`, or no tree of `second` entries yet", body = ErrorBody)))]
#[get("/ledger/proof/consistency")]
pub async fn consistency_proof(
    Public { state }: Public,
    query: web::Query<ConsistencyQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    sizes_start_at_one(&[Some(q.first), q.second])?;
    let view = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let second = size_or_now(conn, q.second)?;
        let (first_root, second_root, proof) =
            ledger::storage::tree::consistency_proof(conn, q.first, second).map_err(tree_error)?;
        Ok(ConsistencyProofView {
            first: q.first,
            second,
            first_root: hex::encode(first_root),
            second_root: hex::encode(second_root),
            proof: proof.iter().map(hex::encode).collect(),
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(view))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CheckpointQuery {
    /// The latest checkpoint carrying at least this many cosignatures of the configured
    /// witnesses (default 0: the latest checkpoint, with the cosignatures it has).
    #[param(minimum = 0, maximum = 64)]
    pub cosignatures: Option<u8>,
}

/// The latest operator checkpoint: a C2SP tlog-checkpoint in a signed note (text/plain), signed
/// with the key in the `X-Dozor-Verifier-Key` header (Go sumdb/note verifier-key format), followed
/// by the witnesses' cosignature lines (C2SP tlog-cosignature) that verify under their configured
/// keys; `X-Dozor-Cosignatures` says how many.
#[utoipa::path(operation_id = "latest_checkpoint", get, tag = "ledger", params(CheckpointQuery),
    responses((status = 200, description = "signed note with cosignatures", content_type = "text/plain", body = String), (status = 404, description = "no checkpoint signed yet, or none with that many cosignatures", body = ErrorBody)))]
#[get("/ledger/checkpoint")]
pub async fn checkpoint(
    Public { state }: Public,
    query: web::Query<CheckpointQuery>,
) -> Result<HttpResponse, ApiError> {
    let wanted = usize::from(query.cosignatures.unwrap_or(0));
    let keys = state.witnesses.keys();
    let found = on_primary(state, move |conn, _| {
        ledger::storage::cosignatures::latest_with_quorum(conn, &keys, wanted)
    })
    .await?;
    let cosigned = found.ok_or_else(|| {
        if wanted == 0 {
            ApiError::not_found("no_checkpoint", "no checkpoint has been signed yet")
        } else {
            ApiError::not_found(
                "no_cosigned_checkpoint",
                format!(
                    "no checkpoint carries {wanted} cosignatures of the configured witnesses yet"
                ),
            )
        }
    })?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((
            "X-Dozor-Verifier-Key",
            cosigned.checkpoint.verifier_key.clone(),
        ))
        .insert_header((
            "X-Dozor-Cosignatures",
            cosigned.cosignatures.len().to_string(),
        ))
        .body(cosigned.note()))
}
