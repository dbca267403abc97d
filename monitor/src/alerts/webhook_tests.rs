#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Delivery to a webhook: a tiny HTTP server on loopback records every POST; while it fails,
//! nothing is lost, across a restart, and each alert arrives with its id as idempotency key.

use std::io::{Read as _, Write as _};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::config::WebhookConfig;
use super::db_tests::{at, database_at};
use super::webhook::{deliver_due, Delivered, Webhook};
use crate::store::alerts::{raise, NewAlert};
use crate::store::connection::connect;
use crate::store::{outbox, state};

/// What the server received: each request's headers (lower-case names) and JSON body.
type Received = Arc<Mutex<Vec<(Vec<(String, String)>, Value)>>>;

/// A server answering 503 to the first `failing` requests, 204 to the others; its URL.
fn server(failing: Arc<AtomicU32>) -> (String, Received) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let received: Received = Arc::default();
    let kept = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut request = Vec::new();
            let mut buffer = [0u8; 4096];
            let head_end = loop {
                let n = stream.read(&mut buffer).unwrap();
                request.extend_from_slice(&buffer[..n]);
                if let Some(i) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                    break i + 4;
                }
                assert!(n > 0, "the request ended early");
            };
            let head = String::from_utf8_lossy(&request[..head_end]).to_string();
            let headers: Vec<(String, String)> = head
                .lines()
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let length: usize = headers
                .iter()
                .find(|(k, _)| k == "content-length")
                .map_or(0, |(_, v)| v.parse().unwrap());
            while request.len() < head_end + length {
                let n = stream.read(&mut buffer).unwrap();
                assert!(n > 0, "the body ended early");
                request.extend_from_slice(&buffer[..n]);
            }
            let body: Value =
                serde_json::from_slice(&request[head_end..head_end + length]).unwrap();
            let fail = failing
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            kept.lock().unwrap().push((headers, body));
            let status = if fail {
                "503 Service Unavailable"
            } else {
                "204 No Content"
            };
            let _ = stream.write_all(
                format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            );
        }
    });
    (url, received)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn every_alert_reaches_the_webhook_once_it_answers_and_nothing_is_lost_across_a_restart() {
    let (url, mut conn) = database_at();
    let raised_at = at("2026-11-21T10:00:00Z");
    for casino in ["casino-1", "casino-2"] {
        state::ensure(&mut conn, casino).unwrap();
    }
    let alerts = [
        ("casino-1", "fork", "fork:ab"),
        ("casino-2", "verdict_mismatch", "mismatch:17"),
        ("casino-1", "daily_summary", "daily:2026-11-20"),
    ];
    for (casino, kind, key) in alerts {
        let alert = NewAlert {
            kind,
            key: key.into(),
            message: format!("{kind} at {casino}"),
            evidence: json!({"key": key}),
        };
        assert!(raise(&mut conn, casino, &alert, raised_at).unwrap());
    }
    // Raised once: again, nothing new, nothing more to deliver.
    let again = NewAlert {
        kind: "fork",
        key: "fork:ab".into(),
        message: "again".into(),
        evidence: json!({}),
    };
    assert!(!raise(&mut conn, "casino-1", &again, raised_at).unwrap());
    assert_eq!(outbox::pending(&mut conn).unwrap(), 3);

    let failing = Arc::new(AtomicU32::new(u32::MAX));
    let (hook_url, received) = server(failing.clone());
    let config = WebhookConfig {
        url: hook_url,
        bearer_token: Some("hook-token".into()),
        ca_certificates: None,
        timeout: Duration::from_secs(5),
    };
    // The webhook fails: the first alert is tried, the others wait for the next pass.
    let now = at("2026-11-21T10:00:05Z");
    let webhook = Webhook::new(&config).unwrap();
    let done = deliver_due(&mut conn, &webhook, now).unwrap();
    assert_eq!(
        done,
        Delivered {
            delivered: 0,
            failed: 1
        }
    );
    assert_eq!(outbox::pending(&mut conn).unwrap(), 3);
    drop((conn, webhook));

    // Restarted; the webhook answers now. The failed alert waits its 10 s; the others go.
    failing.store(0, Ordering::SeqCst);
    let mut conn = connect(&url).unwrap();
    let webhook = Webhook::new(&config).unwrap();
    let done = deliver_due(&mut conn, &webhook, at("2026-11-21T10:00:10Z")).unwrap();
    assert_eq!(
        done,
        Delivered {
            delivered: 2,
            failed: 0
        }
    );
    assert_eq!(outbox::pending(&mut conn).unwrap(), 1);
    let done = deliver_due(&mut conn, &webhook, at("2026-11-21T10:00:15Z")).unwrap();
    assert_eq!(
        done,
        Delivered {
            delivered: 1,
            failed: 0
        }
    );
    assert_eq!(outbox::pending(&mut conn).unwrap(), 0);
    assert_eq!(
        deliver_due(&mut conn, &webhook, at("2026-11-22T00:00:00Z")).unwrap(),
        Delivered::default()
    );

    let received = received.lock().unwrap();
    // 1 failed attempt + 3 deliveries.
    assert_eq!(received.len(), 4);
    let kept = crate::store::alerts::alerts(&mut conn, None).unwrap();
    for alert in &kept {
        let posts: Vec<_> = received
            .iter()
            .filter(|(_, body)| body["id"] == alert.id)
            .collect();
        assert!(!posts.is_empty(), "alert {} never arrived", alert.id);
        let (headers, body) = posts.last().unwrap();
        assert_eq!(
            header(headers, "idempotency-key"),
            Some(alert.id.to_string().as_str())
        );
        assert_eq!(header(headers, "authorization"), Some("Bearer hook-token"));
        assert_eq!(header(headers, "content-type"), Some("application/json"));
        assert_eq!(body["idempotency_key"], alert.id.to_string());
        assert_eq!(body["casino"], alert.casino);
        assert_eq!(body["kind"], alert.kind);
        assert_eq!(body["key"], alert.key);
        assert_eq!(body["message"], alert.message);
        assert_eq!(body["evidence"], alert.evidence);
        assert_eq!(body["raised_at"], "2026-11-21T10:00:00Z");
    }
    let severity = |kind: &str| {
        received
            .iter()
            .find(|(_, b)| b["kind"] == kind)
            .map(|(_, b)| b["severity"].clone())
            .unwrap()
    };
    assert_eq!(severity("fork"), "critical");
    assert_eq!(severity("verdict_mismatch"), "warning");
    assert_eq!(severity("daily_summary"), "info");
    // The first alert was posted twice (failed, then taken): the same idempotency key.
    let first = kept[0].id;
    assert_eq!(received.iter().filter(|(_, b)| b["id"] == first).count(), 2);
}

#[test]
fn a_pass_after_once_raises_the_checks_alerts_and_delivers_them() {
    let (url, _conn) = database_at();
    let (hook_url, received) = server(Arc::new(AtomicU32::new(0)));
    let log = crate::test_log::TestLog::new();
    let mut config = super::db_tests::config(
        &log,
        &["casino-1"],
        &format!("[alerts]\n[alerts.webhook]\nurl = \"{hook_url}\""),
    );
    // Nothing listens on port 9: the casino cannot be reached.
    config.casinos[0].tiles_url = "http://127.0.0.1:9/".into();
    let passes = crate::run::run(&config, &url, true).unwrap();
    assert!(passes[0].1.is_err(), "{passes:?}");
    // The gaming day before today's is summed up, the failed attempt in it, and delivered.
    let mut conn = connect(&url).unwrap();
    let kept = crate::store::alerts::alerts(&mut conn, None).unwrap();
    let yesterday = config.casinos[0]
        .clock
        .day_of(chrono::Utc::now())
        .pred_opt()
        .unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].key, format!("daily:{yesterday}"));
    assert_eq!(kept[0].evidence["all_well"], false);
    let state = kept[0].evidence["state"].as_str().unwrap();
    assert!(state.starts_with("failing (1): "), "{state}");
    assert_eq!(outbox::pending(&mut conn).unwrap(), 0);
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].1["key"], kept[0].key);
}
