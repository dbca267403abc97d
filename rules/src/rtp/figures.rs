//! The figures that take long to compute (the UTH base game over every deal, the Trips
//! enumeration, the blackjack shoe simulation): computed by `dozor rtp --write` and kept next to
//! the plan file (`<plan>.rtp.toml`). Each part records the rules it was computed for and is
//! used only while the plan still has exactly those rules; a test recomputes the bundled file.

use serde::{Deserialize, Serialize};

use super::blackjack_game::{self, BlackjackRules, SimulatedEdge};
use super::{uth_game, uth_trips, SevenCardHands};
use crate::plan::{HandPayTable, Plan, UltimateTexasHoldemPlan};
use crate::ratio::Ratio;

/// How the bundled blackjack figure is simulated: rounds and seed (about 20 s on two cores).
pub const BLACKJACK_ROUNDS: u64 = 1 << 28;
pub const BLACKJACK_SEED: u64 = 20_191_001;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TheoreticalFigures {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blackjack: Option<BlackjackFigures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultimate_texas_holdem: Option<UthFigures>,
}

/// Black Jack main bet under basic strategy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlackjackFigures {
    pub rules: BlackjackRules,
    /// Exact, for an infinite shoe (the strategy's source).
    pub infinite_shoe_house_edge: f64,
    /// The plan's shoe dealt off the top with that strategy.
    pub shoe: SimulatedEdge,
}

/// The UTH rules the figures depend on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UthRules {
    pub blind: HandPayTable,
    pub play_preflop: Vec<u8>,
    pub play_flop: u8,
    pub play_river: u8,
    pub trips: HandPayTable,
}

impl UthRules {
    pub fn of(plan: &UltimateTexasHoldemPlan) -> UthRules {
        UthRules {
            blind: plan.blind,
            play_preflop: plan.play_preflop.clone(),
            play_flop: plan.play_flop,
            play_river: plan.play_river,
            trips: plan.trips,
        }
    }
}

/// UTH Ante + Blind + Play under the best strategy, and Trips, both exact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UthFigures {
    pub rules: UthRules,
    /// Deals enumerated (player, flop, turn and river, dealer).
    pub deals: u64,
    /// Player's average loss per Ante.
    pub house_edge: Ratio,
    /// Player's average loss per unit wagered (Ante + Blind + Play).
    pub element_of_risk: Ratio,
    /// Returned ÷ wagered over Ante + Blind + Play.
    pub rtp: Ratio,
    /// Average Play bet, in Antes.
    pub average_play: f64,
    /// Standard deviation of a hand's result, in Antes.
    pub standard_deviation: f64,
    /// Third central moment of a hand's result, in Antes cubed.
    pub third_moment: f64,
    /// Starting hands (of 1 326) raised before the flop.
    pub preflop_raises: u32,
    pub trips_rtp: Ratio,
    /// Standard deviation of the Trips payout per unit staked.
    pub trips_standard_deviation: f64,
    /// Third central moment of the Trips payout per unit staked.
    pub trips_third_moment: f64,
}

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

    pub fn from_toml_str(text: &str) -> Result<TheoreticalFigures, toml::de::Error> {
        toml::from_str(text)
    }

    pub fn to_toml_string(&self) -> Result<String, toml::ser::Error> {
        let body = toml::to_string(self)?;
        Ok(format!(
            "# Theoretical figures of the plan beside this file, written by `dozor rtp --write`.\n\
             # Each part names the rules it was computed for; it is ignored once they change.\n\n\
             {body}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::DealerBlackjackTakes;

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
