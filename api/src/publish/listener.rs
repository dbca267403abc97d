//! The Ministry's listener as a server: each accepted TCP connection gets a place (see
//! [`super::admission`]) or is closed at once; its TLS handshake must end within the limit,
//! or sooner when a newcomer pushes it out of a full listener; only then is HTTP served on it.
//!
//! Why not actix-web's `HttpServer`: its TLS acceptor lets a worker run 256 handshakes at once
//! and stops accepting while they last (3 s each), so 2 000 connections that never send a
//! ClientHello keep the Ministry waiting in the kernel's queue for half a minute; and it has no
//! place to count connections per address before the handshake.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use actix_http::{HttpService, Protocol};
use actix_service::{fn_service, map_config, ServiceFactoryExt as _};
use actix_web::dev::{AppConfig, Server};
use actix_web::rt::net::TcpStream;
use actix_web::App;
use tokio_rustls::TlsAcceptor;

use super::admission::{Admission, ListenerLimits, Refusal};
use super::connection::MinistryConnection;
use super::ministry::{configure, on_connect, MinistryState};

/// A connection the listener closed before serving it (refused, pushed out, a failed or slow
/// handshake) or after (HTTP ended in error).
#[derive(Debug)]
pub struct Closed;

/// How the listener runs.
#[derive(Clone)]
pub struct ListenerSettings {
    pub listen: String,
    pub limits: ListenerLimits,
    /// How long requests in flight may take to finish at shutdown.
    pub shutdown_seconds: u64,
    /// How long a client may take to send its request head; how long an idle connection is
    /// kept.
    pub request_head_timeout: std::time::Duration,
    pub keep_alive: std::time::Duration,
}

/// Binds the Ministry's listener (one worker: it serves one client) and returns it running.
pub fn serve(
    settings: ListenerSettings,
    mut tls: rustls::ServerConfig,
    ministry: MinistryState,
) -> io::Result<Server> {
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(tls));
    let admission = Admission::new(settings.limits);
    let head_timeout = settings.request_head_timeout;
    let keep_alive = settings.keep_alive;
    Ok(Server::build()
        .workers(1)
        // The admission decides who holds a place; the worker's own cap only has to stay above
        // it, so that a full listener still accepts newcomers and can push out a handshake.
        .max_concurrent_connections(settings.limits.total.saturating_mul(2).max(64))
        .shutdown_timeout(settings.shutdown_seconds)
        .bind("dozor-ministry", settings.listen.as_str(), move || {
            let admission = Arc::clone(&admission);
            let acceptor = acceptor.clone();
            let http = HttpService::build()
                .client_request_timeout(head_timeout)
                .client_disconnect_timeout(std::time::Duration::from_secs(1))
                .keep_alive(keep_alive)
                .secure()
                .on_connect_ext(|connection: &MinistryConnection, data: &mut _| {
                    on_connect(connection, data)
                })
                .finish(map_config(
                    App::new().configure(configure(ministry.clone())),
                    |_| AppConfig::default(),
                ))
                .map_err(|_| Closed);
            fn_service(move |stream: TcpStream| {
                let admission = Arc::clone(&admission);
                let acceptor = acceptor.clone();
                async move { handshake(&admission, &acceptor, stream).await }
            })
            .and_then(http)
        })?
        .run())
}

/// A place for the connection, then its TLS handshake within the time allowed.
async fn handshake(
    admission: &Arc<Admission>,
    acceptor: &TlsAcceptor,
    stream: TcpStream,
) -> Result<(MinistryConnection, Protocol, Option<SocketAddr>), Closed> {
    let peer = stream.peer_addr().ok();
    let address = peer.map(|p| p.ip()).ok_or(Closed)?;
    let mut place = admission.admit(address).map_err(|refusal| {
        match refusal {
            Refusal::Address => tracing::debug!(%address, "the Ministry's listener: too many connections from this address; closed"),
            Refusal::Full => tracing::warn!(%address, "the Ministry's listener: every place is held by an admitted connection; closed"),
        }
        Closed
    })?;
    let _ = stream.set_nodelay(true);
    let pushed_out = place.pushed_out();
    let timeout = admission.limits().handshake_timeout;
    let tls = tokio::select! {
        accepted = tokio::time::timeout(timeout, acceptor.accept(stream)) => match accepted {
            Ok(Ok(tls)) => tls,
            Ok(Err(cause)) => {
                tracing::debug!(%address, %cause, "the Ministry's listener: handshake refused");
                return Err(Closed);
            }
            Err(_) => {
                tracing::debug!(%address, "the Ministry's listener: no handshake in time; closed");
                return Err(Closed);
            }
        },
        _ = pushed_out => {
            tracing::debug!(%address, "the Ministry's listener: a handshake pushed out by a newcomer");
            return Err(Closed);
        }
    };
    place.admitted();
    Ok((MinistryConnection::new(tls, place), Protocol::Http1, peer))
}
