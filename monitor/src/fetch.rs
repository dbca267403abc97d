//! Fetching a casino's published files: `checkpoint`, `tile/…`, `verdicts/…` under its tiles
//! prefix, over blocking HTTP (one thread per casino), with its bearer token and client
//! certificate, each answer bounded in size. The follow step sees only [`TileSource`], so its
//! tests serve tiles from memory.

use std::sync::Arc;
use std::time::Duration;

use crate::config::CasinoConfig;

/// The most bytes an answer may have: a checkpoint with its cosignatures; a hash tile; a bundle
/// of 256 entries of at most 65 535 bytes each (and their lengths); its verdict lines.
pub const CHECKPOINT_LIMIT: u64 = 64 * 1024;
pub const HASH_TILE_LIMIT: u64 = 256 * 32;
pub const BUNDLE_LIMIT: u64 = 256 * (2 + 65_535);
pub const VERDICTS_LIMIT: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("{path}: the casino cannot be reached: {why}")]
    Unreachable { path: String, why: String },
    #[error("{path}: the casino answers {status} {message}")]
    Status {
        path: String,
        status: u16,
        message: String,
    },
    #[error("{path}: the answer is over {limit} bytes")]
    TooLarge { path: String, limit: u64 },
}

/// Where a casino's published files come from. `Ok(None)`: not there (404, 410).
pub trait TileSource {
    fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, FetchError>;
}

/// A casino's files over HTTP(S).
pub struct HttpSource {
    agent: ureq::Agent,
    prefix: String,
    bearer: Option<String>,
}

fn pem_items(pem: &str, what: &str) -> Result<Vec<ureq::tls::PemItem<'static>>, String> {
    ureq::tls::parse_pem(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{what}: {e}"))
}

fn tls_config(casino: &CasinoConfig) -> Result<Option<ureq::tls::TlsConfig>, String> {
    let credentials = &casino.credentials;
    if credentials.ca_certificates.is_none() && credentials.client_identity.is_none() {
        return Ok(None);
    }
    let mut tls = ureq::tls::TlsConfig::builder();
    if let Some(pem) = &credentials.ca_certificates {
        let certs: Vec<_> = pem_items(pem, "ca_certificates")?
            .into_iter()
            .filter_map(|item| match item {
                ureq::tls::PemItem::Certificate(c) => Some(c),
                _ => None,
            })
            .collect();
        if certs.is_empty() {
            return Err("ca_certificates holds no certificate".into());
        }
        tls = tls.root_certs(ureq::tls::RootCerts::Specific(Arc::new(certs)));
    }
    if let Some((cert_pem, key_pem)) = &credentials.client_identity {
        let chain: Vec<_> = pem_items(cert_pem, "client_certificate")?
            .into_iter()
            .filter_map(|item| match item {
                ureq::tls::PemItem::Certificate(c) => Some(c),
                _ => None,
            })
            .collect();
        let key = pem_items(key_pem, "client_key")?
            .into_iter()
            .find_map(|item| match item {
                ureq::tls::PemItem::PrivateKey(k) => Some(k),
                _ => None,
            })
            .ok_or("client_key holds no private key")?;
        if chain.is_empty() {
            return Err("client_certificate holds no certificate".into());
        }
        tls = tls.client_cert(Some(ureq::tls::ClientCert::new_with_certs(&chain, key)));
    }
    Ok(Some(tls.build()))
}

impl HttpSource {
    pub fn new(casino: &CasinoConfig, timeout: Duration) -> Result<HttpSource, String> {
        let mut config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .user_agent(concat!("dozor-monitor/", env!("CARGO_PKG_VERSION")));
        if let Some(tls) = tls_config(casino)? {
            config = config.tls_config(tls);
        }
        Ok(HttpSource {
            agent: config.build().into(),
            prefix: casino.tiles_url.clone(),
            bearer: casino.credentials.bearer_token.clone(),
        })
    }
}

impl TileSource for HttpSource {
    fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, FetchError> {
        let unreachable = |why: String| FetchError::Unreachable {
            path: path.to_owned(),
            why,
        };
        let mut request = self.agent.get(format!("{}{path}", self.prefix));
        if let Some(token) = &self.bearer {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let mut answer = request.call().map_err(|e| unreachable(e.to_string()))?;
        let status = answer.status().as_u16();
        if status == 404 || status == 410 {
            return Ok(None);
        }
        if status != 200 {
            let message = answer
                .body_mut()
                .with_config()
                .limit(4096)
                .read_to_string()
                .unwrap_or_default();
            return Err(FetchError::Status {
                path: path.to_owned(),
                status,
                message: message
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(200)
                    .collect(),
            });
        }
        let body = answer
            .body_mut()
            .with_config()
            .limit(limit + 1)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => FetchError::TooLarge {
                    path: path.to_owned(),
                    limit,
                },
                other => unreachable(other.to_string()),
            })?;
        if body.len() as u64 > limit {
            return Err(FetchError::TooLarge {
                path: path.to_owned(),
                limit,
            });
        }
        Ok(Some(body))
    }
}

/// Files held in memory by path (the tests' casinos).
impl TileSource for std::collections::HashMap<String, Vec<u8>> {
    fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, FetchError> {
        match self.get(path) {
            Some(bytes) if bytes.len() as u64 > limit => Err(FetchError::TooLarge {
                path: path.to_owned(),
                limit,
            }),
            found => Ok(found.cloned()),
        }
    }
}
