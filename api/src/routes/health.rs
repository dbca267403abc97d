use actix_web::{get, web, HttpResponse};
use utoipa::OpenApi as _;

use crate::error::ApiError;
use crate::state::AppState;

/// Liveness and database reachability.
#[utoipa::path(get, path = "/health", tag = "operations",
    responses((status = 200, description = "up, database reachable"), (status = 503, description = "database unreachable")))]
#[get("/health")]
pub async fn health(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let size = web::block(move || -> Result<u64, ApiError> {
        Ok(ledger::storage::reads::size(&mut *state.conn()?)?)
    })
    .await??;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "status": "ok", "ledger_size": size })))
}

/// This API's OpenAPI 3.1 description.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "operations",
    responses((status = 200, description = "OpenAPI document")))]
#[get("/openapi.json")]
pub async fn openapi() -> HttpResponse {
    HttpResponse::Ok().json(crate::openapi::ApiDoc::openapi())
}
