#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Ministry's listener under connections that never send a TLS ClientHello: whether they
//! come from one address or from many, the Ministry's certificate still downloads within a few
//! seconds while they are held open; one address holds only its share, the listener only its
//! total, and a silent connection is closed when its handshake time is up.

mod common;

use std::io::Read as _;
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::pki::Pki;
use common::site::{Server, Site};
use common::Succeeds as _;
use common::{free_port, OPERATOR_CONFIG};

const NAME: &str = "12345679-M-202610-Z-kasino_1-01";
const IDLE: usize = 2_000;

/// A listener with one delivered package, started with these environment variables.
struct Listener {
    pki: Pki,
    port: u16,
    sealed: Vec<u8>,
    _server: Server,
    _site: Site,
}

impl Listener {
    fn start(env: &[(&str, &str)]) -> Listener {
        let pki = Pki::new();
        let site = Site::new();
        let port = free_port();
        let config = format!("{OPERATOR_CONFIG}{}", pki.listener_section(port));
        std::fs::write(site.path().join("dozor.toml"), config).unwrap();
        let server = site.serve_with(env);
        site.dozor()
            .args([
                "report", "mf", "deliver", "--month", "2026-10", "--misto", "kasino_1", "--out",
            ])
            .arg(pki.path(""))
            .succeeds();
        let sealed = std::fs::read(pki.path(&format!("{NAME}.zip.p7e.p7s"))).unwrap();
        Listener {
            pki,
            port,
            sealed,
            _server: server,
            _site: site,
        }
    }

    /// The Ministry's download by `curl` with its certificate, from 127.0.0.1: the HTTP status,
    /// whether the body is the sealed file, and how long it took.
    fn download(&self) -> (String, bool, Duration) {
        let body = self.pki.path("downloaded");
        let _ = std::fs::remove_file(&body);
        let started = Instant::now();
        let out = std::process::Command::new("curl")
            .args(["-s", "--max-time", "20", "-o"])
            .arg(&body)
            .args(["-w", "%{http_code}", "--cacert"])
            .arg(self.pki.path("operator-ca.pem"))
            .arg("--cert")
            .arg(self.pki.path("ministry-client.pem"))
            .arg("--key")
            .arg(self.pki.path("ministry-client.key"))
            .arg(format!(
                "https://127.0.0.1:{}/data/{NAME}.zip.p7e.p7s",
                self.port
            ))
            .output()
            .unwrap();
        let took = started.elapsed();
        let status = String::from_utf8_lossy(&out.stdout).into_owned();
        let same = std::fs::read(&body).is_ok_and(|b| b == self.sealed);
        (status, same, took)
    }

    /// A listener of 512 places, 16 an address, whose handshake time is `handshake_seconds`,
    /// for [`IDLE`] silent connections (this process may open files enough for them first).
    fn for_idle_connections(handshake_seconds: &str) -> Listener {
        raise_open_files(IDLE as u64 + 1_000);
        Listener::start(&[
            ("DOZOR_MINISTRY_HANDSHAKE_SECONDS", handshake_seconds),
            ("DOZOR_MINISTRY_CONNECTIONS_PER_ADDRESS", "16"),
            ("DOZOR_MINISTRY_CONNECTIONS", "512"),
        ])
    }

    /// The Ministry downloads the sealed file as delivered, within 3 seconds.
    fn downloads_in_time(&self) {
        let (status, same, took) = self.download();
        assert_eq!(status, "200", "took {took:?}");
        assert!(same, "the sealed file as delivered");
        assert!(took < Duration::from_secs(3), "the download took {took:?}");
    }
}

/// Raises this process's soft limit of open files to `needed` (the server started after it
/// inherits it); the hard limit must allow it.
fn raise_open_files(needed: u64) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    let number = |text: &str| text.parse::<u64>().unwrap_or(u64::MAX);
    let (soft, hard) = (number(fields[3]), number(fields[4]));
    if soft >= needed {
        return;
    }
    assert!(hard >= needed, "the hard limit of open files is {hard}");
    let status = std::process::Command::new("prlimit")
        .args(["--pid", &std::process::id().to_string()])
        .arg(format!("--nofile={needed}:"))
        .status()
        .unwrap();
    assert!(status.success(), "prlimit could not raise the limit");
}

/// `count` TCP connections to the listener that send nothing, from the loopback addresses
/// `from` gives for each one.
fn idle_connections(port: u16, count: usize, from: impl Fn(usize) -> IpAddr) -> Vec<TcpStream> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut held = Vec::with_capacity(count);
        for i in 0..count {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(SocketAddr::new(from(i), 0)).unwrap();
            let target = SocketAddr::from(([127, 0, 0, 1], port));
            let stream = tokio::time::timeout(Duration::from_secs(10), socket.connect(target))
                .await
                .expect("the kernel accepts the connection")
                .unwrap();
            held.push(stream.into_std().unwrap());
        }
        held
    })
}

/// How many of `held` the server still keeps open (sent nothing and closed nothing).
fn still_open(held: &[TcpStream]) -> usize {
    held.iter()
        .filter(|stream| {
            stream.set_nonblocking(true).unwrap();
            let mut byte = [0u8; 1];
            matches!(
                (&**stream).read(&mut byte),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
            )
        })
        .count()
}

// `test` is the standard test attribute here.
#[test]
fn two_thousand_silent_connections_from_one_address_leave_the_ministry_served() {
    let listener = Listener::for_idle_connections("8");
    let opened = Instant::now();
    let held = idle_connections(listener.port, IDLE, |_| IpAddr::from([127, 0, 0, 2]));

    // While they are held, the Ministry (another address) downloads at once.
    listener.downloads_in_time();

    // The address holds its 16 places; every other connection of it was closed at once.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(still_open(&held), 16);
    assert!(opened.elapsed() < Duration::from_secs(7), "checked in time");

    // Silent past the handshake time: closed too.
    std::thread::sleep(Duration::from_secs(10).saturating_sub(opened.elapsed()));
    assert_eq!(still_open(&held), 0);
}

#[test]
fn two_thousand_silent_connections_from_many_addresses_give_way_to_the_ministry() {
    // A handshake time far longer than the test: only giving way frees a place here.
    let listener = Listener::for_idle_connections("60");
    // 250 addresses, 8 connections each: every one within its address's share.
    let held = idle_connections(listener.port, IDLE, |i| {
        IpAddr::from([127, 0, 1, 1 + (i % 250) as u8])
    });
    std::thread::sleep(Duration::from_millis(500));
    // The listener holds its total and no more: the later connections pushed out the earlier.
    assert_eq!(still_open(&held), 512);
    assert!(
        held.iter().take(IDLE - 512).all(|s| {
            let mut byte = [0u8; 1];
            !matches!((&*s).read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
        }),
        "the oldest gave way"
    );

    listener.downloads_in_time();
    // The Ministry's connection took the place of the oldest silent one.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(still_open(&held), 511);
}
