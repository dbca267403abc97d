#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A table's posted limits: set at registration and changed during the night by operator-signed
//! registry events, every bet judged by the limits in force when its round was played — at
//! ingest, by the database verify and by the offline verifier alike.

mod common;

use chrono::{DateTime, NaiveDate, Utc};
use common::*;
use ledger::storage::append::{append_batch, AppendOutcome};
use ledger::storage::connect;
use ledger::storage::registry::{self, LimitsChange, NewTable};
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// Posted from the registration: 10 Kč a bet, 1 000 Kč straight up, 2 000 Kč other inside,
/// 5 000 Kč outside.
fn evening_limits() -> rules::TableLimits {
    serde_json::from_value(json!({"min_bet_h": 1_000, "max_straight_up_h": 100_000,
                                  "max_inside_h": 200_000, "max_outside_h": 500_000}))
    .unwrap()
}

/// Posted at 20:00: 100 Kč a bet, 500 Kč straight up, 1 000 Kč inside, 2 000 Kč outside.
fn night_limits() -> rules::TableLimits {
    serde_json::from_value(json!({"min_bet_h": 10_000, "max_straight_up_h": 50_000,
                                  "max_inside_h": 100_000, "max_outside_h": 200_000}))
    .unwrap()
}

/// A spin of 17 (black) played at `played_at` with one bet.
fn spin_at(seq_no: u64, played_at: &str, bet: Value) -> Value {
    let mut record = spin("R01", seq_no, 17, json!([bet]));
    record["played_at"] = json!(played_at);
    record
}

fn red(stake_h: i64) -> Value {
    json!({"bet_id": "red", "player": "seat-1", "kind": "red", "stake_h": stake_h, "paid_h": 0})
}

#[actix_web::test]
async fn bets_are_judged_by_the_limits_posted_when_the_round_was_played() {
    // No API keys: the ledger starts on the 10th with the registration.
    let (state, url) = common::state();
    let mut conn = connect(&url).unwrap();
    let k = key(11);
    let evening = evening_limits();
    // Entry 0: R01 registered at 10:00 posting the evening
    // limits from 2026-11-01.
    registry::register_table(
        &mut conn,
        operator().signing_key(),
        NewTable {
            table_id: "R01",
            game: "roulette",
            location: "Praha, sál 1",
            plan_id: "69games-ziva-hra",
            wheel_layout: None,
            plays_from: Some(at(PLAYS_FROM)),
            limits: Some(&evening),
        },
        &k.verifying_key(),
        "cli:tests",
        at("2026-11-10T10:00:00Z"),
    )
    .unwrap();

    // Entry 1: R09, registered posting nothing (judged by the plan's limits alone).
    register_roulette(&mut conn, "R09", &key(19), at("2026-11-10T10:00:30Z"));

    // A round prepared before the pit changes the limits, appended after: the writer finds the
    // table's limits changed under it, and ingest judges it again by the new ones.
    // 3 000 Kč on red at 21:40: inside the evening's 5 000 Kč, 1 000 Kč = 100 000 h over the
    // night's 2 000 Kč.
    let prepare = |record: Value| prepared(&state, record, &k);
    let early = prepare(spin_at(1, "2026-11-10T21:40:00Z", red(300_000)));
    let (stale_findings, _) = early
        .derived
        .as_ref()
        .map(|d| (d.findings.len(), ()))
        .unwrap();
    assert_eq!(
        stale_findings, 0,
        "judged by the evening limits when prepared"
    );

    // Entry 2: the night limits from 20:00, set at 20:00.
    let night = night_limits();
    let (effective, receipt) = registry::set_limits(
        &mut conn,
        operator().signing_key(),
        LimitsChange {
            table_id: "R01",
            limits: &night,
            effective_from: None,
            reason: "high-limit players left",
        },
        "cli:tests",
        at("2026-11-10T20:00:00Z"),
    )
    .unwrap();
    assert_eq!((effective, receipt.index), (at("2026-11-10T20:00:00Z"), 2));

    // Appended directly, the stale verdict is not written: the writer hands the round back.
    let outcome = append_batch(
        &mut conn,
        std::slice::from_ref(&early),
        at("2026-11-10T21:41:00Z"),
    )
    .unwrap();
    assert!(
        matches!(outcome[0], AppendOutcome::LimitsChanged(_)),
        "{outcome:?}"
    );
    assert_eq!(ledger_size(&url), 3);
    // Rounds prepared after the change, each judged by the limits of its own time (the server
    // reads the registry again after a change it makes; one made elsewhere, as here, it learns
    // from the writer's refusal above, on its next ingest).
    state.ingest.directory().registry_changed();
    let rounds = [
        // 19:00, 3 000 Kč on red: inside the evening's 5 000 Kč outside maximum; clean.
        (spin_at(2, "2026-11-10T19:00:00Z", red(300_000)), vec![]),
        // 19:30, 10 000 Kč on red: inside the plan's 25 000 Kč, over the evening's 5 000 Kč
        // by 500 000 h.
        (
            spin_at(3, "2026-11-10T19:30:00Z", red(1_000_000)),
            vec![("stake_above_table_maximum", 500_000)],
        ),
        // 19:45, 50 Kč straight on 17 (paid 50 × 36 = 1 800 Kč): over the evening's 10 Kč
        // minimum; clean.
        (
            spin_at(4, "2026-11-10T19:45:00Z", straight("s", 17, 5_000, 180_000)),
            vec![],
        ),
        // 21:30, the same bet: below the night's 100 Kč minimum by 5 000 h.
        (
            spin_at(5, "2026-11-10T21:30:00Z", straight("s", 17, 5_000, 180_000)),
            vec![("stake_below_table_minimum", 5_000)],
        ),
        // 21:35, 30 000 Kč on red: over the plan's own 25 000 Kč — the plan's finding only.
        (
            spin_at(6, "2026-11-10T21:35:00Z", red(3_000_000)),
            vec![("stake_above_maximum", 500_000)],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for (n, (record, findings)) in rounds.into_iter().enumerate() {
        let submission = prepare(record);
        let received = at("2026-11-10T22:00:00Z") + chrono::Duration::seconds(n as i64);
        let out = append_batch(&mut conn, &[submission], received).unwrap();
        let AppendOutcome::Appended(receipt) = &out[0] else {
            panic!("{out:?}")
        };
        expected.push((receipt.index, findings));
    }
    for (index, findings) in &expected {
        let want: Vec<(String, i64)> = findings
            .iter()
            .map(|(k, a)| ((*k).to_owned(), *a))
            .collect();
        assert_eq!(findings_of(&url, "R01", *index), want, "entry {index}");
    }

    // Through ingest it is judged again and appended (entry 8, after the rounds below).
    let AppendOutcome::Appended(receipt) = state.ingest.append(early).await.unwrap() else {
        panic!("not appended")
    };
    assert_eq!(receipt.index, 8);
    assert_eq!(
        findings_of(&url, "R01", 8),
        [("stake_above_table_maximum".to_owned(), 100_000)]
    );

    // The limit history, from the ledger's registry events, as `dozor table limits` prints it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dozor"))
        .args(["table", "limits", "R01"])
        .env("DATABASE_URL", &url)
        .env("DOZOR_OPERATOR_KEY", operator_key_file(&dir))
        .succeeds();
    let history: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(history["in_force"]["max_outside_h"], 200_000);
    let postings = history["postings"].as_array().unwrap();
    assert_eq!(postings.len(), 2);
    assert_eq!(postings[0]["reason"], "registration");
    assert_eq!(postings[0]["effective_from"], "2026-11-01T00:00:00Z");
    assert_eq!(postings[1]["reason"], "high-limit players left");
    assert_eq!(postings[1]["actor"], "cli:tests");
    assert_eq!(postings[1]["ledger_index"], 2);

    // The day's report names the table that posts nothing.
    let day = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let daily = reports::daily::build(&mut conn, &GamingDayClock::default(), day).unwrap();
    assert_eq!(daily.tables_without_posted_limits, ["R09"]);
    let posted: Vec<(Option<String>, Option<bool>)> = daily
        .rows
        .iter()
        .map(|r| (r.table_id.clone(), r.posted_limits))
        .collect();
    assert_eq!(
        posted,
        [
            (Some("R01".into()), Some(true)),
            (Some("R09".into()), Some(false)),
            (None, None)
        ]
    );
    assert!(reports::daily::to_csv(&daily)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .contains(",posted_limits,"));

    // The database verify re-judges every round with the limits of its time and agrees.
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["rounds_readjudicated"], 6, "{report}");

    // So does the offline verifier, from the exported registry events (the entries of the
    // 10th; the rejudged round arrived today and is outside it).
    let report = export_and_verify_day(&url, day);
    assert_eq!(report.rounds_readjudicated, 5, "{report:?}");
}

/// The tests' operator key as a file, as `serve` and the CLI read it.
fn operator_key_file(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("operator.key");
    ledger::operator_key::write_private(&path, &operator().private_key()).unwrap();
    path
}

#[actix_web::test]
async fn limits_are_set_by_an_admin_inside_the_plan_and_never_after_the_rounds() {
    let (_state, _url, app) = api_app().await;
    let k = key(12);
    // A registration with limits outside the plan (5 Kč a bet; the plan's minimum is 10 Kč) is
    // refused, naming the field; so are limits of another game.
    let mut body = registration("R02", &k);
    body["limits"] = json!({"min_bet_h": 500, "max_straight_up_h": 100_000,
                            "max_inside_h": 200_000, "max_outside_h": 500_000});
    let (status, answer) = post(&app, "/api/v1/tables", body.clone()).await;
    assert_error(status, &answer, 422, "invalid_table");
    assert_eq!(answer["details"]["field"], "limits");
    assert!(
        message_of(&answer).starts_with("limits.min_bet_h: 5,00 Kč"),
        "{answer}"
    );
    body["limits"] =
        json!({"min_bet_h": 1_000, "max_bet_h": 200_000, "perfect_pairs_max_h": 50_000});
    let (status, answer) = post(&app, "/api/v1/tables", body.clone()).await;
    assert_error(status, &answer, 422, "invalid_table");
    body["limits"] = json!({"min_bet_h": 1_000, "max_straight_up_h": 100_000,
                            "max_inside_h": 200_000, "max_outside_h": 500_000});
    register_table(&app, body).await;

    let change = |limits: Value, reason: &str| json!({"limits": limits, "reason": reason});
    let good = json!({"min_bet_h": 10_000, "max_straight_up_h": 50_000,
                      "max_inside_h": 100_000, "max_outside_h": 200_000});
    // Over the plan's 25 000 Kč outside maximum: refused.
    let mut over = good.clone();
    over["max_outside_h"] = json!(2_600_000);
    let (status, answer) = post(&app, "/api/v1/tables/R02/limits", change(over, "x")).await;
    assert_error(status, &answer, 422, "invalid_limits");
    // A blank reason, a time in the past, an unknown table: refused.
    let (status, answer) = post(&app, "/api/v1/tables/R02/limits", change(good.clone(), " ")).await;
    assert_error(status, &answer, 422, "invalid_limits");
    assert_eq!(answer["details"]["field"], "reason");
    let mut backdated = change(good.clone(), "late entry");
    backdated["effective_from"] = json!((Utc::now() - chrono::Duration::minutes(10)).to_rfc3339());
    let (status, answer) = post(&app, "/api/v1/tables/R02/limits", backdated).await;
    assert_error(status, &answer, 422, "invalid_limits");
    assert_eq!(answer["details"]["field"], "effective_from");
    let (status, answer) = post(
        &app,
        "/api/v1/tables/NOPE/limits",
        change(good.clone(), "x"),
    )
    .await;
    assert_error(status, &answer, 404, "unknown_table");
    let (_, history) = get(&app, "/api/v1/tables/R02/limits").await;
    assert_eq!(
        history["postings"].as_array().unwrap().len(),
        1,
        "nothing refused was recorded"
    );

    // A fraction of a haléř is no amount; a whole number written as 10000.0 is 10 000.
    let mut fraction = good.clone();
    fraction["min_bet_h"] = json!(10_000.5);
    let (status, answer) = post(&app, "/api/v1/tables/R02/limits", change(fraction, "x")).await;
    assert_eq!(status, 400, "{answer}");
    let mut good = good;
    good["min_bet_h"] = json!(10_000.0);
    // Scheduled for later tonight: recorded now, in force from then.
    let later = Utc::now() + chrono::Duration::hours(2);
    let mut scheduled = change(good, "evening session");
    scheduled["effective_from"] = json!(later.to_rfc3339());
    let (status, answer) = post(&app, "/api/v1/tables/R02/limits", scheduled).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["actor"], "test-admin");
    let (_, history) = get(&app, "/api/v1/tables/R02/limits").await;
    assert_eq!(history["postings"].as_array().unwrap().len(), 2);
    assert_eq!(
        history["in_force"]["max_outside_h"], 500_000,
        "not yet in force"
    );
}
