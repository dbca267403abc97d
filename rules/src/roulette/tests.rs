//! Hand-computed roulette cases. Amounts in haléře: 100 Kč = 10 000 h.

use serde_json::{json, Value};

use super::pricing::payout_per_pocket;
use super::*;
use crate::record::Round;
use crate::statistics::RoundStatistics;

use crate::plan::bundled_plan as plan;

fn round(outcome: Value, bets: Value) -> Value {
    json!({
        "type": "round", "game": "roulette", "table_id": "R01", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T18:00:00Z",
        "outcome": outcome, "bets": bets
    })
}

fn number(n: u8) -> Value {
    json!({"result": "number", "number": n})
}

fn verdict(record: Value) -> Verdict<'static> {
    crate::test_support::verdict_with(plan(), record)
}

fn kinds(v: &Verdict) -> Vec<FindingKind> {
    crate::test_support::kinds(&v.findings)
}

fn bet(id: &str, kind: &str, numbers: &[u8], stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "seat-1", "kind": kind, "numbers": numbers,
           "stake_h": stake_h, "paid_h": paid_h})
}

fn call(id: &str, kind: &str, numbers: &[u8], chip_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "seat-1", "kind": kind, "numbers": numbers,
           "chip_h": chip_h, "paid_h": paid_h})
}

#[test]
fn straight_up_pays_35_to_1_plus_stake() {
    // 100 Kč on 17, 17 wins: 100 × 35 + 100 = 3 600 Kč = 360 000 h.
    let v = verdict(round(
        number(17),
        json!([bet("b1", "straight", &[17], 10_000, 360_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.expected_paid_h, 360_000);
    assert_eq!(v.stakes_h, 10_000);
}

#[test]
fn every_layout_bet_on_seventeen() {
    // 17 is black, odd, low (1-18), second dozen (13-24), second column (2-35).
    // 1 000 Kč = 100 000 h each.
    let bets = json!([
        bet("black", "black", &[], 100_000, 200_000), // 1:1 → 100 000 + 100 000
        bet("red", "red", &[], 100_000, 0),           // loses
        bet("odd", "odd", &[], 100_000, 200_000),
        bet("even", "even", &[], 100_000, 0),
        bet("low", "low", &[], 100_000, 200_000),
        bet("high", "high", &[], 100_000, 0),
        bet("d2", "dozen_2", &[], 100_000, 300_000), // 2:1 → 200 000 + 100 000
        bet("d1", "dozen_1", &[], 100_000, 0),
        bet("c2", "column_2", &[], 100_000, 300_000), // 17 = 3×5 + 2
        bet("c3", "column_3", &[], 100_000, 0),
        bet("split", "split", &[17, 20], 10_000, 180_000), // 17:1 → 170 000 + 10 000
        bet("street", "street", &[16, 17, 18], 10_000, 120_000), // 11:1 → 110 000 + 10 000
        bet("corner", "corner", &[13, 14, 16, 17], 10_000, 90_000), // 8:1 → 80 000 + 10 000
        bet("six", "six_line", &[16, 17, 18, 19, 20, 21], 10_000, 60_000), // 5:1 → 50 000 + 10 000
    ]);
    let v = verdict(round(number(17), bets));
    assert!(v.is_clean(), "{:?}", v.findings);
    // 3 × 200 000 + 2 × 300 000 + 180 000 + 120 000 + 90 000 + 60 000 = 1 650 000
    assert_eq!(v.expected_paid_h, 1_650_000);
    // 10 × 100 000 + 4 × 10 000 = 1 040 000
    assert_eq!(v.stakes_h, 1_040_000);
}

#[test]
fn zero_loses_even_chances_dozens_and_columns_but_pays_zero_positions() {
    let bets = json!([
        bet("red", "red", &[], 100_000, 0),
        bet("even", "even", &[], 100_000, 0),
        bet("d1", "dozen_1", &[], 100_000, 0),
        bet("c3", "column_3", &[], 100_000, 0),
        bet("s03", "split", &[0, 3], 10_000, 180_000), // 17:1 → 180 000
        bet("st023", "street", &[0, 2, 3], 10_000, 120_000), // 11:1 → 120 000
        bet("c0123", "corner", &[0, 1, 2, 3], 10_000, 90_000), // 8:1 → 90 000
    ]);
    let v = verdict(round(number(0), bets));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.expected_paid_h, 390_000); // 180 000 + 120 000 + 90 000
}

#[test]
fn call_bets_pay_their_winning_chips() {
    // Chip 100 Kč = 10 000 h.
    // Velká série on 0: street 0/2/3 carries 2 chips: 2 × 10 000 × (11 + 1) = 240 000.
    let v = verdict(round(
        number(0),
        json!([call("v", "voisins", &[], 10_000, 240_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.stakes_h, 90_000); // 9 chips

    // Velká série on 26: corner 25/26/28/29 carries 2 chips: 2 × 10 000 × 9 = 180 000.
    // Zero spiel on 26: straight 26: 10 000 × 36 = 360 000.
    let v = verdict(round(
        number(26),
        json!([
            call("v", "velka_serie", &[], 10_000, 180_000),
            call("z", "zero_spiel", &[], 10_000, 360_000),
        ]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.stakes_h, 90_000 + 40_000);

    // Orphelins on 17: splits 14/17 and 17/20 both win: 2 × 10 000 × 18 = 360 000.
    let v = verdict(round(
        number(17),
        json!([call("o", "orphelins", &[], 10_000, 360_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.stakes_h, 50_000);

    // Malá série on 33: split 33/36: 10 000 × 18 = 180 000. Neighbours of 5 on 24: 5 000 × 36.
    let v = verdict(round(
        number(33),
        json!([call("t", "mala_serie", &[], 10_000, 180_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    let v = verdict(round(
        number(24),
        json!([call("n", "neighbours", &[5], 5_000, 180_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert_eq!(v.stakes_h, 25_000); // 5 chips × 5 000
}

#[test]
fn overpaid_and_underpaid_with_amounts() {
    let v = verdict(round(
        number(1),
        json!([
            // 100 Kč on 1 should get 360 000; the table paid 370 000: overpaid by 10 000.
            bet("b1", "straight", &[1], 10_000, 370_000),
            // 500 Kč on red (1 is red) should get 100 000; the table only returned the stake.
            bet("b2", "red", &[], 50_000, 50_000),
        ]),
    ));
    assert_eq!(
        kinds(&v),
        vec![FindingKind::Overpaid, FindingKind::Underpaid]
    );
    assert_eq!(v.findings[0].amount_h, 10_000);
    assert_eq!(v.findings[1].amount_h, 50_000);
    assert_eq!(v.findings[1].expected_h, Some(100_000));
    assert_eq!(v.paid_h, 420_000);
}

#[test]
fn stakes_outside_the_limits() {
    // 5 Kč (500 h) is 5 Kč under the 10 Kč minimum; 30 000 Kč is 5 000 Kč over the maximum.
    let v = verdict(round(
        number(2),
        json!([
            bet("low", "straight", &[17], 500, 0),
            bet("high", "straight", &[18], 3_000_000, 0),
        ]),
    ));
    assert_eq!(
        kinds(&v),
        vec![
            FindingKind::StakeBelowMinimum,
            FindingKind::StakeAboveMaximum
        ]
    );
    assert_eq!(v.findings[0].amount_h, 500);
    assert_eq!(v.findings[1].amount_h, 500_000);
}

#[test]
fn the_maximum_is_per_player_and_position() {
    // Two chips of 20 000 Kč by one player on 17 are one bet of 40 000 Kč: 15 000 Kč over.
    // The same stakes by two players are two bets within the limit.
    let mut second = bet("b2", "straight", &[17], 2_000_000, 0);
    let one_player = verdict(round(
        number(3),
        json!([bet("b1", "straight", &[17], 2_000_000, 0), second.clone()]),
    ));
    assert_eq!(kinds(&one_player), vec![FindingKind::StakeAboveMaximum]);
    assert_eq!(one_player.findings[0].amount_h, 1_500_000);
    assert_eq!(
        one_player.findings[0].bet_ids,
        Some(vec!["b1".to_owned(), "b2".to_owned()])
    );
    second["player"] = json!("seat-2");
    let two_players = verdict(round(
        number(3),
        json!([bet("b1", "straight", &[17], 2_000_000, 0), second]),
    ));
    assert!(two_players.is_clean(), "{:?}", two_players.findings);
}

#[test]
fn call_bet_chips_are_checked_against_the_limits_position_by_position() {
    // Velká série with 15 000 Kč chips: street 0/2/3 and corner 25/26/28/29 carry two chips,
    // 30 000 Kč each, 5 000 Kč (500 000 h) over the maximum; the single chips are fine.
    let v = verdict(round(
        number(10),
        json!([call("v", "voisins", &[], 1_500_000, 0)]),
    ));
    assert_eq!(
        kinds(&v),
        vec![
            FindingKind::StakeAboveMaximum,
            FindingKind::StakeAboveMaximum
        ]
    );
    assert!(v.findings.iter().all(|f| f.amount_h == 500_000));
    assert!(v.findings[0].message.contains("street 0/2/3"));
}

#[test]
fn maximum_win_is_900_000_kc() {
    // 25 000 Kč on 17 pays 25 000 × 36 = 900 000 Kč: exactly the maximum, no finding.
    let v = verdict(round(
        number(17),
        json!([bet("b", "straight", &[17], 2_500_000, 90_000_000)]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    // 30 000 Kč on 17 "correctly" paid 1 080 000 Kč: above the maximum by 180 000 Kč,
    // and the stake itself 5 000 Kč over the limit.
    let v = verdict(round(
        number(17),
        json!([bet("b", "straight", &[17], 3_000_000, 108_000_000)]),
    ));
    assert_eq!(
        kinds(&v),
        vec![FindingKind::WinAboveMaximum, FindingKind::StakeAboveMaximum]
    );
    assert_eq!(v.findings[0].amount_h, 18_000_000);
}

#[test]
fn void_spin_returns_every_stake() {
    let void = json!({"result": "void", "reason": "too_few_revolutions"});
    // Straight 100 Kč and velká série of 10 Kč chips (9 × 1 000 = 9 000 h) come back whole.
    let v = verdict(round(
        void.clone(),
        json!([
            bet("b1", "straight", &[17], 10_000, 10_000),
            call("b2", "voisins", &[], 1_000, 9_000),
        ]),
    ));
    assert!(v.is_clean(), "{:?}", v.findings);
    assert!(v.void);
    assert_eq!(v.expected_paid_h, 19_000);
    // Keeping a stake or paying a "win" on a void spin is wrong either way.
    let v = verdict(round(
        void,
        json!([
            bet("kept", "red", &[], 10_000, 0),
            bet("paid", "straight", &[17], 10_000, 360_000),
        ]),
    ));
    assert_eq!(
        kinds(&v),
        vec![
            FindingKind::VoidHandledWrongly,
            FindingKind::VoidHandledWrongly
        ]
    );
    assert_eq!(v.findings[0].amount_h, 10_000);
    assert_eq!(v.findings[1].amount_h, 350_000); // 360 000 − 10 000
}

#[test]
fn numbers_that_are_no_position() {
    // 1 and 5 do not touch; 37 is no pocket. Such bets are not accepted: stake back.
    let v = verdict(round(
        number(1),
        json!([
            bet("b1", "split", &[1, 5], 10_000, 10_000),
            bet("b2", "straight", &[37], 10_000, 10_000),
            call("b3", "neighbours", &[40], 1_000, 5_000),
        ]),
    ));
    assert_eq!(
        kinds(&v),
        vec![
            FindingKind::InvalidNumber,
            FindingKind::InvalidNumber,
            FindingKind::InvalidNumber
        ]
    );
    assert_eq!(v.expected_paid_h, 25_000);
}

#[test]
fn malformed_rounds_are_errors_not_findings() {
    // Pocket 37 is readable but no pocket of the wheel: the spin is kept with a finding, its
    // 100 Kč stake and 0 paid as reported.
    let v = verdict(round(number(37), json!([bet("b", "red", &[], 10_000, 0)])));
    assert_eq!(kinds(&v), [FindingKind::RecordImpossible]);
    assert!(v.findings[0]
        .message
        .starts_with("outcome.number: 37 is not a pocket"));
    assert_eq!((v.stakes_h, v.paid_h), (10_000, 0));
    let cases = [
        round(number(1), json!([bet("b", "straight", &[1], -100, 0)])),
        round(
            number(1),
            json!([bet("b", "straight", &[1], 100, i64::MAX)]),
        ),
        round(number(1), json!([call("b", "straight", &[1], 100, 0)])),
        round(number(1), json!([bet("b", "voisins", &[], 100, 0)])),
        round(number(1), json!([bet("b", "red", &[1], 100, 0)])),
        round(
            number(1),
            json!([
                bet("b", "straight", &[1], 100, 0),
                bet("b", "red", &[], 100, 0)
            ]),
        ),
        round(number(1), json!([bet("b", "roulette_royale", &[], 100, 0)])),
        round(json!({"result": "void", "reason": "because"}), json!([])),
    ];
    for (i, case) in cases.iter().enumerate() {
        assert!(Round::parse(case).is_err(), "case {i} should be rejected");
    }
    let mut extra = round(number(1), json!([]));
    extra["croupier_mood"] = json!("good");
    assert!(Round::parse(&extra).is_err());
    let mut extra_in_outcome = round(json!({"result": "number", "number": 1, "x": 1}), json!([]));
    assert!(Round::parse(&extra_in_outcome).is_err());
    extra_in_outcome["outcome"] = number(1);
    assert!(Round::parse(&extra_in_outcome).is_ok());
}

#[test]
fn every_bet_kind_returns_36_of_37() {
    let plan = plan();
    let rp = plan.roulette().unwrap();
    for kind in [
        BetKind::Straight,
        BetKind::Split,
        BetKind::Street,
        BetKind::Corner,
        BetKind::SixLine,
        BetKind::Dozen1,
        BetKind::Column3,
        BetKind::Red,
        BetKind::Black,
        BetKind::Odd,
        BetKind::Even,
        BetKind::Low,
        BetKind::High,
        BetKind::Neighbours,
        BetKind::ZeroSpiel,
        BetKind::Voisins,
        BetKind::Tiers,
        BetKind::Orphelins,
    ] {
        // e.g. split: 2 numbers × 18 / 37 = 36/37; zero spiel: (3×2×18 + 36)/(4×37) = 144/148.
        assert_eq!(
            theoretical_rtp(rp, kind),
            Some(Ratio::new(36, 37)),
            "{kind:?}"
        );
    }
}

#[test]
fn round_statistics_of_a_single_straight() {
    let plan = plan();
    let record = round(number(5), json!([bet("b", "straight", &[17], 100, 0)]));
    let Round::Roulette(r) = Round::parse(&record).unwrap() else {
        panic!("not roulette")
    };
    let s = round_statistics(plan.roulette().unwrap(), &r);
    // Pays 3 600 h with probability 1/37: mean 3 600/37 = 97.297 h = 97 297 mh (floor).
    assert_eq!(s.rtp_stakes_h, 100);
    assert_eq!(s.expected_payout_mh, 97_297);
    // Variance 3 600² × 36 / 37² = 466 560 000 / 1 369 = 340 803.5 h².
    assert!((s.payout_variance_h2 - 466_560_000.0 / 1_369.0).abs() < 1e-6);
}

#[test]
fn a_malformed_bet_is_named_by_its_place_in_the_round() {
    let field_of = |record: Value| match Round::parse(&record) {
        Err(crate::error::RecordError::Invalid { field, .. }) => field,
        other => panic!("expected an invalid field, got {other:?}"),
    };
    let negative_second_stake = round(
        number(1),
        json!([
            bet("a", "straight", &[1], 100, 0),
            bet("b", "straight", &[2], -100, 0)
        ]),
    );
    assert_eq!(field_of(negative_second_stake), "bets[1].stake_h");
    let repeated_id = round(
        number(1),
        json!([
            bet("a", "straight", &[1], 100, 0),
            bet("b", "red", &[], 100, 0),
            bet("a", "black", &[], 100, 0)
        ]),
    );
    assert_eq!(field_of(repeated_id), "bets[2].bet_id");
    assert_eq!(
        field_of(round(number(1), json!([bet("a", "red", &[3], 100, 0)]))),
        "bets[0].numbers"
    );
}

#[test]
fn round_statistics_per_kind_keep_each_kind_apart_and_the_spin_whole() {
    let plan = plan();
    // 17 wins (black): the straight-up on 17 paid 3 600 h; the straight on 5 and red lost.
    let record = round(
        number(17),
        json!([
            bet("a", "straight", &[17], 100, 3_600),
            bet("b", "straight", &[5], 100, 0),
            bet("c", "red", &[], 200, 0)
        ]),
    );
    let parsed = Round::parse(&record).unwrap();
    let verdict = crate::adjudication::adjudicate(&plan, &parsed).unwrap();
    let Round::Roulette(r) = &parsed else {
        panic!("not roulette")
    };
    let s = round_statistics(plan.roulette().unwrap(), r).with_actual(&verdict);
    let kinds: Vec<&str> = s.by_kind.iter().map(|k| k.kind.as_str()).collect();
    assert_eq!(kinds, ["red", "straight"]);
    let (red, straight) = (&s.by_kind[0], &s.by_kind[1]);
    // Straights on 17 and 5: 3 600 h on each of two pockets of 37, else 0.
    // Mean 7 200/37 = 194.594 h → 194 594 mh. Variance (37 × 2 × 3 600² − 7 200²)/37²
    // = (959 040 000 − 51 840 000)/1 369 = 907 200 000/1 369 = 662 673.4 h².
    assert_eq!(
        (straight.bets, straight.stakes_h, straight.paid_h),
        (2, 200, 3_600)
    );
    assert_eq!(straight.expected_payout_mh, 194_594);
    assert!((straight.variance_h2 - 907_200_000.0 / 1_369.0).abs() < 1e-6);
    // Third moment: x = 3 600 (2 pockets) or 0 (35), mean m = 7 200/37;
    // [2 (3 600 − m)³ + 35 (−m)³]/37 = [2 × 3 405.405 4³ − 35 × 194.594 6³]/37
    // = [78 983 515 290 − 257 905 356]/37 = 2 127 719 187 h³ (to 10 digits).
    assert!((straight.third_moment_h3 / 2_127_719_187.0 - 1.0).abs() < 1e-9);
    // Red: 400 h on 18 pockets of 37. Mean 7 200/37 = 194 594 mh, like the straights.
    assert_eq!((red.bets, red.stakes_h, red.paid_h), (1, 200, 0));
    assert_eq!(red.expected_payout_mh, 194_594);
    // The spin as a whole is not the sum of its kinds: a straight on 5 (red) and red win
    // together. Total mean 14 400/37 = 389.189 h.
    assert_eq!(s.expected_payout_mh, 389_189);
    assert_eq!(s.rtp_stakes_h, 400);
}

#[test]
fn a_bet_inside_the_plans_range_is_judged_by_the_tables_posted_limits() {
    let setup = crate::test_support::posting(
        &plan(),
        GameCode::Roulette,
        // Posted: 100 Kč a bet, 1 000 Kč straight up, 2 000 Kč other inside, 5 000 Kč outside.
        json!({"min_bet_h": 10_000, "max_straight_up_h": 100_000,
               "max_inside_h": 200_000, "max_outside_h": 500_000}),
    );
    let bets = json!([
        // 50 Kč straight on 17, which wins: 50 × 35 + 50 = 1 800 Kč = 180 000 h. Inside the
        // plan's 10–25 000 Kč, below the table's 100 Kč: 10 000 − 5 000 = 5 000 h short.
        bet("low", "straight", &[17], 5_000, 180_000),
        // 10 000 Kč on red (17 is black): lost. Above the table's 5 000 Kč outside maximum by
        // 1 000 000 − 500 000 = 500 000 h.
        bet("red", "red", &[], 1_000_000, 0),
        // 2 000 Kč on the split 17/20, exactly the posted inside maximum: 2 000 × 17 + 2 000 =
        // 36 000 Kč = 3 600 000 h, no finding.
        bet("split", "split", &[17, 20], 200_000, 3_600_000),
        // 30 000 Kč straight on 5 (loses): above the plan's 25 000 Kč, so the plan's finding
        // alone (the table's maximum lies inside the plan's).
        bet("big", "straight", &[5], 3_000_000, 0),
    ]);
    let v = crate::test_support::verdict_at(plan(), setup, round(number(17), bets.clone()));
    let table: Vec<(FindingKind, i64, Vec<String>)> = v
        .findings
        .iter()
        .map(|f| (f.kind, f.amount_h, f.bet_ids.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        table,
        [
            (
                FindingKind::StakeBelowTableMinimum,
                5_000,
                vec!["low".to_owned()]
            ),
            (
                FindingKind::StakeAboveTableMaximum,
                500_000,
                vec!["red".to_owned()]
            ),
            (
                FindingKind::StakeAboveMaximum,
                500_000,
                vec!["big".to_owned()]
            ),
        ]
    );
    // A table that posts nothing is judged by the plan alone.
    let v = verdict(round(number(17), bets));
    assert_eq!(kinds(&v), [FindingKind::StakeAboveMaximum]);
}

#[test]
fn two_chips_of_one_player_on_one_straight_count_together_against_the_posted_maximum() {
    let setup = crate::test_support::posting(
        &plan(),
        GameCode::Roulette,
        json!({"min_bet_h": 1_000, "max_straight_up_h": 100_000,
               "max_inside_h": 200_000, "max_outside_h": 500_000}),
    );
    // 600 Kč + 500 Kč on 8 by the same player = 1 100 Kč, over the posted 1 000 Kč by 100 Kč.
    let v = crate::test_support::verdict_at(
        plan(),
        setup,
        round(
            number(3),
            json!([
                bet("a", "straight", &[8], 60_000, 0),
                bet("b", "straight", &[8], 50_000, 0)
            ]),
        ),
    );
    assert_eq!(kinds(&v), [FindingKind::StakeAboveTableMaximum]);
    assert_eq!(v.findings[0].amount_h, 10_000);
    assert_eq!(v.findings[0].bet_ids, Some(vec!["a".into(), "b".into()]));
}

#[test]
fn a_settled_spin_whose_own_evidence_makes_it_void_is_a_finding() {
    // 100 Kč straight on 17, 17 wins and is paid 3 600 Kč: correct as a settled spin.
    let settled = |rotor: &str, ball: &str, revolutions: u16| {
        let mut record = round(
            number(17),
            json!([bet("b1", "straight", &[17], 10_000, 360_000)]),
        );
        record["spin"] = json!({"rotor": rotor, "ball": ball, "ball_revolutions": revolutions});
        verdict(record)
    };
    assert!(settled("clockwise", "counterclockwise", 9).is_clean());
    // The ball spun with the rotor: the plan makes it a no-spin, so the 100 Kč stake must come
    // back and nothing more: 3 600 − 100 = 3 500 Kč paid that must come back.
    let with_rotor = settled("clockwise", "clockwise", 9);
    assert_eq!(
        kinds(&with_rotor),
        [FindingKind::SpinInvalid, FindingKind::VoidHandledWrongly]
    );
    assert_eq!(with_rotor.findings[1].amount_h, 350_000);
    // Four revolutions: fewer than five, for the inspector to review; both at once: two notes.
    assert_eq!(
        kinds(&settled("counterclockwise", "clockwise", 4)),
        [FindingKind::SpinInvalid, FindingKind::VoidHandledWrongly]
    );
    assert_eq!(
        kinds(&settled("clockwise", "clockwise", 4)),
        [
            FindingKind::SpinInvalid,
            FindingKind::SpinInvalid,
            FindingKind::VoidHandledWrongly
        ]
    );
    // A spin declared void carries its own consequence (every stake back), not this finding.
    let mut void = round(
        json!({"result": "void", "reason": "ball_spun_with_wheel"}),
        json!([bet("b1", "straight", &[17], 10_000, 10_000)]),
    );
    void["spin"] = json!({"rotor": "clockwise", "ball": "clockwise", "ball_revolutions": 9});
    assert!(verdict(void).is_clean());
}

#[test]
fn an_invalid_spin_settled_as_valid_owes_every_stake_back_and_every_win_paid() {
    // The ball went round 3 times (fewer than 5) and fell on 17, settled as valid:
    //   b1 100 Kč straight on 17 paid 3 600 Kč; owed its 100 Kč back: 3 500 Kč to claw back;
    //   b2 200 Kč on red (17 is black) paid 0; owed its 200 Kč back: 200 Kč short;
    //   b3 50 Kč on black paid 100 Kč (1:1); owed 50 Kč: 50 Kč to claw back.
    let mut record = round(
        number(17),
        json!([
            bet("b1", "straight", &[17], 10_000, 360_000),
            bet("b2", "red", &[], 20_000, 0),
            bet("b3", "black", &[], 5_000, 10_000)
        ]),
    );
    record["spin"] =
        json!({"rotor": "clockwise", "ball": "counterclockwise", "ball_revolutions": 3});
    let v = verdict(record);
    type Row = (
        FindingKind,
        Option<Vec<String>>,
        i64,
        Option<i64>,
        Option<i64>,
    );
    let found: Vec<Row> = v
        .findings
        .iter()
        .map(|f| {
            (
                f.kind,
                f.bet_ids.clone(),
                f.amount_h,
                f.expected_h,
                f.actual_h,
            )
        })
        .collect();
    let bet = |id: &str| Some(vec![id.to_owned()]);
    assert_eq!(
        found,
        [
            (FindingKind::SpinInvalid, None, 0, None, None),
            (
                FindingKind::VoidHandledWrongly,
                bet("b1"),
                350_000,
                Some(10_000),
                Some(360_000)
            ),
            (
                FindingKind::VoidHandledWrongly,
                bet("b2"),
                20_000,
                Some(20_000),
                Some(0)
            ),
            (
                FindingKind::VoidHandledWrongly,
                bet("b3"),
                5_000,
                Some(5_000),
                Some(10_000)
            ),
        ]
    );
    // Judged void as the money wheels judge a spin of too few turns: the stakes (350 Kč) are
    // what the plan returns; the table handed back 3 600 + 0 + 100 = 3 700 Kč.
    assert!(v.void);
    assert_eq!(v.void_reason, Some("too_few_revolutions"));
    assert_eq!(v.winning_number, None);
    assert_eq!(
        (v.stakes_h, v.expected_paid_h, v.paid_h),
        (35_000, 35_000, 370_000)
    );
}

#[test]
fn the_payouts_of_every_pocket_at_once_are_each_pockets_payout() {
    let plan = plan();
    let rp = plan.roulette().unwrap();
    // One bet of every kind: inside bets on 17's positions, outside bets, and call bets
    // (neighbours of 17: five straights; the series: splits, corners and straights).
    let bets = json!([
        bet("a", "straight", &[17], 100, 0),
        bet("b", "split", &[17, 20], 100, 0),
        bet("c", "street", &[16, 17, 18], 100, 0),
        bet("d", "corner", &[16, 17, 19, 20], 100, 0),
        bet("e", "six_line", &[16, 17, 18, 19, 20, 21], 100, 0),
        bet("f", "dozen_2", &[], 100, 0),
        bet("g", "column_2", &[], 100, 0),
        bet("h", "red", &[], 100, 0),
        bet("i", "odd", &[], 100, 0),
        bet("j", "high", &[], 100, 0),
        call("k", "neighbours", &[17], 100, 0),
        call("l", "zero_spiel", &[], 100, 0),
        call("m", "voisins", &[], 100, 0),
        call("n", "tiers", &[], 100, 0),
        call("o", "orphelins", &[], 100, 0),
    ]);
    let Round::Roulette(r) = Round::parse(&round(number(17), bets)).unwrap() else {
        panic!("not roulette")
    };
    let mut compared = 0;
    for bet in &r.bets {
        let chips = chips_of(bet).unwrap();
        // A unit of 100 h, and one so large that some pockets' wins overflow.
        for unit in [100, i64::MAX / 20] {
            let all = payout_per_pocket(&chips, unit, rp);
            for number in 0..POCKETS {
                assert_eq!(
                    all[usize::from(number)],
                    payout(&chips, unit, number, rp),
                    "{:?}, unit {unit}, pocket {number}",
                    bet.kind
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 15 * 2 * 37);
    // The large unit does overflow somewhere (a straight-up pays 36 units).
    let straight = chips_of(&r.bets[0]).unwrap();
    assert_eq!(payout_per_pocket(&straight, i64::MAX / 20, rp)[17], None);
}

#[test]
fn a_position_lists_the_pockets_it_covers() {
    for position in [
        layout::Position::straight(0),
        layout::Position::straight(36),
        layout::Position::corner(16, 17, 19, 20),
        layout::Position::new(layout::PositionClass::EvenChance, layout::RED_MASK),
        layout::Position::new(layout::PositionClass::Dozen, layout::DOZEN_MASKS[2]),
    ] {
        assert_eq!(position.covered().collect::<Vec<u8>>(), position.numbers());
    }
}

#[test]
fn the_round_totals_are_the_statistics_of_the_round_without_those_per_kind() {
    let plan = plan();
    let rp = plan.roulette().unwrap();
    let rounds = [
        json!([bet("b", "straight", &[17], 100, 0)]),
        json!([
            bet("s", "straight", &[17], 10_000, 360_000),
            bet("t", "straight", &[5], 20_000, 0),
            bet("p", "split", &[17, 20], 5_000, 90_000),
            bet("r", "red", &[], 100_000, 0),
            bet("d", "dozen_2", &[], 30_000, 0),
            call("n", "neighbours", &[5], 5_000, 0),
        ]),
        json!([
            call("z", "zero_spiel", &[], 1_000, 0),
            bet("x", "corner", &[16, 17, 19, 20], 7, 0)
        ]),
        // A bet that does not read is not priced, in either.
        json!([
            bet("w", "split", &[1, 36], 100, 0),
            bet("ok", "black", &[], 100, 0)
        ]),
    ];
    for bets in rounds {
        let record = round(number(17), bets.clone());
        let Round::Roulette(r) = Round::parse(&record).unwrap() else {
            panic!("not roulette")
        };
        let full = round_statistics(rp, &r);
        let totals = round_totals(rp, &r);
        assert!(full.rtp_stakes_h > 0, "{bets}");
        assert!(!full.by_kind.is_empty());
        assert_eq!(
            totals,
            RoundStatistics {
                by_kind: Vec::new(),
                ..full
            },
            "{bets}"
        );
    }
    // A void spin has none.
    let record = round(
        json!({"result": "void", "reason": "too_few_revolutions"}),
        json!([bet("b", "straight", &[17], 100, 100)]),
    );
    let Round::Roulette(r) = Round::parse(&record).unwrap() else {
        panic!("not roulette")
    };
    assert_eq!(round_totals(rp, &r), RoundStatistics::default());
}
