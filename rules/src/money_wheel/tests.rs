//! Hand-computed money wheel cases. Amounts in haléře: 100 Kč = 10 000 h.

use serde_json::{json, Value};

use super::*;
use crate::record::Round;
use crate::verdict::FindingKind;

use crate::plan::bundled_plan as plan;

/// Wheel I with its segments grouped: 0–16 `1x`, 17–26 `2x`, 27–31 `5x`, 32–33 `10x`,
/// 34 `25x_black`, 35 `25x_pink`.
fn layout_1(wp: &WheelPlan) -> WheelLayout {
    let labels = wp
        .boxes
        .iter()
        .flat_map(|b| std::iter::repeat_n(b.id.clone(), b.segments as usize))
        .collect();
    WheelLayout::new(wp, labels).unwrap()
}

/// A table with `layout` and no posted limits.
fn on(layout: WheelLayout) -> TableSetup {
    TableSetup {
        wheel_layout: Some(layout),
        limits: None,
    }
}

fn spin(outcome: Value, bets: Value) -> Value {
    json!({
        "type": "round", "game": "money_wheel_1", "table_id": "W1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:00:00Z",
        "outcome": outcome, "bets": bets
    })
}

/// A spin that stopped on `segment` after `turns` full turns.
fn stopped_at(segment: u32, turns: u32, bets: Value) -> Value {
    spin(
        json!({"result": "segment", "segment": segment, "turns": turns}),
        bets,
    )
}

fn bet(id: &str, player: &str, on: &str, stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": player, "box": on, "stake_h": stake_h, "paid_h": paid_h})
}

fn wheel_round(record: Value) -> WheelRound {
    match Round::parse(&record).unwrap() {
        Round::MoneyWheel(r) => r,
        _ => panic!("not a wheel"),
    }
}

fn judge(record: Value) -> (Vec<i64>, Vec<FindingKind>) {
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let layout = layout_1(wp);
    let round = wheel_round(record);
    let setup = on(layout);
    let v = adjudicate(wp, &plan, &setup, &round).unwrap();
    (
        v.bets.iter().map(|b| b.expected_paid_h).collect(),
        v.findings.iter().map(|f| f.kind).collect(),
    )
}

#[test]
fn a_layout_must_have_the_plans_segment_counts() {
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let mut labels = layout_1(wp).segments().to_vec();
    // One `1x` segment relabelled `2x`: 16 and 11 instead of 17 and 10.
    labels[0] = "2x".into();
    let e = WheelLayout::new(wp, labels.clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("17 segments `1x`, this layout 16"), "{e}");
    labels[0] = "50x".into();
    let e = WheelLayout::new(wp, labels.clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("wheel_layout[0]") && e.contains("`50x`"), "{e}");
    labels.pop();
    labels[0] = "1x".into();
    assert!(WheelLayout::new(wp, labels).is_err(), "35 segments");
}

#[test]
fn a_box_pays_n_to_1_plus_the_stake_when_its_segment_stops() {
    // Segment 20 is `2x`: 100 Kč on 2x gets 2 × 100 + 100 = 300 Kč; 50 Kč on 1x and 20 Kč on
    // 25x black lose.
    let (expected, findings) = judge(stopped_at(
        20,
        4,
        json!([
            bet("b1", "p1", "2x", 10_000, 30_000),
            bet("b2", "p1", "1x", 5_000, 0),
            bet("b3", "p2", "25x_black", 2_000, 0)
        ]),
    ));
    assert_eq!(expected, [30_000, 0, 0]);
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn a_25x_bet_wins_only_on_its_own_colour() {
    // The pointer stops on 35, the pink 25x. 100 Kč on 25x pink: 25 × 100 + 100 = 2 600 Kč;
    // 100 Kč on 25x black loses, but the dealer paid it 2 600 Kč too: overpaid by 2 600 Kč.
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let layout = layout_1(wp);
    let round = wheel_round(stopped_at(
        35,
        5,
        json!([
            bet("pink", "p1", "25x_pink", 10_000, 260_000),
            bet("black", "p2", "25x_black", 10_000, 260_000)
        ]),
    ));
    let setup = on(layout);
    let v = adjudicate(wp, &plan, &setup, &round).unwrap();
    assert_eq!(v.segment, Some(35));
    assert_eq!(v.segment_label, Some("25x_pink"));
    assert_eq!(v.bets[0].expected_paid_h, 260_000);
    assert_eq!(v.bets[1].expected_paid_h, 0);
    assert_eq!(v.findings.len(), 1, "{:?}", v.findings);
    assert_eq!(v.findings[0].kind, FindingKind::Overpaid);
    assert_eq!(v.findings[0].amount_h, 260_000);
}

#[test]
fn a_void_spin_returns_every_stake() {
    // Pointer between two segments: 100 Kč and 20 Kč come back. The dealer kept the 20 Kč.
    let (expected, findings) = judge(spin(
        json!({"result": "void", "reason": "pointer_between_segments"}),
        json!([
            bet("b1", "p1", "5x", 10_000, 10_000),
            bet("b2", "p2", "10x", 2_000, 0)
        ]),
    ));
    assert_eq!(expected, [10_000, 2_000]);
    assert_eq!(findings, [FindingKind::VoidHandledWrongly]);
}

#[test]
fn fewer_than_three_turns_makes_the_spin_void_even_if_a_segment_was_paid() {
    // Two full turns, stopped on `1x` (segment 3), and the dealer paid the 1x bet 2 × 100 Kč:
    // the spin is void, each stake comes back (100 and 50 Kč), so 1x is overpaid by 100 Kč
    // and the 2x bet (paid nothing) is short of its 50 Kč.
    let (expected, findings) = judge(stopped_at(
        3,
        2,
        json!([
            bet("b1", "p1", "1x", 10_000, 20_000),
            bet("b2", "p1", "2x", 5_000, 0)
        ]),
    ));
    assert_eq!(expected, [10_000, 5_000]);
    assert_eq!(
        findings,
        [
            FindingKind::VoidHandledWrongly,
            FindingKind::VoidHandledWrongly,
            FindingKind::VoidHandledWrongly
        ]
    );
}

#[test]
fn limits_apply_per_player_and_box_and_the_net_win_is_capped() {
    // p1: 6 000 + 6 000 Kč on 10x = 12 000 Kč, above 10 000 Kč per box; p2: 5 Kč on 1x,
    // below 10 Kč. Segment 32 is `10x`: p1's two bets each win 10 × 6 000 + 6 000 = 66 000 Kč,
    // a net 60 000 Kč each — within the 250 000 Kč maximum net win. p3 is paid 300 000 Kč net
    // on a 10 000 Kč 10x bet (should be 110 000 Kč back): overpaid, and above the maximum.
    let (expected, findings) = judge(stopped_at(
        32,
        3,
        json!([
            bet("b1", "p1", "10x", 600_000, 6_600_000),
            bet("b2", "p1", "10x", 600_000, 6_600_000),
            bet("b3", "p2", "1x", 500, 0),
            bet("b4", "p3", "10x", 1_000_000, 31_000_000)
        ]),
    ));
    assert_eq!(expected, [6_600_000, 6_600_000, 0, 11_000_000]);
    assert_eq!(
        findings,
        [
            FindingKind::Overpaid,
            FindingKind::WinAboveMaximum,
            FindingKind::StakeAboveMaximum,
            FindingKind::StakeBelowMinimum
        ]
    );
}

#[test]
fn a_bet_on_no_box_and_a_segment_off_the_wheel() {
    // `50x` is no box of wheel I: not accepted, its 10 Kč must be returned.
    let (expected, findings) = judge(stopped_at(0, 3, json!([bet("b1", "p1", "50x", 1_000, 0)])));
    assert_eq!(expected, [1_000]);
    assert_eq!(findings, [FindingKind::BetNotAllowed]);
    // Segment 36 does not exist on a 36-segment wheel (0–35): the record is refused.
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let layout = layout_1(wp);
    let round = wheel_round(stopped_at(36, 3, json!([])));
    let e = adjudicate(wp, &plan, &on(layout), &round)
        .unwrap_err()
        .to_string();
    assert!(e.contains("segment 36"), "{e}");
}

#[test]
fn round_statistics_price_each_box_by_its_segments() {
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let layout = layout_1(wp);
    let round = wheel_round(stopped_at(
        0,
        3,
        json!([bet("b1", "p1", "1x", 10_000, 20_000)]),
    ));
    let s = round_statistics(wp, &layout, &round);
    // 100 Kč on 1x: 20 000 h back on 17 of 36 segments: 20 000 × 17 / 36 = 9 444.44 h
    // = 9 444 444 mh; variance 20 000² × (17/36) × (19/36) = 99 691 358 h².
    assert_eq!(s.rtp_stakes_h, 10_000);
    assert_eq!(s.expected_payout_mh, 9_444_444);
    assert!((s.payout_variance_h2 - 99_691_358.0).abs() < 1.0, "{s:?}");
}

#[test]
fn theoretical_rtp_of_every_box_from_the_segment_counts() {
    let plan = plan();
    let one = crate::rtp::bets::wheel("money_wheel_1", plan.money_wheel_1.as_ref().unwrap());
    let two = crate::rtp::bets::wheel("money_wheel_2", plan.money_wheel_2.as_ref().unwrap());
    let rtp = |lines: &[crate::rtp::bets::BetRtp]| -> Vec<(String, u64, u64)> {
        lines
            .iter()
            .map(|l| (l.bet.clone(), l.rtp.num, l.rtp.den))
            .collect()
    };
    // Wheel I (36 segments): 1x 2·17/36 = 17/18 = 94.444 %; 2x 3·10/36 = 5/6; 5x 6·5/36 = 5/6;
    // 10x 11·2/36 = 11/18 = 61.111 %; each 25x 26·1/36 = 13/18 = 72.222 %.
    assert_eq!(
        rtp(&one),
        [
            ("1x".into(), 17, 18),
            ("2x".into(), 5, 6),
            ("5x".into(), 5, 6),
            ("10x".into(), 11, 18),
            ("25x_black".into(), 13, 18),
            ("25x_pink".into(), 13, 18)
        ]
    );
    // Wheel II (17 segments): 1x 2·6 = 12/17 = 70.588 %; 2x 3·4; 3x 4·3; 5x 6·2: all 12/17;
    // 10x 11/17 = 64.706 %; 15x 16/17 = 94.118 %.
    assert_eq!(
        rtp(&two),
        [
            ("1x".into(), 12, 17),
            ("2x".into(), 12, 17),
            ("3x".into(), 12, 17),
            ("5x".into(), 12, 17),
            ("10x".into(), 11, 17),
            ("15x".into(), 16, 17)
        ]
    );
}

#[test]
fn a_players_stake_on_a_box_is_judged_by_the_tables_posted_limits() {
    let plan = plan();
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let limits: crate::table_limits::TableLimits =
        serde_json::from_value(json!({"min_bet_h": 5_000, "max_bet_h": 200_000})).unwrap();
    let setup = TableSetup {
        limits: Some(limits),
        ..on(layout_1(wp))
    };
    // Segment 20 is `2x`. Posted 50 to 2 000 Kč per box. Player A: 20 Kč on 1x (inside the
    // plan's 10 Kč, 30 Kč short of the table's 50 Kč = 3 000 h), loses. Player B: 1 500 Kč +
    // 1 000 Kč on 2x = 2 500 Kč, 500 Kč = 50 000 h over the posted 2 000 Kč; wins
    // 2 × 1 500 + 1 500 = 4 500 Kč and 2 × 1 000 + 1 000 = 3 000 Kč.
    let round = wheel_round(stopped_at(
        20,
        4,
        json!([
            bet("a", "A", "1x", 2_000, 0),
            bet("b1", "B", "2x", 150_000, 450_000),
            bet("b2", "B", "2x", 100_000, 300_000)
        ]),
    ));
    let v = adjudicate(wp, &plan, &setup, &round).unwrap();
    let found = crate::test_support::kinds_and_amounts(&v.findings);
    assert_eq!(
        found,
        [
            (FindingKind::StakeBelowTableMinimum, 3_000),
            (FindingKind::StakeAboveTableMaximum, 50_000),
        ]
    );
}

#[test]
fn the_maximum_per_game_sums_a_players_boxes() {
    // Player a: 6 000 Kč on 1x and 5 000 Kč on 2x; b: 10 000 Kč on 1x. The pointer stops on
    // segment 20 (2x): a's 2x pays 5 000 × 2 + 5 000 = 15 000 Kč.
    let record = stopped_at(
        20,
        4,
        json!([
            bet("1", "a", "1x", 600_000, 0),
            bet("2", "a", "2x", 500_000, 1_500_000),
            bet("3", "b", "1x", 1_000_000, 0)
        ]),
    );
    // Per box (the bundled reading): each stake is within 10 000 Kč.
    let (_, kinds) = judge(record.clone());
    assert_eq!(kinds, []);
    // Per game: a staked 11 000 Kč on the spin, 1 000 Kč above the maximum; b exactly at it.
    let mut plan = plan();
    let wp = plan.money_wheel_1.as_mut().unwrap();
    wp.max_bet_per = crate::plan::table_games::WheelMaxBetPer::Game;
    let wp = plan.money_wheel_1.as_ref().unwrap();
    let setup = on(layout_1(wp));
    let round = wheel_round(record);
    let v = adjudicate(wp, &plan, &setup, &round).unwrap();
    let found = crate::test_support::kinds_and_amounts(&v.findings);
    assert_eq!(found, [(FindingKind::StakeAboveMaximum, 100_000)]);
    assert_eq!(v.findings[0].bet_ids, Some(vec!["1".into(), "2".into()]));
}
