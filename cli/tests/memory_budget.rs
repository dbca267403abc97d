#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Request bodies share one budget across all requests in flight: a body that finds it spent
//! waits, without being read, and is answered 503 `server_busy` with Retry-After; `/healthz`
//! answers meanwhile; the room comes back when the body holding it is gone.

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::site::Site;

const BATCH: &str = "/api/v1/records/batch";

/// Sends a request's head declaring `length` bytes of JSON, then `body` (all or part of it).
fn send(port: u16, length: usize, body: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "POST {BATCH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    stream.write_all(body).unwrap();
    stream
}

/// The answer on `stream`: status, head (lower-case), body.
fn answer(mut stream: TcpStream) -> (u16, String, serde_json::Value) {
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (
        status,
        head.to_ascii_lowercase(),
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    )
}

/// `[0,0,…,0]` of exactly `length` bytes (odd): an array of far more than 1 000 records.
fn zeros(length: usize) -> Vec<u8> {
    let mut body = b"[".to_vec();
    while body.len() + 2 < length {
        body.extend_from_slice(b"0,");
    }
    body.extend_from_slice(b"0]");
    assert_eq!(body.len(), length);
    body
}

// `test` is the standard test attribute here.
#[test]
fn a_body_beyond_the_budget_in_flight_waits_unread_then_gets_503_and_healthz_answers() {
    let site = Site::new();
    // Records of at most 4 096 bytes: a batch of at most 4 096 000; the budget is that and
    // 200 000 bytes more.
    let server = site.serve_with(&[
        ("DOZOR_BODY_LIMIT_BYTES", "4096"),
        ("DOZOR_BODY_BUDGET_BYTES", "4296000"),
    ]);
    let port = server.http.port;

    // A declares 4 000 001 bytes and sends 1 001 of them: it holds 4 000 001 of the budget
    // while the rest is on its way; 295 999 are left.
    let holding = send(port, 4_000_001, &zeros(1_001));
    std::thread::sleep(Duration::from_millis(500));

    // B declares 1 000 001: no room. It waits (its body is never asked for), then 503.
    let started = Instant::now();
    let waiting = std::thread::spawn(move || answer(send(port, 1_000_001, b"")));
    // C, small, fits in what is left and is answered at once; /healthz answers throughout.
    std::thread::sleep(Duration::from_millis(300));
    let (status, _, body) = answer(send(port, 2, b"[]"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["results"], serde_json::json!([]), "{body}");
    while !waiting.is_finished() {
        let asked = Instant::now();
        let (status, _) = server.http.get("/healthz", None);
        assert_eq!(status, 200);
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "/healthz was slow"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let (status, head, body) = waiting.join().unwrap();
    let waited = started.elapsed();
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "server_busy", "{body}");
    assert_eq!(body["details"]["retry_after_seconds"], 1, "{body}");
    assert!(head.contains("retry-after: 1\r\n"), "{head}");
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(20),
        "answered after {waited:?}"
    );

    // A goes away: its room comes back, and a body of B's size is read and judged (far more
    // than 1 000 records: 400, counted as read, never all listed).
    drop(holding);
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let (status, _, body) = answer(send(port, 1_000_001, &zeros(1_000_001)));
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], "batch_too_large", "{body}");
    assert!(asked.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_budget_smaller_than_the_largest_body_is_refused_at_start() {
    let site = Site::new();
    let out = site
        .dozor()
        .args(["serve", "--bind", "127.0.0.1:1"])
        .env("DOZOR_BODY_BUDGET_BYTES", "1000000")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("limits.body_budget_bytes")
            && stderr.contains("at least the largest body, 16777216 bytes"),
        "{stderr}"
    );
}
