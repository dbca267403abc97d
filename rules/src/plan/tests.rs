use super::*;
use crate::error::PlanError;
use crate::round_header::GameCode;

#[test]
fn builtin_plan_carries_the_roulette_numbers_of_the_plan() {
    let book = PlanBook::builtin().unwrap();
    let plan = book.get("69games-ziva-hra").unwrap();
    let r = plan.roulette().unwrap();
    // Ruleta, 1. SÁZKY: 10 Kč .. 25 000 Kč = 1 000 h .. 2 500 000 h.
    assert_eq!((r.min_bet_h, r.max_bet_h), (1_000, 2_500_000));
    // 25 000 × 35 + 25 000 = 900 000 Kč = 90 000 000 h.
    assert_eq!(r.max_win_h, 90_000_000);
    assert_eq!(r.odds.straight, 35);
}

#[test]
fn the_most_a_bet_may_win_is_the_plans_limit_of_each_game() {
    let book = PlanBook::builtin().unwrap();
    let plan = book.get("69games-ziva-hra").unwrap();
    // Roulette: 900 000 Kč.
    assert_eq!(plan.max_win_h(GameCode::Roulette), Some(90_000_000));
    // Blackjack: Perfect Pairs' 650 000 Kč is more than the main bet's 62 500 Kč.
    assert_eq!(plan.max_win_h(GameCode::Blackjack), Some(65_000_000));
    // Money wheel I: net 250 000 Kč + the largest stake 10 000 Kč = 260 000 Kč.
    assert_eq!(plan.max_win_h(GameCode::MoneyWheel1), Some(26_000_000));
    // Money wheel II: net 7 500 000 Kč + 500 000 Kč = 8 000 000 Kč.
    assert_eq!(plan.max_win_h(GameCode::MoneyWheel2), Some(800_000_000));
    assert_eq!(plan.max_win_h(GameCode::PokerCash), None);
}

#[test]
fn builtin_plan_carries_the_blackjack_and_uth_numbers_of_the_plan() {
    let book = PlanBook::builtin().unwrap();
    let plan = book.get("69games-ziva-hra").unwrap();
    let b = plan.blackjack.as_ref().unwrap();
    // 50 Kč = 5 000 h per player; 25 000 Kč = 2 500 000 h per box; 3:2.
    assert_eq!((b.min_bet_h, b.box_max_h), (5_000, 2_500_000));
    assert_eq!(b.blackjack_odds, Odds { num: 3, den: 2 });
    // 25 000 × 3/2 + 25 000 = 62 500 Kč.
    assert_eq!(b.max_win_h, 2_500_000 * 3 / 2 + 2_500_000);
    // 25 000 × 25 + 25 000 = 650 000 Kč.
    let pp = &b.perfect_pairs;
    assert_eq!(
        pp.max_win_h,
        pp.max_bet_h * i64::from(pp.perfect) + pp.max_bet_h
    );
    assert_eq!(b.dealer_blackjack_takes, DealerBlackjackTakes::All);
    let u = plan.ultimate_texas_holdem.as_ref().unwrap();
    // Ante 25 000 × 1 + Blind 25 000 × 500 + Trips 25 000 × 50 + Play 100 000 × 1, each with
    // its stake: 50 000 + 12 525 000 + 1 275 000 + 200 000 = 14 050 000 Kč.
    let max = u.max_bet_h;
    let won = |stake: i64, o: Odds| stake * i64::from(o.num) / i64::from(o.den) + stake;
    assert_eq!(
        u.max_win_h,
        won(max, Odds { num: 1, den: 1 })
            + won(max, u.blind.royal_flush)
            + won(max, u.trips.royal_flush)
            + won(4 * max, Odds { num: 1, den: 1 })
    );
    assert_eq!(u.blind.trips, None);
    assert_eq!(u.trips.trips, Some(Odds { num: 3, den: 1 }));
    assert_eq!(u.trips_on_fold, TripsOnFold::Settled);
}

#[test]
fn rejects_inverted_limits_and_unknown_keys() {
    let text = include_str!("../../plans/69games-ziva-hra.toml")
        .replace("min_bet_h = 1_000", "min_bet_h = 9_000_000");
    assert!(matches!(
        Plan::from_toml_str(&text),
        Err(PlanError::Inconsistent { .. })
    ));
    let text = format!(
        "{}\nsurprise = 1\n",
        include_str!("../../plans/69games-ziva-hra.toml")
    );
    assert!(Plan::from_toml_str(&text).is_err());
}
