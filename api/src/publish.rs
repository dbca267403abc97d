//! The Ministry's listener: HTTPS that admits the Ministry's client certificates only (pinned:
//! the very certificates configured, within their validity), serves the delivered packages
//! under the registered download path and takes the Ministry's notifications. Every download
//! and every notification is a ledger entry naming the certificate. Anything else is refused.

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

mod admission;
mod connection;
mod listener;
mod ministry;

pub use admission::ListenerLimits;
pub use connection::MinistryConnection;
pub use listener::{serve, ListenerSettings};
pub use ministry::{
    configure, on_connect, Ministry, MinistryState, PeerCertificate, NOTIFY_ERROR_PATH,
    NOTIFY_OK_PATH,
};

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
