#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The plan's own words, case by case, through ingest (a signed record prepared and appended as
//! ingest does it), the database verify and the offline verifier of an inspection export: a
//! roulette spin its evidence makes void but settled, a poker misdeal after two players acted,
//! a void blackjack hand, a newcomer between the button and the big blind, and the wheel's
//! direction after a no-spin. Amounts in haléře: 100 Kč = 10 000 h.

mod common;

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use common::*;
use dozor_verify::WhichRound;
use ledger::storage::connect;
use ledger::storage::registry::NewTable;
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};

/// The gaming day every round of these tests is played and received in.
fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 10).unwrap()
}

fn register(conn: &mut diesel::PgConnection, table_id: &str, game: &str, key: u8, n: i64) {
    let table = NewTable {
        plays_from: Some(at(PLAYS_FROM)),
        ..new_table(table_id, game, "Praha, sál 3")
    };
    let registered = at("2026-11-10T10:00:00Z") + chrono::Duration::seconds(n);
    register_on(conn, table, &common::key(key), registered);
}

/// Signs `record` with table key `key`, prepares it as ingest does (envelope, key, signature,
/// re-judging) and appends it received at 22:00 + `n` s; its ledger index.
fn ingest(state: &api::state::AppState, url: &str, record: Value, key: u8, n: i64) -> u64 {
    let received = at("2026-11-10T22:00:00Z") + chrono::Duration::seconds(n);
    let mut conn = connect(url).unwrap();
    appended_index(&append_signed(
        state,
        &mut conn,
        record,
        &common::key(key),
        received,
    ))
}

/// Signs a checkpoint over the whole ledger and exports the day; the export's directory.
fn export(url: &str, dir: &Path) -> PathBuf {
    let out = dir.join("export");
    checkpoint_and_export_day(url, day(), &out);
    out
}

/// The offline verifier over the export at `out`.
fn verify_offline(out: &Path) -> dozor_verify::InspectionReport {
    verify_exported(out).unwrap()
}

/// The findings (kind, amount) of `table_id`'s round `seq_no` as the offline verifier finds it
/// in the export, proven and re-judged with the exported plan.
fn offline_findings(out: &Path, table_id: &str, seq_no: u64) -> Vec<(String, i64)> {
    let shown = reports::inspection::show_round(
        out,
        &[operator().verifier()],
        table_id,
        &WhichRound::SeqNo(seq_no),
        reports::sheet::Language::English,
    )
    .unwrap();
    kinds_and_amounts(&shown.round.verdict["findings"])
}

fn owned(found: &[(&str, i64)]) -> Vec<(String, i64)> {
    found.iter().map(|(k, a)| ((*k).to_owned(), *a)).collect()
}

fn cards(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// `"3 preflop raise 15000"`: seat, street, action and a "to" amount.
fn act(text: &str) -> Value {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let mut a = json!({"seat": parts[0].parse::<u8>().unwrap(), "street": parts[1],
                       "action": parts[2]});
    if let Some(to) = parts.get(3) {
        a["to_h"] = json!(to.parse::<i64>().unwrap());
    }
    a
}

/// A hold'em hand at P1 with blinds 25/50 Kč, stacks of 1 000 Kč.
fn hand(
    seq_no: u64,
    button: u8,
    seats: &[u8],
    actions: &[&str],
    board: &str,
    awards: &[(u8, i64)],
    rake_h: i64,
) -> Value {
    json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": format!("2026-11-10T19:{seq_no:02}:00Z"),
           "variant": "holdem", "button": button, "small_blind_h": 2_500, "big_blind_h": 5_000,
           "seats": seats.iter().map(|s| json!({"seat": s, "player": format!("p{s}"), "stack_h": 100_000})).collect::<Vec<_>>(),
           "actions": actions.iter().map(|a| act(a)).collect::<Vec<_>>(),
           "board": cards(board),
           "awards": awards.iter().map(|(s, a)| json!({"seat": s, "amount_h": a})).collect::<Vec<_>>(),
           "rake_h": rake_h})
}

#[actix_web::test]
async fn the_plans_void_and_misdeal_rules_and_the_newcomer_rule_are_judged_everywhere_alike() {
    let (state, url) = common::state();
    let mut conn = connect(&url).unwrap();
    register(&mut conn, "R1", "roulette", 61, 0);
    register(&mut conn, "P1", "poker_cash", 62, 1);
    register(&mut conn, "BJ1", "blackjack", 63, 2);
    drop(conn);

    // Roulette: the ball went round 3 times (fewer than the plan's 5) and fell on 17; settled
    // as valid. Judged void: 100 Kč straight on 17 paid 3 600 Kč, owed its 100 Kč back: 3 500 Kč
    // to claw back; 200 Kč on red paid 0, owed its 200 Kč back.
    let mut spin = spin(
        "R1",
        1,
        17,
        json!([
            straight("s", 17, 10_000, 360_000),
            {"bet_id": "r", "player": "seat-2", "kind": "red", "stake_h": 20_000, "paid_h": 0}
        ]),
    );
    spin["played_at"] = json!("2026-11-10T18:00:00Z");
    spin["spin"] = json!({"rotor": "clockwise", "ball": "counterclockwise", "ball_revolutions": 3});
    let spin_at = ingest(&state, &url, spin, 61, 0);
    let spin_found = owned(&[
        ("spin_invalid", 0),
        ("void_handled_wrongly", 350_000),
        ("void_handled_wrongly", 20_000),
    ]);
    assert_eq!(findings_of(&url, "R1", spin_at), spin_found);

    // Poker: button 4, blinds 25/50 Kč from seats 1 and 2; seat 3 calls, seat 4 raises to
    // 150 Kč, seat 1 folds, seats 2 and 3 call; the flop is dealt and the hand declared a
    // misdeal, every chip back: 25 + 150 + 150 + 150 = 475 Kč, after four players had acted.
    let mut misdeal = hand(
        1,
        4,
        &[1, 2, 3, 4],
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop call",
            "4 preflop raise 15000",
            "1 preflop fold",
            "2 preflop call",
            "3 preflop call",
        ],
        "2h 7c 9s",
        &[(1, 2_500), (2, 15_000), (3, 15_000), (4, 15_000)],
        0,
    );
    misdeal["void"] = json!({"reason": "misdeal"});
    let misdeal_at = ingest(&state, &url, misdeal, 62, 1);
    let misdeal_found = owned(&[("void_handled_wrongly", 47_500)]);
    assert_eq!(findings_of(&url, "P1", misdeal_at), misdeal_found);

    // Poker: regulars at 1, 3, 5, 8, button 3, blinds from 5 and 8 as they must be; a newcomer
    // dealt in at seat 4, between the button and the blinds. All fold to the big blind: pot
    // 2 × 25 Kč (25 Kč uncalled goes back), rake 5 % of 50 Kč = 2,50 → 2 Kč; seat 8 gets
    // 25 + 50 − 2 = 73 Kč. One finding, on the newcomer's seat.
    let newcomer = hand(
        2,
        3,
        &[1, 3, 4, 5, 8],
        &[
            "5 preflop small_blind 2500",
            "8 preflop big_blind 5000",
            "1 preflop fold",
            "3 preflop fold",
            "4 preflop fold",
            "5 preflop fold",
        ],
        "",
        &[(8, 7_300)],
        200,
    );
    let newcomer_at = ingest(&state, &url, newcomer, 62, 2);
    let newcomer_found = owned(&[("illegal_decision", 0)]);
    assert_eq!(findings_of(&url, "P1", newcomer_at), newcomer_found);
    let page = findings_page(&url, "P1");
    let named: Vec<(&str, Value)> = page
        .items
        .iter()
        .filter(|f| f.ledger_index == newcomer_at as i64)
        .map(|f| (f.message.as_str(), f.bet_ids.clone()))
        .collect();
    assert_eq!(named.len(), 1, "{named:?}");
    assert!(
        named[0]
            .0
            .contains("seat 4 is dealt in between the button (seat 3)"),
        "{named:?}"
    );
    assert_eq!(named[0].1, json!(["seat-4"]));

    // Blackjack: declared void (a "misdeal") after two cards, 100 Kč main bet and 25 Kč Perfect
    // Pairs each handed back: the plan has no void hand, 125 Kč went back unsettled.
    let void_hand = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-10T19:30:00Z",
        "shoe_id": "S1", "deal": ["Ah", "9s"], "void": {"reason": "misdeal"},
        "boxes": [{"box": 1, "hands": [[]], "bets": [
            {"bet_id": "m", "player": "p1", "kind": "main", "stake_h": 10_000, "paid_h": 10_000},
            {"bet_id": "pp", "player": "p1", "kind": "perfect_pairs", "stake_h": 2_500,
             "paid_h": 2_500}]}]});
    let void_at = ingest(&state, &url, void_hand, 63, 3);
    let void_found = owned(&[("void_handled_wrongly", 12_500)]);
    assert_eq!(findings_of(&url, "BJ1", void_at), void_found);

    // The database verify re-judges the four rounds to the same verdicts.
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["rounds_readjudicated"], 4, "{report}");
    // The offline verifier re-judges them from the export, agrees with every exported verdict,
    // and finds the same findings in each round it proves.
    let dir = tempfile::tempdir().unwrap();
    let out = export(&url, dir.path());
    let offline = verify_offline(&out);
    assert_eq!(offline.rounds_readjudicated, 4, "{offline:?}");
    assert_eq!(offline_findings(&out, "R1", 1), spin_found);
    assert_eq!(offline_findings(&out, "P1", 1), misdeal_found);
    assert_eq!(offline_findings(&out, "P1", 2), newcomer_found);
    assert_eq!(offline_findings(&out, "BJ1", 1), void_found);
}

/// A spin at R2 at 18:`seq_no`: 100 Kč straight on 17 lost on 5, or a no-spin with the stake
/// back, with the wheel's rotor as given and the ball against it.
fn directed_spin(seq_no: u64, rotor: &str, no_spin: bool) -> Value {
    let ball = if rotor == "clockwise" {
        "counterclockwise"
    } else {
        "clockwise"
    };
    let (outcome, revolutions, paid_h) = if no_spin {
        (
            json!({"result": "void", "reason": "too_few_revolutions"}),
            3,
            10_000,
        )
    } else {
        (json!({"result": "number", "number": 5}), 8, 0)
    };
    json!({"type": "round", "game": "roulette", "table_id": "R2", "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": format!("2026-11-10T18:{seq_no:02}:00Z"),
           "outcome": outcome, "bets": [straight("s", 17, 10_000, paid_h)],
           "spin": {"rotor": rotor, "ball": ball, "ball_revolutions": revolutions}})
}

#[actix_web::test]
async fn after_a_no_spin_the_wheel_turns_the_same_way_in_the_table_audit_and_offline() {
    let (state, url) = common::state();
    register(&mut connect(&url).unwrap(), "R2", "roulette", 64, 0);
    // Ruleta, 3. HRA: after a „No-spin“ „Ruletové kolo následně otočí ve stejném směru“.
    let spins = [
        (1, "clockwise", false),
        (2, "counterclockwise", true), // reversed from 1, declared a no-spin
        (3, "counterclockwise", false), // as no-spin 2: the plan's own procedure, no finding
        (4, "clockwise", false),       // reversed from 3
        (5, "counterclockwise", true), // reversed from 4, a no-spin
        (6, "clockwise", false),       // reversed after no-spin 5 and settled: a finding
        (7, "clockwise", false),       // as 6 and settled: not reversed, a finding
    ];
    for (n, (seq_no, rotor, no_spin)) in spins.into_iter().enumerate() {
        ingest(
            &state,
            &url,
            directed_spin(seq_no, rotor, no_spin),
            64,
            n as i64,
        );
    }
    // Every verdict is clean: lost bets paid nothing, the no-spins' stakes went back.
    let page = findings_page(&url, "R2");
    assert!(page.items.is_empty(), "{:?}", page.items);

    let expected = [
        ("rotor_reversed_after_no_spin", "R2", 6, Some(5)),
        ("rotor_not_reversed", "R2", 7, Some(6)),
    ];
    let plans = rules::PlanBook::builtin().unwrap();
    let audit = reports::table_audit::build(
        &mut connect(&url).unwrap(),
        &GamingDayClock::default(),
        day(),
        &plans,
    )
    .unwrap();
    let online: Vec<(&str, &str, u64, Option<u64>)> = audit_lines(&audit.findings);
    assert_eq!(online, expected, "{audit:?}");
    assert_eq!((audit.spins, audit.spins_with_directions), (7, 7));

    let dir = tempfile::tempdir().unwrap();
    let report = verify_offline(&export(&url, dir.path()));
    let offline: Vec<(&str, &str, u64, Option<u64>)> = audit_lines(&report.table_audit);
    assert_eq!(offline, expected);
    assert!(
        report.table_audit[0].message.contains(
            "spin 6 turned the wheel clockwise after no-spin 5 had turned it counterclockwise"
        ),
        "{}",
        report.table_audit[0].message
    );
}
