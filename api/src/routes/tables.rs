//! Gaming tables and their keys.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use ledger::keys::{encode_public_key, parse_public_key};
use ledger::storage::append::RegistryReceipt;
use ledger::storage::reads::{last_seq_no, sequence_gaps, SeqGap};
use ledger::storage::registry::{self, NewTable, RegistryError, TableWithKeys};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterTable {
    /// Short stable id: 1-64 of letters, digits, `_ - .`.
    pub table_id: String,
    /// Game code, e.g. `roulette`.
    pub game: String,
    /// Where the table stands (premises, room).
    pub location: String,
    /// Plan the table plays under; the server's default plan if omitted.
    pub plan_id: Option<String>,
    /// The table's ed25519 public key, base64 (see `dozor keygen`).
    pub public_key: String,
    /// Money wheels only: the label of each segment in physical order, clockwise from the
    /// segment numbered 0 (e.g. `["1x", "2x", "1x", "5x", …]`). Each box of the plan must
    /// appear exactly as many times as the plan gives it segments.
    pub wheel_layout: Option<Vec<String>>,
    /// From when the table plays under dozor, i.e. when its first key becomes valid; now if
    /// omitted. Records played earlier are refused. An earlier time lets a table send the
    /// records it kept before it was registered; those older than the late-record window are
    /// stored and flagged `late_record`.
    pub valid_from: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddKey {
    pub public_key: String,
    /// When the key starts to be valid; now if omitted.
    pub valid_from: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeKey {
    /// Why, for the record (e.g. "terminal replaced", "key compromised").
    pub reason: String,
    /// From when the key is invalid; now if omitted. Records received after it are rejected.
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KeyView {
    pub key_id: String,
    pub public_key: String,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revocation_reason: Option<String>,
    /// The registry event this request appended (registration, key addition or revocation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_entry: Option<LedgerEntryView>,
}

/// Where a registry event went in the ledger; it is signed by the operator's key.
#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerEntryView {
    pub index: u64,
    /// hex
    pub entry_hash: String,
    pub received_at: DateTime<Utc>,
}

impl From<RegistryReceipt> for LedgerEntryView {
    fn from(r: RegistryReceipt) -> Self {
        LedgerEntryView {
            index: r.index,
            entry_hash: hex::encode(r.entry_hash),
            received_at: r.received_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TableView {
    pub table_id: String,
    pub game: String,
    pub location: String,
    pub plan_id: String,
    pub registered_at: DateTime<Utc>,
    /// A money wheel's segment labels in physical order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wheel_layout: Option<Vec<String>>,
    pub keys: Vec<KeyView>,
    /// Highest `seq_no` the ledger holds for this table (null before the first record).
    pub last_seq_no: Option<i64>,
    /// The registration's ledger entry (in the response to a registration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_entry: Option<LedgerEntryView>,
}

impl From<TableWithKeys> for TableView {
    fn from(t: TableWithKeys) -> Self {
        TableView {
            table_id: t.table.table_id,
            game: t.table.game,
            location: t.table.location,
            plan_id: t.table.plan_id,
            registered_at: t.table.registered_at,
            wheel_layout: t.table.wheel_layout,
            last_seq_no: None,
            ledger_entry: None,
            keys: t
                .keys
                .into_iter()
                .map(|(k, r)| KeyView {
                    public_key: ed25519_dalek::VerifyingKey::try_from(k.public_key.as_slice())
                        .map(|pk| encode_public_key(&pk))
                        .unwrap_or_default(),
                    key_id: k.key_id,
                    valid_from: k.valid_from,
                    revoked_at: r.as_ref().map(|r| r.revoked_at),
                    revocation_reason: r.map(|r| r.reason),
                    ledger_entry: None,
                })
                .collect(),
        }
    }
}

fn registry_error(e: RegistryError) -> ApiError {
    match e {
        RegistryError::TableExists(_)
        | RegistryError::KeyExists(_)
        | RegistryError::AlreadyRevoked(_) => ApiError::Conflict {
            code: "already_exists",
            message: e.to_string(),
            details: json!({}),
        },
        RegistryError::UnknownTable(_) => ApiError::not_found("unknown_table", e.to_string()),
        RegistryError::UnknownKey { .. } => ApiError::not_found("unknown_key", e.to_string()),
        RegistryError::OperatorKey => ApiError::unprocessable(
            "invalid_public_key",
            e.to_string(),
            json!({ "field": "public_key" }),
        ),
        RegistryError::BadReason(_) => ApiError::unprocessable(
            "invalid_revocation",
            e.to_string(),
            json!({ "field": "reason" }),
        ),
        RegistryError::Storage(s) => s.into(),
    }
}

fn bad_key(e: ledger::LedgerError) -> ApiError {
    ApiError::unprocessable(
        "invalid_public_key",
        e.to_string(),
        json!({ "field": "public_key" }),
    )
}

/// Register a gaming table with its first ed25519 key.
#[utoipa::path(operation_id = "register_table", post, tag = "tables", request_body = RegisterTable,
    responses((status = 201, body = TableView), (status = 400, body = ErrorBody),
              (status = 409, description = "table or key already registered", body = ErrorBody),
              (status = 415, description = "body not declared application/json", body = ErrorBody),
              (status = 422, description = "unknown game or plan, bad key", body = ErrorBody)))]
#[post("/tables")]
pub async fn register(
    Authorized { state, caller }: Authorized,
    body: web::Json<RegisterTable>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let checked = ledger::registration::check(
        &state.plans,
        &state.default_plan,
        &ledger::registration::Registration {
            table_id: &body.table_id,
            game: &body.game,
            location: &body.location,
            plan_id: body.plan_id.as_deref(),
            wheel_layout: body.wheel_layout.as_deref(),
        },
    )
    .map_err(|e| {
        ApiError::unprocessable("invalid_table", e.message, json!({ "field": e.field }))
    })?;
    let key = parse_public_key(&body.public_key).map_err(bad_key)?;
    let shared = state.clone();
    let table = web::block(move || {
        let mut conn = shared.conn()?;
        let new = NewTable {
            table_id: &body.table_id,
            game: checked.game.as_str(),
            location: &checked.location,
            plan_id: &checked.plan_id,
            wheel_layout: body.wheel_layout.as_deref(),
            plays_from: body.valid_from,
        };
        registry::register_table(
            &mut conn,
            shared.operator.signing_key(),
            new,
            &key,
            &caller.name,
            Utc::now(),
        )
        .map_err(registry_error)
    })
    .await??;
    let (table, receipt) = table;
    state.ingest.directory().remember_table(&table.table);
    let mut view = TableView::from(table);
    view.ledger_entry = Some(receipt.into());
    Ok(HttpResponse::Created().json(view))
}

/// All registered tables with their key history.
#[utoipa::path(operation_id = "list_tables", get, tag = "tables", responses((status = 200, body = Vec<TableView>)))]
#[get("/tables")]
pub async fn list(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let tables =
        web::block(move || registry::list_tables(&mut *state.conn()?).map_err(registry_error))
            .await??;
    Ok(HttpResponse::Ok().json(tables.into_iter().map(TableView::from).collect::<Vec<_>>()))
}

/// One table with its key history.
#[utoipa::path(operation_id = "get_table", get, tag = "tables",
    params(("table_id" = String, Path)), responses((status = 200, body = TableView), (status = 404, body = ErrorBody)))]
#[get("/tables/{table_id}")]
pub async fn get(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let table = web::block(move || -> Result<_, ApiError> {
        let mut conn = state.conn()?;
        let Some(table) = registry::find_table(&mut conn, &id).map_err(registry_error)? else {
            return Ok(None);
        };
        let mut view = TableView::from(table);
        view.last_seq_no = last_seq_no(&mut conn, &id)?;
        Ok(Some(view))
    })
    .await??;
    table
        .map(|t| HttpResponse::Ok().json(t))
        .ok_or_else(|| ApiError::not_found("unknown_table", "no such table"))
}

/// Add a key to a table (key rotation). Earlier keys stay valid until revoked.
#[utoipa::path(operation_id = "add_table_key", post, tag = "tables", request_body = AddKey,
    params(("table_id" = String, Path)),
    responses((status = 201, body = KeyView), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
#[post("/tables/{table_id}/keys")]
pub async fn add_key(
    Authorized { state, caller }: Authorized,
    path: web::Path<String>,
    body: web::Json<AddKey>,
) -> Result<HttpResponse, ApiError> {
    let table_id = path.into_inner();
    let key = parse_public_key(&body.public_key).map_err(bad_key)?;
    let now = Utc::now();
    let valid_from = body.valid_from.unwrap_or(now);
    let (row, receipt) = web::block(move || {
        registry::add_key(
            &mut *state.conn()?,
            state.operator.signing_key(),
            &table_id,
            &key,
            valid_from,
            &caller.name,
            now,
        )
        .map_err(registry_error)
    })
    .await??;
    Ok(HttpResponse::Created().json(KeyView {
        public_key: body.public_key.trim().to_owned(),
        key_id: row.key_id,
        valid_from: row.valid_from,
        revoked_at: None,
        revocation_reason: None,
        ledger_entry: Some(receipt.into()),
    }))
}

/// Revoke a key: records it signs that arrive after `revoked_at` are rejected.
#[utoipa::path(operation_id = "revoke_table_key", post, tag = "tables", request_body = RevokeKey,
    params(("table_id" = String, Path), ("key_id" = String, Path)),
    responses((status = 200, body = KeyView), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
              (status = 422, description = "a reason that is blank, too long or holds control characters", body = ErrorBody)))]
#[post("/tables/{table_id}/keys/{key_id}/revoke")]
pub async fn revoke_key(
    Authorized { state, caller }: Authorized,
    path: web::Path<(String, String)>,
    body: web::Json<RevokeKey>,
) -> Result<HttpResponse, ApiError> {
    let (table_id, key_id) = path.into_inner();
    let revoked_key = key_id.clone();
    let reason = body.reason.trim().to_owned();
    if let Some(problem) = ledger::access::reason_problem(&reason) {
        return Err(registry_error(RegistryError::BadReason(problem)));
    }
    let now = Utc::now();
    let revoked_at = body.revoked_at.unwrap_or(now);
    let shared = state.clone();
    let (table, receipt) = web::block(move || {
        let mut conn = shared.conn()?;
        let revocation = registry::KeyRevocation {
            table_id: &table_id,
            key_id: &key_id,
            revoked_at,
            reason: &reason,
        };
        let (_, receipt) = registry::revoke_key(
            &mut conn,
            shared.operator.signing_key(),
            revocation,
            &caller.name,
            now,
        )
        .map_err(registry_error)?;
        Ok::<_, ApiError>((
            registry::find_table(&mut conn, &table_id).map_err(registry_error)?,
            receipt,
        ))
    })
    .await??;
    let mut view = table
        .map(TableView::from)
        .and_then(|t| t.keys.into_iter().find(|k| k.key_id == revoked_key))
        .ok_or_else(|| ApiError::internal("revoked key vanished"))?;
    view.ledger_entry = Some(receipt.into());
    state.ingest.directory().registry_changed();
    Ok(HttpResponse::Ok().json(view))
}

/// Gaps in the table's `seq_no` sequence: records the table numbered but never delivered.
#[utoipa::path(operation_id = "table_gaps", get, tag = "tables",
    params(("table_id" = String, Path)), responses((status = 200, body = Vec<GapView>)))]
#[get("/tables/{table_id}/gaps")]
pub async fn gaps(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = path.into_inner();
    let gaps = web::block(move || -> Result<Vec<SeqGap>, ApiError> {
        Ok(sequence_gaps(&mut *state.conn()?, Some(&id))?)
    })
    .await??;
    Ok(HttpResponse::Ok().json(gaps.into_iter().map(GapView::from).collect::<Vec<_>>()))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GapView {
    pub table_id: String,
    pub after_seq_no: i64,
    pub before_seq_no: i64,
    pub missing: i64,
}

impl From<SeqGap> for GapView {
    fn from(g: SeqGap) -> Self {
        GapView {
            table_id: g.table_id,
            after_seq_no: g.after_seq_no,
            before_seq_no: g.before_seq_no,
            missing: g.missing,
        }
    }
}
