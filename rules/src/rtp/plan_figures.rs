//! A plan's theoretical figures: computed from its rules, and kept only while they match them.

use super::bets::{uth_trips, SevenCardHands};
use super::blackjack_game::{self, BlackjackRules};
use super::figures::{
    BlackjackFigures, TheoreticalFigures, UthFigures, UthRules, BLACKJACK_ROUNDS, BLACKJACK_SEED,
};
use super::uth_game;
use crate::plan::document::Plan;

// Apart from the figures' data, which a plan holds: these read the plan.
impl TheoreticalFigures {
    /// Computes every long figure of `plan` on `threads` threads (about a minute on two).
    pub fn compute(plan: &Plan, threads: usize) -> TheoreticalFigures {
        let blackjack = plan.blackjack.as_ref().map(|bp| {
            let rules = BlackjackRules::of(bp);
            let (strategy, player) = blackjack_game::infinite_shoe(&rules);
            BlackjackFigures {
                rules,
                infinite_shoe_house_edge: -player,
                shoe: blackjack_game::simulate(
                    &rules,
                    &strategy,
                    BLACKJACK_ROUNDS,
                    BLACKJACK_SEED,
                    threads,
                ),
            }
        });
        let ultimate_texas_holdem = plan.ultimate_texas_holdem.as_ref().map(|up| {
            let base = uth_game::analyse(up, threads);
            let trips = uth_trips(&up.trips, &SevenCardHands::enumerate());
            UthFigures {
                rules: UthRules::of(up),
                deals: u64::try_from(base.deals).unwrap_or(u64::MAX),
                house_edge: base.house_edge(),
                element_of_risk: base.element_of_risk(),
                rtp: base.rtp(),
                average_play: base.average_play(),
                standard_deviation: base.standard_deviation(),
                third_moment: base.third_moment(),
                preflop_raises: base.preflop_raises,
                trips_rtp: trips.rtp,
                trips_standard_deviation: trips.moments.standard_deviation,
                trips_third_moment: trips.moments.third_moment,
            }
        });
        TheoreticalFigures {
            blackjack,
            ultimate_texas_holdem,
        }
    }

    /// The parts computed for the rules `plan` has now; the rest is dropped.
    pub fn matching(self, plan: &Plan) -> TheoreticalFigures {
        TheoreticalFigures {
            blackjack: self.blackjack.filter(|f| {
                plan.blackjack
                    .as_ref()
                    .is_some_and(|bp| BlackjackRules::of(bp) == f.rules)
            }),
            ultimate_texas_holdem: self.ultimate_texas_holdem.filter(|f| {
                plan.ultimate_texas_holdem
                    .as_ref()
                    .is_some_and(|up| UthRules::of(up) == f.rules)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::table_games::DealerBlackjackTakes;

    const BUNDLED: &str = include_str!("../../plans/69games-ziva-hra.rtp.toml");

    use crate::plan::bundled_plan as plan;

    #[test]
    fn the_bundled_figures_are_what_the_plan_computes_to() {
        let plan = plan();
        let stored = TheoreticalFigures::from_toml_str(BUNDLED).unwrap();
        let computed = TheoreticalFigures::compute(&plan, 2);
        assert_eq!(
            computed, stored,
            "stale: run `cargo run --release -- rtp --write rules/plans/69games-ziva-hra.rtp.toml`"
        );
        // The published optimal-strategy figure for these UTH rules is 2.1850 % of the Ante.
        let uth = computed.ultimate_texas_holdem.unwrap();
        assert_eq!(format!("{:.4}", uth.house_edge.to_f64() * 100.0), "2.1850");
        // Both blackjack figures are within the range of published six-deck / infinite-deck
        // house edges for these rules (half a per cent, give or take a tenth).
        let bj = computed.blackjack.unwrap();
        assert!((0.0045..0.0060).contains(&bj.shoe.house_edge()), "{bj:?}");
        assert!(bj.shoe.house_edge() < bj.infinite_shoe_house_edge);
        // The hand's third moment is the royal flush's: 4 324 of the 133 784 560 seven-card
        // hands hold one, and it wins about 500 (Blind) + 1 (Ante) + 3 or 4 (Play) Antes:
        // 4 324 / 133 784 560 × 504³ ≈ 3.232e-5 × 1.280e8 ≈ 4 138 Antes³. Straight flushes
        // (≈ 2.8e-4 × 54³ ≈ 44) and the mean's pull move it by a few per cent; boards that
        // give the dealer the same royal push it down. So it is within 10 % of 4 138.
        assert!((3_724.0..4_552.0).contains(&uth.third_moment), "{uth:?}");
        // Trips: skewness μ₃/σ³ above 4 (50:1 royal, 40:1 straight flush, 30:1 quads).
        let skew = uth.trips_third_moment / uth.trips_standard_deviation.powi(3);
        assert!((4.0..6.0).contains(&skew), "{skew}");
        // Blackjack is nearly symmetric: wins and losses of one or two bets, the 3:2 natural
        // tilting it slightly to the right.
        let skew = bj.shoe.third_moment / bj.shoe.standard_deviation.powi(3);
        assert!((0.0..0.5).contains(&skew), "{skew}");
    }

    #[test]
    fn figures_are_dropped_once_the_plan_changes_the_rules_they_were_computed_for() {
        let mut plan = plan();
        assert!(plan.theoretical.blackjack.is_some());
        assert!(plan.theoretical.ultimate_texas_holdem.is_some());
        let stored = TheoreticalFigures::from_toml_str(BUNDLED).unwrap();
        if let Some(b) = plan.blackjack.as_mut() {
            b.dealer_blackjack_takes = DealerBlackjackTakes::OriginalBetOnly;
            // A limit is not a rule of the figures: changing it alone would keep them.
            b.box_max_h += 100;
        }
        if let Some(u) = plan.ultimate_texas_holdem.as_mut() {
            u.max_win_h += 100;
        }
        let kept = stored.matching(&plan);
        assert!(kept.blackjack.is_none());
        assert!(kept.ultimate_texas_holdem.is_some());
    }
}
