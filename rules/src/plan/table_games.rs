//! The plan sections of the games against the house: roulette, blackjack, money wheels and
//! Ultimate Texas Hold'em.

use serde::{Deserialize, Serialize};

use super::odds::{HandPayTable, Odds, StatedPayTable};

/// Ruleta section of the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoulettePlan {
    /// Minimum stake per bet (per player and position).
    pub min_bet_h: i64,
    /// Maximum stake per bet (per player and position).
    pub max_bet_h: i64,
    /// "Maximální možná Výhra": the most a single bet may be paid, stake included.
    pub max_win_h: i64,
    pub odds: RouletteOdds,
}

/// Pay table, N meaning N:1.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouletteOdds {
    pub straight: u32,
    pub split: u32,
    pub street: u32,
    pub corner: u32,
    pub six_line: u32,
    pub dozen: u32,
    pub column: u32,
    pub even_chance: u32,
}

/// What a player with doubled or split bets loses when the dealer (no hole card) makes a
/// blackjack. The plan is silent; the usual European rule is everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DealerBlackjackTakes {
    /// Every bet of the box, doubles and splits included.
    All,
    /// Only the original bet; doubles and splits are returned.
    OriginalBetOnly,
}

/// Black Jack section of the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlackjackPlan {
    pub decks: u8,
    /// Minimum main bet per player.
    pub min_bet_h: i64,
    /// Maximum of all main bets on one box together.
    pub box_max_h: i64,
    pub max_bets_per_box: u8,
    pub blackjack_odds: Odds,
    /// Dealer stands on every 17, soft ones included.
    pub dealer_stands_soft_17: bool,
    /// Splits per box position (3 splits = 4 hands).
    pub max_splits: u8,
    pub double_after_split: bool,
    /// Insurance at most this fraction of the original bet, paid at `insurance_odds`.
    pub insurance_max_fraction: Odds,
    pub insurance_odds: Odds,
    pub dealer_blackjack_takes: DealerBlackjackTakes,
    /// Cards burned after a shuffle and after a dealer change.
    pub burn_after_shuffle: u8,
    pub burn_after_dealer_change: u8,
    /// Most a main bet may be paid, stake included.
    pub max_win_h: i64,
    pub perfect_pairs: PerfectPairsPlan,
}

/// Perfect Pairs side bet (first two cards of the box).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerfectPairsPlan {
    pub min_bet_h: i64,
    pub max_bet_h: i64,
    /// Same rank, different colour; same colour, different suit; same suit (N:1).
    pub mixed: u32,
    pub coloured: u32,
    pub perfect: u32,
    pub max_win_h: i64,
}

/// A money wheel section: the boxes of the layout and how many wheel segments each has.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelPlan {
    /// Per bet on one box.
    pub min_bet_h: i64,
    pub max_bet_h: i64,
    /// What the maximum ("do jedné hry") limits: a player's stake on each box, or everything a
    /// player stakes on one spin.
    #[serde(default)]
    pub max_bet_per: WheelMaxBetPer,
    /// Most a bet may win, its stake not included ("nejvyšší čistá výhra").
    pub max_net_win_h: i64,
    /// Full turns the wheel must make; fewer makes the spin void.
    pub min_turns: u8,
    /// Each box, and a segment with the same id pays it (so a 25× bet wins only on its colour).
    pub boxes: Vec<WheelBox>,
    /// The number of segments the plan's text gives the wheel (checked by `dozor plan lint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments_stated: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelBox {
    /// The box's id, also the label of its segments (`1x`, `25x_black`, …).
    pub id: String,
    /// Pays N:1.
    pub pays: u32,
    /// Segments of the wheel that pay this box.
    pub segments: u32,
}

impl WheelPlan {
    pub fn box_of(&self, id: &str) -> Option<&WheelBox> {
        self.boxes.iter().find(|b| b.id == id)
    }

    /// Segments on the wheel.
    pub fn segments(&self) -> u32 {
        self.boxes.iter().map(|b| b.segments).sum()
    }
}

/// The scope of a money wheel's maximum bet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WheelMaxBetPer {
    /// Each player's stake on each box.
    #[default]
    Box,
    /// Each player's stakes on all boxes of one spin together.
    Game,
}

/// Whether a folded hand's Trips bet is still settled on its seven cards. The plan says Trips
/// "always" wins with trips or better and is silent on folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TripsOnFold {
    Settled,
    Lost,
}

/// Ultimate Texas Hold'em section of the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UltimateTexasHoldemPlan {
    /// Limits of each spot (Ante = Blind; Trips ≤ Ante).
    pub min_bet_h: i64,
    pub max_bet_h: i64,
    /// Play bet multiples of the Ante allowed before the flop, after it, after the river.
    pub play_preflop: Vec<u8>,
    pub play_flop: u8,
    pub play_river: u8,
    /// Blind pays only for a straight or better (below: push).
    pub blind: HandPayTable,
    /// Trips pays for trips or better whatever the dealer holds.
    pub trips: HandPayTable,
    pub trips_on_fold: TripsOnFold,
    /// Cards burned in a round (one before the flop, one before the turn and river).
    pub burns: u8,
    /// Most one spot may be paid in a round, all bets together, stakes included.
    pub max_win_h: i64,
    /// The Trips table as other documents of the operator state it (`dozor plan lint` compares
    /// each with the plan's, which is the one applied).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trips_stated: Vec<StatedPayTable>,
}
