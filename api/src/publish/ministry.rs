//! The listener's HTTP side: who is admitted (the Ministry, by its certificate), the delivered
//! packages it downloads and the notifications it sends, each recorded in the ledger.

use actix_web::dev::Extensions;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use chrono::Utc;

use dozor_log::registry_event::DeliveryStep;
use ledger::storage::deliveries::{self, Step};

use super::connection::MinistryConnection;
use crate::error::ApiError;
use crate::state::AppState;

/// The notification paths of the registration (`NotifikaceUspechuUrl`, `NotifikaceChybyUrl`).
pub const NOTIFY_OK_PATH: &str = "/notify/ok";
pub const NOTIFY_ERROR_PATH: &str = "/notify/error";

/// The longest notification body read.
const MAX_NOTIFICATION_BYTES: usize = 64 * 1024;

/// The client certificate of a connection, as the handshake admitted it.
#[derive(Debug, Clone)]
pub struct PeerCertificate {
    pub subject: String,
    /// SHA-256 of the certificate, lower-case hex.
    pub fingerprint: String,
}

/// Keeps each connection's client certificate with the connection.
pub fn on_connect(connection: &MinistryConnection, data: &mut Extensions) {
    let Some(certificate) = connection
        .session()
        .peer_certificates()
        .and_then(|c| c.first())
    else {
        return;
    };
    if let Ok(parsed) = delivery::Certificate::from_der(certificate.as_ref()) {
        data.insert(PeerCertificate {
            subject: parsed.subject(),
            fingerprint: parsed.fingerprint(),
        });
    }
}

/// What the listener's handlers run with.
#[derive(Clone)]
pub struct MinistryState {
    pub state: AppState,
    /// The registered download path, `/data/`.
    pub download_path: String,
}

/// The caller, admitted by its certificate: every route of the listener takes this, so none
/// answers a connection without the Ministry's certificate (fails closed).
pub struct Ministry {
    pub state: AppState,
    pub peer: PeerCertificate,
}

impl FromRequest for Ministry {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Ministry, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let state = req.app_data::<MinistryState>().map(|s| s.state.clone());
        let peer = req.conn_data::<PeerCertificate>().cloned();
        std::future::ready(match (state, peer) {
            (Some(state), Some(peer)) => Ok(Ministry { state, peer }),
            _ => Err(ApiError::Forbidden {
                message: "only the Ministry's client certificates are admitted here".into(),
                details: serde_json::json!({}),
            }),
        })
    }
}

/// `GET {download_path}{package}.zip.p7e.p7s`: the sealed file of a delivered package; the
/// download is recorded.
async fn download(
    Ministry { state, peer }: Ministry,
    file: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let file = file.into_inner();
    let Some(package) = file.strip_suffix(".zip.p7e.p7s").map(str::to_owned) else {
        return Err(ApiError::not_found("unknown_file", "no such file"));
    };
    let served = web::block(move || -> Result<_, ApiError> {
        let mut conn = state.conn()?;
        let Some(delivered) = deliveries::of_package(&mut conn, &package)? else {
            return Ok(None);
        };
        deliveries::record_step(
            &mut conn,
            state.operator.signing_key(),
            Step {
                step: DeliveryStep::Downloaded,
                package: package.clone(),
                file: deliveries::file_name(&package),
                sha256: Some(delivered.sha256()),
                subject: Some(peer.subject),
                fingerprint: Some(peer.fingerprint),
                detail: None,
            },
            None,
            Utc::now(),
        )?;
        state.metrics.ministry_request(DeliveryStep::Downloaded);
        Ok(Some(delivered.sealed_file))
    })
    .await??;
    match served {
        Some(bytes) => Ok(HttpResponse::Ok()
            .content_type("application/pkcs7-mime")
            .insert_header((
                "Content-Disposition",
                format!("attachment; filename=\"{file}\""),
            ))
            .body(bytes)),
        None => Err(ApiError::not_found("unknown_file", "no such file")),
    }
}

/// A notification (`/notify/ok`, `/notify/error`, any method): recorded with what it says,
/// answered `Accepted`.
async fn notify(
    Ministry { state, peer }: Ministry,
    request: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let path = request.path().to_owned();
    let query = request.query_string().to_owned();
    let said =
        String::from_utf8_lossy(&body[..body.len().min(MAX_NOTIFICATION_BYTES)]).into_owned();
    let detail = format!(
        "{} {path}{}{}",
        request.method(),
        if query.is_empty() { "" } else { "?" },
        query
    ) + if said.is_empty() { "" } else { "\n" }
        + &said;
    let package = package_named(&format!("{query} {said}")).unwrap_or_default();
    web::block(move || -> Result<_, ApiError> {
        let mut conn = state.conn()?;
        deliveries::record_step(
            &mut conn,
            state.operator.signing_key(),
            Step {
                step: DeliveryStep::Notified,
                package,
                file: path,
                sha256: None,
                subject: Some(peer.subject),
                fingerprint: Some(peer.fingerprint),
                detail: Some(detail),
            },
            None,
            Utc::now(),
        )?;
        state.metrics.ministry_request(DeliveryStep::Notified);
        Ok(())
    })
    .await??;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body("Accepted\n"))
}

/// The first package name (`{IČO}-M-{YYYYMM}-{druh}-{místo}-{NN}`) in a text, if any.
fn package_named(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .find(|word| reports::mf::PackageName::parse(word).is_some())
        .map(str::to_owned)
}

async fn refused(_: Ministry) -> Result<HttpResponse, ApiError> {
    Err(ApiError::not_found(
        "unknown_route",
        "nothing is served here",
    ))
}

/// The listener's routes.
pub fn configure(ministry: MinistryState) -> impl FnOnce(&mut web::ServiceConfig) {
    move |config| {
        let download_path = ministry.download_path.clone();
        config
            .app_data(ministry)
            .route(&format!("{download_path}{{file}}"), web::get().to(download))
            .route(NOTIFY_OK_PATH, web::route().to(notify))
            .route(NOTIFY_ERROR_PATH, web::route().to(notify))
            .default_service(web::to(refused));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_found_by_its_name() {
        assert_eq!(
            package_named("balicek=12345679-M-202610-Z-kasino_1-01.zip.p7e.p7s&x=1").as_deref(),
            Some("12345679-M-202610-Z-kasino_1-01")
        );
        assert_eq!(package_named("nothing here 2026-10"), None);
    }
}
