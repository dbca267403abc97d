//! Hand-computed Ultimate Texas Hold'em cases. Amounts in haléře: 100 Kč = 10 000 h.

use serde_json::{json, Value};

use super::*;
use crate::record::Round;
use crate::verdict::FindingKind;

use crate::plan::bundled_plan as plan;

fn cards(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

fn round(dealer: &str, board: &str, spots: Value) -> Value {
    json!({
        "type": "round", "game": "ultimate_texas_holdem", "table_id": "U1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T21:00:00Z",
        "burned": ["2s", "3s"], "dealer": cards(dealer), "board": cards(board), "spots": spots
    })
}

/// One spot; `play` is (street, stake) or None for a fold; paid in ante, blind, play, trips order.
fn spot(hole: &str, ante: i64, play: Option<(&str, i64)>, trips: i64, paid: [i64; 4]) -> Value {
    let mut bets = vec![
        json!({"bet_id": "a", "kind": "ante", "stake_h": ante, "paid_h": paid[0]}),
        json!({"bet_id": "b", "kind": "blind", "stake_h": ante, "paid_h": paid[1]}),
    ];
    if let Some((_, stake)) = play {
        bets.push(json!({"bet_id": "p", "kind": "play", "stake_h": stake, "paid_h": paid[2]}));
    }
    if trips > 0 {
        bets.push(json!({"bet_id": "t", "kind": "trips", "stake_h": trips, "paid_h": paid[3]}));
    }
    let mut s = json!({"spot": 1, "player": "p1", "cards": cards(hole), "bets": bets});
    if let Some((street, _)) = play {
        s["play_street"] = json!(street);
    }
    s
}

use crate::test_support::verdict_with;

/// A round of one spot.
fn one_spot(
    dealer: &str,
    board: &str,
    hole: &str,
    ante: i64,
    play: Option<(&str, i64)>,
    trips: i64,
    paid: [i64; 4],
) -> Value {
    round(dealer, board, json!([spot(hole, ante, play, trips, paid)]))
}

/// Player 9♣ 9♦ against the dealer's K♠ K♦ on 2♥ 7♣ J♦ 4♠ 3♣ with a 100 Kč Ante, nothing paid.
fn nines_against_kings(play: (&str, i64), trips: i64) -> Value {
    one_spot(
        "Ks Kd",
        "2h 7c Jd 4s 3c",
        "9c 9d",
        10_000,
        Some(play),
        trips,
        [0, 0, 0, 0],
    )
}

/// A spot of `hole` against `dealer` on `board` that plays 4× the Ante before the flop.
fn four_times_before_the_flop(
    dealer: &str,
    board: &str,
    hole: &str,
    ante: i64,
    trips: i64,
    paid: [i64; 4],
) -> Value {
    let play = Some(("preflop", 4 * ante));
    one_spot(dealer, board, hole, ante, play, trips, paid)
}

/// Player A♥ 3♥ (an ace-high flush on 2♥ 7♥ 9♥ K♣ 4♦) against the dealer's Q♠ J♦, playing
/// 4× before the flop.
fn flush_against_queen_high(ante: i64, trips: i64, paid: [i64; 4]) -> Value {
    four_times_before_the_flop("Qs Jd", "2h 7h 9h Kc 4d", "Ah 3h", ante, trips, paid)
}

/// Player A♠ K♠ (a royal flush with Q♠ J♠ T♠ on the board) against the dealer's 2♣ 2♦ at the
/// 25 000 Kč maximum (Play 4 × 25 000 = 100 000 Kč), playing 4× before the flop.
fn royal_flush_at_the_maximum(paid: [i64; 4]) -> Value {
    let ante = 2_500_000;
    four_times_before_the_flop("2c 2d", "Qs Js Ts 5h 8d", "As Ks", ante, ante, paid)
}

/// The bets are paid `paid` and the verdict finds nothing.
fn assert_clean_paying<const N: usize>(v: &Verdict, paid: [i64; N]) {
    assert_eq!(expected(v), paid);
    assert!(v.is_clean(), "{:?}", v.findings);
}

fn verdict(record: Value) -> Verdict<'static> {
    verdict_with(plan(), record)
}

fn expected(v: &Verdict) -> Vec<i64> {
    v.bets.iter().map(|b| b.expected_paid_h).collect()
}

fn kinds(v: &Verdict) -> Vec<FindingKind> {
    crate::test_support::kinds(&v.findings)
}

#[test]
fn dealer_not_qualifying_while_the_player_has_a_flush() {
    // Board 2♥ 7♥ 9♥ K♣ 4♦; player A♥ 3♥: ace-high flush. Dealer Q♠ J♦: K-Q-J-9-7, no pair.
    // 100 Kč Ante, Blind, Trips; Play 4× = 400 Kč before the flop.
    // Ante pushes (dealer does not qualify): 100 Kč. Play 1:1: 800 Kč. Blind flush 3:2:
    // 150 + 100 = 250 Kč. Trips flush 7:1: 700 + 100 = 800 Kč.
    let paid = [10_000, 25_000, 80_000, 80_000];
    let v = verdict(flush_against_queen_high(10_000, 10_000, paid));
    assert_clean_paying(&v, paid);
}

#[test]
fn trips_on_a_folded_hand_is_settled_unless_the_plan_says_lost() {
    // Player 5♣ 5♦ with board 5♥ K♣ 9♠ 2♦ J♥: trips of fives, but folds.
    // Ante and Blind lose; Trips 3:1 on 100 Kč: 300 + 100 = 400 Kč (default: settled).
    let record = round(
        "Ac Kd",
        "5h Kc 9s 2d Jh",
        json!([spot("5c 5d", 10_000, None, 10_000, [0, 0, 0, 40_000])]),
    );
    let v = verdict(record.clone());
    assert_clean_paying(&v, [0, 0, 40_000]);
    let mut strict = plan();
    if let Some(u) = strict.ultimate_texas_holdem.as_mut() {
        u.trips_on_fold = TripsOnFold::Lost;
    }
    let v = verdict_with(strict, record);
    assert_eq!(expected(&v), [0, 0, 0]);
    assert_eq!(kinds(&v), [FindingKind::Overpaid]);
}

#[test]
fn wins_losses_and_ties_between_qualified_hands() {
    // 100 Kč Ante and Blind, no Trips; each case: dealer, board, player, Play and what Ante,
    // Blind and Play pay.
    let cases = [
        // Dealer K♠ K♦ (pair of kings) beats player 9♣ 9♦ (pair of nines) on 2♥ 7♣ J♦ 4♠ 3♣:
        // Ante, Blind and Play (2× after the flop) lose: 0.
        (
            "Ks Kd",
            "2h 7c Jd 4s 3c",
            "9c 9d",
            ("flop", 20_000),
            [0, 0, 0],
        ),
        // The board A♠ K♥ Q♦ J♣ T♠ is a straight for everyone: a tie, Ante, Blind and Play
        // (1× after the river) push: 100, 100, 100 Kč.
        (
            "2c 3d",
            "As Kh Qd Jc Ts",
            "4c 5d",
            ("river", 10_000),
            [10_000, 10_000, 10_000],
        ),
        // Two pair (A♣ A♦ + 7♣ 7♥) beats the dealer's pair of jacks: Ante and Play 1:1 (200 Kč,
        // 600 Kč for a 3× Play), the Blind pushes below a straight (100 Kč).
        (
            "Jh Js",
            "7c 7h 2d 9s 4c",
            "Ac Ad",
            ("preflop", 30_000),
            [20_000, 10_000, 60_000],
        ),
    ];
    for (dealer, board, hole, play, paid) in cases {
        let [ante, blind, play_paid] = paid;
        let record = one_spot(
            dealer,
            board,
            hole,
            10_000,
            Some(play),
            0,
            [ante, blind, play_paid, 0],
        );
        assert_clean_paying(&verdict(record), paid);
    }
}

#[test]
fn a_royal_flush_at_the_maximum_pays_14_050_000_kc() {
    // Ante = Blind = Trips = 25 000 Kč, Play 4× = 100 000 Kč, player A♠ K♠ with Q♠ J♠ T♠ on the
    // board, dealer pair of twos qualifies: Ante 50 000 + Blind 500:1 12 525 000 + Play 200 000
    // + Trips 50:1 1 275 000 = 14 050 000 Kč, exactly the plan's maximum.
    let paid = [5_000_000, 1_252_500_000, 20_000_000, 127_500_000];
    let v = verdict(royal_flush_at_the_maximum(paid));
    assert_eq!(expected(&v), paid);
    assert_eq!(paid.iter().sum::<i64>(), 1_405_000_000);
    assert!(v.is_clean(), "{:?}", v.findings);
    // Paying 1 Kč more is an overpayment and above the maximum.
    let v = verdict(royal_flush_at_the_maximum([
        5_000_100,
        1_252_500_000,
        20_000_000,
        127_500_000,
    ]));
    assert_eq!(
        kinds(&v),
        [FindingKind::Overpaid, FindingKind::WinAboveMaximum]
    );
}

#[test]
fn play_multiples_blind_equal_to_ante_trips_not_above_it_and_burns() {
    // 2× before the flop is not allowed (3× or 4×).
    let v = verdict(nines_against_kings(("preflop", 20_000), 0));
    assert_eq!(kinds(&v), [FindingKind::IllegalDecision]);
    // Trips 200 Kč above a 100 Kč Ante; and one card burned instead of two.
    let mut record = nines_against_kings(("flop", 20_000), 20_000);
    record["burned"] = json!(["2s"]);
    let v = verdict(record);
    assert_eq!(
        kinds(&v),
        [
            FindingKind::CardsInconsistent,
            FindingKind::StakeAboveMaximum
        ]
    );
    // A Blind that is not the Ante.
    let mut record = nines_against_kings(("flop", 20_000), 0);
    record["spots"][0]["bets"][1]["stake_h"] = json!(5_000);
    let v = verdict(record);
    assert_eq!(kinds(&v), [FindingKind::BetNotAllowed]);
}

#[test]
fn unreadable_records_are_refused_and_impossible_ones_kept_with_a_finding() {
    let good = nines_against_kings(("flop", 20_000), 0);
    assert!(Round::parse(&good).is_ok());
    // A card dealt twice from the one deck is readable: kept, with a finding saying so. The
    // spot's money as reported: 100 Kč Ante + 100 Kč Blind + 200 Kč Play = 40 000 h staked,
    // nothing paid.
    let mut duplicate = good.clone();
    duplicate["board"][0] = json!("Ks");
    let v = verdict(duplicate);
    assert_eq!(
        crate::test_support::kinds(&v.findings),
        [FindingKind::RecordImpossible]
    );
    assert!(
        v.findings[0]
            .message
            .starts_with("cards: Ks is dealt twice"),
        "{:?}",
        v.findings
    );
    assert_eq!((v.stakes_h, v.paid_h, v.expected_paid_h), (40_000, 0, 0));
    let mut bad_card = good.clone();
    bad_card["dealer"][0] = json!("1X");
    // A four-card board is readable: a hand not void cannot have been played out with it.
    let mut short_board = good.clone();
    short_board["board"] = json!(["2h", "7c", "Jd", "4s"]);
    let v = verdict(short_board);
    assert_eq!(
        crate::test_support::kinds(&v.findings),
        [FindingKind::RecordImpossible]
    );
    let mut six_board = good.clone();
    six_board["board"] = json!(["2h", "7c", "Jd", "4s", "3c", "5c"]);
    let mut play_without_street = good.clone();
    play_without_street["spots"][0]
        .as_object_mut()
        .unwrap()
        .remove("play_street");
    let mut three_hole_cards = good.clone();
    three_hole_cards["spots"][0]["cards"] = json!(["9c", "9d", "9h"]);
    for (name, record) in [
        ("bad card", bad_card),
        ("six board cards", six_board),
        ("play without street", play_without_street),
        ("three hole cards", three_hole_cards),
    ] {
        assert!(Round::parse(&record).is_err(), "{name}");
    }
}

#[test]
fn every_line_of_the_blind_and_trips_tables() {
    // Ante = Blind = Trips = 100 Kč, Play 1× at the river = 100 Kč; the dealer's 2♣ 2♦ qualifies
    // and loses every time, so Ante and Play pay 1:1 (200 Kč each).
    // Blind: stake × odds + stake; below a straight it pushes (100 Kč).
    // Trips: stake × odds + stake.
    let cases = [
        // straight 6-T: Blind 1:1 = 200, Trips 4:1 = 500
        ("9h Th", "6c 7d 8s Kc 3h", 20_000, 50_000),
        // ace-high flush: Blind 3:2 = 150 + 100 = 250, Trips 7:1 = 800
        ("Ah 3h", "5h 9h Jh Kc 4d", 25_000, 80_000),
        // nines full of kings (the dealer has kings and twos): Blind 3:1 = 400, Trips 8:1 = 900
        ("9h 9d", "9c Kc Ks 4d 7h", 40_000, 90_000),
        // four nines (the dealer: nines and twos): Blind 10:1 = 1 100, Trips 30:1 = 3 100
        ("9h 9d", "9c 9s Kc 4d 7h", 110_000, 310_000),
        // straight flush 6-T of hearts: Blind 50:1 = 5 100, Trips 40:1 = 4 100
        ("9h Th", "6h 7h 8h Kc 3d", 510_000, 410_000),
        // three nines: the Blind pushes (100), Trips 3:1 = 400
        ("9h 9d", "9c Kc 5s 4d 7h", 10_000, 40_000),
    ];
    for (hole, board, blind, trips) in cases {
        let paid = [20_000, blind, 20_000, trips];
        let v = verdict(round(
            "2c 2d",
            board,
            json!([spot(hole, 10_000, Some(("river", 10_000)), 10_000, paid)]),
        ));
        assert_eq!(expected(&v), paid, "{hole} on {board}");
        assert!(v.is_clean(), "{hole} on {board}: {:?}", v.findings);
    }
}

#[test]
fn round_statistics_price_ante_blind_play_by_the_exact_house_edge_and_trips_by_its_rtp() {
    let plan = plan();
    let figures = plan.theoretical.ultimate_texas_holdem.as_ref().unwrap();
    // The exact figures of the bundled plan: house edge 50 643 648 973 / 2 317 817 502 000
    // = 2.1850 % of the Ante; Trips returns 6 455 243 / 6 689 228 = 96.502 %.
    assert_eq!(
        (figures.house_edge.num, figures.house_edge.den),
        (50_643_648_973, 2_317_817_502_000)
    );
    assert_eq!(
        (figures.trips_rtp.num, figures.trips_rtp.den),
        (6_455_243, 6_689_228)
    );
    let record = flush_against_queen_high(10_000, 5_000, [10_000, 25_000, 80_000, 40_000]);
    let Round::UltimateTexasHoldem(r) = Round::parse(&record).unwrap() else {
        panic!("not UTH")
    };
    let s = round_statistics(Some(figures), &r);
    // Stakes: Ante 100 + Blind 100 + Play 400 + Trips 50 Kč = 65 000 h.
    assert_eq!(s.rtp_stakes_h, 65_000);
    // Ante + Blind + Play: 60 000 h = 60 000 000 mh, less the edge on the Ante:
    // 10 000 000 × 50 643 648 973 / 2 317 817 502 000 = 218 497.1 → 218 497 mh.
    // Trips: 5 000 000 × 6 455 243 / 6 689 228 = 4 825 103.1 → 4 825 103 mh.
    // 60 000 000 − 218 497 + 4 825 103 = 64 606 606 mh.
    assert_eq!(s.expected_payout_mh, 64_606_606);
    // Variance: (4.94 × 10 000)² + (2.68 × 5 000)² ≈ 2.44e9 + 1.8e8 h².
    let sd = (s.payout_variance_h2).sqrt();
    assert!((50_000.0..52_000.0).contains(&sd), "{sd}");
    // Without figures for the plan's rules the round is left out of the theoretical RTP.
    assert_eq!(round_statistics(None, &r).rtp_stakes_h, 0);
}

#[test]
fn ante_blind_and_trips_are_judged_by_the_tables_posted_limits() {
    // Posted: Ante 100 to 1 000 Kč, Trips at most 500 Kč.
    let limits = json!({"min_bet_h": 10_000, "max_bet_h": 100_000, "trips_max_h": 50_000});
    // The flush hand of `dealer_not_qualifying_while_the_player_has_a_flush` at 2 000 Kč Ante
    // and Blind, 8 000 Kč Play and 2 000 Kč Trips (Trips ≤ Ante, so the plan allows it):
    // Ante pushes 2 000 Kč; Blind flush 3:2: 3 000 + 2 000 = 5 000 Kč; Play 1:1: 16 000 Kč;
    // Trips flush 7:1: 14 000 + 2 000 = 16 000 Kč.
    // Ante and Blind are each over the posted 1 000 Kč by 1 000 Kč = 100 000 h; Trips over the
    // posted 500 Kč by 1 500 Kč = 150 000 h. The Play bet follows the Ante: no limit of its own.
    let paid = [200_000, 500_000, 1_600_000, 1_600_000];
    let record = flush_against_queen_high(200_000, 200_000, paid);
    let found =
        crate::test_support::posted_findings(GameCode::UltimateTexasHoldem, limits, record.clone());
    assert_eq!(
        found,
        [
            (FindingKind::StakeAboveTableMaximum, 100_000),
            (FindingKind::StakeAboveTableMaximum, 100_000),
            (FindingKind::StakeAboveTableMaximum, 150_000),
        ]
    );
    assert!(verdict(record).is_clean());
}

#[test]
fn a_void_hand_holds_what_was_dealt_and_returns_every_stake() {
    // Two identical cards turned up (K♠ twice) after the flop: the hand is void; the turn and
    // river were never dealt. 100 Kč Ante, Blind and Trips, and a 400 Kč Play made before the
    // flop: 700 Kč = 70 000 h, all returned.
    let mut record = json!({
        "type": "round", "game": "ultimate_texas_holdem", "table_id": "U1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T21:00:00Z",
        "burned": ["2s"], "dealer": cards("Ks Kd"), "board": cards("Ks 7c Jd"),
        "void": {"reason": "duplicate_card"},
        "spots": [spot("9c 9d", 10_000, Some(("preflop", 40_000)), 10_000,
                       [10_000, 10_000, 40_000, 10_000])]
    });
    let v = verdict(record.clone());
    assert!(v.is_clean(), "{:?}", v.findings);
    assert!(v.void);
    assert_eq!((v.stakes_h, v.paid_h), (70_000, 70_000));
    // The Play bet kept by the house: 400 Kč = 40 000 h short.
    record["spots"][0]["bets"][2]["paid_h"] = json!(0);
    let v = verdict(record.clone());
    assert_eq!(
        crate::test_support::kinds(&v.findings),
        [FindingKind::VoidHandledWrongly]
    );
    assert_eq!(v.findings[0].amount_h, 40_000);
    // Not void, the same three-card board cannot have been played out.
    record.as_object_mut().unwrap().remove("void");
    let v = verdict(record);
    assert_eq!(
        crate::test_support::kinds(&v.findings),
        [FindingKind::RecordImpossible]
    );
    assert!(
        v.findings[0].message.starts_with("board: 3 cards"),
        "{:?}",
        v.findings
    );
}
