use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::*;
use crate::test_support::assert_says;

fn t(minute: u32) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-10T20:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
        + chrono::Duration::minutes(i64::from(minute))
}

fn fact(record: Value) -> Option<Fact> {
    Fact::of(&Round::parse(&record).unwrap())
}

fn spin(seq_no: u64, rotor: Option<&str>, outcome: Value) -> Option<Fact> {
    let mut record = json!({"type": "round", "game": "roulette", "table_id": "R1",
        "seq_no": seq_no, "plan_id": "69games-ziva-hra", "played_at": t(seq_no as u32),
        "outcome": outcome, "bets": []});
    if let Some(rotor) = rotor {
        let ball = if rotor == "clockwise" {
            "counterclockwise"
        } else {
            "clockwise"
        };
        record["spin"] = json!({"rotor": rotor, "ball": ball, "ball_revolutions": 9});
    }
    fact(record)
}

fn found(findings: &[AuditFinding]) -> Vec<(AuditFindingKind, u64, u64)> {
    findings
        .iter()
        .map(|f| (f.kind, f.seq_no, f.previous_seq_no.unwrap_or(0)))
        .collect()
}

#[test]
fn a_settled_spin_whose_wheel_turned_as_on_the_spin_before_is_named() {
    let number = json!({"result": "number", "number": 17});
    let not_reversed = json!({"result": "void", "reason": "wheel_not_reversed"});
    // Given out of order, as rounds may reach the ledger: followed in seq_no order.
    let facts = vec![
        spin(3, Some("clockwise"), number.clone()), // 2 was counterclockwise: reversed
        spin(1, Some("clockwise"), number.clone()),
        spin(2, Some("counterclockwise"), number.clone()),
        spin(4, Some("clockwise"), number.clone()), // as 3: settled, a finding
        spin(5, Some("clockwise"), not_reversed),   // as 4, but declared void: right
        spin(6, None, number.clone()),              // no evidence: nothing to compare
        spin(7, Some("counterclockwise"), number.clone()), // 6 unknown: not compared
        spin(8, Some("counterclockwise"), number),  // as 7: a finding
    ];
    // A spin without evidence gives the audit nothing.
    assert_eq!(facts[5], None);
    let findings = audit(facts.into_iter().flatten().collect());
    assert_eq!(
        found(&findings),
        [
            (AuditFindingKind::RotorNotReversed, 4, 3),
            (AuditFindingKind::RotorNotReversed, 8, 7),
        ]
    );
    assert_says(&findings[0].message, "clockwise as spin 3");
}

#[test]
fn after_a_no_spin_the_wheel_turns_the_same_way_and_otherwise_the_other_way() {
    // Ruleta, 3. HRA: "Pokud se roztočení označí za chybné, Krupiér zahlásí Hráčům „No-spin“ …
    // Ruletové kolo následně otočí ve stejném směru a do protisměru vhodí kuličku."
    let number = json!({"result": "number", "number": 17});
    let no_spin = json!({"result": "void", "reason": "too_few_revolutions"});
    let ball_with_wheel = json!({"result": "void", "reason": "ball_spun_with_wheel"});
    let facts = vec![
        spin(1, Some("clockwise"), number.clone()),
        spin(2, Some("counterclockwise"), no_spin.clone()), // reversed from 1: right
        spin(3, Some("counterclockwise"), number.clone()),  // as no-spin 2: the plan's procedure
        spin(4, Some("clockwise"), number.clone()),         // reversed from 3: right
        spin(5, Some("counterclockwise"), no_spin.clone()), // reversed from 4: right
        spin(6, Some("clockwise"), number.clone()),         // reversed after no-spin 5: a finding
        spin(7, Some("counterclockwise"), ball_with_wheel), // reversed from 6: right
        spin(8, Some("counterclockwise"), no_spin),         // a second no-spin, as 7: right
        spin(
            9,
            Some("clockwise"),
            json!({"result": "void", "reason": "inspector_decision"}),
        ),
        // Reversed after no-spin 8, but declared void itself (9): nothing settled to name.
        spin(10, Some("clockwise"), number.clone()), // as no-spin 9: right
        spin(11, Some("clockwise"), number),         // as 10, settled: not reversed
    ];
    let findings = audit(facts.into_iter().flatten().collect());
    assert_eq!(
        found(&findings),
        [
            (AuditFindingKind::RotorReversedAfterNoSpin, 6, 5),
            (AuditFindingKind::RotorNotReversed, 11, 10),
        ]
    );
    assert_says(
        &findings[0].message,
        "spin 6 turned the wheel clockwise after no-spin 5 had turned it counterclockwise",
    );
    assert_eq!(findings[0].kind.as_str(), "rotor_reversed_after_no_spin");
}

/// A hand at P1 with the button, the blinds' seats and the players dealt in by seat.
fn hand(
    seq_no: u64,
    minute: u32,
    button: u8,
    sb: Option<u8>,
    bb: u8,
    seats: &[(u8, &str)],
) -> Fact {
    let mut actions = Vec::new();
    if let Some(sb) = sb {
        actions
            .push(json!({"seat": sb, "street": "preflop", "action": "small_blind", "to_h": 2_500}));
    }
    actions.push(json!({"seat": bb, "street": "preflop", "action": "big_blind", "to_h": 5_000}));
    let record = json!({"type": "round", "game": "poker_cash", "table_id": "P1",
        "seq_no": seq_no, "plan_id": "69games-ziva-hra", "played_at": t(minute),
        "variant": "holdem", "button": button, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": seats.iter().map(|(seat, player)| json!({"seat": seat, "player": player, "stack_h": 100_000})).collect::<Vec<_>>(),
        "actions": actions, "awards": [], "rake_h": 0});
    fact(record).unwrap()
}

/// Four players, a, b, c and d, at seats 1, 3, 5 and 8.
const FOUR_PLAYERS: [(u8, &str); 4] = [(1, "a"), (3, "b"), (5, "c"), (8, "d")];

#[test]
fn the_button_and_the_big_blind_move_one_player_a_hand() {
    let facts = vec![
        // Button 1, small blind 3, big blind 5.
        hand(1, 0, 1, Some(3), 5, &FOUR_PLAYERS),
        // Right: button 3, small blind 5, big blind 8.
        hand(2, 2, 3, Some(5), 8, &FOUR_PLAYERS),
        // Button 5 is right, but the big blind jumps from 8 over seat 1 to seat 3.
        hand(3, 4, 5, Some(8), 3, &FOUR_PLAYERS),
        // Seat 5 (c) leaves. Button stays on 5 (it must go to seat 8, the small blind of 3),
        // and seat 3 is the big blind again (b, twice running).
        hand(4, 6, 5, Some(1), 3, &[(1, "a"), (3, "b"), (8, "d")]),
    ];
    let findings = audit(facts);
    assert_eq!(
        found(&findings),
        [
            (AuditFindingKind::BigBlindOutOfTurn, 3, 2),
            (AuditFindingKind::BigBlindOutOfTurn, 4, 3),
            (AuditFindingKind::ButtonOutOfTurn, 4, 3),
        ]
    );
    assert_says(&findings[0].message, "passing over seat 1");
    assert_says(&findings[2].message, "to seat 8");
}

#[test]
fn a_dead_button_a_hand_without_small_blind_and_heads_up_are_in_turn() {
    let facts = vec![
        // Button 1, small blind 3, big blind 5, big blind 7 next.
        hand(
            1,
            0,
            1,
            Some(3),
            5,
            &[(1, "a"), (3, "b"), (5, "c"), (7, "d")],
        ),
        hand(
            2,
            2,
            3,
            Some(5),
            7,
            &[(1, "a"), (3, "b"), (5, "c"), (7, "d")],
        ),
        // Seat 7 (d), the last big blind, leaves: nobody to post the small blind. The button
        // goes to seat 5 (last small blind), and seat 1, next after 7, posts the big blind —
        // the plan's hand without a small blind.
        hand(3, 4, 5, None, 1, &[(1, "a"), (3, "b"), (5, "c")]),
        // The button moves to the empty seat 7 (a dead button); seat 1 posts the small blind,
        // seat 3 the big blind.
        hand(4, 6, 7, Some(1), 3, &[(1, "a"), (3, "b"), (5, "c")]),
        // Seat 5 (c) leaves: heads-up. Seat 3 was the big blind, so it takes the button and
        // the small blind, and seat 1 the big blind (7 → 3 is six seats, no further than the
        // last big blind).
        hand(5, 8, 3, Some(3), 1, &[(1, "a"), (3, "b")]),
        // Heads-up on: the button to 1, seat 3 the big blind.
        hand(6, 10, 1, Some(1), 3, &[(1, "a"), (3, "b")]),
        // An hour's pause: the button is drawn again, and may stay.
        hand(7, 70, 1, Some(1), 3, &[(1, "a"), (3, "b")]),
    ];
    assert_eq!(found(&audit(facts)), []);
    // Three-handed to heads-up when the button leaves: button 1, blinds 2 and 3; seat 1 goes.
    // Seat 3 was the big blind: it takes the button, seat 2 the big blind.
    let facts = vec![
        hand(1, 0, 1, Some(2), 3, &[(1, "a"), (2, "b"), (3, "c")]),
        hand(2, 2, 3, Some(3), 2, &[(2, "b"), (3, "c")]),
    ];
    assert_eq!(found(&audit(facts)), []);
}

#[test]
fn only_the_record_right_before_is_compared() {
    // Hand 2 is missing (or another record took its number): 1 and 3 are not compared, though
    // seat 5 is the big blind in both.
    let facts = vec![
        hand(1, 0, 1, Some(3), 5, &FOUR_PLAYERS),
        hand(3, 4, 1, Some(3), 5, &FOUR_PLAYERS),
    ];
    assert_eq!(found(&audit(facts)), []);
    // Spins 1 and 3 turned the same way; spin 2 is not in hand: nothing to say.
    let number = json!({"result": "number", "number": 17});
    let facts = [
        spin(1, Some("clockwise"), number.clone()),
        spin(3, Some("clockwise"), number),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert_eq!(found(&audit(facts)), []);
}

#[test]
fn a_fact_is_small_enough_to_hold_for_every_round() {
    assert!(
        std::mem::size_of::<Fact>() <= 64,
        "{}",
        std::mem::size_of::<Fact>()
    );
}

#[test]
fn facts_are_followed_by_table_then_sequence_as_a_stable_sort_orders_them() {
    // Three tables interleaved, each mostly in order with some late arrivals, and one seq_no
    // given twice (kept in the order given, as a stable sort keeps it).
    let at = |table: &str, seq_no: u64, minute: u32| Fact::TimedHand {
        table_id: table.to_owned(),
        seq_no,
        played_at: t(minute),
    };
    let mut facts = Vec::new();
    for n in 0..60u64 {
        let table = ["P2", "P10", "P1"][(n % 3) as usize];
        let seq_no = if n % 7 == 0 { 100 - n } else { n };
        facts.push(at(table, seq_no, n as u32));
    }
    facts.push(at("P1", 2, 90));
    let mut expected = facts.clone();
    expected.sort_by(|a, b| (a.table_id(), a.seq_no()).cmp(&(b.table_id(), b.seq_no())));
    assert_eq!(
        facts.into_iter().collect::<TableFacts>().into_ordered(),
        expected
    );
}
