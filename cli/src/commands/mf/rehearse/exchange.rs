//! The two ends of the rehearsal's wire: the operator's listener, started as `dozor serve`
//! starts it (the same code, on a local port), and the Ministry's HTTPS client, which presents
//! its client certificate and trusts the operator's CA only.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

/// How long one exchange with the listener may take.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The longest answer read.
const MAX_ANSWER: u64 = 256 * 1024 * 1024;

/// A free local port for the listener.
pub fn free_port() -> anyhow::Result<u16> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free local port")?;
    Ok(probe.local_addr()?.port())
}

/// The Ministry's listener, running in a thread of its own until stopped.
pub struct Listener {
    handle: actix_web::dev::ServerHandle,
    thread: std::thread::JoinHandle<std::io::Result<()>>,
}

impl Listener {
    /// Starts the listener at `listen` with `tls`, serving from `state`'s ledger under
    /// `download_path`, as `dozor serve` does with `[delivery] listen`.
    pub fn start(
        listen: &str,
        tls: rustls::ServerConfig,
        state: api::state::AppState,
        download_path: String,
    ) -> anyhow::Result<Listener> {
        let settings = api::publish::ListenerSettings {
            listen: listen.to_owned(),
            limits: api::publish::ListenerLimits::default(),
            shutdown_seconds: 5,
            request_head_timeout: api::server::REQUEST_HEAD_TIMEOUT,
            keep_alive: Duration::from_secs(5),
        };
        let (started, wait) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let ministry = api::publish::MinistryState {
                    state,
                    download_path,
                };
                match api::publish::serve(settings, tls, ministry) {
                    Ok(server) => {
                        let _ = started.send(Ok(server.handle()));
                        server.await
                    }
                    Err(e) => {
                        let _ = started.send(Err(e.to_string()));
                        Err(e)
                    }
                }
            })
        });
        let handle = wait
            .recv()
            .context("the listener's thread ended before it listened")?
            .map_err(|e| anyhow::anyhow!("the listener at {listen} does not start: {e}"))?;
        Ok(Listener { handle, thread })
    }

    /// Stops the listener and waits for it.
    pub fn stop(self) -> anyhow::Result<()> {
        actix_web::rt::System::new().block_on(self.handle.stop(true));
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the listener's thread panicked"))?
            .context("the listener")
    }
}

/// An HTTP answer.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// The Ministry's HTTPS client.
pub struct Client {
    config: Arc<rustls::ClientConfig>,
    address: SocketAddr,
}

impl Client {
    /// A client of the listener at `address` that trusts `ca` only and presents the
    /// certificate and key (PEM) given, or none.
    pub fn new(
        address: SocketAddr,
        ca: &delivery::Certificate,
        certificate: Option<(&str, &str)>,
    ) -> anyhow::Result<Client> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from(ca.der().to_vec()))
            .context("the operator's CA")?;
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots);
        let config = match certificate {
            Some((chain, key)) => {
                let chain = CertificateDer::pem_slice_iter(chain.as_bytes())
                    .collect::<Result<Vec<_>, _>>()
                    .context("the client's certificate")?;
                let key =
                    PrivateKeyDer::from_pem_slice(key.as_bytes()).context("the client's key")?;
                builder.with_client_auth_cert(chain, key)?
            }
            None => builder.with_no_client_auth(),
        };
        Ok(Client {
            config: Arc::new(config),
            address,
        })
    }

    /// `method path` with `body`, over a connection of its own.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> anyhow::Result<Answer> {
        let name = ServerName::from(self.address.ip());
        let connection = rustls::ClientConnection::new(Arc::clone(&self.config), name)?;
        let socket = TcpStream::connect_timeout(&self.address, TIMEOUT)
            .with_context(|| format!("connecting to {}", self.address))?;
        socket.set_read_timeout(Some(TIMEOUT))?;
        socket.set_write_timeout(Some(TIMEOUT))?;
        let mut tls = rustls::StreamOwned::new(connection, socket);
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            self.address,
            body.len()
        );
        tls.write_all(head.as_bytes())
            .and_then(|()| tls.write_all(body))
            .and_then(|()| tls.flush())
            .context("sending the request")?;
        let mut answer = Vec::new();
        let read = (&mut tls).take(MAX_ANSWER).read_to_end(&mut answer);
        // A server may close without TLS's close_notify once the answer is whole: what was
        // read is judged by its Content-Length below.
        if let Err(e) = read {
            if answer.is_empty() {
                return Err(e).context("reading the answer");
            }
        }
        parse(&answer)
    }
}

/// An HTTP/1.1 answer's status and body (by its Content-Length).
fn parse(answer: &[u8]) -> anyhow::Result<Answer> {
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("an answer without its head")?;
    let head = std::str::from_utf8(&answer[..split]).context("an answer's head not text")?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .context("an answer without a status")?;
    let mut length = None;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
            anyhow::ensure!(
                !name.eq_ignore_ascii_case("transfer-encoding"),
                "a chunked answer"
            );
        }
    }
    let body = &answer[split + 4..];
    let length = length.unwrap_or(body.len());
    anyhow::ensure!(
        body.len() >= length,
        "the answer ended after {} of its {length} bytes",
        body.len()
    );
    Ok(Answer {
        status,
        body: body[..length].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_by_its_content_length() {
        let answer = parse(b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nAccepted\nmore").unwrap();
        assert_eq!(
            (answer.status, answer.body.as_slice()),
            (200, &b"Accepted\n"[..])
        );
        // Cut short, chunked, or without a head: refused, not taken for a whole answer.
        assert!(parse(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nAccepted\n").is_err());
        assert!(parse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n").is_err());
        assert!(parse(b"HTTP/1.1 200 OK").is_err());
    }
}
