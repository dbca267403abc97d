//! A connection of the Ministry's listener: TLS over TCP, holding its place in the admission
//! as long as it is open.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::rt::net::TcpStream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::admission::Place;

/// A connection whose handshake admitted a client certificate; its place is held as long as it
/// is open.
pub struct MinistryConnection {
    tls: tokio_rustls::server::TlsStream<TcpStream>,
    _place: Place,
}

impl MinistryConnection {
    /// A connection whose handshake ended, holding its place.
    pub(super) fn new(tls: tokio_rustls::server::TlsStream<TcpStream>, place: Place) -> Self {
        MinistryConnection { tls, _place: place }
    }

    /// The TLS session (the client's certificate is in it).
    pub fn session(&self) -> &rustls::ServerConnection {
        self.tls.get_ref().1
    }
}

impl AsyncRead for MinistryConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tls).poll_read(cx, buf)
    }
}

impl AsyncWrite for MinistryConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tls).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tls).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tls.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tls).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tls).poll_shutdown(cx)
    }
}
