#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The follow step on a real PostgreSQL (a throwaway cluster) with a casino served from memory.

use std::collections::HashMap;

use diesel::prelude::*;

use super::*;
use crate::config::Credentials;
use crate::store::alerts::alerts;
use crate::store::schema::{monitor_casinos, monitor_tallies};
use crate::store::status::status;
use crate::test_log::TestLog;

use crate::store::test_db::database;

pub(crate) fn casino(log: &TestLog) -> CasinoConfig {
    CasinoConfig {
        name: "casino-1".into(),
        tiles_url: "http://127.0.0.1/".into(),
        credentials: Credentials::default(),
        operator_keys: log.operator_keys(),
        witnesses: log.witnesses(),
        quorum: 1,
        plans: rules::PlanBook::builtin().unwrap(),
        clock: rules::gaming_day::GamingDayClock::default(),
        max_step_entries: crate::config::DEFAULT_MAX_STEP_ENTRIES,
        commit_entries: crate::config::DEFAULT_COMMIT_ENTRIES,
    }
}

fn rounds_counted(conn: &mut PgConnection) -> i64 {
    status(conn).unwrap()[0].rounds
}

fn stakes_counted(conn: &mut PgConnection) -> i64 {
    monitor_tallies::table
        .select(monitor_tallies::stakes_h)
        .load::<i64>(conn)
        .unwrap()
        .iter()
        .sum()
}

#[test]
fn a_log_is_followed_as_it_grows_and_every_round_counted_once() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(299);
    let config = casino(&log);
    let step = follow_once(&mut conn, &config, &log.publish(300)).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 0,
            to: 300,
            rounds: 299
        }
    );
    assert_eq!(
        follow_once(&mut conn, &config, &log.publish(300)).unwrap(),
        Step::UpToDate { size: 300 }
    );
    log.spins(300);
    let step = follow_once(&mut conn, &config, &log.publish(600)).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 300,
            to: 600,
            rounds: 300
        }
    );
    // 599 spins of 10 000 h each: 5 990 000 h staked, every one counted once.
    assert_eq!(rounds_counted(&mut conn), 599);
    assert_eq!(stakes_counted(&mut conn), 5_990_000);
    let s = &status(&mut conn).unwrap()[0];
    assert_eq!((s.size, s.checkpoint_size), (600, Some(600)));
    // One overpaid spin in ten: 60 of the monitor's own findings, none differing from the casino's.
    assert_eq!((s.findings, s.mismatched_rounds, s.alerts), (60, 0, 0));
}

#[test]
fn a_pass_cut_between_bundles_resumes_where_it_was_and_counts_nothing_twice() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(599);
    let config = casino(&log);
    let mut files = log.publish(600);
    // The second bundle cannot be had: the pass stops after committing the first.
    let second = files.remove("tile/entries/001").unwrap();
    let cut = follow_once(&mut conn, &config, &files).unwrap_err();
    assert!(
        matches!(
            cut,
            FollowError::Fetch(FetchError::Status { status: 404, .. })
        ),
        "{cut}"
    );
    let size: i64 = monitor_casinos::table
        .select(monitor_casinos::size)
        .first(&mut conn)
        .unwrap();
    assert_eq!(size, 256);
    assert_eq!(rounds_counted(&mut conn), 255);
    files.insert("tile/entries/001".into(), second);
    let step = follow_once(&mut conn, &config, &files).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 256,
            to: 600,
            rounds: 344
        }
    );
    assert_eq!(rounds_counted(&mut conn), 599);
    assert_eq!(stakes_counted(&mut conn), 5_990_000);
}

#[test]
fn bundles_fetched_ahead_are_committed_in_order_and_nothing_after_a_missing_one() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(2299);
    let config = casino(&log);
    // 2 300 entries: bundles 000 – 008 (the last partial, 2 300 − 8 · 256 = 252 entries), more
    // than are fetched ahead at once.
    let mut files = log.publish(2300);
    files.remove("tile/entries/004").unwrap();
    let source = Recording::new(files);
    let cut = follow_once(&mut conn, &config, &source).unwrap_err();
    assert!(cut.to_string().contains("tile/entries/004"), "{cut}");
    // Bundles 000 – 003 committed (4 · 256 = 1 024 entries, 1 023 rounds: entry 0 is the
    // table's registration); nothing after the missing bundle was committed, though bundles
    // after it may have been fetched meanwhile (several at once).
    let size: i64 = monitor_casinos::table
        .select(monitor_casinos::size)
        .first(&mut conn)
        .unwrap();
    assert_eq!(size, 1024);
    assert_eq!(rounds_counted(&mut conn), 1023);
    let asked = source.asked.lock().unwrap().clone();
    let mut bundles: Vec<&str> = asked
        .iter()
        .map(String::as_str)
        .filter(|p| p.starts_with("tile/entries/") || p.starts_with("verdicts/"))
        .collect();
    let count = bundles.len();
    bundles.sort_unstable();
    bundles.dedup();
    assert_eq!(bundles.len(), count, "each asked once: {asked:?}");
    for path in [
        "tile/entries/000",
        "verdicts/000",
        "tile/entries/001",
        "verdicts/001",
        "tile/entries/002",
        "verdicts/002",
        "tile/entries/003",
        "verdicts/003",
        "tile/entries/004",
    ] {
        assert!(bundles.contains(&path), "{path}: {asked:?}");
    }
    // A missing full tile is not looked for as a partial one.
    assert!(!asked.iter().any(|p| p.starts_with("tile/entries/004.p")));
    let step = follow_once(&mut conn, &config, &log.publish(2300)).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 1024,
            to: 2300,
            rounds: 1276
        }
    );
    // 2 299 spins of 10 000 h each, every one counted once.
    assert_eq!(rounds_counted(&mut conn), 2299);
    assert_eq!(stakes_counted(&mut conn), 22_990_000);
}

#[test]
fn a_changed_tile_byte_is_named_in_one_alert_and_nothing_is_followed() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(599);
    let config = casino(&log);
    let mut files = log.publish(600);
    files.get_mut("tile/0/001").unwrap()[100] ^= 1;
    for _ in 0..2 {
        let e = follow_once(&mut conn, &config, &files).unwrap_err();
        assert!(e.to_string().contains("tile/0/001"), "{e}");
    }
    // The casino grows; the same broken tile is still the one alert.
    log.spins(50);
    let mut files = log.publish(650);
    files.get_mut("tile/0/001").unwrap()[100] ^= 1;
    assert!(follow_once(&mut conn, &config, &files).is_err());
    let raised = alerts(&mut conn, Some("casino-1")).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].kind, "tiles");
    assert!(
        raised[0].message.contains("tile/0/001"),
        "{}",
        raised[0].message
    );
    assert_eq!(status(&mut conn).unwrap()[0].size, 0);
    // An entry changed in its bundle is named by its index.
    let mut files = log.publish(600);
    let bundle = files.get_mut("tile/entries/001").unwrap();
    let at = bundle
        .windows(12)
        .position(|w| w == b"\"seq_no\":300")
        .unwrap();
    bundle[at + 11] = b'1';
    let e = follow_once(&mut conn, &config, &files).unwrap_err();
    assert!(e.to_string().contains("entry 300 first"), "{e}");
    assert_eq!(status(&mut conn).unwrap()[0].size, 256);
}

#[test]
fn a_fork_or_a_rollback_keeps_both_notes_and_is_never_followed() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(20);
    let config = casino(&log);
    follow_once(&mut conn, &config, &log.publish(21)).unwrap();
    // Another log of the same key and size: entry 1 differs.
    let mut other = TestLog::new();
    other.spin(1, 0);
    other.spins(19);
    let step = follow_once(&mut conn, &config, &other.publish(21)).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("forked")),
        "{step:?}"
    );
    // Halted for good: even the right log is not followed any more.
    log.spins(5);
    assert!(matches!(
        follow_once(&mut conn, &config, &log.publish(26)).unwrap(),
        Step::Halted { .. }
    ));
    assert_eq!(
        crate::store::alerts::forks(&mut conn, "casino-1").unwrap(),
        1
    );
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].kind, "fork");
    assert_eq!(
        raised[0].evidence["seen"],
        serde_json::json!(other.checkpoint(21))
    );

    let mut conn = database();
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    let step = follow_once(&mut conn, &config, &log.publish(21)).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("rolled back")),
        "{step:?}"
    );
}

/// `files` with its checkpoint stripped of the witnesses' cosignatures: as the operator alone
/// signed it.
fn uncosigned(mut files: HashMap<String, Vec<u8>>) -> HashMap<String, Vec<u8>> {
    let note = String::from_utf8(files["checkpoint"].clone()).unwrap();
    let signed: String = note.lines().take(5).map(|l| format!("{l}\n")).collect();
    files.insert("checkpoint".into(), signed.into_bytes());
    files
}

#[test]
fn a_rollback_or_fork_the_operator_signed_halts_though_no_witness_cosigns_it_an_extension_waits() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(25);
    let config = casino(&log);
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    // A larger tree that extends the held one, without its witness, waits.
    log.spins(5);
    let step = follow_once(&mut conn, &config, &uncosigned(log.publish(31))).unwrap();
    assert!(matches!(step, Step::Waiting { size: 31, .. }), "{step:?}");
    assert_eq!(status(&mut conn).unwrap()[0].size, 26);
    // A smaller one, which no witness that cosigned the 26 will cosign: a rollback at once.
    let step = follow_once(&mut conn, &config, &uncosigned(log.publish(21))).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("rolled back")),
        "{step:?}"
    );
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].kind, "rollback");
    assert_eq!(
        raised[0].evidence["held"],
        serde_json::json!(log.checkpoint(26))
    );
    let seen = String::from_utf8(uncosigned(log.publish(21))["checkpoint"].clone()).unwrap();
    assert_eq!(raised[0].evidence["seen"], serde_json::json!(seen));

    // Another root of the held size, signed by the operator alone: a fork.
    let mut conn = database();
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    let mut other = TestLog::new();
    other.spin(1, 0);
    other.spins(24);
    let step = follow_once(&mut conn, &config, &uncosigned(other.publish(26))).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("forked")),
        "{step:?}"
    );
    assert_eq!(
        crate::store::alerts::forks(&mut conn, "casino-1").unwrap(),
        1
    );

    // A larger tree that does not pass through the held one (entry 1 differs), signed by the
    // operator alone: its tiles show the fork.
    let mut conn = database();
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    other.spins(5);
    let step = follow_once(&mut conn, &config, &uncosigned(other.publish(31))).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("does not contain")),
        "{step:?}"
    );
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(
        (raised.len(), raised[0].kind.as_str()),
        (1, "not_extending")
    );
    // The same tree cosigned: the same fork, not a wrong tile.
    let mut conn = database();
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    let step = follow_once(&mut conn, &config, &other.publish(31)).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("does not contain")),
        "{step:?}"
    );
}

#[test]
fn a_checkpoint_without_its_witness_waits_and_a_softened_verdict_is_a_mismatch() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(20);
    let config = casino(&log);
    let mut files = log.publish(21);
    let note = String::from_utf8(files["checkpoint"].clone()).unwrap();
    let unwitnessed: String = note.lines().take(5).map(|l| format!("{l}\n")).collect();
    files.insert("checkpoint".into(), unwitnessed.into_bytes());
    let step = follow_once(&mut conn, &config, &files).unwrap();
    assert!(matches!(step, Step::Waiting { size: 21, .. }), "{step:?}");
    // Entry 4 is an overpaid spin the casino says was paid as due.
    log.verdicts[4] = Some(serde_json::json!({"plan_id": crate::test_log::PLAN,
        "rules_version": rules::RULES_VERSION, "void": false, "stakes_h": 10_000,
        "expected_paid_h": 370_000, "paid_h": 370_000,
        "findings": []}));
    follow_once(&mut conn, &config, &log.publish(21)).unwrap();
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].kind, "verdict_mismatch");
    assert_eq!(raised[0].key, "mismatch:4");
    assert_eq!(status(&mut conn).unwrap()[0].mismatched_rounds, 1);
}

#[test]
fn a_partial_tile_gone_since_is_read_from_its_full_tile() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(255);
    let config = casino(&log);
    // The checkpoint of 20 entries, fetched just before the casino published its tile of 256
    // and deleted the partial ones of 20.
    let mut files = log.publish(256);
    files.insert("checkpoint".into(), log.checkpoint(20).into_bytes());
    assert!(!files.contains_key("tile/0/000.p/20"));
    let step = follow_once(&mut conn, &config, &files).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 0,
            to: 20,
            rounds: 19
        }
    );
    assert_eq!(status(&mut conn).unwrap()[0].mismatched_rounds, 0);
    files.insert("checkpoint".into(), log.checkpoint(256).into_bytes());
    let step = follow_once(&mut conn, &config, &files).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 20,
            to: 256,
            rounds: 236
        }
    );
    assert_eq!(rounds_counted(&mut conn), 255);
}

/// `files`, recording every path asked for; the checkpoint served is `checkpoints`' next one
/// (the last one again once they run out).
struct Recording {
    files: HashMap<String, Vec<u8>>,
    checkpoints: std::sync::Mutex<Vec<Vec<u8>>>,
    asked: std::sync::Mutex<Vec<String>>,
}

impl Recording {
    fn new(files: HashMap<String, Vec<u8>>) -> Recording {
        Recording {
            files,
            checkpoints: Default::default(),
            asked: Default::default(),
        }
    }
}

impl TileSource for Recording {
    fn get(&self, path: &str, limit: u64) -> Result<Option<Vec<u8>>, FetchError> {
        self.asked.lock().unwrap().push(path.to_owned());
        let mut checkpoints = self.checkpoints.lock().unwrap();
        if path == "checkpoint" && !checkpoints.is_empty() {
            let next = if checkpoints.len() > 1 {
                checkpoints.remove(0)
            } else {
                checkpoints[0].clone()
            };
            return Ok(Some(next));
        }
        TileSource::get(&self.files, path, limit)
    }
}

#[test]
fn a_partial_tile_gone_since_is_never_read_from_the_width_an_unverified_checkpoint_names() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(99);
    let config = casino(&log);
    // The checkpoint of 40 entries was fetched; by the time its tiles are, the casino serves the
    // tree of 100 (partials of 100 only) and its checkpoint: that one is not verified, so the
    // partial tiles of 100 are not fetched for the tree of 40 (tlog-tiles), only the full tile.
    let source = Recording::new(log.publish(100));
    *source.checkpoints.lock().unwrap() = vec![
        log.checkpoint(40).into_bytes(),
        log.checkpoint(100).into_bytes(),
    ];
    let e = follow_once(&mut conn, &config, &source).unwrap_err();
    assert!(e.to_string().contains("tile/0/000.p/40"), "{e}");
    let asked = source.asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        ["checkpoint", "tile/0/000.p/40", "tile/0/000"],
        "{asked:?}"
    );
    // The next step verifies the checkpoint of 100 and follows it.
    let step = follow_once(&mut conn, &config, &source).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 0,
            to: 100,
            rounds: 99
        }
    );
    assert_eq!(status(&mut conn).unwrap()[0].mismatched_rounds, 0);
}

#[test]
fn a_rotation_the_log_records_hands_it_to_a_key_the_configuration_does_not_name() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(10);
    let config = casino(&log);
    let new = dozor_log::checkpoint::NoteSigner::new(
        "casino.example/ledger-2",
        ed25519_dalek::SigningKey::from_bytes(&[9; 32]),
    )
    .unwrap();
    let rotation = log.rotate(new.clone());
    // The casino's checkpoint while the rotation is its latest: the old key's, naming the new.
    let mut files = log.publish(12);
    files.insert("checkpoint".into(), rotation.into_bytes());
    let step = follow_once(&mut conn, &config, &files).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 0,
            to: 12,
            rounds: 10
        }
    );
    // A rotation checkpoint naming a key the log's event does not: an alert, once.
    let mut other = TestLog::new();
    other.spins(10);
    let wrong = dozor_log::checkpoint::NoteSigner::new(
        "casino.example/ledger-3",
        ed25519_dalek::SigningKey::from_bytes(&[11; 32]),
    )
    .unwrap();
    let body = dozor_log::checkpoint::Checkpoint {
        origin: crate::test_log::ORIGIN.into(),
        size: 12,
        root: log.root(12),
    };
    let text = body.rotation_text(&wrong.verifier());
    let mut forged = other.operator.sign(&text).unwrap();
    forged.push_str(&log.witness.cosign(&text, 1_700_000_000));
    let mut conn2 = database();
    let mut files2 = log.publish(12);
    files2.insert("checkpoint".into(), forged.into_bytes());
    follow_once(&mut conn2, &config, &files2).unwrap();
    let raised = alerts(&mut conn2, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert!(
        raised[0].message.contains("records no such rotation"),
        "{}",
        raised[0].message
    );
    // Then the new key signs; the monitor knows it from the log, not from its configuration.
    log.spins(5);
    assert_eq!(
        config.operator_keys,
        vec![TestLog::new().operator.verifier()]
    );
    let step = follow_once(&mut conn, &config, &log.publish(17)).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 12,
            to: 17,
            rounds: 5
        }
    );
    assert_eq!(status(&mut conn).unwrap()[0].alerts, 0);
    // A key the log never handed it to is refused, even under the new origin.
    let stranger = dozor_log::checkpoint::NoteSigner::new(
        "casino.example/ledger-2",
        ed25519_dalek::SigningKey::from_bytes(&[10; 32]),
    )
    .unwrap();
    log.operator = stranger;
    log.spins(1);
    let e = follow_once(&mut conn, &config, &log.publish(18)).unwrap_err();
    assert!(
        e.to_string()
            .contains("no operator key the monitor holds signs"),
        "{e}"
    );
}

#[test]
fn a_checkpoint_further_ahead_than_one_step_follows_is_an_alert_and_not_followed() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(299);
    let config = CasinoConfig {
        max_step_entries: 256,
        commit_entries: crate::config::DEFAULT_COMMIT_ENTRIES,
        ..casino(&log)
    };
    let e = follow_once(&mut conn, &config, &log.publish(300)).unwrap_err();
    assert!(e.to_string().contains("300 entries ahead"), "{e}");
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(
        (raised.len(), raised[0].kind.as_str()),
        (1, "too_far_ahead")
    );
    assert_eq!(status(&mut conn).unwrap()[0].size, 0);
}

#[test]
fn a_table_record_appended_again_is_an_entry_problem_and_never_counted_twice() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(9);
    let config = casino(&log);
    follow_once(&mut conn, &config, &log.publish(10)).unwrap();
    // Entry 12: the spin of entry 5 (table R1, seq_no 5) as its table signed it, appended again
    // by the operator in a later step.
    log.spins(2);
    log.replay(5);
    let e = follow_once(&mut conn, &config, &log.publish(13)).unwrap_err();
    // The records of R1 followed are seq_nos 1 to 9, at indexes 1 to 9: one run.
    assert_eq!(
        e.to_string(),
        "entry 12: table R1 seq_no 5 already followed, in its run of seq_nos 1 to 9 (seq_no 1 at index 1, seq_no 9 at index 9)"
    );
    // Nothing of the bundle is counted: 9 spins of 10 000 h, 90 000 h.
    assert_eq!(rounds_counted(&mut conn), 9);
    assert_eq!(stakes_counted(&mut conn), 90_000);
    assert_eq!(status(&mut conn).unwrap()[0].size, 10);
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(
        (
            raised.len(),
            raised[0].kind.as_str(),
            raised[0].key.as_str()
        ),
        (1, "entry", "entry:12")
    );
    // Within one bundle: the same.
    let mut conn = database();
    let e = follow_once(&mut conn, &config, &log.publish(13)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "entry 12: table R1 seq_no 5 already at index 5"
    );
    assert_eq!(status(&mut conn).unwrap()[0].size, 0);
    assert_eq!(status(&mut conn).unwrap()[0].rounds, 0);
}

#[test]
fn an_older_checkpoint_served_again_is_a_warning_once_and_another_root_there_a_rollback() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(30);
    let config = casino(&log);
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    // A stale copy of the checkpoint of 21 beside the tiles of 26, cosigned or not: the tree of
    // 26 held contains it.
    let mut stale = log.publish(26);
    stale.insert("checkpoint".into(), log.checkpoint(21).into_bytes());
    for files in [stale.clone(), uncosigned(stale.clone())] {
        let step = follow_once(&mut conn, &config, &files).unwrap();
        assert_eq!(step, Step::UpToDate { size: 26 });
    }
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(
        (raised[0].kind.as_str(), raised[0].key.as_str()),
        ("stale_checkpoint_served", "stale_served:26")
    );
    // Not halted: the log is followed on.
    let step = follow_once(&mut conn, &config, &log.publish(31)).unwrap();
    assert!(
        matches!(
            step,
            Step::Followed {
                from: 26,
                to: 31,
                ..
            }
        ),
        "{step:?}"
    );
    // A checkpoint of 21 with another root (entry 1 differs) beside the tiles of 31: a rollback.
    let mut other = TestLog::new();
    other.spin(1, 0);
    other.spins(19);
    let mut rolled = log.publish(31);
    rolled.insert("checkpoint".into(), other.checkpoint(21).into_bytes());
    let step = follow_once(&mut conn, &config, &rolled).unwrap();
    assert!(
        matches!(&step, Step::Halted { why } if why.contains("rolled back")),
        "{step:?}"
    );
    assert_eq!(alerts(&mut conn, None).unwrap()[1].kind, "rollback");
}

#[test]
fn a_larger_checkpoint_without_its_witness_costs_a_few_tiles_never_the_walk() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(599);
    let config = casino(&log);
    follow_once(&mut conn, &config, &log.publish(26)).unwrap();
    let source = Recording::new(uncosigned(log.publish(600)));
    let step = follow_once(&mut conn, &config, &source).unwrap();
    assert!(matches!(step, Step::Waiting { size: 600, .. }), "{step:?}");
    // The consistency proof of 26 in 600 lies in tiles 0/000, 0/002.p/88 and 1/000.p/2; the
    // walk would have read 0/001 and the bundles too.
    let mut asked = source.asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(
        asked,
        [
            "checkpoint",
            "tile/0/000",
            "tile/0/002.p/88",
            "tile/1/000.p/2"
        ]
    );
}

#[test]
fn a_different_bad_checkpoint_on_every_poll_is_one_alert_with_the_first_evidence() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(9);
    let config = casino(&log);
    let mut files = log.publish(10);
    for n in 0..3 {
        files.insert(
            "checkpoint".into(),
            format!("not a note {n}\n").into_bytes(),
        );
        assert!(follow_once(&mut conn, &config, &files).is_err());
    }
    let raised = alerts(&mut conn, None).unwrap();
    assert_eq!(raised.len(), 1);
    assert_eq!(raised[0].key, "checkpoint:refused:0");
    assert_eq!(raised[0].evidence["note"], "not a note 0\n");
}

#[test]
fn a_key_added_in_one_bundle_signs_the_next_bundles_checked_at_the_same_time() {
    // Entries 1 to 299 are spins signed by key 1; entry 300 adds key 2 to R1; entries 301 to
    // 599 are signed by key 2. Bundles 0, 1 and 2 are handed to the checking threads together,
    // with the registry before entry 300: bundle 2 (entries 512 to 598) is checked again, in
    // order, with the registry bundle 1 left.
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(299);
    assert_eq!(log.add_table_key(2), 300);
    log.spins(299);
    let config = casino(&log);
    let step = follow_once(&mut conn, &config, &log.publish(600)).unwrap();
    assert_eq!(
        step,
        Step::Followed {
            from: 0,
            to: 600,
            rounds: 598
        }
    );
    assert!(alerts(&mut conn, None).unwrap().is_empty());
    assert_eq!(rounds_counted(&mut conn), 598);

    // A record signed by key 2 before the log added it is refused, though a later bundle adds
    // it: entry 6, in bundle 0, with key 2 added at entry 300.
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(5);
    log.sign_with(2);
    log.spins(1);
    log.sign_with(1);
    log.spins(293);
    log.add_table_key(2);
    log.spins(299);
    let e = follow_once(&mut conn, &config, &log.publish(600)).unwrap_err();
    assert!(e.to_string().starts_with("entry 6: signed with key"), "{e}");
    assert_eq!(status(&mut conn).unwrap()[0].size, 0);
}
