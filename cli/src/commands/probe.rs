//! `dozor probe URL`: a container's health check without curl in the image. Exit 0 when the URL
//! answers 200, 1 otherwise, with the status line or the error on one line.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;

#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// `http://HOST:PORT/PATH`, e.g. http://127.0.0.1:8080/readyz.
    url: String,
}

pub fn run(args: ProbeArgs) -> anyhow::Result<ExitCode> {
    let rest = args
        .url
        .strip_prefix("http://")
        .context("the probe speaks plain http:// only (it runs beside the server)")?;
    let (address, path) = rest.split_once('/').unwrap_or((rest, ""));
    let timeout = Duration::from_secs(5);
    let socket = address
        .parse::<std::net::SocketAddr>()
        .with_context(|| format!("`{address}` is not IP:PORT"))?;
    let mut stream = TcpStream::connect_timeout(&socket, timeout)
        .with_context(|| format!("cannot connect to {address}"))?;
    stream.set_read_timeout(Some(timeout))?;
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = Vec::new();
    stream.take(4096).read_to_end(&mut answer)?;
    let text = String::from_utf8_lossy(&answer);
    let status_line = text.lines().next().unwrap_or_default().to_owned();
    println!("{status_line}");
    let ok = status_line.split_whitespace().nth(1) == Some("200");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
