#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Reports from a replica: `dozor serve` on a primary with a streaming replica for reads (two
//! PostgreSQL clusters from the machine's binaries, on loopback). A report read on the replica
//! is cut at the largest signed checkpoint the replica holds and says so; a replica that lags
//! (its replay paused) gives reports of its size, never an error and never part of what came
//! after; an export reads its entries there once the replica holds its seals; a replica that is
//! down sends reads to the primary.

mod common;

use std::time::Duration;

use common::poll::poll_until;
use common::site::{Http, Site};
use common::{key, registration, submit_spins, Succeeds as _};
use diesel::connection::SimpleConnection as _;
use ledger::storage::cluster::LocalCluster;
use serde_json::{json, Value};

const STANDBY: &str = "dozor_replica";
const DAY: &str = "2026-11-20";

/// Waits until `done` holds (checked every 100 ms), at most 30 s.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        done()
            .then_some(())
            .ok_or_else(|| format!("timed out waiting until {what}"))
    });
}

/// The replica's progress as readiness shows it.
fn replica_progress(http: &Http) -> Value {
    let (_, ready) = http.get("/readyz", None);
    ready["replica"].clone()
}

/// The daily report of the spins' gaming day.
fn daily(http: &Http, token: &str) -> Value {
    let (status, report) = http.get(&format!("/api/v1/reports/daily?day={DAY}"), Some(token));
    assert_eq!(status, 200, "{report}");
    report
}

#[test]
fn a_lagging_replica_gives_reports_cut_at_its_checkpoint_and_a_missing_one_the_primarys() {
    let mut primary = LocalCluster::temporary_primary(STANDBY).unwrap();
    let mut standby = LocalCluster::temporary_standby_of(&primary, STANDBY).unwrap();
    primary.create_database("dozor").unwrap();
    ledger::storage::migrate(&mut ledger::storage::connect(&primary.url("dozor")).unwrap())
        .unwrap();
    primary.create_server_role("dozor").unwrap();
    let owner_url = primary.tcp_url("postgres", "dozor").unwrap();
    let server_url = primary.tcp_url("dozor_server", "dozor").unwrap();
    let replica_url = standby.tcp_url("dozor_server", "dozor").unwrap();

    let site = Site::new();
    let server = site.serve_with(&[
        ("DATABASE_URL", server_url.as_str()),
        ("DOZOR_OWNER_DATABASE_URL", owner_url.as_str()),
        ("DOZOR_REPLICA_DATABASE_URL", replica_url.as_str()),
        ("DOZOR_CHECKPOINT_SECONDS", "1"),
    ]);
    let http = &server.http;
    let admin = site.apikey_on(&owner_url, "replica", "admin");
    let reporter = site.apikey_on(&owner_url, "reader", "reporter");
    let officer = site.apikey_on(&owner_url, "officer", "compliance");
    http.register_table(Some(&admin), &registration("T1", &key(11)));

    // Ten spins, checkpointed and replayed: the report read on the replica has them all.
    let first = submit_spins(http, 1..=10);
    wait_until("the replica holds a checkpoint of every entry", || {
        replica_progress(http)["covered_size"].as_u64() == Some(first + 1)
    });
    let report = daily(http, &reporter);
    assert_eq!(report["rounds"], 10, "{report}");
    assert_eq!(
        report["covers"],
        json!({"ledger_size": first + 1, "read_from": "replica", "at_checkpoint": true}),
        "{report}"
    );

    // The replica stops replaying; ten more spins are committed (the standby still receives
    // them, so the primary commits) and checkpointed on the primary.
    let mut standby_admin = ledger::storage::connect(&standby.url("postgres")).unwrap();
    standby_admin
        .batch_execute("SELECT pg_wal_replay_pause()")
        .unwrap();
    let second = submit_spins(http, 11..=20);
    wait_until("the primary's checkpoint covers the second ten", || {
        replica_progress(http)["lag_entries"].as_u64() >= Some(second - first)
    });
    // Reports still come, of the replica's size: the first ten, never part of the second.
    let report = daily(http, &reporter);
    assert_eq!(report["rounds"], 10, "{report}");
    assert_eq!(report["covers"]["ledger_size"], first + 1, "{report}");
    let (status, ready) = http.get("/readyz", None);
    assert_eq!(status, 200, "a lagging replica leaves dozor ready: {ready}");
    // Every format says it: the CSV for people, and a list (the sequence gaps).
    for path in [
        format!("/api/v1/reports/daily?day={DAY}&format=csv-cz"),
        "/api/v1/ledger/gaps".to_owned(),
    ] {
        let (status, headers, body) = http.get_with_headers(&path, Some(&officer));
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(
            (
                headers.get("x-dozor-ledger-size").map(String::as_str),
                headers.get("x-dozor-read-from").map(String::as_str)
            ),
            (Some((first + 1).to_string().as_str()), Some("replica")),
            "{path}: {headers:?}"
        );
    }

    // Replay resumes: the report catches up to the latest checkpoint.
    standby_admin
        .batch_execute("SELECT pg_wal_replay_resume()")
        .unwrap();
    wait_until("the replica holds the latest checkpoint", || {
        replica_progress(http)["covered_size"].as_u64() == Some(second + 1)
    });
    let report = daily(http, &reporter);
    assert_eq!(report["rounds"], 20, "{report}");
    assert_eq!(report["covers"]["ledger_size"], second + 1, "{report}");

    // An export seals its reports on the primary and reads its entries on the replica once
    // the replica holds the checkpoint over the seals; it verifies offline.
    let dir = site.path().join("export");
    let out = site
        .dozor()
        .env("DATABASE_URL", &owner_url)
        .env("DOZOR_REPLICA_DATABASE_URL", &replica_url)
        .args(["export", "--from", DAY, "--to", DAY])
        .arg(&dir)
        .succeeds();
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["read_from"], "replica", "{summary}");
    // Played on the day, received later: each one exported with its proof.
    assert_eq!(summary["late_rounds"], 20, "{summary}");
    let out = site.dozor().args(["operator-key", "--json"]).succeeds();
    let verifier: Value = serde_json::from_slice(&out.stdout).unwrap();
    site.dozor()
        .args([
            "verify",
            "--operator-key",
            verifier["verifier_key"].as_str().unwrap(),
        ])
        .arg(&dir)
        .succeeds();

    // The replica goes away: reads go to the primary, which covers every committed entry.
    drop(standby_admin);
    standby.kill_postmaster().unwrap();
    let report = daily(http, &reporter);
    assert_eq!(report["rounds"], 20, "{report}");
    // Every entry, the export's seals included.
    let size =
        ledger::storage::reads::size(&mut ledger::storage::connect(&owner_url).unwrap()).unwrap();
    assert!(size > second + 1);
    assert_eq!(
        report["covers"],
        json!({"ledger_size": size, "read_from": "primary", "at_checkpoint": false}),
        "{report}"
    );
    let (status, ready) = http.get("/readyz", None);
    assert_eq!(status, 200, "{ready}");
    assert_eq!(ready["replica"]["reachable"], false, "{ready}");
    primary.stop().unwrap();
}
