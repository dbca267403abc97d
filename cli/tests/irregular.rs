#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Irregular rounds are evidence: a signed record saying something impossible is appended with a
//! finding, a void hand is judged as void (every stake back) — at ingest, by the database verify
//! and by the offline verifier alike — and counts as void in the day's report.

mod common;

use chrono::{DateTime, NaiveDate, Utc};
use common::*;
use ledger::storage::connect;
use ledger::storage::registry::NewTable;
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};

fn register(conn: &mut diesel::PgConnection, table_id: &str, game: &str, key: u8, when: &str) {
    let table = NewTable {
        plays_from: Some(at(PLAYS_FROM)),
        ..new_table(table_id, game, "Praha, sál 2")
    };
    register_on(conn, table, &common::key(key), at(when));
}

/// `record` signed with table key `key`, prepared as ingest does and appended as received at
/// `received`; its ledger index.
fn append_at(
    state: &api::state::AppState,
    conn: &mut diesel::PgConnection,
    record: Value,
    key: u8,
    received: DateTime<Utc>,
) -> u64 {
    appended_index(&append_signed(
        state,
        conn,
        record,
        &common::key(key),
        received,
    ))
}

/// The row of `table_id` in a day's report.
fn table_row<'a>(
    daily: &'a reports::daily::DailyReport,
    table_id: &str,
) -> &'a reports::daily::PayoutRow {
    daily
        .rows
        .iter()
        .find(|r| r.table_id.as_deref() == Some(table_id))
        .unwrap()
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
        append_at(&state, &mut conn, record, key, received)
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
    // handed back for 100 Kč owed, 150 Kč = 15 000 h too much. And the plan voids no
    // blackjack hand (a card dealt wrongly is the next card from the shoe): the 250 Kč that
    // went back unsettled is a finding too, 25 000 h.
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
        [
            ("void_handled_wrongly".to_owned(), 25_000),
            ("void_handled_wrongly".to_owned(), 15_000)
        ]
    );

    // The day's report counts the void rounds as void, and what their tables handed back as
    // returned stakes (BJ1 handed back 250 Kč; its finding says 150 Kč of it was too much).
    let day = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let daily = reports::daily::build(&mut conn, &GamingDayClock::default(), day).unwrap();
    let row = |table: &str| table_row(&daily, table);
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
        append_at(&state, &mut conn, record, key, received);
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
    // For people: the plan's name of the game, times in Prague (UTC+1 in November: 20:40 UTC
    // is 21:40, the period paid until 20:30 UTC ran out at 21:30).
    let people = reports::time_audit::sheet(&audit, &plans, reports::sheet::Language::Czech)
        .to_people_csv(reports::sheet::Language::Czech)
        .unwrap();
    assert_eq!(
        python_czech_column(&people, "Hra"),
        ["Cash game – Texas Hold’em, Omaha Hold’em"]
    );
    assert_eq!(
        python_czech_column(&people, "Odehráno"),
        ["10.11.2026 21:40:00"]
    );
    assert_eq!(
        python_czech_column(&people, "Naposledy zaplaceno do"),
        ["10.11.2026 21:30:00"]
    );
    // The collected time is the tables' revenue in the day's report, once: P1 400 Kč, O1
    // 400 Kč (both hands at P1 took no rake).
    let daily = reports::daily::build(&mut conn, &GamingDayClock::default(), day).unwrap();
    let ggr = |table: &str| table_row(&daily, table).ggr_h;
    assert_eq!((ggr("P1"), ggr("O1")), (40_000, 40_000));

    // The table audit names the same hand, and so does the offline verifier from the export.
    let uncollected = |findings: Vec<(String, String, u64)>| {
        findings
            .into_iter()
            .filter(|f| f.0 == "time_not_collected")
            .collect::<Vec<_>>()
    };
    let expected = vec![("time_not_collected".to_owned(), "P1".to_owned(), 3)];
    let audit =
        reports::table_audit::build(&mut conn, &GamingDayClock::default(), day, &plans).unwrap();
    let online = audit
        .findings
        .iter()
        .map(|f| (f.kind.clone(), f.table_id.clone(), f.seq_no))
        .collect();
    assert_eq!(uncollected(online), expected);
    let report = export_and_verify_day(&url, day);
    let offline = report
        .table_audit
        .iter()
        .map(|f| (f.kind.as_str().to_owned(), f.table_id.clone(), f.seq_no))
        .collect();
    assert_eq!(uncollected(offline), expected);
}

/// A spin at R1 at 18:0`minute`: 100 Kč straight on 17, lost on 5, with the wheel's directions.
fn directed_spin(seq_no: u64, minute: u32, rotor: &str) -> Value {
    let ball = if rotor == "clockwise" {
        "counterclockwise"
    } else {
        "clockwise"
    };
    let mut record = spin("R1", seq_no, 5, json!([straight("s", 17, 10_000, 0)]));
    record["played_at"] = json!(format!("2026-11-10T18:{minute:02}:00Z"));
    record["spin"] = json!({"rotor": rotor, "ball": ball, "ball_revolutions": 8});
    record
}

/// A hand at P1 (four players at seats 1, 3, 5, 8) with its button and blinds; everyone folds
/// to the big blind.
fn positioned_hand(seq_no: u64, minute: u32, button: u8, blinds: &[(u8, &str)]) -> Value {
    let mut actions: Vec<Value> = blinds
        .iter()
        .map(|(seat, kind)| {
            let to_h = if *kind == "small_blind" { 2_500 } else { 5_000 };
            json!({"seat": seat, "street": "preflop", "action": kind, "to_h": to_h})
        })
        .collect();
    let big = blinds.last().unwrap().0;
    let order = [1u8, 3, 5, 8];
    let start = order.iter().position(|&s| s == big).unwrap();
    for k in 1..order.len() {
        let seat = order[(start + k) % order.len()];
        if blinds.iter().all(|(s, _)| *s != seat) || (blinds.len() == 2 && seat == blinds[0].0) {
            actions.push(json!({"seat": seat, "street": "preflop", "action": "fold"}));
        }
    }
    let posted: i64 = blinds
        .iter()
        .map(|(_, kind)| if *kind == "small_blind" { 2_500 } else { 5_000 })
        .sum();
    // With a small blind the pot is 2 × 25 Kč (the big blind's other 25 Kč is uncalled and goes
    // back): rake 5 % of 50 Kč = 2,50 Kč, rounded down to 2 Kč. The big blind alone: no pot.
    let rake_h = if blinds.len() == 2 { 200 } else { 0 };
    json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": format!("2026-11-10T19:{minute:02}:00Z"),
           "variant": "holdem", "button": button, "small_blind_h": 2_500, "big_blind_h": 5_000,
           "seats": order.iter().map(|s| json!({"seat": s, "player": format!("p{s}"), "stack_h": 100_000})).collect::<Vec<_>>(),
           "actions": actions, "awards": [{"seat": big, "amount_h": posted - rake_h}],
           "rake_h": rake_h})
}

#[actix_web::test]
async fn the_wheel_reversed_every_spin_and_the_button_moved_every_hand_are_audited_alike() {
    let (state, url) = common::state();
    let mut conn = connect(&url).unwrap();
    register(&mut conn, "R1", "roulette", 43, "2026-11-10T10:00:00Z");
    register(&mut conn, "P1", "poker_cash", 41, "2026-11-10T10:00:01Z");
    let mut n = 0;
    let mut append = |record: Value, key: u8| {
        n += 1;
        let received = at("2026-11-10T22:00:00Z") + chrono::Duration::seconds(n);
        append_at(&state, &mut conn, record, key, received)
    };
    // Spins 1–3 alternate; spin 4 turns the wheel clockwise as spin 3 did and is settled.
    // Spin 4 reaches the ledger before spin 3: the audit follows the order they were played.
    append(directed_spin(1, 0, "clockwise"), 43);
    append(directed_spin(2, 1, "counterclockwise"), 43);
    append(directed_spin(4, 3, "clockwise"), 43);
    append(directed_spin(3, 2, "clockwise"), 43);
    // Hand 1: button 1, blinds 3 and 5. Hand 2: button 3, blinds 5 and 8 (in turn). Hand 3
    // starts without a small blind, as the plan allows: button 5, big blind 8 (seat 8 twice
    // running: out of turn). Hand 4: button 8 — from 5 past the big blind 8? No: 5 → 8 is three
    // seats, and the limit is the previous big blind, seat 8 — in turn; the big blind jumps
    // from 8 over seat 1 to seat 3 (out of turn).
    append(
        positioned_hand(1, 0, 1, &[(3, "small_blind"), (5, "big_blind")]),
        41,
    );
    append(
        positioned_hand(2, 2, 3, &[(5, "small_blind"), (8, "big_blind")]),
        41,
    );
    append(positioned_hand(3, 4, 5, &[(8, "big_blind")]), 41);
    append(
        positioned_hand(4, 6, 8, &[(1, "small_blind"), (3, "big_blind")]),
        41,
    );

    let day = NaiveDate::from_ymd_opt(2026, 11, 10).unwrap();
    let plans = rules::PlanBook::builtin().unwrap();
    let audit =
        reports::table_audit::build(&mut conn, &GamingDayClock::default(), day, &plans).unwrap();
    let named: Vec<(&str, &str, u64, Option<u64>)> = audit_lines(&audit.findings);
    let expected = [
        ("big_blind_out_of_turn", "P1", 3, Some(2)),
        ("big_blind_out_of_turn", "P1", 4, Some(3)),
        ("rotor_not_reversed", "R1", 4, Some(3)),
    ];
    assert_eq!(named, expected, "{audit:?}");
    assert_eq!(
        (audit.spins, audit.spins_with_directions, audit.hands),
        (4, 4, 4)
    );
    // For people: what was found in words, the round it was compared with.
    let people = reports::table_audit::sheet(&audit, &plans, reports::sheet::Language::Czech)
        .to_people_csv(reports::sheet::Language::Czech)
        .unwrap();
    assert_eq!(
        python_czech_column(&people, "Nález"),
        [
            "big blind mimo pořadí",
            "big blind mimo pořadí",
            "rotor se netočil opačně než minule"
        ]
    );
    assert_eq!(
        python_czech_column(&people, "Porovnáno s kolem (seq_no)"),
        ["2", "3", "3"]
    );
    // No round's own verdict has a finding: a hand without a small blind is allowed.
    for table_id in ["R1", "P1"] {
        let filter = reports::findings::FindingFilter {
            table_id: Some(table_id.into()),
            limit: 100,
            ..Default::default()
        };
        let page = reports::findings::list(&mut conn, &GamingDayClock::default(), &filter).unwrap();
        assert!(page.items.is_empty(), "{table_id}: {:?}", page.items);
    }

    // The offline verifier runs the same audits over the exported rounds.
    let report = export_and_verify_day(&url, day);
    let offline: Vec<(&str, &str, u64, Option<u64>)> = audit_lines(&report.table_audit);
    assert_eq!(offline, expected);
}
