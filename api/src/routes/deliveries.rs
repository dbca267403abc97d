//! The Ministry's packages delivered: made, validated, encrypted and sealed in one step; where
//! each stands (generated, sealed, downloaded, confirmed or rejected); the Ministry's
//! confirmations taken in.

use actix_web::{get, post, web, HttpResponse};
use dozor_log::registry_event::DeliveryStep;
use reports::mf::confirm::ConfirmationOutcome;
use reports::mf::status::DeliveryStatus;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::{blocking, on_primary};
use crate::routes::filters;
use crate::routes::mf::package_request;

fn not_configured() -> ApiError {
    ApiError::Conflict {
        code: "delivery_not_configured",
        message: "the delivery is not configured: [delivery] in dozor.toml, then `kill -HUP` the server, or restart it when it is to listen for the Ministry too (docs/MF.md; `dozor report mf rehearse` tries the whole delivery first)".into(),
        details: serde_json::json!({}),
    }
}

/// Each package issued and where it stands with the Ministry, newest month first.
#[utoipa::path(operation_id = "mf_deliveries", get, tag = "reports",
    responses((status = 200, body = Vec<DeliveryStatus>)))]
#[get("/reports/mf/deliveries")]
pub async fn list(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let statuses = on_primary(state, |conn, _| reports::mf::status::statuses(conn)).await?;
    Ok(HttpResponse::Ok().json(statuses))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DeliverQuery {
    /// Month of gaming days: `YYYY-MM`, `this` or `last`.
    pub month: String,
    /// The premises' id, as in the configuration's `[[premises]]`.
    pub misto: String,
}

/// A package as delivered.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryReceipt {
    pub package: String,
    /// What the Ministry downloads: `{package}.zip.p7e.p7s`.
    pub file: String,
    /// `{download_url}{file}`.
    pub download_url: String,
    pub sealed_file_sha256: String,
    pub size_bytes: usize,
    /// The ledger index of the seal of the file.
    pub sealed_at: i64,
    /// Whether this request sealed it (else it was delivered before, unchanged).
    pub new: bool,
}

/// The month's package of a premises delivered in one step, once the month is over (409
/// `month_not_over` before): made (the version issued before while its content is the same),
/// validated against the Ministry's rules (409
/// `package_invalid` with the errors, nothing delivered), encrypted to the Ministry and the
/// operator, sealed with the operator's seal, kept and its SHA-256 sealed into the ledger —
/// once per version. The Ministry's listener serves it from then on.
#[utoipa::path(operation_id = "mf_deliver", post, tag = "reports", params(DeliverQuery),
    responses((status = 201, description = "sealed now", body = DeliveryReceipt),
              (status = 200, description = "delivered before, unchanged", body = DeliveryReceipt),
              (status = 400, body = ErrorBody),
              (status = 404, description = "unknown premises", body = ErrorBody),
              (status = 409, description = "not configured, stations in no premises, the month not over, or the package fails validation", body = ErrorBody)))]
#[post("/reports/mf/deliveries")]
pub async fn deliver(
    Authorized { state, caller }: Authorized,
    query: web::Query<DeliverQuery>,
) -> Result<HttpResponse, ApiError> {
    let DeliverQuery { month, misto } = query.into_inner();
    let month = filters::month(&state.clock, &month)?;
    let configured = state.configured.current();
    let (config, keys) = match (
        configured.operator_config.clone(),
        configured.delivery_keys.clone(),
    ) {
        (Some(config), Some(keys)) => (config, keys),
        _ => return Err(not_configured()),
    };
    let download_url = config
        .delivery
        .as_ref()
        .map(|d| d.download_url.clone())
        .unwrap_or_default();
    let delivered = blocking(state, move |state| -> Result<_, ApiError> {
        let request = package_request(&config, &misto, month, state)?;
        Ok(reports::mf::deliver::deliver(
            &mut *state.conn()?,
            state.operator.signing_key(),
            &request,
            &keys,
            &caller.name,
        )?)
    })
    .await?;
    let file = ledger::storage::deliveries::file_name(&delivered.sealed.package);
    let receipt = DeliveryReceipt {
        download_url: format!("{download_url}{file}"),
        file,
        sealed_file_sha256: delivered.sealed.sha256(),
        size_bytes: delivered.sealed.sealed_file.len(),
        sealed_at: delivered.sealed.sealed_at,
        package: delivered.sealed.package,
        new: delivered.new,
    };
    Ok(if receipt.new {
        HttpResponse::Created().json(receipt)
    } else {
        HttpResponse::Ok().json(receipt)
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ConfirmationQuery {
    /// The file's name as the Ministry sent it, `{package}.Ok.zip.p7e.p7s`.
    pub file: String,
}

/// The Ministry's confirmation of a package (the request body: the file as received): its
/// seal checked against the Ministry's seal certificates, decrypted with the operator's key,
/// its result recorded in the ledger (`confirmed` or `rejected`). It counts only for the package
/// it confirms: one dozor delivered and the Ministry downloaded, sealed no earlier than that
/// download, not named otherwise inside, and never for a second package. A file that fails any
/// of this, whose seal does not hold, or that does not open is recorded as
/// `confirmation_refused` and kept as evidence, never counted as a confirmation, and answered
/// 422 `confirmation_refused` (details: the outcome, with the ledger index of the evidence).
#[utoipa::path(operation_id = "mf_confirmation", post, tag = "reports", params(ConfirmationQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "the confirmation file"),
    responses((status = 201, description = "recorded as `confirmed` or `rejected` (see `step`)", body = ConfirmationOutcome),
              (status = 400, body = ErrorBody),
              (status = 409, description = "not configured", body = ErrorBody),
              (status = 422, description = "`confirmation_refused`: not this package's confirmation, or not the Ministry's; kept as evidence", body = ErrorBody)))]
#[post("/reports/mf/confirmations")]
pub async fn confirm(
    Authorized { state, .. }: Authorized,
    query: web::Query<ConfirmationQuery>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let file_name = query.into_inner().file;
    if reports::mf::confirm::package_of(&file_name).is_none() {
        return Err(ApiError::bad_request(
            "invalid_query",
            "file: the confirmation's name, {package}.Ok.zip.p7e.p7s",
        ));
    }
    if body.is_empty() {
        return Err(ApiError::bad_request(
            "unreadable_body",
            "the body is empty; it is the confirmation file as received",
        ));
    }
    let Some(keys) = state.configured.current().delivery_keys.clone() else {
        return Err(not_configured());
    };
    let outcome = on_primary(state, move |conn, state| {
        reports::mf::confirm::receive(
            conn,
            state.operator.signing_key(),
            &keys,
            &file_name,
            &body,
            chrono::Utc::now(),
        )
    })
    .await?;
    if outcome.step == DeliveryStep::ConfirmationRefused {
        return Err(ApiError::unprocessable(
            "confirmation_refused",
            format!(
                "not counted as the confirmation of {}: {} (the file is kept as evidence, ledger index {})",
                outcome.package,
                one_line(&outcome.detail),
                outcome.ledger_index
            ),
            serde_json::to_value(&outcome).map_err(ApiError::internal)?,
        ));
    }
    Ok(HttpResponse::Created().json(outcome))
}

/// A reason on one line: a message is one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
