#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor bench monitor …` at a tiny size, on a data directory of its own, so that the
//! benchmarks of the monitor and of tile publishing keep running: each gives its figures, and the
//! monitor it measured followed every entry published, judged every round and raised no alert.

mod common;

use common::site::Site;
use serde_json::Value;

/// `dozor bench monitor <args>` on `site`: its JSON figures (it must exit 0).
fn figures(site: &Site, args: &str) -> Value {
    common::nginx::nginx_binary();
    let out = site
        .dozor()
        .env("RUST_LOG", "warn")
        .args(["bench", "monitor"])
        .args(args.split_whitespace())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args}: {stderr}\n{stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args}: {e}: {stdout}"))
}

#[test]
fn the_monitor_catches_up_beside_the_offline_verifier() {
    let site = Site::new();
    let first = figures(&site, "catch-up --entries 300");
    // 300 spins, 16 table registrations and what the export sealed into the ledger.
    assert!(first["ledger_entries"].as_u64().unwrap() > 316, "{first}");
    assert_eq!(first["monitor_rounds_judged"], 300, "{first}");
    assert_eq!(first["monitor_alerts"], 0, "{first}");
    assert_eq!(first["rounds"], 300, "{first}");
    for rate in [
        "monitor_entries_per_second",
        "verify_entries_per_second",
        "monitor_vs_verify",
    ] {
        assert!(first[rate].as_f64().unwrap() > 0.0, "{rate}: {first}");
    }
    assert!(
        first["monitor_peak_resident_mib"].as_f64().unwrap() > 1.0,
        "{first}"
    );
    // A second run on the kept ledger and folder (the folder up to date already): a new
    // monitor follows all of it from entry 0 again.
    let second = figures(&site, "catch-up --entries 300");
    assert_eq!(
        second["ledger_entries"], first["ledger_entries"],
        "{second}"
    );
    assert_eq!(second["monitor_rounds_judged"], 300, "{second}");
}

#[test]
fn casinos_growing_are_followed_and_their_delays_measured() {
    let site = Site::new();
    let figures = figures(
        &site,
        "casinos --casinos 3 --seconds 6 --publish-seconds 2 --poll-seconds 1 --rounds-per-second 5",
    );
    // 3 casinos, each publishing every 2 s for 6 s: turns at 0, 2/3, 4/3, … s, 9 of them.
    assert_eq!(figures["publications"], 9, "{figures}");
    assert_eq!(figures["publications_followed"], 9, "{figures}");
    assert_eq!(
        figures["publications_not_followed_by_the_end"], 0,
        "{figures}"
    );
    // Each publication adds 10 spins (5 a second for 2 s), each casino's first checkpoint one:
    // 9 × 10 + 3 = 93 rounds judged.
    assert_eq!(figures["monitor_rounds_judged"], 93, "{figures}");
    let delay = &figures["delay_seconds"];
    let (median, max) = (
        delay["median"].as_f64().unwrap(),
        delay["max"].as_f64().unwrap(),
    );
    assert!(median > 0.0 && median <= max, "{figures}");
    assert!(
        figures["monitor_peak_resident_mib"].as_f64().unwrap() > 1.0,
        "{figures}"
    );
}

#[test]
fn ingest_with_and_without_tiles_alternates() {
    let site = Site::new();
    let figures = figures(
        &site,
        "ingest --runs 1 --rounds 500 --batch 100 --concurrency 2",
    );
    assert_eq!(
        figures["without_tiles_spins_per_second"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        figures["with_tiles_spins_per_second"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(
        figures["tiles_published_size"][0].as_u64().unwrap() >= 500,
        "{figures}"
    );
    assert!(
        figures["difference_percent"].as_f64().is_some(),
        "{figures}"
    );
}
