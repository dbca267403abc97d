#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Irregular rounds are evidence: a signed record saying something impossible is appended with a
//! finding, a void hand is judged as void (every stake back) — at ingest, by the database verify
//! and by the offline verifier alike — and counts as void in the day's report.

mod common;

use chrono::{DateTime, NaiveDate, Utc};
use common::*;
use ledger::storage::append::{append_batch, AppendOutcome};
use ledger::storage::connect;
use ledger::storage::registry::{self, NewTable};
use reports::GamingDayClock;
use serde_json::{json, Value};

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

fn register(conn: &mut diesel::PgConnection, table_id: &str, game: &str, key: u8, when: &str) {
    registry::register_table(
        conn,
        operator().signing_key(),
        NewTable {
            table_id,
            game,
            location: "Praha, sál 2",
            plan_id: "69games-ziva-hra",
            wheel_layout: None,
            plays_from: Some(at(PLAYS_FROM)),
            limits: None,
        },
        &common::key(key).verifying_key(),
        "cli:tests",
        at(when),
    )
    .unwrap();
}

/// Signs `record` with table key `key`, prepares it as ingest does and appends it received at
/// `received`; its ledger index.
fn append_signed(
    state: &api::state::AppState,
    conn: &mut diesel::PgConnection,
    record: Value,
    key: u8,
    received: DateTime<Utc>,
) -> u64 {
    let body = serde_json::to_vec(&signed(record, &common::key(key))).unwrap();
    let submission = state
        .ingest
        .prepare(ledger::ingest::parse_envelope(&body).unwrap())
        .unwrap();
    let out = append_batch(conn, &[submission], received).unwrap();
    let AppendOutcome::Appended(receipt) = &out[0] else {
        panic!("{out:?}")
    };
    receipt.index
}

fn cards(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// An Ultimate Texas Hold'em spot of 100 Kč Ante and Blind, folded, everything lost.
fn uth(seq_no: u64, dealer: &str, board: &str, hole: &str) -> Value {
    json!({"type": "round", "game": "ultimate_texas_holdem", "table_id": "U1", "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": "2026-11-10T19:00:00Z",
           "burned": ["2s", "3s"], "dealer": cards(dealer), "board": cards(board),
           "spots": [{"spot": 1, "player": "p1", "cards": cards(hole), "bets": [
               {"bet_id": "a", "kind": "ante", "stake_h": 10_000, "paid_h": 0},
               {"bet_id": "b", "kind": "blind", "stake_h": 10_000, "paid_h": 0}]}]})
}

#[actix_web::test]
async fn impossible_records_and_void_hands_are_kept_and_judged_everywhere_alike() {
    let (state, url) = common::state();
    let mut conn = connect(&url).unwrap();
    register(
        &mut conn,
        "U1",
        "ultimate_texas_holdem",
        31,
        "2026-11-10T10:00:00Z",
    );
    register(&mut conn, "BJ1", "blackjack", 32, "2026-11-10T10:00:01Z");
    let mut append = |record: Value, key: u8, n: i64| {
        let received = at("2026-11-10T20:00:00Z") + chrono::Duration::seconds(n);
        append_signed(&state, &mut conn, record, key, received)
    };

    // K♠ dealt to the dealer and again on the board from a one-deck game: it cannot have
    // happened, and the table signed it — appended (not refused), with a finding.
    let twice = append(uth(1, "Ks Kd", "Ks 7c Jd 4s 3c", "9c 9d"), 31, 0);
    assert_eq!(
        findings_of(&url, "U1", twice),
        [("record_impossible".to_owned(), 0)]
    );
    // A hand stopped after two identical cards turned up, declared void, every stake back.
    let mut void_uth = uth(2, "Ks Kd", "Ks 7c Jd", "9c 9d");
    void_uth["void"] = json!({"reason": "duplicate_card"});
    void_uth["spots"][0]["bets"][0]["paid_h"] = json!(10_000);
    void_uth["spots"][0]["bets"][1]["paid_h"] = json!(10_000);
    let void_ok = append(void_uth, 31, 1);
    assert_eq!(findings_of(&url, "U1", void_ok), []);
    // A blackjack misdeal declared void, but the 100 Kč main bet paid as a blackjack: 250 Kč
    // handed back for 100 Kč owed, 150 Kč = 15 000 h too much.
    let void_paid = append(
        json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
               "plan_id": "69games-ziva-hra", "played_at": "2026-11-10T19:30:00Z",
               "shoe_id": "S1", "deal": ["Ah", "9s"], "void": {"reason": "misdeal"},
               "boxes": [{"box": 1, "hands": [[]], "bets": [
                   {"bet_id": "m", "player": "p1", "kind": "main", "stake_h": 10_000,
                    "paid_h": 25_000}]}]}),
        32,
        2,
    );
    assert_eq!(
        findings_of(&url, "BJ1", void_paid),
        [("void_handled_wrongly".to_owned(), 15_000)]
    );

    // The day's report counts the void rounds as void, and what their tables handed back as
    // returned stakes (BJ1 handed back 250 Kč; its finding says 150 Kč of it was too much).
    let day = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let daily = reports::daily::build(&mut conn, &GamingDayClock::default(), day).unwrap();
    let row = |table: &str| {
        daily
            .rows
            .iter()
            .find(|r| r.table_id.as_deref() == Some(table))
            .unwrap()
    };
    assert_eq!((row("U1").rounds, row("U1").void_rounds), (2, 1));
    assert_eq!(row("U1").returned_stakes_h, 20_000);
    assert_eq!(
        (row("BJ1").void_rounds, row("BJ1").returned_stakes_h),
        (1, 25_000)
    );

    // Both verifiers judge the three rounds the same way.
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["rounds_readjudicated"], 3, "{report}");
    let report = export_and_verify_day(&url, day);
    assert_eq!(report.rounds_readjudicated, 3, "{report:?}");
}

/// A heads-up hand at P1 played for time: the small blind folds to the big blind.
fn timed_hand(seq_no: u64, played_at: &str) -> Value {
    json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": played_at, "variant": "holdem",
           "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
           "seats": [{"seat": 1, "player": "p1", "stack_h": 100_000},
                     {"seat": 2, "player": "p2", "stack_h": 100_000}],
           "actions": [{"seat": 2, "street": "preflop", "action": "small_blind", "to_h": 2_500},
                       {"seat": 1, "street": "preflop", "action": "big_blind", "to_h": 5_000},
                       {"seat": 2, "street": "preflop", "action": "fold"}],
           "awards": [{"seat": 1, "amount_h": 7_500}], "collection": "time", "rake_h": 0})
}

fn time_collection(table_id: &str, game: &str, seq_no: u64, at: &str) -> Value {
    json!({"type": "time_collection", "game": game, "table_id": table_id, "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": at, "period_minutes": 30,
           "per_player_h": 20_000,
           "players": [{"seat": 1, "player": "p1", "paid_h": 20_000},
                       {"seat": 2, "player": "p2", "paid_h": 20_000}]})
}

#[actix_web::test]
async fn a_hand_played_for_time_outside_every_collected_period_is_named() {
    let (state, url) = common::state();
    let mut conn = connect(&url).unwrap();
    register(&mut conn, "P1", "poker_cash", 41, "2026-11-10T10:00:00Z");
    register(
        &mut conn,
        "O1",
        "open_face_chinese",
        44,
        "2026-11-10T10:00:01Z",
    );
    let mut append = |record: Value, key: u8, n: i64| {
        let received = at("2026-11-10T22:00:00Z") + chrono::Duration::seconds(n);
        append_signed(&state, &mut conn, record, key, received);
    };
    // P1 collects 200 Kč from each of two players at 20:00 for 20:00–20:30.
    append(
        time_collection("P1", "poker_cash", 1, "2026-11-10T20:00:00Z"),
        41,
        0,
    );
    // One hand inside the period, one ten minutes after it ran out.
    append(timed_hand(2, "2026-11-10T20:10:00Z"), 41, 1);
    append(timed_hand(3, "2026-11-10T20:40:00Z"), 41, 2);
    // An Open Face Chinese table may take time too ("nebo ... Time collection").
    append(
        time_collection("O1", "open_face_chinese", 1, "2026-11-10T20:00:00Z"),
        44,
        3,
    );

    let day = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let plans = rules::PlanBook::builtin().unwrap();
    let audit =
        reports::time_audit::build(&mut conn, &GamingDayClock::default(), day, &plans).unwrap();
    // Two collections of 2 × 200 Kč = 80 000 h; two hands played for time, one uncollected.
    assert_eq!(
        (audit.time_hands, audit.collections, audit.collected_h),
        (2, 2, 80_000)
    );
    let named: Vec<(&str, u64, Option<DateTime<Utc>>)> = audit
        .uncollected
        .iter()
        .map(|u| (u.table_id.as_str(), u.seq_no, u.last_paid_until))
        .collect();
    assert_eq!(named, [("P1", 3, Some(at("2026-11-10T20:30:00Z")))]);
    // The collected time is the tables' revenue in the day's report, once: P1 400 Kč, O1
    // 400 Kč (both hands at P1 took no rake).
    let daily = reports::daily::build(&mut conn, &GamingDayClock::default(), day).unwrap();
    let ggr = |table: &str| {
        daily
            .rows
            .iter()
            .find(|r| r.table_id.as_deref() == Some(table))
            .map(|r| r.ggr_h)
            .unwrap()
    };
    assert_eq!((ggr("P1"), ggr("O1")), (40_000, 40_000));
}
