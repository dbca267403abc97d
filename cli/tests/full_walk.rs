#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor verify --full-walk`: the whole ledger walked in segments, each in a snapshot of its
//! own, its progress kept signed outside the database; a walk killed midway goes on from there
//! and ends as an uninterrupted one; its result is a full verification mark.

mod common;

use std::path::Path;
use std::time::{Duration as StdDuration, Instant};

use chrono::{Duration, Utc};
use common::*;
use diesel::connection::SimpleConnection as _;
use ledger::storage::{checkpoints, connect};
use serde_json::{json, Value};

/// Entries per page and pages per segment in these tests: a segment of 8 entries.
const PAGE: &str = "4";
const SEGMENT: &str = "2";

/// A ledger whose entry 0 registers roulette table R01 (key 11), then `spins` spins of 17 with
/// a straight on 17 of 100 Kč paid 3 600 Kč (35 × 10 000 h + the stake: correct), a checkpoint
/// after every 25 spins and one over all of it; with a data directory holding the operator's
/// key.
fn ledger(spins: u64) -> (api::state::AppState, String, tempfile::TempDir) {
    let (state, url) = state();
    let mut conn = connect(&url).unwrap();
    let start = Utc::now() - Duration::hours(4);
    register_roulette(&mut conn, "R01", &key(11), start);
    for seq in 1..=spins {
        let mut record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        record["played_at"] = json!((start + Duration::seconds(seq as i64 * 30)).to_rfc3339());
        let received = start + Duration::seconds(seq as i64 * 30 + 1);
        append_signed(&state, &mut conn, record, &key(11), received);
        if seq % 25 == 0 || seq == spins {
            let size = ledger::storage::reads::size(&mut conn).unwrap();
            checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("operator.key"), operator().private_key()).unwrap();
    (state, url, dir)
}

/// `dozor verify --full-walk` on `url` with the data directory `dir`, in segments of 8
/// entries, and `more` arguments.
fn full_walk(url: &str, dir: &Path, more: &[&str]) -> std::process::Command {
    let mut command = dozor();
    command
        .args(["verify", "--full-walk", "--data-dir"])
        .arg(dir)
        .args(["--page-entries", PAGE, "--segment-pages", SEGMENT])
        .args(more)
        .env("DATABASE_URL", url)
        .env_remove("DOZOR_OPERATOR_KEY");
    command
}

/// Runs the walk to its end: exit code, the report, the last line of standard error.
fn walked(url: &str, dir: &Path, more: &[&str]) -> (Option<i32>, Value, String) {
    let out = full_walk(url, dir, more).output().unwrap();
    let last = last_stderr_line(&out);
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), report, last)
}

/// The progress kept in `file`: the JSON line of the signed note.
fn progress_in(file: &Path) -> Option<Value> {
    let note = std::fs::read_to_string(file).ok()?;
    serde_json::from_str(note.lines().nth(1)?).ok()
}

/// A walk slowed to about a page a second by the read budget, killed after three segments:
/// the progress it kept.
fn killed_midway(url: &str, data: &Path) -> Value {
    let progress_file = data.join("full-walk.progress");
    let mut child = full_walk(url, data, &["--read-mib-per-second", "0.004"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + StdDuration::from_secs(60);
    while progress_in(&progress_file).is_none_or(|p| p["segments"].as_u64() < Some(3)) {
        assert!(Instant::now() < until, "the walk kept no progress");
        std::thread::sleep(StdDuration::from_millis(50));
    }
    // While it runs, another walk of the same progress file does nothing.
    let (code, other, last) = walked(url, data, &[]);
    assert_eq!(code, Some(0), "{last}");
    assert_eq!(other["already_running"], true, "{other}");
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = progress_in(&progress_file).unwrap();
    assert_eq!(at_kill["target"], 121, "{at_kill}");
    at_kill
}

/// What two walks of the same ledger must agree on.
fn outcome(report: &Value) -> Value {
    json!({
        "entries_checked": report["entries_checked"],
        "rounds_readjudicated": report["rounds_readjudicated"],
        "registry_events": report["registry_events"],
        "head_hash": report["head_hash"],
        "failure": report["failure"],
    })
}

#[test]
fn a_walk_killed_midway_goes_on_from_its_progress_and_ends_as_an_uninterrupted_one() {
    let (_, url, dir) = ledger(120);
    let data = dir.path();
    // Uninterrupted: 121 entries (the registration and 120 spins), 16 segments of 8 (the last
    // of 1), recorded as a full mark at index 121.
    let (code, whole, last) = walked(&url, data, &["--cores", "0"]);
    assert_eq!(code, Some(0), "{last}\n{whole}");
    assert_eq!(whole["entries_checked"], 121, "{whole}");
    assert_eq!(whole["rounds_readjudicated"], 120, "{whole}");
    assert_eq!(whole["segments"], 16, "{whole}");
    assert_eq!(whole["resumed"], 0, "{whole}");
    assert_eq!(whole["mark_index"], 121, "{whole}");
    assert!(
        last.contains("ledger OK: entries 0..121 checked (full)"),
        "{last}"
    );
    let progress_file = data.join("full-walk.progress");
    assert!(
        !progress_file.exists(),
        "a walk that ended keeps no progress"
    );

    let at_kill = killed_midway(&url, data);
    let next = at_kill["next"].as_u64().unwrap();
    assert!((24..121).contains(&next), "{at_kill}");

    // Resumed: it goes on from there (the segments before are not walked again) and ends with
    // what the uninterrupted walk found, recorded at index 122.
    let (code, resumed, last) = walked(&url, data, &["--cores", "0"]);
    assert_eq!(code, Some(0), "{last}\n{resumed}");
    assert_eq!(resumed["resumed"], 1, "{resumed}");
    assert_eq!(resumed["segments"], 16, "{resumed}");
    assert_eq!(outcome(&resumed), outcome(&whole));
    assert_eq!(resumed["mark_index"], 122, "{resumed}");
    let (first, second) = (mark_at(&url, 121), mark_at(&url, 122));
    assert_eq!(
        (&first["scope"], &first["from"], &first["to"]),
        (&json!("full"), &json!(0), &json!(121))
    );
    assert_eq!(
        first["verified"], second["verified"],
        "the same tree verified"
    );
    assert!(first["verified"]["root"].is_string(), "{first}");
    assert!(!progress_file.exists());
}

#[test]
fn a_progress_file_that_does_not_open_starts_the_walk_over() {
    let (_, url, dir) = ledger(20);
    let progress_file = dir.path().join("full-walk.progress");
    std::fs::write(&progress_file, "dozor full walk progress\n{\"next\": 20}\n").unwrap();
    let (code, report, last) = walked(&url, dir.path(), &[]);
    assert_eq!(code, Some(0), "{last}\n{report}");
    // 21 entries from the start: 3 segments of 8 (the last of 5).
    assert_eq!(report["resumed"], 0, "{report}");
    assert_eq!(report["segments"], 3, "{report}");
    assert_eq!(report["entries_checked"], 21, "{report}");
}

#[test]
fn a_row_changed_under_the_walk_is_named_and_recorded_as_a_failing_full_mark() {
    let (_, url, dir) = ledger(30);
    // Entry 12's verdict changed past every trigger.
    connect(&url)
        .unwrap()
        .batch_execute(
            "SET session_replication_role = replica; \
             UPDATE adjudications SET paid_h = 0 WHERE ledger_index = 12",
        )
        .unwrap();
    let (code, report, last) = walked(&url, dir.path(), &[]);
    assert_eq!(code, Some(1), "{last}\n{report}");
    assert_eq!(report["failure"]["index"], 12, "{report}");
    assert!(last.contains("ledger BROKEN at index 12"), "{last}");
    let mark = &report["mark_index"];
    assert_eq!(mark, 31, "{report}");
    assert!(!dir.path().join("full-walk.progress").exists());
}

#[test]
fn the_walk_runs_only_when_due_with_every_days() {
    let (_, url, dir) = ledger(5);
    // None passed yet: due, walked.
    let (code, first, _) = walked(&url, dir.path(), &["--every-days", "7"]);
    assert_eq!(code, Some(0));
    assert_eq!(first["mark_index"], 6, "{first}");
    // Passed a moment ago: not due within 7 days, nothing recorded.
    let (code, second, last) = walked(&url, dir.path(), &["--every-days", "7"]);
    assert_eq!(code, Some(0), "{last}");
    assert_eq!(second["due"], false, "{second}");
    assert!(last.contains("full walk not due"), "{last}");
    let size = ledger::storage::reads::size(&mut connect(&url).unwrap()).unwrap();
    assert_eq!(size, 7, "only the first walk's mark was appended");
    // Every 0 days: due again.
    let (code, third, _) = walked(&url, dir.path(), &["--every-days", "0"]);
    assert_eq!(code, Some(0));
    assert_eq!(third["mark_index"], 7, "{third}");
}

#[test]
fn the_server_goes_on_with_a_walk_in_progress_at_start_and_shows_it_in_its_metrics() {
    let (state, url, dir) = ledger(120);
    let data = dir.path();
    killed_midway(&url, data);
    let walker = api::full_walk::spawn(
        state.clone(),
        api::full_walk::WalkSchedule {
            // Not tonight: only the walk in progress runs.
            at: chrono::NaiveTime::from_hms_opt(6, 30, 0).unwrap(),
            every_days: 7,
            budget: ledger::throttle::Budget::default(),
            data_dir: data.to_path_buf(),
            checkpoint_witness: None,
        },
    )
    .unwrap();
    let progress_file = data.join("full-walk.progress");
    let until = Instant::now() + StdDuration::from_secs(120);
    while progress_file.exists() {
        assert!(Instant::now() < until, "the walk did not end");
        std::thread::sleep(StdDuration::from_millis(100));
    }
    walker.stop();
    // The walk went to its end from where it was killed, and was recorded at index 121.
    let mark = mark_at(&url, 121);
    assert_eq!(
        (&mark["scope"], &mark["to"], &mark["actor"]),
        (&json!("full"), &json!(121), &json!("server:nightly"))
    );
    assert!(mark["failure"].is_null(), "{mark}");
    let kept: Value =
        serde_json::from_slice(&std::fs::read(data.join("verification-mark.json")).unwrap())
            .unwrap();
    assert_eq!(kept["index"], 121, "{kept}");
    let metrics = state
        .metrics
        .render(&api::metrics::Snapshot::default())
        .unwrap();
    for line in [
        "dozor_full_walk_running 0",
        "dozor_full_walk_next_entry 121",
        "dozor_full_walk_target_entries 121",
    ] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
}
