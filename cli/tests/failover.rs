#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The failover drill: `dozor serve` on a primary with a synchronous standby (two PostgreSQL
//! clusters from the machine's binaries, on loopback), several tables submitting at once, the
//! primary's postmaster killed with SIGKILL and the standby promoted. Every receipt given before
//! and after is in the ledger at its index and hash, `dozor verify` passes, and the checkpoints
//! before and after are consistent.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::poll::poll_until;
use common::site::{Http, Site};
use common::{each, key, registration, signed, spin, straight, Succeeds as _};
use ledger::storage::cluster::LocalCluster;
use ledger::storage::replication::multi_host_url;
use serde_json::Value;

const STANDBY: &str = "dozor_standby";
const TABLES: u8 = 4;

/// A receipt as a client kept it, and when it came.
#[derive(Debug, Clone)]
struct Kept {
    index: u64,
    entry_hash: String,
    at: Instant,
}

/// One table submitting spins one by one until told to stop, retrying each until it has its
/// receipt (a refusal during the failover is an answer to retry, never a loss).
fn client(
    port: u16,
    table: u8,
    stop: Arc<AtomicBool>,
    receipts: Arc<Mutex<BTreeMap<(u8, u64), Kept>>>,
) {
    let http = Http::new(port);
    let signing = key(table + 10);
    let table_id = format!("T{table}");
    let mut seq_no = 1;
    while !stop.load(Ordering::Relaxed) {
        let record = spin(
            &table_id,
            seq_no,
            7,
            serde_json::json!([straight("b1", 7, 1_000, 36_000)]),
        );
        let body = signed(record, &signing);
        match http.try_call("POST", "/api/v1/records", None, Some(&body)) {
            Some((status @ (200 | 201), text)) => {
                let receipt: Value = serde_json::from_str(&text).unwrap();
                let kept = Kept {
                    index: receipt["index"].as_u64().unwrap(),
                    entry_hash: receipt["entry_hash"].as_str().unwrap().to_owned(),
                    at: Instant::now(),
                };
                let mut all = receipts.lock().unwrap();
                // A retry of a record whose first answer was lost gets its original receipt.
                if let Some(earlier) = all.get(&(table, seq_no)) {
                    assert_eq!(
                        (earlier.index, &earlier.entry_hash),
                        (kept.index, &kept.entry_hash),
                        "{status}"
                    );
                }
                all.insert((table, seq_no), kept);
                seq_no += 1;
            }
            // Refused for now (the writer lost its database, the rate limit): retry.
            Some((429 | 500 | 502 | 503, _)) | None => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Some((status, text)) => panic!("T{table} seq {seq_no}: {status} {text}"),
        }
    }
}

/// (size, root) of a signed checkpoint note.
fn size_and_root(note: &str) -> (u64, [u8; 32]) {
    let mut lines = note.lines().skip(1);
    let size = lines.next().unwrap().parse().unwrap();
    let root = base64::engine::general_purpose::STANDARD
        .decode(lines.next().unwrap())
        .unwrap();
    (size, root.try_into().unwrap())
}

/// The latest checkpoint; the test's own polling shares its address with the loaded tables,
/// so a 429 is waited out as a client would.
fn checkpoint(http: &Http) -> String {
    loop {
        let (status, note) = http
            .try_call("GET", "/api/v1/ledger/checkpoint", None, None)
            .unwrap();
        if status == 429 {
            std::thread::sleep(Duration::from_secs(1));
            continue;
        }
        assert_eq!(status, 200, "{note}");
        return note;
    }
}

/// Waits until `done` holds (checked every 50 ms), at most `wait`.
fn wait_until(what: &str, wait: Duration, mut done: impl FnMut() -> bool) {
    poll_until(wait, Duration::from_millis(50), || {
        done()
            .then_some(())
            .ok_or_else(|| format!("timed out waiting until {what}"))
    });
}

#[test]
fn a_failover_to_the_synchronous_standby_loses_no_receipt() {
    // The primary and its standby (the primary commits nothing until the standby has it);
    // then the schema and the server's login role, which the standby receives.
    let mut primary = LocalCluster::temporary_primary(STANDBY).unwrap();
    let standby = LocalCluster::temporary_standby_of(&primary, STANDBY).unwrap();
    primary.create_database("dozor").unwrap();
    ledger::storage::migrate(&mut ledger::storage::connect(&primary.url("dozor")).unwrap())
        .unwrap();
    primary.create_server_role("dozor").unwrap();
    let ports = [primary.tcp_port().unwrap(), standby.tcp_port().unwrap()];
    let owner_url = multi_host_url("postgres", &ports, "dozor");
    let server_url = multi_host_url("dozor_server", &ports, "dozor");

    let site = Site::new();
    let server = site.serve_with(&[
        ("DATABASE_URL", server_url.as_str()),
        ("DOZOR_OWNER_DATABASE_URL", owner_url.as_str()),
    ]);
    let http = &server.http;
    let admin = site.apikey_on(&owner_url, "drill", "admin");
    for table in 1..=TABLES {
        let body = registration(&format!("T{table}"), &key(table + 10));
        let (status, answer) = http.post("/api/v1/tables", Some(&admin), &body);
        assert_eq!(status, 201, "{answer}");
    }

    // Load: every table submitting at once.
    let stop = Arc::new(AtomicBool::new(false));
    let receipts = Arc::new(Mutex::new(BTreeMap::new()));
    let clients: Vec<_> = (1..=TABLES)
        .map(|table| {
            let (stop, receipts, port) = (stop.clone(), receipts.clone(), http.port);
            std::thread::spawn(move || client(port, table, stop, receipts))
        })
        .collect();
    let count = |receipts: &Arc<Mutex<BTreeMap<(u8, u64), Kept>>>| receipts.lock().unwrap().len();
    wait_until("100 receipts", Duration::from_secs(60), || {
        count(&receipts) >= 100
    });
    // A checkpoint the server signed before the failover (one a second).
    let seen = count(&receipts) as u64;
    wait_until(
        "a checkpoint past the first receipts",
        Duration::from_secs(30),
        || size_and_root(&checkpoint(http)).0 >= seen,
    );
    let before = checkpoint(http);

    // The primary dies as a machine would; the standby is promoted.
    let killed_at = Instant::now();
    primary.kill_postmaster().unwrap();
    standby.promote().unwrap();
    let promoted_at = Instant::now();

    // Load goes on against the new primary; not ready until the writer has read the head.
    let before_failover = count(&receipts);
    wait_until(
        "100 receipts after the failover",
        Duration::from_secs(120),
        || count(&receipts) >= before_failover + 100,
    );
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    let receipts = receipts.lock().unwrap().clone();
    // (A receipt between the kill and the promotion was the old primary's, in flight.)
    let first_on_new = receipts
        .values()
        .filter(|k| k.at > promoted_at)
        .map(|k| k.at)
        .min()
        .unwrap();
    eprintln!(
        "failover drill: standby promoted {:.2} s after the kill, first receipt from it {:.2} s \
         after the kill; {} receipts in all",
        (promoted_at - killed_at).as_secs_f64(),
        (first_on_new - killed_at).as_secs_f64(),
        receipts.len()
    );
    wait_until("the server is ready", Duration::from_secs(30), || {
        http.get("/readyz", None).0 == 200
    });

    // Every receipt, before and after, is in the new primary's ledger at its index and hash,
    // and no index was given twice.
    let mut conn = ledger::storage::connect(&standby.url("dozor")).unwrap();
    let mut indexes = std::collections::HashSet::new();
    for ((table, seq_no), kept) in &receipts {
        assert!(indexes.insert(kept.index), "index {} twice", kept.index);
        let stored = ledger::storage::reads::leaf_hash_at(&mut conn, kept.index)
            .unwrap()
            .unwrap_or_else(|| panic!("T{table} seq {seq_no}: entry {} missing", kept.index));
        assert_eq!(
            hex::encode(stored),
            kept.entry_hash,
            "T{table} seq {seq_no}"
        );
    }
    assert!(receipts.values().any(|k| k.at < killed_at));

    // The whole ledger verifies on the new primary.
    let out = site
        .dozor()
        .env("DATABASE_URL", &owner_url)
        .arg("verify")
        .succeeds();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["failure"].is_null(), "{report}");
    assert!(
        report["rounds_readjudicated"].as_u64().unwrap() >= receipts.len() as u64,
        "{report}"
    );

    // A checkpoint after the failover covers every receipt and extends the one before.
    let last = receipts.values().map(|k| k.index).max().unwrap();
    wait_until(
        "a checkpoint covering every receipt",
        Duration::from_secs(30),
        || size_and_root(&checkpoint(http)).0 > last,
    );
    let after = checkpoint(http);
    let ((first, first_root), (second, second_root)) =
        (size_and_root(&before), size_and_root(&after));
    let (status, proof) = http.get(
        &format!("/api/v1/ledger/proof/consistency?first={first}&second={second}"),
        None,
    );
    assert_eq!(status, 200, "{proof}");
    let hashes: Vec<[u8; 32]> = each(&proof["proof"], |h| {
        hex::decode(h.as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap()
    });
    assert!(dozor_log::merkle::verify_consistency(
        first,
        second,
        &hashes,
        &first_root,
        &second_root
    ));
    drop(server);
}
