//! API keys: who may call the API, with which role. Creating and revoking one is a registry
//! event in the ledger; the token is shown once, in the answer to its creation.

use actix_web::{get, post, web, HttpResponse};
use chrono::{DateTime, Utc};
use dozor_log::access::{ApiKeySecret, Role};
use dozor_log::registry_history::HistoricApiKey;
use ledger::storage::api_keys::{self, ApiKeyError, ApiKeyRecord, NewApiKey};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::{blocking, on_primary};
use crate::routes::tables::LedgerEntryView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApiKey {
    /// 1-64 of letters, digits and `_ - . @`; never reused, even after revocation.
    pub name: String,
    /// admin, compliance, regulator or reporter.
    #[schema(value_type = String, example = "compliance")]
    pub role: Role,
    /// When the key stops working; it works until revoked if omitted.
    pub expires_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevokeApiKey {
    /// Why, for the record.
    pub reason: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    /// The first 8 bytes of the SHA-256 of the token, hex: how the ledger and the logs name it.
    pub key_id: String,
    pub name: String,
    #[schema(value_type = String, example = "compliance")]
    pub role: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revoked_by: Option<String>,
    pub revocation_reason: Option<String>,
    /// The registry event this request appended (creation or revocation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ledger_entry: Option<LedgerEntryView>,
}

impl From<ApiKeyRecord> for ApiKeyView {
    fn from(r: ApiKeyRecord) -> Self {
        ApiKeyView {
            key_id: r.key.key_id,
            name: r.key.name,
            role: r.key.role,
            created_by: r.key.created_by,
            created_at: r.key.created_at,
            expires_at: r.key.expires_at,
            revoked_at: r.revocation.as_ref().map(|v| v.revoked_at),
            revoked_by: r.revocation.as_ref().map(|v| v.revoked_by.clone()),
            revocation_reason: r.revocation.map(|v| v.reason),
            ledger_entry: None,
        }
    }
}

impl From<HistoricApiKey> for ApiKeyView {
    fn from(k: HistoricApiKey) -> Self {
        ApiKeyView {
            key_id: k.key_id,
            name: k.name,
            role: k.role.as_str().to_owned(),
            created_by: k.created_by,
            created_at: k.created_at,
            expires_at: k.expires_at,
            revoked_at: k.revocation.as_ref().map(|v| v.revoked_at),
            revoked_by: k.revocation.as_ref().map(|v| v.revoked_by.clone()),
            revocation_reason: k.revocation.map(|v| v.reason),
            ledger_entry: None,
        }
    }
}

/// A new key: shown with its token, which is not stored and cannot be shown again.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedApiKey {
    /// `Authorization: Bearer <token>`. Store it now: dozor keeps only its hash.
    pub token: String,
    #[serde(flatten)]
    pub key: ApiKeyView,
}

fn api_key_error(e: ApiKeyError) -> ApiError {
    let invalid = |field: &str, m: String| {
        ApiError::unprocessable("invalid_api_key_request", m, json!({ "field": field }))
    };
    match e {
        ApiKeyError::InvalidName(m) => invalid("name", m),
        ApiKeyError::ExpiryPassed(_) => invalid("expires_at", e.to_string()),
        ApiKeyError::BadReason(_) => invalid("reason", e.to_string()),
        ApiKeyError::NameTaken(_) | ApiKeyError::AlreadyRevoked(_) => ApiError::Conflict {
            code: "already_exists",
            message: e.to_string(),
            details: json!({}),
        },
        ApiKeyError::UnknownKey(_) => ApiError::not_found("unknown_api_key", e.to_string()),
        ApiKeyError::Storage(s) => s.into(),
    }
}

/// Every API key ever created, with its revocation (never a token), as the ledger's
/// operator-signed registry events give them (a row added to the key table is no key).
#[utoipa::path(operation_id = "list_api_keys", get, tag = "access",
    responses((status = 200, body = Vec<ApiKeyView>)))]
#[get("/apikeys")]
pub async fn list(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let keys = blocking(state, |state| {
        state.ingest.directory().api_keys(&state.pool)
    })
    .await?;
    Ok(HttpResponse::Ok().json(keys.into_iter().map(ApiKeyView::from).collect::<Vec<_>>()))
}

/// Create an API key. The answer holds its token, once.
#[utoipa::path(operation_id = "create_api_key", post, tag = "access", request_body = CreateApiKey,
    responses((status = 201, body = CreatedApiKey), (status = 400, body = ErrorBody),
              (status = 409, description = "the name is taken", body = ErrorBody),
              (status = 422, description = "bad name or expiry", body = ErrorBody)))]
#[post("/apikeys")]
pub async fn create(
    Authorized { state, caller }: Authorized,
    body: web::Json<CreateApiKey>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let secret = ApiKeySecret::generate();
    let token = secret.token();
    let (record, receipt) = on_primary(state, move |conn, state| {
        let new = NewApiKey {
            name: &body.name,
            role: body.role,
            created_by: &caller.name,
            expires_at: body.expires_at,
        };
        api_keys::create_api_key(
            conn,
            state.operator.signing_key(),
            &new,
            &secret,
            Utc::now(),
        )
        .map_err(api_key_error)
    })
    .await?;
    let mut key = ApiKeyView::from(record);
    key.ledger_entry = Some(receipt.into());
    Ok(HttpResponse::Created().json(CreatedApiKey { token, key }))
}

/// Revoke an API key (by its id or name): refused from now on.
#[utoipa::path(operation_id = "revoke_api_key", post, tag = "access", request_body = RevokeApiKey,
    params(("key_id" = String, Path, description = "the key's id or name")),
    responses((status = 200, body = ApiKeyView), (status = 404, body = ErrorBody),
              (status = 409, description = "already revoked", body = ErrorBody),
              (status = 422, body = ErrorBody)))]
#[post("/apikeys/{key_id}/revoke")]
pub async fn revoke(
    Authorized { state, caller }: Authorized,
    path: web::Path<String>,
    body: web::Json<RevokeApiKey>,
) -> Result<HttpResponse, ApiError> {
    let key = path.into_inner();
    let reason = body.into_inner().reason.trim().to_owned();
    let (record, receipt) = on_primary(state.clone(), move |conn, state| {
        api_keys::revoke_api_key(
            conn,
            state.operator.signing_key(),
            &key,
            &caller.name,
            &reason,
            Utc::now(),
        )
        .map_err(api_key_error)
    })
    .await?;
    state.gatekeeper.forget(&record.key.key_id);
    let mut view = ApiKeyView::from(record);
    view.ledger_entry = Some(receipt.into());
    Ok(HttpResponse::Ok().json(view))
}

/// The key this request was made with: its name, role and expiry.
#[utoipa::path(operation_id = "whoami", get, tag = "access",
    responses((status = 200, body = crate::auth::Caller)))]
#[get("/whoami")]
pub async fn whoami(Authorized { caller, .. }: Authorized) -> HttpResponse {
    HttpResponse::Ok().json(caller)
}
