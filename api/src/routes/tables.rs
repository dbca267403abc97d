//! Gaming tables and their keys.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use dozor_log::keys::{encode_public_key, parse_public_key};
use ledger::storage::append::RegistryReceipt;
use ledger::storage::reads::last_record;
use ledger::storage::registry::{self, NewTable, RegistryError, TableWithKeys};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::{blocking, on_primary};
use crate::routes::reading::{self, GapView};

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
    /// The limits the table posts (its vývěska), in force from `valid_from`. Without them the
    /// table's bets are judged by the plan's limits alone, and the daily report names it.
    pub limits: Option<Limits>,
}

/// Declares the posted limits: each field an optional amount in haléře of at least 1, read as
/// JSON Schema reads numbers, converted field by field to and from the rules' limits (which
/// carry neither the schema nor that reading).
macro_rules! posted_limits {
    ($(#[$meta:meta])* pub struct $name:ident {
        $($field:ident $(example = $example:literal)?),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $(
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    deserialize_with = "crate::json_numbers::optional_integer"
                )]
                #[schema(minimum = 1 $(, example = $example)?)]
                pub $field: Option<i64>,
            )*
        }

        impl From<$name> for rules::TableLimits {
            fn from(l: $name) -> Self {
                rules::TableLimits { $($field: l.$field),* }
            }
        }

        impl From<&rules::TableLimits> for $name {
            fn from(l: &rules::TableLimits) -> Self {
                $name { $($field: l.$field),* }
            }
        }
    };
}

posted_limits! {
    /// A table's posted limits in haléře, inside the plan's own. Each game posts its full set:
    /// roulette `min_bet_h`, `max_straight_up_h`, `max_inside_h`, `max_outside_h`; blackjack
    /// `min_bet_h` (a main bet), `max_bet_h` (a box), `perfect_pairs_max_h`; Ultimate Texas
    /// Hold'em `min_bet_h` and `max_bet_h` (the Ante, and so the Blind), `trips_max_h`; money wheels
    /// `min_bet_h` and `max_bet_h` (a player's stake on a box); poker cash `small_blind_h` and
    /// `big_blind_h`. Other games post none.
    pub struct Limits {
        min_bet_h example = 10000,
        max_bet_h,
        max_straight_up_h,
        max_inside_h,
        max_outside_h,
        perfect_pairs_max_h,
        trips_max_h,
        small_blind_h,
        big_blind_h,
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetLimits {
    pub limits: Limits,
    /// From when they are in force; now if omitted. At most 60 s before now: posted limits are
    /// never changed after the rounds they would judge. A later time schedules the change.
    pub effective_from: Option<DateTime<Utc>>,
    /// Why they changed (e.g. "evening high-limit session"), for the record.
    pub reason: String,
}

/// One posting of a table's limits, as its operator-signed registry event says.
#[derive(Debug, Serialize, ToSchema)]
pub struct LimitsPosting {
    pub limits: Limits,
    pub effective_from: DateTime<Utc>,
    pub reason: String,
    /// Who posted them: an admin key's name or `cli:<user>`.
    pub actor: Option<String>,
    /// The registry event (a registration or a change of limits).
    pub ledger_index: u64,
}

/// A table's limit history: every posting in ledger order, and the limits in force now.
#[derive(Debug, Serialize, ToSchema)]
pub struct LimitsHistory {
    pub table_id: String,
    pub game: String,
    /// In force for a round played now; null: the table posts none and is judged by the plan's.
    pub in_force: Option<Limits>,
    pub postings: Vec<LimitsPosting>,
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
    /// That record: the hash of its canonical bytes and when it says it happened (what a
    /// table or gateway resuming its submissions compares against).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_record: Option<LastRecordView>,
    /// The registration's ledger entry (in the response to a registration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_entry: Option<LedgerEntryView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LastRecordView {
    pub seq_no: i64,
    /// SHA-256 of the record's RFC 8785 canonical bytes, hex.
    pub record_hash: String,
    /// The record's `played_at` (a round) or `at` (an operation).
    pub at: Option<DateTime<Utc>>,
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
            last_record: None,
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
        RegistryError::BadEffectiveTime(_) => ApiError::unprocessable(
            "invalid_limits",
            e.to_string(),
            json!({ "field": "effective_from" }),
        ),
        RegistryError::Storage(s) => s.into(),
    }
}

fn bad_key(e: dozor_log::LogError) -> ApiError {
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
    let limits: Option<rules::TableLimits> = body.limits.clone().map(Into::into);
    let checked = dozor_log::registration::check(
        &state.plans,
        &state.default_plan,
        &dozor_log::registration::Registration {
            table_id: &body.table_id,
            game: &body.game,
            location: &body.location,
            plan_id: body.plan_id.as_deref(),
            wheel_layout: body.wheel_layout.as_deref(),
            limits: limits.as_ref(),
        },
    )
    .map_err(|e| {
        ApiError::unprocessable("invalid_table", e.message, json!({ "field": e.field }))
    })?;
    let key = parse_public_key(&body.public_key).map_err(bad_key)?;
    let table = on_primary(state.clone(), move |conn, state| {
        let new = NewTable {
            table_id: &body.table_id,
            game: checked.game.as_str(),
            location: &checked.location,
            plan_id: &checked.plan_id,
            wheel_layout: body.wheel_layout.as_deref(),
            plays_from: body.valid_from,
            limits: limits.as_ref(),
        };
        registry::register_table(
            conn,
            state.operator.signing_key(),
            new,
            &key,
            &caller.name,
            Utc::now(),
        )
        .map_err(registry_error)
    })
    .await?;
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
    let tables = on_primary(state, |conn, _| {
        registry::list_tables(conn).map_err(registry_error)
    })
    .await?;
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
    let table = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let Some(table) = registry::find_table(conn, &id).map_err(registry_error)? else {
            return Ok(None);
        };
        let mut view = TableView::from(table);
        let last = last_record(conn, &id)?;
        view.last_seq_no = last.as_ref().map(|l| l.seq_no);
        view.last_record = last.map(|l| LastRecordView {
            seq_no: l.seq_no,
            record_hash: hex::encode(l.record_hash),
            at: l.at,
        });
        Ok(Some(view))
    })
    .await?;
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
    let (row, receipt) = on_primary(state, move |conn, state| {
        registry::add_key(
            conn,
            state.operator.signing_key(),
            &table_id,
            &key,
            valid_from,
            &caller.name,
            now,
        )
        .map_err(registry_error)
    })
    .await?;
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
    if let Some(problem) = dozor_log::access::reason_problem(&reason) {
        return Err(registry_error(RegistryError::BadReason(problem)));
    }
    let now = Utc::now();
    let revoked_at = body.revoked_at.unwrap_or(now);
    let (table, receipt) = on_primary(state.clone(), move |conn, state| {
        let revocation = registry::KeyRevocation {
            table_id: &table_id,
            key_id: &key_id,
            revoked_at,
            reason: &reason,
        };
        let (_, receipt) = registry::revoke_key(
            conn,
            state.operator.signing_key(),
            revocation,
            &caller.name,
            now,
        )
        .map_err(registry_error)?;
        Ok::<_, ApiError>((
            registry::find_table(conn, &table_id).map_err(registry_error)?,
            receipt,
        ))
    })
    .await?;
    let mut view = table
        .map(TableView::from)
        .and_then(|t| t.keys.into_iter().find(|k| k.key_id == revoked_key))
        .ok_or_else(|| ApiError::internal("revoked key vanished"))?;
    view.ledger_entry = Some(receipt.into());
    state.ingest.directory().registry_changed();
    Ok(HttpResponse::Ok().json(view))
}

/// Post new limits for a table (its vývěska changed): an operator-signed registry event. Rounds
/// played from `effective_from` on are judged by them.
#[utoipa::path(operation_id = "set_table_limits", post, tag = "tables", request_body = SetLimits,
    params(("table_id" = String, Path)),
    responses((status = 201, body = LimitsPosting), (status = 404, body = ErrorBody),
              (status = 422, description = "limits not of the table's game, outside the plan's, a bad reason or a time in the past", body = ErrorBody)))]
#[post("/tables/{table_id}/limits")]
pub async fn set_limits(
    Authorized { state, caller }: Authorized,
    path: web::Path<String>,
    body: web::Json<SetLimits>,
) -> Result<HttpResponse, ApiError> {
    let table_id = path.into_inner();
    let body = body.into_inner();
    let limits: rules::TableLimits = body.limits.clone().into();
    let reason = body.reason.trim().to_owned();
    if let Some(problem) = dozor_log::access::reason_problem(&reason) {
        return Err(ApiError::unprocessable(
            "invalid_limits",
            problem,
            json!({ "field": "reason" }),
        ));
    }
    let actor = caller.name.clone();
    let (effective_from, receipt) = blocking(state.clone(), move |state| -> Result<_, ApiError> {
        let table = state
            .ingest
            .directory()
            .registered_table(&state.pool, &table_id)?
            .ok_or_else(|| {
                ApiError::not_found(
                    "unknown_table",
                    format!("table `{table_id}` is not registered"),
                )
            })?;
        dozor_log::registration::check_table_limits(&state.plans, &table, &limits).map_err(
            |e| ApiError::unprocessable("invalid_limits", e.message, json!({ "field": e.field })),
        )?;
        let change = registry::LimitsChange {
            table_id: &table_id,
            limits: &limits,
            effective_from: body.effective_from,
            reason: &reason,
        };
        registry::set_limits(
            &mut *state.conn()?,
            state.operator.signing_key(),
            change,
            &actor,
            Utc::now(),
        )
        .map_err(registry_error)
    })
    .await?;
    state.ingest.directory().registry_changed();
    Ok(HttpResponse::Created().json(LimitsPosting {
        limits: body.limits,
        effective_from,
        reason: body.reason.trim().to_owned(),
        actor: Some(caller.name.clone()),
        ledger_index: receipt.index,
    }))
}

/// A table's posted limits: each posting with its effective time, who posted it and why, as
/// the ledger's registry events give them, and the limits in force now.
#[utoipa::path(operation_id = "table_limits", get, tag = "tables",
    params(("table_id" = String, Path)), responses((status = 200, body = LimitsHistory), (status = 404, body = ErrorBody)))]
#[get("/tables/{table_id}/limits")]
pub async fn show_limits(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let table_id = path.into_inner();
    let table = blocking(state, move |state| {
        state
            .ingest
            .directory()
            .registered_table(&state.pool, &table_id)
    })
    .await?
    .ok_or_else(|| ApiError::not_found("unknown_table", "no such table"))?;
    let in_force = table
        .limits_in_force(u64::MAX, Utc::now())
        .map(Limits::from);
    Ok(HttpResponse::Ok().json(LimitsHistory {
        table_id: table.table_id.clone(),
        game: table.game.clone(),
        in_force,
        postings: table
            .limits
            .iter()
            .map(|p| LimitsPosting {
                limits: Limits::from(&p.limits),
                effective_from: p.effective_from,
                reason: p.reason.clone(),
                actor: p.actor.clone(),
                ledger_index: p.index,
            })
            .collect(),
    }))
}

/// Gaps in the table's `seq_no` sequence: records the table numbered but never delivered.
#[utoipa::path(operation_id = "table_gaps", get, tag = "tables",
    params(("table_id" = String, Path)), responses((status = 200, body = Vec<GapView>)))]
#[get("/tables/{table_id}/gaps")]
pub async fn gaps(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    reading::gaps(state, Some(path.into_inner())).await
}
