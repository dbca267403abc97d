//! The figures that take long to compute (the UTH base game over every deal, the Trips
//! enumeration, the blackjack shoe simulation): computed by `dozor rtp --write` and kept next to
//! the plan file (`<plan>.rtp.toml`). Each part records the rules it was computed for and is
//! used only while the plan still has exactly those rules; a test recomputes the bundled file.

use serde::{Deserialize, Serialize};

use super::blackjack_game::{BlackjackRules, SimulatedEdge};
use crate::plan::odds::HandPayTable;
use crate::plan::table_games::UltimateTexasHoldemPlan;
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
