//! Fetching a casino's published files: `checkpoint`, `tile/…`, `verdicts/…` under its tiles
//! prefix, over blocking HTTP (one thread per casino), with its bearer token and client
//! certificate, each answer bounded in size. The follow step sees only [`TileSource`], so its
//! tests serve tiles from memory.

use std::sync::Arc;
use std::time::Duration;

use dozor_log::tiles::{Tile, TILE_WIDTH};

use crate::config::CasinoConfig;
use crate::tile_math::{cut_to_width, verdicts_path};

/// The most bytes an answer may have: a checkpoint with its cosignatures; a hash tile; a bundle
/// of 256 entries of at most 65 535 bytes each (and their lengths); its verdict lines. The bytes
/// counted are those decoded: a gzip answer (which a tlog-tiles log may send unasked) is bounded
/// by what it decodes to.
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

/// A tile's bytes: the tile, or when a partial one is gone (the casino published the full tile
/// since), the prefix of the full tile of the same index: those bytes are checked against the
/// tree being followed like any others. Never a partial tile of another width: tlog-tiles lets a
/// client fetch only the partial tiles a checkpoint it verified requires, and a checkpoint fetched
/// here would be unverified. `verdicts` for the casino's verdict lines of a bundle.
pub fn get_tile(
    source: &dyn TileSource,
    tile: &Tile,
    verdicts: bool,
    limit: u64,
) -> Result<Option<Vec<u8>>, FetchError> {
    let path_of = |t: &Tile| if verdicts { verdicts_path(t) } else { t.path() };
    if let Some(bytes) = source.get(&path_of(tile), limit)? {
        return Ok(Some(bytes));
    }
    if tile.is_full() {
        return Ok(None);
    }
    let full = Tile {
        width: TILE_WIDTH as u16,
        ..*tile
    };
    Ok(source
        .get(&path_of(&full), limit)?
        .and_then(|bytes| cut_to_width(tile, &full, &bytes, verdicts)))
}

/// [`get_tile`], which must be there.
pub fn need_tile(source: &dyn TileSource, tile: &Tile, limit: u64) -> Result<Vec<u8>, FetchError> {
    get_tile(source, tile, false, limit)?.ok_or_else(|| FetchError::Status {
        path: tile.path(),
        status: 404,
        message: "not published".into(),
    })
}

/// Fetches each of `items` with `fetch` on `threads` other threads, at most `ahead` ahead, and
/// hands the answers to `take` in order on this one, until `take` breaks (its value answered)
/// or the items end (none). Several requests at once: one at a time, each would wait its turn
/// for the server and for a core.
pub fn fetch_ahead<I: Sync, T: Send, B>(
    items: &[I],
    threads: usize,
    ahead: usize,
    fetch: impl Fn(&I) -> T + Sync,
    mut take: impl FnMut(&I, T) -> std::ops::ControlFlow<B>,
) -> Option<B> {
    let mut taken = items.iter();
    let mut stopped = None;
    let _ = dozor_log::ordered_pool::run_in_order(
        threads,
        ahead,
        items.iter(),
        &fetch,
        |answer| match taken.next().map(|item| take(item, answer)) {
            Some(std::ops::ControlFlow::Break(value)) => {
                stopped = Some(value);
                Err(())
            }
            _ => Ok(()),
        },
        || (),
    );
    stopped
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::{Read as _, Write as _};

    /// A one-connection-at-a-time HTTP server on loopback answering each request with
    /// `answer(path, authorization)`: (status, body). Its base URL.
    fn server(answer: fn(&str, Option<&str>) -> (u16, Vec<u8>)) -> String {
        server_with(answer, "")
    }

    /// [`server`], each answer's head carrying `headers` (lines ending `\r\n`).
    fn server_with(
        answer: fn(&str, Option<&str>) -> (u16, Vec<u8>),
        headers: &'static str,
    ) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let mut stream = stream.unwrap();
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    let n = stream.read(&mut buffer).unwrap();
                    if n == 0 {
                        break;
                    }
                    request.extend_from_slice(&buffer[..n]);
                }
                let text = String::from_utf8_lossy(&request).into_owned();
                let path = text.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let auth = text
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("authorization: ")
                            .or_else(|| l.strip_prefix("Authorization: "))
                    })
                    .map(str::to_owned);
                let (status, body) = answer(&path, auth.as_deref());
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-length: {}\r\n{headers}connection: close\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).unwrap();
                stream.write_all(&body).unwrap();
            }
        });
        format!("http://127.0.0.1:{port}/log/")
    }

    fn source(url: String, token: Option<&str>) -> HttpSource {
        let casino = CasinoConfig {
            name: "c".into(),
            tiles_url: url,
            credentials: crate::config::Credentials {
                bearer_token: token.map(str::to_owned),
                ..Default::default()
            },
            operator_keys: Vec::new(),
            witnesses: Vec::new(),
            quorum: 0,
            plans: rules::PlanBook::default(),
            clock: rules::gaming_day::GamingDayClock::default(),
            max_step_entries: 1,
            commit_entries: 1,
        };
        HttpSource::new(&casino, Duration::from_secs(5)).unwrap()
    }

    #[test]
    fn answers_are_found_missing_refused_or_too_large_and_the_token_is_sent() {
        let url = server(|path, auth| match (path, auth) {
            (_, None) => (401, b"unauthorized\nmore".to_vec()),
            ("/log/checkpoint", Some("Bearer t0ken")) => (200, b"note\n".to_vec()),
            ("/log/tile/0/000", _) => (200, vec![7u8; 9000]),
            _ => (404, Vec::new()),
        });
        let keyed = source(url.clone(), Some("t0ken"));
        assert_eq!(
            keyed.get("checkpoint", 100).unwrap(),
            Some(b"note\n".to_vec())
        );
        assert_eq!(keyed.get("tile/0/001", 100).unwrap(), None);
        assert_eq!(
            keyed.get("tile/0/000", HASH_TILE_LIMIT).unwrap_err(),
            FetchError::TooLarge {
                path: "tile/0/000".into(),
                limit: HASH_TILE_LIMIT
            }
        );
        assert_eq!(
            source(url, None).get("checkpoint", 100).unwrap_err(),
            FetchError::Status {
                path: "checkpoint".into(),
                status: 401,
                message: "unauthorized".into()
            }
        );
        let nowhere = source("http://127.0.0.1:9/".into(), None);
        assert!(matches!(
            nowhere.get("checkpoint", 100),
            Err(FetchError::Unreachable { .. })
        ));
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_gzip_answer_is_decoded_and_the_limit_bounds_the_decoded_bytes() {
        // Sent `Content-Encoding: gzip` unasked, as tlog-tiles lets a log do.
        let url = server_with(
            |path, _| match path {
                // A full hash tile: 256 hashes of 32 bytes = 8 192 bytes, exactly the limit.
                "/log/tile/0/000" => (200, gzip(&[7u8; 256 * 32])),
                // A bundle that decodes to one byte over BUNDLE_LIMIT (256 · 65 537 =
                // 16 777 472 bytes) but compresses to a few kilobytes: a gzip bomb.
                "/log/tile/entries/000" => (200, gzip(&vec![0u8; BUNDLE_LIMIT as usize + 1])),
                _ => (404, Vec::new()),
            },
            "content-encoding: gzip\r\n",
        );
        let casino = source(url, None);
        let tile = casino.get("tile/0/000", HASH_TILE_LIMIT).unwrap().unwrap();
        assert_eq!(tile, vec![7u8; 256 * 32]);
        assert_eq!(
            casino.get("tile/entries/000", BUNDLE_LIMIT).unwrap_err(),
            FetchError::TooLarge {
                path: "tile/entries/000".into(),
                limit: BUNDLE_LIMIT
            }
        );
    }

    #[test]
    fn what_is_fetched_ahead_is_taken_in_order_until_the_taking_stops() {
        use std::ops::ControlFlow;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let items: Vec<u64> = (0..100).collect();
        let fetched = AtomicUsize::new(0);
        let fetch = |n: &u64| {
            fetched.fetch_add(1, Ordering::SeqCst);
            n * 2
        };
        let mut taken = Vec::new();
        let stopped = fetch_ahead(&items, 3, 4, fetch, |n, doubled| {
            taken.push(doubled);
            if *n == 9 {
                ControlFlow::Break("at 9")
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(stopped, Some("at 9"));
        // 0, 2, …, 18: each answer in the items' order.
        assert_eq!(taken, (0..10).map(|n| n * 2).collect::<Vec<u64>>());
        // Ten taken; at most four more handed out: never all hundred.
        assert!(fetched.load(Ordering::SeqCst) <= 10 + 4);
        let mut all = 0;
        let ended = fetch_ahead(
            &items,
            3,
            4,
            |n: &u64| *n,
            |_, n| {
                all += n;
                ControlFlow::<()>::Continue(())
            },
        );
        // 0 + 1 + … + 99 = 4 950.
        assert_eq!((ended, all), (None, 4950));
    }
}
