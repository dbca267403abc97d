//! Hand-computed cash-game cases. Amounts in haléře: 100 Kč = 10 000 h.

use serde_json::{json, Value};

use super::pots::best_hand;
use super::*;
use crate::cards::Card;
use crate::record::Round;
use crate::verdict::FindingKind;

use crate::plan::bundled_plan as plan;

fn cards(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn seat(n: u8, stack_h: i64, shown: Option<&str>) -> Value {
    let mut s = json!({"seat": n, "player": format!("p{n}"), "stack_h": stack_h});
    if let Some(c) = shown {
        s["shown"] = json!(cards(c));
    }
    s
}

/// Seats `numbers`, each with 1 000 Kč and no cards shown.
fn unshown(numbers: &[u8]) -> Value {
    json!(numbers
        .iter()
        .map(|&n| seat(n, 100_000, None))
        .collect::<Vec<_>>())
}

/// `preflop`, then a check by each of `seats` in turn on the flop, the turn and the river.
fn checked_down(preflop: &[&str], seats: &[u8]) -> Vec<String> {
    let mut actions: Vec<String> = preflop.iter().map(|a| (*a).to_owned()).collect();
    for street in ["flop", "turn", "river"] {
        actions.extend(seats.iter().map(|n| format!("{n} {street} check")));
    }
    actions
}

/// `"3 preflop raise 20000"`, `"1 flop check"`: seat, street, action and a "to" amount.
fn act(text: &str) -> Value {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let mut a =
        json!({"seat": parts[0].parse::<u8>().unwrap(), "street": parts[1], "action": parts[2]});
    if let Some(to) = parts.get(3) {
        a["to_h"] = json!(to.parse::<i64>().unwrap());
    }
    a
}

/// A hand of `variant` at blinds of 25/50 Kč (what every hand here is played for).
fn hand(
    variant: &str,
    button: u8,
    seats: Value,
    actions: &[impl AsRef<str>],
    board: &str,
    awards: &[(u8, i64)],
    rake_h: i64,
) -> Value {
    json!({
        "type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T23:00:00Z",
        "variant": variant, "button": button,
        "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": seats,
        "actions": actions.iter().map(|a| act(a.as_ref())).collect::<Vec<_>>(),
        "board": cards(board),
        "awards": awards.iter().map(|(s, a)| json!({"seat": s, "amount_h": a})).collect::<Vec<_>>(),
        "rake_h": rake_h
    })
}

fn judge(record: Value) -> (Vec<(u8, i64)>, Vec<Finding>) {
    let plan = plan();
    let Round::PokerCash(h) = Round::parse(&record).unwrap() else {
        panic!("not poker")
    };
    let v = adjudicate(plan.poker_cash().unwrap(), &plan, &h);
    let expected = h
        .seats
        .iter()
        .zip(&v.bets)
        .map(|(s, b)| (s.seat, b.expected_paid_h))
        .collect();
    (expected, v.findings)
}

fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    findings.iter().map(|f| f.kind).collect()
}

/// Five seats, button 5, blinds 25/50 Kč: three all-ins, a call, a folded small blind (the
/// arithmetic is in the test below).
fn side_pot_hand() -> Value {
    hand(
        "holdem",
        5,
        json!([
            seat(1, 100_000, None),
            seat(2, 100_000, Some("Ac 9d")),
            seat(3, 250_000, Some("Kc Qd")),
            seat(4, 400_000, Some("As 9h")),
            seat(5, 600_000, Some("Qh Qs"))
        ]),
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop all_in 250000",
            "4 preflop all_in 400000",
            "5 preflop call",
            "1 preflop fold",
            "2 preflop all_in 100000",
        ],
        "Ah Kd 7c 7s 2h",
        &[(2, 186_300), (4, 936_200)],
        30_000,
    )
}

#[test]
fn three_all_ins_make_two_side_pots_and_the_split_main_pot_gives_the_odd_chip_left_of_the_button() {
    // Five seats, button 5, blinds 25/50 Kč. Seat 1 posts 25 Kč and folds; seat 2 (1 000 Kč),
    // seat 3 (2 500 Kč) and seat 4 (4 000 Kč) go all in, seat 5 (6 000 Kč) calls 4 000 Kč.
    // Seat 4's all in raises by 1 500 Kč, short of the 2 450 Kč raise before it: legal all in.
    // Put in: 25 + 1 000 + 2 500 + 4 000 + 4 000 Kč. Pots:
    //   main  25 + 4 × 1 000 = 4 025 Kč (seats 2, 3, 4, 5),
    //   side1 3 × 1 500      = 4 500 Kč (seats 3, 4, 5),
    //   side2 2 × 1 500      = 3 000 Kč (seats 4, 5).
    // Rake: 5 % of 11 525 Kč = 576.25 Kč → capped at 300 Kč (5 players), taken from the main pot:
    // 3 725 Kč left. Board A♥ K♦ 7♣ 7♠ 2♥: seats 2 (A♣ 9♦) and 4 (A♠ 9♥) tie with aces and
    // sevens, king kicker; seat 3 (K♣ Q♦) has kings and sevens, seat 5 (Q♥ Q♠) queens and
    // sevens. Main: 3 725 / 2 = 1 862 Kč each and the odd 1 Kč to seat 2, the first winner left
    // of the button: 1 863 and 1 862 Kč. Seat 4 wins both side pots: 1 862 + 4 500 + 3 000
    // = 9 362 Kč.
    let (expected, findings) = judge(side_pot_hand());
    assert_eq!(
        expected,
        [(1, 0), (2, 186_300), (3, 0), (4, 936_200), (5, 0)]
    );
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn omaha_plays_exactly_two_hole_cards_and_three_from_the_board() {
    // Board A♥ K♥ Q♥ J♥ 5♣. Seat 1 holds T♥ 2♠ 3♠ 4♣: with any five of its nine cards it would
    // have a royal flush (T♥ J♥ Q♥ K♥ A♥), but Omaha allows one hole heart only, so its best is
    // ace-high (T♥ 4♣ + A♥ K♥ Q♥). Seat 2 holds 9♠ 9♦ 8♣ 8♦: a pair of nines (9♠ 9♦ + A♥ K♥ Q♥)
    // and wins. Heads-up, blinds 25/50 Kč, checked down: pot 100 Kč, rake 5 Kč, 95 Kč to seat 2.
    let record = hand(
        "omaha",
        2,
        json!([
            seat(1, 100_000, Some("Th 2s 3s 4c")),
            seat(2, 100_000, Some("9s 9d 8c 8d"))
        ]),
        &checked_down(
            &[
                "2 preflop small_blind 2500",
                "1 preflop big_blind 5000",
                "2 preflop call",
                "1 preflop check",
            ],
            &[1, 2],
        ),
        "Ah Kh Qh Jh 5c",
        &[(2, 9_500)],
        500,
    );
    let (expected, findings) = judge(record.clone());
    assert_eq!(expected, [(1, 0), (2, 9_500)]);
    assert!(findings.is_empty(), "{findings:?}");
    // The same cards in Hold'em rules (any five): seat 1's royal flush would win. (Two hole
    // cards each in Hold'em, so the comparison is made on the evaluator directly.)
    let royal = best_hand(
        Variant::Holdem,
        &[Card::parse("Th").unwrap()],
        &["Ah", "Kh", "Qh", "Jh", "5c"].map(|c| Card::parse(c).unwrap()),
    )
    .unwrap();
    assert!(royal.is_royal_flush());
}

#[test]
fn the_rake_is_five_per_cent_in_whole_koruny_capped_by_the_number_of_players() {
    let plan = plan();
    let pp = plan.poker_cash().unwrap();
    // 10 000 Kč pot: 5 % = 500 Kč, capped at 200 Kč with 4 players and 300 Kč with 5.
    assert_eq!(rake_for(pp, 1_000_000, 4), 20_000);
    assert_eq!(rake_for(pp, 1_000_000, 5), 30_000);
    // 123.45 Kč pot: 5 % = 6.1725 Kč, rounded down to 6 Kč.
    assert_eq!(rake_for(pp, 12_345, 3), 600);
    // 3 000 Kč pot with 2 players: 150 Kč, under the cap.
    assert_eq!(rake_for(pp, 300_000, 2), 15_000);
    // More players than the plan's table (10): the last cap, 300 Kč.
    assert_eq!(rake_for(pp, 1_000_000, 10), 30_000);
}

#[test]
fn the_rake_cap_counts_the_seated_players_when_the_plan_reads_it_so() {
    // Heads-up, 2 dealt in, 6 seated: A♠ A♦ against K♥ K♦ all in for 10 000 Kč each. Pot
    // 20 000 Kč; 5 % = 1 000 Kč, capped at 200 Kč (2–4 players) or 300 Kč (5–9). The table
    // took 300 Kč and handed seat 1 the other 19 700 Kč.
    let mut plan = plan();
    let record = |seated: Option<u8>| {
        let mut h = hand(
            "holdem",
            2,
            json!([
                seat(1, 1_000_000, Some("As Ad")),
                seat(2, 1_000_000, Some("Kh Kd"))
            ]),
            &[
                "2 preflop small_blind 2500",
                "1 preflop big_blind 5000",
                "2 preflop all_in 1000000",
                "1 preflop call",
            ],
            "2c 7d 9h Jc 4s",
            &[(1, 1_970_000)],
            30_000,
        );
        if let Some(n) = seated {
            h["seated_players"] = json!(n);
        }
        h
    };
    // Dealt in (the bundled reading): 2 players, cap 200 Kč; the table took 300 Kč.
    let (_, findings) = judge(record(Some(6)));
    assert_eq!(
        kinds(&findings),
        [FindingKind::RakeWrong, FindingKind::Underpaid]
    );
    if let Some(pp) = plan.poker_cash.as_mut() {
        pp.rake_cap_counts = crate::plan::poker::RakeCapCounts::Seated;
    }
    let judge_seated = |record: Value| {
        let Round::PokerCash(h) = Round::parse(&record).unwrap() else {
            panic!("not poker")
        };
        adjudicate(plan.poker_cash().unwrap(), &plan, &h).findings
    };
    // Seated: 6 players at the table, cap 300 Kč — the 300 Kč taken is right.
    assert_eq!(judge_seated(record(Some(6))), []);
    // Not recorded: the players dealt in, 2, cap 200 Kč.
    assert_eq!(
        kinds(&judge_seated(record(None))),
        [FindingKind::RakeWrong, FindingKind::Underpaid]
    );
}

#[test]
fn an_all_in_short_of_a_full_raise_does_not_reopen_the_betting() {
    // Seats 1–3, button 3, blinds 25/50 Kč. Seat 3 raises to 200 Kč (a raise of 150 Kč); seat 1
    // goes all in for 300 Kč (100 Kč more: short of a full raise); seat 2 calls 300 Kč. Seat 3
    // has acted since the last full raise, so it may only call or fold — its raise to 600 Kč
    // is a finding.
    let record = hand(
        "holdem",
        3,
        json!([
            seat(1, 30_000, Some("Ks Kd")),
            seat(2, 200_000, Some("2c 7d")),
            seat(3, 200_000, Some("Qs Qd"))
        ]),
        &checked_down(
            &[
                "1 preflop small_blind 2500",
                "2 preflop big_blind 5000",
                "3 preflop raise 20000",
                "1 preflop all_in 30000",
                "2 preflop call",
                "3 preflop raise 60000",
                "2 preflop call",
            ],
            &[2, 3],
        ),
        "As 8h 5c 4d 3s",
        &[],
        0,
    );
    let (_, findings) = judge(record);
    let illegal: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == FindingKind::IllegalDecision)
        .collect();
    assert_eq!(illegal.len(), 1, "{findings:?}");
    assert!(illegal[0].message.contains("not reopened"), "{illegal:?}");
}

#[test]
fn a_raise_below_the_minimum_and_acting_out_of_turn_are_findings() {
    // Bet 100 Kč, raise to 400 Kč (a 300 Kč raise): the next raise must reach 700 Kč (the plan's
    // example); 600 Kč is too little. Then seat 1 acts before seat 2.
    let record = hand(
        "holdem",
        3,
        json!([
            seat(1, 500_000, None),
            seat(2, 500_000, None),
            seat(3, 500_000, None)
        ]),
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop call",
            "1 preflop call",
            "2 preflop check",
            "1 flop bet 10000",
            "2 flop raise 40000",
            "3 flop raise 60000",
            "2 flop fold",
            "1 flop fold",
        ],
        "As 8h 5c",
        &[(3, 0)],
        0,
    );
    let (_, findings) = judge(record);
    let messages: Vec<&str> =
        crate::test_support::messages(&findings, FindingKind::IllegalDecision);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("below the minimum raise to 700")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("out of turn")),
        "{messages:?}"
    );
}

/// Heads-up, button 2 posts the small blind (25 Kč) and folds to seat 1's big blind (50 Kč);
/// then `after`, and seat 1 is handed `award_h` with `rake_h` taken.
fn small_blind_folds(after: &[&str], award_h: i64, rake_h: i64) -> Value {
    let mut actions = vec![
        "2 preflop small_blind 2500",
        "1 preflop big_blind 5000",
        "2 preflop fold",
    ];
    actions.extend_from_slice(after);
    hand(
        "holdem",
        2,
        unshown(&[1, 2]),
        &actions,
        "",
        &[(1, award_h)],
        rake_h,
    )
}

#[test]
fn an_uncontested_pot_needs_no_show_and_the_uncalled_blind_goes_back() {
    // Heads-up, button 2 posts 25 Kč and folds. Seat 1's big blind: 25 Kč of it is uncalled
    // and comes back; the pot is 25 + 25 = 50 Kč, rake 5 % = 2.50 Kč → 2 Kč, so seat 1 gets
    // 25 + 48 = 73 Kč. A check by seat 1 after the hand was over is a finding.
    let (expected, findings) = judge(small_blind_folds(&["1 preflop check"], 7_300, 200));
    // The verdict leaves the returned 25 Kč out of stakes and payouts: 48 Kč from the pot.
    assert_eq!(expected, [(1, 4_800), (2, 0)]);
    assert_eq!(kinds(&findings), [FindingKind::IllegalDecision]);
    assert!(findings[0].message.contains("uncontested"), "{findings:?}");
}

#[test]
fn chips_from_nowhere_and_a_wrong_rake_are_findings() {
    // The same hand, but seat 1 is handed 100 Kč and the rake is 5 Kč: 7 500 h went in,
    // 10 000 + 500 came out.
    let (_, findings) = judge(small_blind_folds(&[], 10_000, 500));
    assert_eq!(
        kinds(&findings),
        [
            FindingKind::RakeWrong,
            FindingKind::Overpaid,
            FindingKind::ChipsNotConserved
        ]
    );
}

#[test]
fn impossible_hands_are_refused() {
    let base = || {
        hand(
            "holdem",
            2,
            json!([seat(1, 100_000, Some("As Ad")), seat(2, 100_000, None)]),
            &["2 preflop small_blind 2500", "1 preflop big_blind 5000"],
            "Kh Kd Kc 2s 3s",
            &[],
            0,
        )
    };
    let mut six = base();
    six["board"] = json!(cards("Kh Kd Kc 2s 3s 4s"));
    let e = Round::parse(&six).unwrap_err().to_string();
    assert!(e.contains("0, 3, 4 or 5 cards"), "{e}");
    // Readable but impossible: kept with a finding, not refused.
    let impossible = |record: Value| {
        let v = crate::test_support::verdict_with(plan(), record);
        assert_eq!(kinds(&v.findings), [FindingKind::RecordImpossible]);
        v.findings[0].message.clone()
    };
    let mut twice = base();
    twice["board"] = json!(cards("As Kd Kc 2s 3s"));
    assert!(impossible(twice).contains("As is dealt twice"));
    // A burned card is a card of the deck too.
    let mut burned_twice = base();
    burned_twice["burned"] = json!(cards("4h 5h Kh"));
    assert!(impossible(burned_twice).contains("Kh is dealt twice"));
    let mut three = base();
    three["seats"][0]["shown"] = json!(cards("As Ad Ac"));
    assert!(impossible(three).starts_with("seats[0].shown: 2 hole cards"));
    let mut stranger = base();
    stranger["awards"] = json!([{"seat": 7, "amount_h": 7_500}]);
    assert!(impossible(stranger).starts_with("awards[0].seat: seat 7 is not dealt in"));
    let mut lonely = base();
    lonely["seats"] = unshown(&[1]);
    assert!(Round::parse(&lonely).is_err());
}

#[test]
fn burned_cards_are_counted_one_before_each_street() {
    // The side-pot hand runs to the river: a board of 5, three streets, three burns.
    let mut hand = side_pot_hand();
    hand["burned"] = json!(cards("3c 4d 5h"));
    let (_, findings) = judge(hand.clone());
    assert!(findings.is_empty(), "{findings:?}");
    // Two burned for three streets: a finding, and the money is judged as before.
    hand["burned"] = json!(cards("3c 4d"));
    let (expected, findings) = judge(hand);
    assert_eq!(kinds(&findings), [FindingKind::CardsInconsistent]);
    assert!(
        findings[0].message.starts_with(
            "2 cards burned; the dealer burns one before each street, 3 for a board of 5"
        ),
        "{}",
        findings[0].message
    );
    assert_eq!(expected[3], (4, 936_200));
}

fn time_collection(per_player_h: i64, period: u32, paid: &[(u8, i64)]) -> Value {
    json!({
        "type": "time_collection", "game": "poker_cash", "table_id": "P1", "seq_no": 2,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T23:30:00Z",
        "period_minutes": period, "per_player_h": per_player_h,
        "players": paid.iter().map(|(s, p)| json!({"seat": s, "player": format!("p{s}"), "paid_h": p})).collect::<Vec<_>>()
    })
}

#[test]
fn time_collection_is_the_announced_fee_per_player_and_half_hour_within_the_plan() {
    let plan = plan();
    let judge = |record: Value| {
        let round = Round::parse(&record).unwrap();
        let v = crate::adjudication::adjudicate(&plan, &round).unwrap();
        (v.stakes_h, kinds(&v.findings))
    };
    // 200 Kč per player and 30 minutes, one hour: 400 Kč each; three players = 1 200 Kč
    // collected. Seat 3 was charged 500 Kč: 100 Kč too much.
    let (collected, found) = judge(time_collection(
        20_000,
        60,
        &[(1, 40_000), (2, 40_000), (3, 50_000)],
    ));
    assert_eq!(collected, 130_000);
    assert_eq!(found, [FindingKind::RakeWrong]);
    // 12 000 Kč per half hour is above the plan's 10 000 Kč; 50 Kč below its 100 Kč.
    let (_, found) = judge(time_collection(1_200_000, 30, &[(1, 1_200_000)]));
    assert_eq!(found, [FindingKind::StakeAboveMaximum]);
    let (_, found) = judge(time_collection(5_000, 30, &[(1, 5_000)]));
    assert_eq!(found, [FindingKind::StakeBelowMinimum]);
    // 45 minutes is no period of the plan: refused.
    assert!(Round::parse(&time_collection(20_000, 45, &[(1, 30_000)])).is_err());
}

#[test]
fn time_collection_read_per_table_takes_the_plans_range_for_the_whole_table() {
    let mut plan = plan();
    if let Some(pp) = plan.poker_cash.as_mut() {
        pp.time_collection_per = crate::plan::poker::TimeCollectionPer::Table;
    }
    let judge = |record: Value| {
        let round = Round::parse(&record).unwrap();
        let v = crate::adjudication::adjudicate(&plan, &round).unwrap();
        (v.stakes_h, kinds(&v.findings))
    };
    // 40 Kč each from three players: the table pays 120 Kč per half hour, inside 100–10 000 Kč
    // (per player, 40 Kč would be below the plan's 100 Kč).
    let (collected, found) = judge(time_collection(
        4_000,
        30,
        &[(1, 4_000), (2, 4_000), (3, 4_000)],
    ));
    assert_eq!((collected, found), (12_000, vec![]));
    // 4 000 Kč each from three players: 12 000 Kč for the table, above its 10 000 Kč.
    let (_, found) = judge(time_collection(
        400_000,
        30,
        &[(1, 400_000), (2, 400_000), (3, 400_000)],
    ));
    assert_eq!(found, [FindingKind::StakeAboveMaximum]);
}

#[test]
fn the_dealers_side_pots_are_checked_against_the_chips() {
    // The side-pot hand above, with the dealer's pots given: right, then with the second side
    // pot (3 000 Kč for seats 4 and 5) also offered to seat 3.
    let base = |pots: Value| {
        let mut record = side_pot_hand();
        record["pots"] = pots;
        judge(record).1
    };
    let right = json!([
        {"amount_h": 402_500, "seats": [2, 3, 4, 5]},
        {"amount_h": 450_000, "seats": [3, 4, 5]},
        {"amount_h": 300_000, "seats": [5, 4]}
    ]);
    assert!(base(right).is_empty());
    let wrong = json!([
        {"amount_h": 402_500, "seats": [2, 3, 4, 5]},
        {"amount_h": 450_000, "seats": [3, 4, 5]},
        {"amount_h": 300_000, "seats": [3, 4, 5]}
    ]);
    let findings = base(wrong);
    assert_eq!(kinds(&findings), [FindingKind::ChipsNotConserved]);
    assert!(findings[0].message.contains("pot 3"), "{findings:?}");
}

#[test]
fn a_hand_played_for_blinds_other_than_the_tables_posted_ones_is_a_finding() {
    // The side-pot hand is played for 25/50 Kč blinds.
    let record = side_pot_hand();
    let posted = |small: i64, big: i64| {
        crate::test_support::posting(
            &plan(),
            GameCode::PokerCash,
            json!({"small_blind_h": small, "big_blind_h": big}),
        )
    };
    let v = crate::test_support::verdict_at(plan(), posted(2_500, 5_000), record.clone());
    assert!(v.is_clean(), "{:?}", v.findings);
    // Posted 50/100 Kč: the small blind is 25 Kč = 2 500 h short, the big 50 Kč = 5 000 h.
    let v = crate::test_support::verdict_at(plan(), posted(5_000, 10_000), record.clone());
    let found = crate::test_support::kinds_and_amounts(&v.findings);
    assert_eq!(
        found,
        [
            (FindingKind::StakeBelowTableMinimum, 2_500),
            (FindingKind::StakeBelowTableMinimum, 5_000)
        ]
    );
    // Posted 25/25 Kč: the big blind of 50 Kč is 2 500 h above it.
    let v = crate::test_support::verdict_at(plan(), posted(2_500, 2_500), record);
    assert_eq!(kinds(&v.findings), [FindingKind::StakeAboveTableMaximum]);
    assert_eq!(v.findings[0].amount_h, 2_500);
}

#[test]
fn a_void_hand_puts_every_chip_back_where_it_was_and_takes_no_rake() {
    // A misdeal after the blinds: seat 1 posted 25 Kč, seat 2 50 Kč. Each gets its own back.
    let mut record = hand(
        "holdem",
        2,
        unshown(&[1, 2]),
        &["1 preflop small_blind 2500", "2 preflop big_blind 5000"],
        "",
        &[(1, 2_500), (2, 5_000)],
        0,
    );
    record["void"] = json!({"reason": "misdeal"});
    let v = crate::test_support::verdict_with(plan(), record.clone());
    assert!(v.is_clean(), "{:?}", v.findings);
    assert!(v.void);
    // The 75 Kč pushed to the big blind less a 5 Kč rake: seat 1 is 2 500 h short, seat 2 got
    // 7 000 − 5 000 = 2 000 h too much, and a void hand pays no rake (500 h).
    record["awards"] = json!([{"seat": 2, "amount_h": 7_000}]);
    record["rake_h"] = json!(500);
    let v = crate::test_support::verdict_with(plan(), record);
    let found = crate::test_support::kinds_and_amounts(&v.findings);
    assert_eq!(
        found,
        [
            (FindingKind::VoidHandledWrongly, 2_500),
            (FindingKind::VoidHandledWrongly, 2_000),
            (FindingKind::VoidHandledWrongly, 500),
        ]
    );
}

#[test]
fn a_hand_may_start_without_a_small_blind_and_a_newcomer_may_post_a_big_blind() {
    // Seeds 001/002. Three seats, button 3; the small blind's player left, so seat 1, first
    // left of the button, posts the big blind and there is no small blind. Seats 2 and 3 fold:
    // the uncalled 50 Kč goes back to seat 1, nothing was won, no rake (5 % of 0).
    let (expected, findings) = judge(hand(
        "holdem",
        3,
        unshown(&[1, 2, 3]),
        &[
            "1 preflop big_blind 5000",
            "2 preflop fold",
            "3 preflop fold",
        ],
        "",
        &[(1, 5_000)],
        0,
    ));
    assert!(findings.is_empty(), "{findings:?}");
    // An uncalled bet handed back is neither stake nor payout in the verdict.
    assert_eq!(expected, [(1, 0), (2, 0), (3, 0)]);

    // Four seats, button 4: blinds 25/50 Kč from seats 1 and 2, and seat 3, new to the game,
    // posts a big blind of 50 Kč to enter (a live bet: it may check). Seats 4 and 1 fold;
    // 2 and 3 check down. Pot 25 + 50 + 50 = 125 Kč; rake 5 % = 6,25 Kč → 6 Kč (whole Kč);
    // seat 2's aces beat seat 3's kings: 125 − 6 = 119 Kč = 11 900 h.
    let streets = checked_down(
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop big_blind 5000",
            "3 preflop check",
            "4 preflop fold",
            "1 preflop fold",
            "2 preflop check",
        ],
        &[2, 3],
    );
    let (expected, findings) = judge(hand(
        "holdem",
        4,
        json!([
            seat(1, 100_000, None),
            seat(2, 100_000, Some("As Ad")),
            seat(3, 100_000, Some("Kc Kd")),
            seat(4, 100_000, None)
        ]),
        &streets,
        "2h 7c 9s Js 3d",
        &[(2, 11_900)],
        600,
    ));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(expected, [(1, 0), (2, 11_900), (3, 0), (4, 0)]);
}

#[test]
fn a_misdeal_after_two_players_acted_is_a_finding_for_every_chip_that_went_back() {
    // Seeds 000–002: "V okamžiku, kdy jednali dva a více Hráčů, již nemůže nastat Misdeal. Hra
    // se musí dohrát …" and "Blindy se potom nevrací". Four seats, button 4, blinds 25/50 Kč:
    // seat 3 calls 50 Kč, seat 4 raises to 150 Kč, seat 1 folds, seats 2 and 3 call 150 Kč; the
    // flop is dealt, then the hand is declared a misdeal and every chip goes back.
    let misdeal = |actions: &[&str], awards: &[(u8, i64)], board: &str| {
        let mut record = hand(
            "holdem",
            4,
            unshown(&[1, 2, 3, 4]),
            actions,
            board,
            awards,
            0,
        );
        record["void"] = json!({"reason": "misdeal"});
        crate::test_support::verdict_with(plan(), record)
    };
    let v = misdeal(
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop call",
            "4 preflop raise 15000",
            "1 preflop fold",
            "2 preflop call",
            "3 preflop call",
        ],
        &[(1, 2_500), (2, 15_000), (3, 15_000), (4, 15_000)],
        "2h 7c 9s",
    );
    // Four players acted (3, 4, 1, 2). Back went 25 + 150 + 150 + 150 = 475 Kč = 47 500 h,
    // each seat's own chips (no finding of its own); the plan allowed none of it to go back.
    let found: Vec<(FindingKind, Option<i64>, Option<i64>, i64)> = v
        .findings
        .iter()
        .map(|f| (f.kind, f.expected_h, f.actual_h, f.amount_h))
        .collect();
    assert_eq!(
        found,
        [(
            FindingKind::VoidHandledWrongly,
            Some(0),
            Some(47_500),
            47_500
        )]
    );
    let message = &v.findings[0].message;
    assert!(
        message.contains("after 4 players had acted (seats 3, 4, 1, 2)")
            && message.contains("475,00 Kč")
            && message.contains("blinds of 75,00 Kč"),
        "{message}"
    );
    // Only seat 3 acted (a fold) when the misdeal was found: it stands, the blinds go back.
    let v = misdeal(
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop fold",
        ],
        &[(1, 2_500), (2, 5_000)],
        "",
    );
    assert!(v.is_clean(), "{:?}", v.findings);
    // Two acted (seat 3 folds, seat 4 calls 50 Kč): too late; 25 + 50 + 50 = 125 Kč went back.
    let v = misdeal(
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop fold",
            "4 preflop call",
        ],
        &[(1, 2_500), (2, 5_000), (4, 5_000)],
        "",
    );
    assert_eq!(kinds(&v.findings), [FindingKind::VoidHandledWrongly]);
    assert_eq!(v.findings[0].amount_h, 12_500);
    // Two identical cards void a hand at any time ("všechny úkony jsou neplatné"): no finding.
    let mut record = hand(
        "holdem",
        4,
        unshown(&[1, 2, 3, 4]),
        &[
            "1 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop fold",
            "4 preflop call",
        ],
        "",
        &[(1, 2_500), (2, 5_000), (4, 5_000)],
        0,
    );
    record["void"] = json!({"reason": "duplicate_card"});
    assert!(crate::test_support::verdict_with(plan(), record).is_clean());
}

#[test]
fn a_newcomer_dealt_in_between_the_button_and_the_big_blind_is_the_one_named() {
    // Seed 001, Pravidla používání blindů 6: "Nikdy nemůže nový hráč začít hrát mezi buttonem
    // a big blindem." Regulars at seats 1, 3, 5, 8, button 3: seat 5 posts the small blind
    // (25 Kč), seat 8 the big blind (50 Kč), as they must. A newcomer at seat 4, between the
    // button and the small blind, is dealt in. Everyone folds to the big blind: the pot is
    // 2 × 25 Kč (the big blind's other 25 Kč is uncalled and goes back), rake 5 % of 50 Kč =
    // 2,50 Kč → 2 Kč; seat 8 gets 25 + 50 − 2 = 73 Kč = 7 300 h.
    let seats = |newcomer: u8| {
        let mut list: Vec<u8> = vec![1, 3, 5, 8, newcomer];
        list.sort_unstable();
        json!(list
            .into_iter()
            .map(|n| seat(n, 100_000, None))
            .collect::<Vec<_>>())
    };
    let (_, findings) = judge(hand(
        "holdem",
        3,
        seats(4),
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
    ));
    // One finding, naming the newcomer's seat; the blinds, posted where they belong, are not
    // named (before, seats 5 and 8 were: "posted by seat 5, but seat 4 is in that position").
    assert_eq!(kinds(&findings), [FindingKind::IllegalDecision]);
    assert_eq!(findings[0].bet_ids, Some(vec!["seat-4".to_owned()]));
    assert!(
        findings[0]
            .message
            .contains("seat 4 is dealt in between the button (seat 3) and the big blind"),
        "{}",
        findings[0].message
    );
    // A newcomer between the small and the big blind (seat 6) is named the same way.
    let (_, findings) = judge(hand(
        "holdem",
        3,
        seats(6),
        &[
            "5 preflop small_blind 2500",
            "8 preflop big_blind 5000",
            "1 preflop fold",
            "3 preflop fold",
            "5 preflop fold",
            "6 preflop fold",
        ],
        "",
        &[(8, 7_300)],
        200,
    ));
    let named: Vec<Option<Vec<String>>> = findings.iter().map(|f| f.bet_ids.clone()).collect();
    assert_eq!(named, [Some(vec!["seat-6".to_owned()])]);
    // Heads-up at seats 2 and 3, button 3 posting the small blind, seat 2 the big blind; a
    // newcomer at seat 1 sits between them (clockwise 3 → 1 → 2). The button folds, then the
    // newcomer: 25 Kč of the big blind's 50 Kč is uncalled, the pot 50 Kč, rake 2 Kč.
    let (_, findings) = judge(hand(
        "holdem",
        3,
        unshown(&[1, 2, 3]),
        &[
            "3 preflop small_blind 2500",
            "2 preflop big_blind 5000",
            "3 preflop fold",
            "1 preflop fold",
        ],
        "",
        &[(2, 7_300)],
        200,
    ));
    let named: Vec<Option<Vec<String>>> = findings.iter().map(|f| f.bet_ids.clone()).collect();
    assert_eq!(named, [Some(vec!["seat-1".to_owned()])]);
}
