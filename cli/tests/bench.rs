#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every benchmark at a small size, on a data directory (and PostgreSQL cluster) of its own: it
//! gives its figures and exits 0 when everything it sent was accepted and every result is the one
//! expected; when the server refuses records (a tiny per-address limit) it gives no figure, names
//! the refusals in one line on standard error and exits 1.

mod common;

use common::site::Site;
use common::Succeeds as _;
use serde_json::Value;

/// `dozor bench <args>` (words between spaces) on `site`, quiet but for warnings: exit code,
/// standard output, the last line of standard error.
fn bench(site: &Site, args: &str) -> (Option<i32>, String, String) {
    let out = site
        .dozor()
        .env("RUST_LOG", "warn")
        .arg("bench")
        .args(args.split_whitespace())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), stdout, common::last_stderr_line(&out))
}

/// A benchmark that succeeded: its JSON figures.
fn figures(site: &Site, args: &str) -> Value {
    let (code, stdout, last) = bench(site, args);
    assert_eq!(code, Some(0), "{args:?}: {last}\n{stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

/// A benchmark the server refused records of: exit 1, no figure, the refusals on the last line.
fn refused(site: &Site, args: &str) -> String {
    let (code, stdout, last) = bench(site, args);
    assert_eq!(code, Some(1), "{args:?}: {last}\n{stdout}");
    assert!(!stdout.contains("spins_per_second"), "{stdout}");
    assert!(stdout.trim().is_empty(), "{stdout}");
    last
}

#[test]
fn single_record_ingest_sends_each_table_from_its_own_address_and_fails_loudly_when_refused() {
    let site = Site::new();
    // Under the server's default limits, four tables each from its own address: all accepted.
    let ok = figures(&site, "ingest --rounds 200 --tables 4 --concurrency 8");
    assert_eq!(ok["accepted_201"], 200, "{ok}");
    assert_eq!(ok["addresses"], 4, "{ok}");
    assert_eq!(ok["records_per_request"], 1, "{ok}");
    assert_eq!(
        ok["per_address_limit"],
        serde_json::json!({"per_second": 200, "burst": 400, "server_default": true}),
        "{ok}"
    );
    assert!(ok["spins_per_second"].as_f64().unwrap() > 0.0, "{ok}");

    // Each table has the limit to itself: 50 spins from each of four addresses fit a burst of
    // 60 each, where 200 from one address would not.
    let separate = figures(
        &site,
        "ingest --rounds 200 --tables 4 --concurrency 8 \
         --address-limit-per-second 5 --address-limit-burst 60",
    );
    assert_eq!(separate["accepted_201"], 200, "{separate}");
    assert_eq!(
        separate["per_address_limit"],
        serde_json::json!({"per_second": 5, "burst": 60, "server_default": false}),
        "{separate}"
    );

    // One table under 5 requests a second, 5 at once: most of its 200 spins are refused.
    let line = refused(
        &site,
        "ingest --rounds 200 --tables 1 --concurrency 8 \
         --address-limit-per-second 5 --address-limit-burst 5",
    );
    assert!(line.contains("record(s) not accepted"), "{line}");
    assert!(line.contains("429 rate_limited ×"), "{line}");

    // More tables than loopback addresses to send from: refused before anything starts.
    let line = site
        .dozor()
        .args(["bench", "ingest", "--rounds", "10", "--tables", "254"])
        .fails();
    assert!(line.contains("at most 253 tables"), "{line}");
}

#[test]
fn batched_ingest_fails_loudly_when_refused() {
    let site = Site::new();
    let ok = figures(
        &site,
        "ingest --rounds 200 --batch 50 --concurrency 2 --tables 2",
    );
    assert_eq!(ok["accepted_201"], 200, "{ok}");
    assert_eq!(ok["addresses"], 1, "{ok}");
    assert_eq!(ok["per_address_limit"]["server_default"], true, "{ok}");

    // The gateway's 4 requests under a limit of 1 a second, 1 at once: whole batches refused.
    let line = refused(
        &site,
        "ingest --rounds 200 --batch 50 --concurrency 4 --tables 1 \
         --address-limit-per-second 1 --address-limit-burst 1",
    );
    assert!(line.contains("record(s) not accepted"), "{line}");
    assert!(line.contains("429 rate_limited ×"), "{line}");
}

#[test]
fn the_other_benchmarks_run_small_and_give_their_figures() {
    let site = Site::new();
    let mf = figures(&site, "mf --rounds 62 --tables 2 --runs 1");
    assert_eq!(mf["rounds"], 62, "{mf}");
    let rtp = figures(&site, "rtp --rounds 155 --tables 5 --runs 1");
    assert_eq!(rtp["rounds"], 155, "{rtp}");
    let verify = figures(&site, "verify --entries 200");
    assert_eq!(verify["rounds_readjudicated"], 200, "{verify}");
    // The database verify of the same ledger: its 200 rounds, 16 tables and what the export
    // sealed into it.
    assert!(
        verify["database_verify_entries"].as_u64().unwrap() > 216,
        "{verify}"
    );
    assert!(verify["database_vs_offline_verify"].as_f64().unwrap() > 0.0);
    // Reading the pages alone, and where the CPU time of each verification went: this process
    // and the PostgreSQL backend of its own cluster (the figures are read from /proc, so
    // present here).
    assert!(verify["database_read_only_seconds"].as_f64().unwrap() > 0.0);
    let cpu = &verify["cpu_seconds"];
    for (step, processes) in [
        ("verify", &["dozor"][..]),
        ("database_verify", &["dozor", "postgresql"][..]),
        ("database_read_only", &["dozor", "postgresql"][..]),
    ] {
        for process in processes {
            assert!(cpu[step][process].as_f64().unwrap() >= 0.0, "{verify}");
        }
    }
    assert!(cpu["verify"].get("postgresql").is_none(), "{verify}");
    let proofs = figures(&site, "proofs --entries 1000 --samples 50");
    assert_eq!(proofs["all_verified"], true, "{proofs}");
    let adjudicate = figures(&site, "adjudicate --rounds 50");
    assert!(adjudicate["rounds_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn ingest_publishing_tiles_to_a_folder_keeps_it_and_refuses_one_not_empty() {
    let site = Site::new();
    let scratch = tempfile::tempdir().unwrap();
    let folder = scratch.path().join("tiles");
    let args = format!(
        "ingest --rounds 100 --batch 50 --concurrency 2 --tables 2 --tiles --tiles-dir {}",
        folder.display()
    );
    let ok = figures(&site, &args);
    assert_eq!(ok["accepted_201"], 100, "{ok}");
    // The folder is kept: its checkpoint is the size the figures give, every spin in it.
    let size = ok["tiles_published_size"].as_u64().unwrap();
    assert!(size >= 100, "{ok}");
    let checkpoint = std::fs::read_to_string(folder.join("checkpoint")).unwrap();
    assert_eq!(checkpoint.lines().nth(1), Some(size.to_string().as_str()));

    // A folder holding anything is refused before anything runs.
    let (code, stdout, last) = bench(&site, &args);
    assert_ne!(code, Some(0), "{last}");
    assert!(stdout.trim().is_empty(), "{stdout}");
    assert!(
        last.contains("--tiles-dir") && last.contains("not empty"),
        "{last}"
    );
    let again = std::fs::read_to_string(folder.join("checkpoint")).unwrap();
    assert_eq!(again, checkpoint);
}
