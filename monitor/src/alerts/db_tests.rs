#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The checks beside following on a real PostgreSQL (a throwaway cluster), on a casino served
//! from memory: each alert raised once however often the checks pass, with its evidence.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use diesel::PgConnection;

use super::checks::periodic_checks;
use crate::config::MonitorConfig;
use crate::follow::follow_once;
use crate::store::alerts::{alerts, Alert};
use crate::store::test_db::database;
use crate::test_log::TestLog;
use dozor_log::checkpoint::Checkpoint;

pub(crate) fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// A configuration following `log` under each of `names`, with `alerts` (TOML of `[alerts]`).
pub(crate) fn config(log: &TestLog, names: &[&str], alerts: &str) -> MonitorConfig {
    let list = |keys: Vec<String>| {
        keys.iter()
            .map(|k| format!("\"{k}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let keys = list(log.operator_keys().iter().map(|k| k.to_string()).collect());
    let witnesses = list(log.witnesses().iter().map(|k| k.to_string()).collect());
    let mut text = format!("{alerts}\n");
    for name in names {
        text.push_str(&format!(
            "[[casino]]\nname = \"{name}\"\ntiles_url = \"http://127.0.0.1/\"\noperator_keys = [{keys}]\nwitnesses = [{witnesses}]\n"
        ));
    }
    MonitorConfig::parse(&text, Path::new(".")).unwrap()
}

/// What `log` publishes for `size` entries, its checkpoint cosigned by the witness at `time`.
pub(crate) fn published(log: &TestLog, size: u64, time: DateTime<Utc>) -> HashMap<String, Vec<u8>> {
    let mut files = log.publish(size);
    let body = Checkpoint {
        origin: log.operator.name().into(),
        size,
        root: log.root(size),
    }
    .text();
    let mut note = log.operator.sign(&body).unwrap();
    note.push_str(&log.witness.cosign(&body, time.timestamp() as u64));
    files.insert("checkpoint".into(), note.into_bytes());
    files
}

fn of_kind(conn: &mut PgConnection, kind: &str) -> Vec<Alert> {
    alerts(conn, None)
        .unwrap()
        .into_iter()
        .filter(|a| a.kind == kind)
        .collect()
}

/// Only the check a test is about: the others are set out of reach.
const QUIET: &str = "daily_summary = false\nrtp_min_rounds = 1000000000\nstale_after_seconds = 1000000000\nfindings_open_days = 10000";

fn alerts_section(settings: &str) -> String {
    let mut lines: Vec<&str> = settings.lines().collect();
    for quiet in QUIET.lines() {
        let name = quiet.split(' ').next().unwrap_or_default();
        if !lines.iter().any(|l| l.starts_with(name)) {
            lines.push(quiet);
        }
    }
    format!("[alerts]\n{}", lines.join("\n"))
}

#[test]
fn a_stale_checkpoint_is_one_alert_per_stall_and_moving_again_one_notice() {
    let (url, mut conn) = database_at();
    let mut log = TestLog::new();
    log.spins(9);
    let config = config(
        &log,
        &["casino-1"],
        &alerts_section("stale_after_seconds = 3600"),
    );
    let casino = &config.casinos[0];
    let signed = at("2026-11-20T12:00:00Z");
    follow_once(&mut conn, casino, &published(&log, 10, signed)).unwrap();
    // Signed (cosigned) at 12:00:00: 3 600 s later it is not over the limit yet, 3 601 s is.
    assert_eq!(
        periodic_checks(&mut conn, &config, at("2026-11-20T13:00:00Z")).unwrap(),
        0
    );
    assert_eq!(
        periodic_checks(&mut conn, &config, at("2026-11-20T13:00:01Z")).unwrap(),
        1
    );
    for later in ["2026-11-20T14:00:00Z", "2026-11-21T09:00:00Z"] {
        assert_eq!(periodic_checks(&mut conn, &config, at(later)).unwrap(), 0);
    }
    let stale = of_kind(&mut conn, "checkpoint_stale");
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].key, "stale:10");
    assert_eq!(stale[0].evidence["size"], 10);
    assert_eq!(stale[0].evidence["age_seconds"], 3601);
    assert_eq!(stale[0].evidence["signed_at"], "2026-11-20T12:00:00Z");
    // It moves again: one notice, and the new checkpoint is not stale.
    log.spins(10);
    follow_once(
        &mut conn,
        casino,
        &published(&log, 20, at("2026-11-21T10:00:00Z")),
    )
    .unwrap();
    let restarted = &mut crate::store::connection::connect(&url).unwrap();
    for _ in 0..2 {
        periodic_checks(restarted, &config, at("2026-11-21T10:05:00Z")).unwrap();
    }
    let recovered = of_kind(&mut conn, "checkpoint_recovered");
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0].key, "recovered:10");
    assert_eq!(
        (
            recovered[0].evidence["stalled_size"].as_i64(),
            recovered[0].evidence["size"].as_i64()
        ),
        (Some(10), Some(20))
    );
    assert_eq!(of_kind(&mut conn, "checkpoint_stale").len(), 1);
    // Stalled again at 20: a second episode.
    periodic_checks(&mut conn, &config, at("2026-11-21T11:00:01Z")).unwrap();
    let keys: Vec<String> = of_kind(&mut conn, "checkpoint_stale")
        .into_iter()
        .map(|a| a.key)
        .collect();
    assert_eq!(keys, ["stale:10", "stale:20"]);
}

/// A fresh migrated database: its URL and a connection to it.
pub(crate) fn database_at() -> (String, PgConnection) {
    let url = crate::store::test_db::empty_database();
    let mut conn = crate::store::connection::connect(&url).unwrap();
    crate::store::connection::migrate(&mut conn).unwrap();
    (url, conn)
}

/// A compliance key created in the log, and its escalation of the finding of round `round`.
fn resolve(log: &mut TestLog, round: u64) {
    use dozor_log::access::{FindingState, Role};
    use dozor_log::registry_event::RegistryEvent;
    // A key's id is the first 8 bytes of its token's SHA-256 (here 32 zero bytes).
    let created = log.registry_event(&RegistryEvent::ApiKeyCreated {
        previous: Some(0),
        key_id: "0000000000000000".into(),
        token_sha256: Some("0".repeat(64)),
        name: "officer".into(),
        role: Role::Compliance,
        created_by: "cli:root".into(),
        expires_at: None,
    });
    let rules_version = log.verdicts[round as usize].as_ref().unwrap()["rules_version"]
        .as_str()
        .unwrap()
        .to_owned();
    log.registry_event(&RegistryEvent::FindingResolved {
        previous: Some(created),
        table_id: "R1".into(),
        round_index: round,
        finding: 0,
        kind: "overpaid".into(),
        rules_version,
        state: FindingState::Escalated,
        amount_settled_h: None,
        reason: None,
        comment: "handed to the board".into(),
        key_id: "0000000000000000".into(),
        key_name: "officer".into(),
        key_role: Role::Compliance,
    });
}

#[test]
fn findings_without_a_resolution_are_one_alert_each_after_the_gaming_days_set() {
    let mut conn = database();
    let mut log = TestLog::new();
    // Entry i (spin k = i − 1) is played at 10:00Z + i min − 30 s. Gaming day 2026-11-20
    // (06:00 Prague = 05:00Z) ends at 2026-11-21T05:00Z, 1 140 min after 10:00Z: entries 1 to
    // 1 140 (spins 0 to 1 139) are on the 20th, the log reaches the 21st. Overpaid spins are
    // k = 3, 13, … : 114 of them up to k = 1 133 on the 20th, 120 in all.
    log.spins(1200);
    // The compliance officer escalates the finding of entry 4 (spin 3) in the log itself:
    // 113 are left open.
    resolve(&mut log, 4);
    let one_day = config(
        &log,
        &["casino-1"],
        &alerts_section("findings_open_days = 1"),
    );
    follow_once(&mut conn, &one_day.casinos[0], &log.publish(1203)).unwrap();
    let now = at("2026-11-28T12:00:00Z");
    assert_eq!(periodic_checks(&mut conn, &one_day, now).unwrap(), 113);
    for _ in 0..2 {
        assert_eq!(periodic_checks(&mut conn, &one_day, now).unwrap(), 0);
    }
    let open = of_kind(&mut conn, "findings_open");
    assert_eq!(open.len(), 113);
    assert!(!open.iter().any(|a| a.key == "finding_open:4.0"));
    let first = &open[0];
    assert_eq!(first.key, "finding_open:14.0");
    assert_eq!(first.evidence["round_index"], 14);
    assert_eq!(first.evidence["finding"], 0);
    assert_eq!(first.evidence["kind"], "overpaid");
    assert_eq!(first.evidence["amount_h"], 10_000);
    assert_eq!(first.evidence["gaming_day"], "2026-11-20");
    assert_eq!(first.evidence["log_reached_day"], "2026-11-21");
    assert_eq!(first.evidence["open_days"], 1);
    assert_eq!(open[112].evidence["round_index"], 1134);
    // Two days: none is that old in the log's time, however late the clock.
    let mut conn = database();
    let two_days = config(
        &log,
        &["casino-1"],
        &alerts_section("findings_open_days = 2"),
    );
    follow_once(&mut conn, &two_days.casinos[0], &log.publish(1203)).unwrap();
    assert_eq!(periodic_checks(&mut conn, &two_days, now).unwrap(), 0);
}

#[test]
fn a_game_s_month_past_three_sigma_is_one_alert_with_its_figures() {
    let mut log = TestLog::new();
    log.spins(900);
    let now = at("2026-11-28T12:00:00Z");
    let none = |rounds: u64, min: &str| {
        let mut conn = database();
        let config = config(&log, &["casino-1"], &alerts_section(min));
        follow_once(&mut conn, &config.casinos[0], &log.publish(rounds + 1)).unwrap();
        periodic_checks(&mut conn, &config, now).unwrap() == 0
    };
    // 300 straight-ups: z = 10.94, but a straight-up's skewness (35/6 for one spin) asks for
    // 851 spins before a 3σ flag means anything (as the reports say): not raised.
    assert!(none(300, "rtp_min_rounds = 1"));
    // 900 spins, but fewer than the rounds set.
    assert!(none(900, "rtp_min_rounds = 901"));
    let mut conn = database();
    let config = config(&log, &["casino-1"], &alerts_section("rtp_min_rounds = 900"));
    follow_once(&mut conn, &config.casinos[0], &log.publish(901)).unwrap();
    for _ in 0..3 {
        periodic_checks(&mut conn, &config, now).unwrap();
    }
    let rtp = of_kind(&mut conn, "rtp_deviation");
    assert_eq!(rtp.len(), 1, "{rtp:?}");
    let e = &rtp[0].evidence;
    assert_eq!(rtp[0].key, "rtp:roulette:2026-11");
    // 900 straight-ups of 10 000 h on 17. Paid: 90 overpaid wins × 370 000 (k = 3, 13, …) and
    // 22 wins × 360 000 (k = 17 + 37j ≤ 899: 24 of them, less 313 and 683, which end in 3)
    // = 33 300 000 + 7 920 000 = 41 220 000 h.
    // Expected per spin 10 000 × 36/37 = 9 729.7297 h, kept as 9 729 729 mh: 900 × that =
    // 8 756 756 100 mh; variance 900 × 10 000² × 36² × 36/37² = 3 067 231 555 880 h²,
    // σ = 1 751 351.35 h; z = (41 220 000 − 8 756 756.1) / σ = 18.536.
    assert_eq!(e["figures"]["rounds"], 900);
    assert_eq!(e["figures"]["theory_rounds"], 900);
    assert_eq!(e["figures"]["paid_h"], 41_220_000);
    assert_eq!(e["figures"]["expected_payout_mh"], 8_756_756_100i64);
    let z = e["deviation"]["z"].as_f64().unwrap();
    assert!((z - 18.536).abs() < 0.001, "{z}");
    // Skewness (35/6)/√900 = 0.1944; rounds needed 900 × (0.1944 / 0.2)² = 850.7 → 851.
    assert_eq!(e["deviation"]["rounds_needed"], 851);
    assert!((e["deviation"]["skewness"].as_f64().unwrap() - 0.1944).abs() < 0.0001);
    // 41 220 000 / 9 000 000 = 458 %; 36/37 = 97.2973 %.
    assert!((e["deviation"]["actual_rtp_pct"].as_f64().unwrap() - 458.0).abs() < 1e-9);
    assert!((e["deviation"]["theoretical_rtp_pct"].as_f64().unwrap() - 97.2973).abs() < 1e-4);
}

#[test]
fn every_gaming_day_is_summed_up_once_after_it_closes_even_when_all_is_well() {
    let mut conn = database();
    let mut log = TestLog::new();
    log.spins(9);
    let config = config(
        &log,
        &["casino-1"],
        &alerts_section("daily_summary = true\nstale_after_seconds = 86400"),
    );
    follow_once(
        &mut conn,
        &config.casinos[0],
        &published(&log, 10, at("2026-11-21T04:00:00Z")),
    )
    .unwrap();
    crate::store::state::record_attempt(&mut conn, "casino-1", None, at("2026-11-21T04:00:00Z"))
        .unwrap();
    // Still the 20th's gaming day (it ends at 05:00Z): the 19th is summed up, with nothing.
    periodic_checks(&mut conn, &config, at("2026-11-21T04:30:00Z")).unwrap();
    // The 20th closed: its summary, once.
    for _ in 0..3 {
        periodic_checks(&mut conn, &config, at("2026-11-21T05:00:00Z")).unwrap();
    }
    let daily = of_kind(&mut conn, "daily_summary");
    let keys: Vec<&str> = daily.iter().map(|a| a.key.as_str()).collect();
    assert_eq!(keys, ["daily:2026-11-19", "daily:2026-11-20"]);
    let e = &daily[1].evidence;
    // 9 spins on the 20th, one overpaid (k = 3) by 10 000 h; no mismatch.
    assert_eq!(e["rounds"], 9);
    assert_eq!(
        (e["findings"].as_i64(), e["findings_amount_h"].as_i64()),
        (Some(1), Some(10_000))
    );
    assert_eq!(e["mismatched_rounds"], 0);
    assert_eq!(e["all_well"], true, "{e}");
    assert_eq!(e["checkpoint_age_seconds"], 3600);
    assert_eq!(e["witnesses"][0]["cosigned"], true);
    assert_eq!(e["state"], "following");
    assert!(
        daily[1]
            .message
            .starts_with("gaming day 2026-11-20: all well"),
        "{}",
        daily[1].message
    );
    assert_eq!(super::severity(&daily[1].kind), super::Severity::Info);
}
