//! The Ministry's listener: HTTPS that admits the Ministry's client certificates only (pinned:
//! the very certificates configured, within their validity), serves the delivered packages
//! under the registered download path and takes the Ministry's notifications. Every download
//! and every notification is a ledger entry naming the certificate. Anything else is refused.

use std::sync::Arc;

use actix_web::dev::Extensions;
use actix_web::{web, FromRequest, HttpRequest, HttpResponse};
use chrono::Utc;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

use dozor_log::registry_event::DeliveryStep;
use ledger::storage::deliveries::{self, Step};

use crate::error::ApiError;
use crate::state::AppState;

mod admission;
mod listener;

pub use admission::ListenerLimits;
pub use listener::{serve, ListenerSettings, MinistryConnection};

/// The notification paths of the registration (`NotifikaceUspechuUrl`, `NotifikaceChybyUrl`).
pub const NOTIFY_OK_PATH: &str = "/notify/ok";
pub const NOTIFY_ERROR_PATH: &str = "/notify/error";

/// The longest notification body read.
const MAX_NOTIFICATION_BYTES: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("{0}")]
    Tls(String),
}

/// Admits exactly the configured client certificates, each only within its validity; the
/// handshake refuses every other certificate, and a client with none.
#[derive(Debug)]
struct MinistryClients {
    allowed: Vec<delivery::Certificate>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for MinistryClients {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        let Some(known) = self.allowed.iter().find(|c| c.der() == end_entity.as_ref()) else {
            return Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ));
        };
        let seconds = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
        let at = chrono::DateTime::from_timestamp(seconds, 0).unwrap_or_default();
        if !known.valid_at(at) {
            return Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::Expired,
            ));
        }
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The listener's TLS: its own chain and key (PEM), the Ministry's client certificates.
pub fn tls_config(
    server_chain_pem: &[u8],
    server_key_pem: &[u8],
    clients: Vec<delivery::Certificate>,
) -> Result<rustls::ServerConfig, PublishError> {
    use rustls::pki_types::pem::PemObject as _;
    let chain = CertificateDer::pem_slice_iter(server_chain_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PublishError::Tls(format!("the server's certificate: {e}")))?;
    if chain.is_empty() {
        return Err(PublishError::Tls(
            "the server's certificate file holds no certificate".into(),
        ));
    }
    let key = PrivateKeyDer::from_pem_slice(server_key_pem)
        .map_err(|e| PublishError::Tls(format!("the server's key: {e}")))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = MinistryClients {
        allowed: clients,
        algorithms: provider.signature_verification_algorithms,
    };
    rustls::ServerConfig::builder_with_provider(Arc::clone(&provider) as Arc<CryptoProvider>)
        .with_safe_default_protocol_versions()
        .map_err(|e| PublishError::Tls(e.to_string()))?
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(chain, key)
        .map_err(|e| PublishError::Tls(format!("the server's certificate and key: {e}")))
}

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
