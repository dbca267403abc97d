//! Hand-computed blackjack cases. Amounts in haléře: 100 Kč = 10 000 h.

use serde_json::{json, Value};

use super::*;
use crate::record::Round;
use crate::verdict::FindingKind;

use crate::plan::bundled_plan as plan;

/// A round of one shoe, no burns, with the given deal and boxes.
fn round(deal: &str, boxes: Value) -> Value {
    json!({
        "type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:00:00Z",
        "shoe_id": "S1", "deal": deal.split_whitespace().collect::<Vec<_>>(), "boxes": boxes
    })
}

fn one_box(hands: Value, bets: Value) -> Value {
    json!([{"box": 1, "hands": hands, "bets": bets}])
}

fn main_bet(id: &str, stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "p1", "kind": "main", "stake_h": stake_h, "paid_h": paid_h})
}

fn side(id: &str, kind: &str, stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "p1", "kind": kind, "stake_h": stake_h, "paid_h": paid_h})
}

use crate::test_support::verdict_with;

/// A box that stands with a 100 Kč main bet `b1` paid `paid_h` and an insurance `i1` of
/// `(stake_h, paid_h)`, dealt `deal`.
fn insured_stand(deal: &str, paid_h: i64, (stake_h, insurance_paid_h): (i64, i64)) -> Value {
    let bets = json!([
        main_bet("b1", 10_000, paid_h),
        side("i1", "insurance", stake_h, insurance_paid_h)
    ]);
    round(deal, one_box(json!([["stand"]]), bets))
}

/// Box 8♠ 8♦ against the dealer's 6♥, split twice, one hand doubled, with `bets`.
fn split_eights(bets: Value) -> Value {
    let hands = json!([
        ["split"],
        ["split"],
        ["double"],
        ["stand"],
        ["hit", "stand"]
    ]);
    round("8s 6h 8d 8c 3d Kc Tc 2h 9s Js 7d", one_box(hands, bets))
}

fn verdict(record: Value) -> Verdict<'static> {
    verdict_with(plan(), record)
}

fn kinds(v: &Verdict) -> Vec<FindingKind> {
    crate::test_support::kinds(&v.findings)
}

fn expected(v: &Verdict, bet_id: &str) -> i64 {
    v.bets
        .iter()
        .find(|b| b.bet_id == bet_id)
        .unwrap()
        .expected_paid_h
}

#[test]
fn blackjack_pays_3_to_2() {
    // Box A♥ K♦ against the dealer's 9♠: no dealer blackjack is possible, nothing else stands,
    // so the dealer draws nothing. 100 Kč × 3/2 = 150 Kč + the stake 100 Kč = 250 Kč = 25 000 h.
    let v = verdict(round(
        "Ah 9s Kd",
        one_box(json!([[]]), json!([main_bet("b1", 10_000, 25_000)])),
    ));
    assert_eq!(expected(&v, "b1"), 25_000);
    assert!(v.is_clean(), "{:?}", v.findings);
    // Against a ten the dealer checks for blackjack: T♠ then 7♣ = 17, no blackjack: 250 Kč.
    // Stopping after the second card is right; completing a 16 (T♠ 6♣ 5♦) is allowed too.
    for deal in ["Ah Ts Kd 7c", "Ah Ts Kd 6c", "Ah Ts Kd 6c 5d"] {
        let v = verdict(round(
            deal,
            one_box(json!([[]]), json!([main_bet("b1", 10_000, 25_000)])),
        ));
        assert!(v.is_clean(), "{deal}: {:?}", v.findings);
    }
    // Drawing although nothing waits on the dealer is a finding.
    let v = verdict(round(
        "Ah 9s Kd 7c",
        one_box(json!([[]]), json!([main_bet("b1", 10_000, 25_000)])),
    ));
    assert_eq!(kinds(&v), [FindingKind::DealerDrawingWrong]);
    // An odd stake: 50,01 Kč × 3/2 = 75,015 Kč → 75,01 Kč (whole haléře, rounded down) + stake.
    let v = verdict(round(
        "Ah 9s Kd",
        one_box(json!([[]]), json!([main_bet("b1", 5_001, 12_502)])),
    ));
    assert_eq!(expected(&v, "b1"), 7_501 + 5_001);
}

#[test]
fn eights_split_to_three_hands_with_a_double_and_the_dealer_busts() {
    // Deal: box 8♠, dealer 6♥, box 8♦. Split; the left 8♠ gets 8♣ and is split again;
    // 8♠ + 3♦ = 11 doubles and gets K♣ (21); 8♣ + T♣ = 18 stands; 8♦ + 2♥ = 10 hits 9♠ (19)
    // and stands. The dealer: 6♥ + J♠ = 16, draws 7♦ = 23, bust.
    // Stakes: 100 Kč on each of three hands, doubled on one: 400 Kč in all, every hand wins
    // 1:1: 200 + 200 + 200 … = 2 × 400 Kč = 800 Kč = 80 000 h.
    let v = verdict(split_eights(json!([main_bet("b1", 10_000, 80_000)])));
    assert_eq!(expected(&v, "b1"), 80_000);
    assert_eq!(v.stakes_h, 40_000);
    assert!(v.is_clean(), "{:?}", v.findings);
}

#[test]
fn a_dealer_blackjack_takes_the_double_too_unless_the_plan_says_otherwise() {
    // Box 6♣ 5♦ = 11 doubles, gets 9♥: 20 on 200 Kč. Dealer A♠ then K♦: blackjack.
    // Default (lose all): 0 back. Original bet only: the double (100 Kč) comes back.
    let record = round(
        "6c As 5d 9h Kd",
        one_box(json!([["double"]]), json!([main_bet("b1", 10_000, 0)])),
    );
    let v = verdict(record.clone());
    assert_eq!(expected(&v, "b1"), 0);
    assert_eq!(v.stakes_h, 20_000);
    assert!(v.is_clean(), "{:?}", v.findings);
    let mut lenient = plan();
    if let Some(b) = lenient.blackjack.as_mut() {
        b.dealer_blackjack_takes = DealerBlackjackTakes::OriginalBetOnly;
    }
    let v = verdict_with(lenient, record);
    assert_eq!(expected(&v, "b1"), 10_000);
}

#[test]
fn insurance_pays_2_to_1_on_a_dealer_blackjack_and_only_on_an_ace() {
    // Dealer A♠ K♦ = blackjack; insurance 50 Kč (half of 100 Kč) returns 50 × 2 + 50 = 150 Kč.
    // The player's 20 loses: 0.
    let v = verdict(insured_stand("Tc As Qd Kd", 0, (5_000, 15_000)));
    assert_eq!(expected(&v, "i1"), 15_000);
    assert!(v.is_clean(), "{:?}", v.findings);
    // Insurance above half the bet (60 Kč on 100 Kč) cannot be taken: returned, with a finding.
    let v = verdict(insured_stand("Tc As Qd Kd", 0, (6_000, 18_000)));
    assert_eq!(expected(&v, "i1"), 6_000);
    assert!(kinds(&v).contains(&FindingKind::BetNotAllowed));
    // Against a dealer 9 there is no insurance: returned (and the overpayment shown).
    let v = verdict(insured_stand("Tc 9s Qd 8d", 20_000, (5_000, 0)));
    // Player 20 against 9 + 8 = 17: wins 100 Kč: 20 000 h back.
    assert_eq!(expected(&v, "b1"), 20_000);
    assert_eq!(expected(&v, "i1"), 5_000);
    assert_eq!(
        kinds(&v),
        [FindingKind::BetNotAllowed, FindingKind::Underpaid]
    );
}

#[test]
fn perfect_pairs_pays_5_10_and_25_to_1() {
    // 25 Kč on the pair: mixed 4♥ 4♠ 25 × 5 + 25 = 150 Kč; coloured 4♣ 4♠ 25 × 10 + 25 = 275 Kč;
    // perfect 4♥ 4♥ 25 × 25 + 25 = 650 Kč; no pair: 0. The box stands on 8; the dealer's
    // T♦ 7♣ = 17 wins the main bet.
    for (first, second, paid) in [
        ("4h", "4s", 15_000),
        ("4c", "4s", 27_500),
        ("4h", "4h", 65_000),
        ("4h", "5h", 0),
    ] {
        let v = verdict(round(
            &format!("{first} Td {second} 7c"),
            one_box(
                json!([["stand"]]),
                json!([
                    main_bet("b1", 10_000, 0),
                    side("pp", "perfect_pairs", 2_500, paid)
                ]),
            ),
        ));
        assert_eq!(expected(&v, "pp"), paid, "{first} {second}");
        assert!(v.is_clean(), "{first} {second}: {:?}", v.findings);
    }
}

#[test]
fn illegal_decisions_are_findings_and_the_cards_still_count() {
    // K♦ 5♣ hits 6♦ (21) and hits again on 21: 2♣ makes 23, bust: 0 back.
    let v = verdict(round(
        "Kd 9s 5c 6d 2c",
        one_box(json!([["hit", "hit"]]), json!([main_bet("b1", 10_000, 0)])),
    ));
    assert_eq!(expected(&v, "b1"), 0);
    assert_eq!(kinds(&v), [FindingKind::IllegalDecision]);
    assert!(v.findings[0].message.contains("`hit` on 21"));

    // K♦ 9♣ are not a pair: the split is a finding (played as the table played it).
    let v = verdict(round(
        "Kd 7s 9c 2d 3h Ts",
        one_box(
            json!([["split"], ["stand"], ["stand"]]),
            json!([main_bet("b1", 10_000, 0)]),
        ),
    ));
    assert!(
        v.findings[0].message.contains("not a pair"),
        "{:?}",
        v.findings
    );

    // Aces split take one card each: a hit on a split ace is illegal.
    let v = verdict(round(
        "Ah 7s Ad 5c 9d 2h Ts",
        one_box(
            json!([["split"], ["hit"], []]),
            json!([main_bet("b1", 10_000, 0)]),
        ),
    ));
    assert!(
        v.findings.iter().any(|f| f.message.contains("split ace")),
        "{:?}",
        v.findings
    );
}

#[test]
fn the_dealer_stands_on_every_17_and_draws_to_16() {
    // Dealer 7♣ + K♦ = 17 and then draws 2♥: drawing on 17 is a finding, and the bet is
    // settled on the 17 the plan stands on: the player's 18 wins 1:1 (200 Kč back).
    let v = verdict(round(
        "Tc 7c 8d Kd 2h",
        one_box(json!([["stand"]]), json!([main_bet("b1", 10_000, 20_000)])),
    ));
    assert_eq!(kinds(&v), [FindingKind::DealerDrawingWrong]);
    // Soft 17 (A♠ 6♥) stands: player 18 wins 1:1, clean.
    let v = verdict(round(
        "Tc As 8d 6h",
        one_box(json!([["stand"]]), json!([main_bet("b1", 10_000, 20_000)])),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    // The dealer stops on 16 (9♣ 7♦): a finding; settled on what happened (player 18 wins).
    let v = verdict(round(
        "Tc 9c 8d 7d",
        one_box(json!([["stand"]]), json!([main_bet("b1", 10_000, 20_000)])),
    ));
    assert_eq!(kinds(&v), [FindingKind::DealerDrawingWrong]);
    assert!(v.findings[0].message.contains("stood on 16"));
}

#[test]
fn a_withheld_win_returns_exactly_the_stake_and_is_always_for_review() {
    // Player 20 against 18 wins 100 Kč, but the casino withholds it: 100 Kč back.
    let mut bet = main_bet("b1", 10_000, 10_000);
    bet["withheld"] = json!(true);
    let v = verdict(round(
        "Tc 9c Qd 9d",
        one_box(json!([["stand"]]), json!([bet])),
    ));
    assert_eq!(expected(&v, "b1"), 10_000);
    assert_eq!(kinds(&v), [FindingKind::PayoutWithheld]);
    // Withheld and not even the stake returned: also underpaid.
    let mut bet = main_bet("b1", 10_000, 0);
    bet["withheld"] = json!(true);
    let v = verdict(round(
        "Tc 9c Qd 9d",
        one_box(json!([["stand"]]), json!([bet])),
    ));
    assert_eq!(
        kinds(&v),
        [FindingKind::Underpaid, FindingKind::PayoutWithheld]
    );
}

#[test]
fn limits_burns_and_cards_beyond_the_shoe() {
    // 40 Kč is below the 50 Kč minimum; three players at 100 Kč, 100 Kč and 25 000 Kč exceed
    // the 25 000 Kč box maximum by 200 Kč; a fourth main bet is one too many.
    let bets = json!([
        {"bet_id": "a", "player": "p1", "kind": "main", "stake_h": 4_000, "paid_h": 0},
        {"bet_id": "b", "player": "p2", "kind": "main", "stake_h": 10_000, "paid_h": 0},
        {"bet_id": "c", "player": "p3", "kind": "main", "stake_h": 10_000, "paid_h": 0},
        {"bet_id": "d", "player": "p4", "kind": "main", "stake_h": 2_480_000, "paid_h": 0}
    ]);
    let v = verdict(round("Tc 9c 7d Td", one_box(json!([["stand"]]), bets)));
    let found = kinds(&v);
    assert!(found.contains(&FindingKind::StakeBelowMinimum));
    let above = v
        .findings
        .iter()
        .find(|f| f.kind == FindingKind::StakeAboveMaximum)
        .unwrap();
    assert_eq!(
        above.amount_h,
        4_000 + 10_000 + 10_000 + 2_480_000 - 2_500_000
    );
    assert!(found.contains(&FindingKind::BetNotAllowed));

    // After a shuffle the plan burns three cards; two were burned. And a seventh A♠ in a
    // six-deck shoe.
    let mut record = round(
        "As 9c As As As As As Td",
        json!([
            {"box": 1, "hands": [["stand"]], "bets": [main_bet("b1", 10_000, 0)]},
            {"box": 2, "hands": [[]], "bets": [{"bet_id": "b2", "player": "p2", "kind": "main", "stake_h": 10_000, "paid_h": 0}]},
            {"box": 3, "hands": [[]], "bets": [{"bet_id": "b3", "player": "p3", "kind": "main", "stake_h": 10_000, "paid_h": 0}]}
        ]),
    );
    record["shuffled"] = json!(true);
    record["burned"] = json!(["As", "2c"]);
    let v = verdict(record);
    let cards: Vec<&str> =
        crate::test_support::messages(&v.findings, FindingKind::CardsInconsistent);
    assert_eq!(cards.len(), 2, "{:?}", v.findings);
    assert!(cards[0].contains("2 cards burned"));
    assert!(cards[1].contains("As appears more than 6 times"));
}

#[test]
fn unreadable_records_are_refused_and_impossible_ones_kept_with_a_finding() {
    let good = round(
        "Tc 9c 7d Td",
        one_box(json!([["stand"]]), json!([main_bet("b1", 10_000, 0)])),
    );
    assert!(Round::parse(&good).is_ok());
    let mut bad_card = good.clone();
    bad_card["deal"][0] = json!("1X");
    let mut short_deal = good.clone();
    short_deal["deal"] = json!(["Tc", "9c"]);
    let mut hands_miscounted = good.clone();
    hands_miscounted["boxes"][0]["hands"] = json!([["split"], ["stand"]]);
    let mut box_twice = good.clone();
    box_twice["boxes"] = json!([good["boxes"][0], good["boxes"][0]]);
    let mut no_main = good.clone();
    no_main["boxes"][0]["bets"] = json!([side("pp", "perfect_pairs", 2_500, 0)]);
    let mut unknown_decision = good.clone();
    unknown_decision["boxes"][0]["hands"] = json!([["surrender"]]);
    for (name, record) in [
        ("bad card", bad_card),
        ("hands miscounted", hands_miscounted),
        ("box twice", box_twice),
        ("no main bet", no_main),
        ("unknown decision", unknown_decision),
    ] {
        assert!(Round::parse(&record).is_err(), "{name}");
    }
    // Too few cards for what was played is found when replaying: not a panic, and not a
    // refusal either — the signed round is kept with a finding saying it cannot have happened.
    let round = Round::parse(&short_deal).unwrap();
    let plan = plan();
    let Round::Blackjack(r) = &round else {
        panic!("not blackjack")
    };
    let error = adjudicate(plan.blackjack().unwrap(), &plan, &TableSetup::NONE, r).unwrap_err();
    assert!(matches!(error, RecordError::Impossible { .. }), "{error}");
    let v = verdict(short_deal.clone());
    assert_eq!(kinds(&v), [FindingKind::RecordImpossible]);
    assert!(
        v.findings[0].message.contains("no card left"),
        "{:?}",
        v.findings
    );
    // Its money as reported: the stakes and what was paid, no payout claimed wrong.
    let stakes: i64 = short_deal["boxes"][0]["bets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["stake_h"].as_i64().unwrap())
        .sum();
    assert_eq!((v.stakes_h, v.expected_paid_h), (stakes, v.paid_h));
}

#[test]
fn a_fabricated_pile_of_hits_is_judged_without_overflow() {
    // 300 aces hit onto one hand: every hit after 21 is illegal, the hand is bust, no panic.
    let deal = std::iter::repeat_n("As", 303).collect::<Vec<_>>().join(" ");
    let hits: Vec<&str> = std::iter::repeat_n("hit", 300).collect();
    let v = verdict(round(
        &deal,
        one_box(json!([hits]), json!([main_bet("b1", 10_000, 0)])),
    ));
    assert_eq!(expected(&v, "b1"), 0);
    assert!(kinds(&v).contains(&FindingKind::IllegalDecision));
    assert!(kinds(&v).contains(&FindingKind::CardsInconsistent));
}

#[test]
fn round_statistics_cover_every_stake_and_price_the_main_bet_by_the_house_edge() {
    let plan = plan();
    let figures = plan.theoretical.blackjack.as_ref().unwrap();
    let edge = figures.shoe.house_edge();
    // Basic strategy on six decks, no hole card, lose all: about half a per cent.
    assert!((0.004..0.006).contains(&edge), "{edge}");
    // The split eights of the case above (two splits and a double) with 25 Kč on Perfect Pairs.
    let record = split_eights(json!([
        main_bet("b1", 10_000, 80_000),
        side("pp", "perfect_pairs", 2_500, 15_000)
    ]));
    let v = verdict(record.clone());
    let Round::Blackjack(r) = Round::parse(&record).unwrap() else {
        panic!("not blackjack")
    };
    let s = round_statistics(plan.blackjack().unwrap(), Some(figures), &r);
    // Main 100 Kč × (1 + 2 splits + 1 double) = 40 000 h, Perfect Pairs 2 500 h: the same
    // stakes as the verdict's actual ones.
    assert_eq!(s.rtp_stakes_h, 42_500);
    assert_eq!(s.rtp_stakes_h, v.stakes_h);
    // Main: 40 000 000 mh less the edge on the initial 10 000 h (10 000 000 × edge mh);
    // Perfect Pairs: 2 500 000 × 268 / 311 = 2 154 340.8 → 2 154 340 mh.
    let main_mh = 40_000_000 - (10_000_000.0 * edge).round() as i64;
    assert_eq!(s.expected_payout_mh, main_mh + 2_154_340);
    assert_eq!(
        round_statistics(plan.blackjack().unwrap(), None, &r).rtp_stakes_h,
        0
    );
}

#[test]
fn main_bets_and_perfect_pairs_are_judged_by_the_tables_posted_limits() {
    // Posted: 200 Kč a main bet, 5 000 Kč a box, 1 000 Kč Perfect Pairs.
    let limits = json!({"min_bet_h": 20_000, "max_bet_h": 500_000, "perfect_pairs_max_h": 100_000});
    // Box A♥ K♦ against the dealer's 9♠ (no draw): blackjack pays 3:2.
    // Main bets of 100 Kč (inside the plan's 50 Kč minimum, below the table's 200 Kč: 100 Kč
    // short) and 6 000 Kč: paid 100 × 5/2 = 250 Kč and 6 000 × 5/2 = 15 000 Kč. The box holds
    // 6 100 Kč, over the posted 5 000 Kč by 1 100 Kč = 110 000 h (the plan's 25 000 Kč allows it).
    // Perfect Pairs 2 000 Kč (A♥ K♦ no pair: lost) is over the posted 1 000 Kč by 100 000 h.
    let bets = json!([
        main_bet("m1", 10_000, 25_000),
        json!({"bet_id": "m2", "player": "p2", "kind": "main", "stake_h": 600_000, "paid_h": 1_500_000}),
        side("pp", "perfect_pairs", 200_000, 0)
    ]);
    let found = crate::test_support::posted_findings(
        GameCode::Blackjack,
        limits,
        round("Ah 9s Kd", one_box(json!([[]]), bets.clone())),
    );
    assert_eq!(
        found,
        [
            (FindingKind::StakeBelowTableMinimum, 10_000),
            (FindingKind::StakeAboveTableMaximum, 110_000),
            (FindingKind::StakeAboveTableMaximum, 100_000),
        ]
    );
    // Without posted limits the same box is clean.
    let v = verdict(round("Ah 9s Kd", one_box(json!([[]]), bets)));
    assert!(v.is_clean(), "{:?}", v.findings);
}

#[test]
fn a_void_round_is_a_finding_the_plan_has_no_void_blackjack_hand() {
    // Seed 000, Black Jack, 6. HRA: "Kterákoliv karta během rozdávání chybně použitá, vytažená,
    // či chybně přidělená komukoliv, se musí použít jako nejbližší další karta z ‚boty‘" — the
    // plan voids no blackjack hand. A "misdeal" after two cards: 100 Kč main bet and 25 Kč
    // Perfect Pairs handed back exactly: 100 + 25 = 125 Kč = 12 500 h went back unsettled.
    let mut record = round(
        "Ah 9s",
        one_box(
            json!([[]]),
            json!([
                main_bet("m", 10_000, 10_000),
                side("pp", "perfect_pairs", 2_500, 2_500)
            ]),
        ),
    );
    record["void"] = json!({"reason": "misdeal"});
    let v = verdict(record.clone());
    let amounts = |v: &Verdict| -> Vec<(FindingKind, Option<i64>, Option<i64>, i64)> {
        v.findings
            .iter()
            .map(|f| (f.kind, f.expected_h, f.actual_h, f.amount_h))
            .collect()
    };
    assert_eq!(
        amounts(&v),
        [(
            FindingKind::VoidHandledWrongly,
            Some(0),
            Some(12_500),
            12_500
        )]
    );
    assert!(
        v.findings[0]
            .message
            .contains("the plan has no void blackjack hand"),
        "{}",
        v.findings[0].message
    );
    // The verdict still says what the table did: void, every stake back.
    assert!(v.void);
    assert_eq!(v.void_reason, Some("misdeal"));
    assert_eq!(
        (v.stakes_h, v.expected_paid_h, v.paid_h),
        (12_500, 12_500, 12_500)
    );
    // Paid out as a blackjack instead: 100 × 3/2 + 100 = 250 Kč for a 100 Kč stake owed back,
    // 150 Kč = 15 000 h too much; 250 + 25 = 275 Kč went back unsettled.
    record["boxes"][0]["bets"][0]["paid_h"] = json!(25_000);
    let v = verdict(record);
    assert_eq!(
        amounts(&v),
        [
            (
                FindingKind::VoidHandledWrongly,
                Some(0),
                Some(27_500),
                27_500
            ),
            (
                FindingKind::VoidHandledWrongly,
                Some(10_000),
                Some(25_000),
                15_000
            )
        ]
    );
}
