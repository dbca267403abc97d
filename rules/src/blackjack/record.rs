//! The blackjack round as the table reports it.

use serde::{Deserialize, Serialize};

use crate::cards::Card;
use crate::round_header::round_record;
use crate::void_hand::VoidHand;

/// Boxes on a blackjack layout.
pub const MAX_BOXES: u8 = 7;

round_record! {
    /// A blackjack round as the table reports it.
    pub struct BlackjackRound {
        /// The shoe the cards come from (cards are checked across the rounds of one shoe).
        pub shoe_id: String,
        /// The first round after a shuffle (the plan burns three cards).
        #[serde(default)]
        pub shuffled: bool,
        /// A new dealer took the table before this round (the plan burns one card).
        #[serde(default)]
        pub dealer_changed: bool,
        /// Cards burned before the deal.
        #[serde(default)]
        pub burned: Vec<Card>,
        /// Every card dealt in this round, in the order it left the shoe.
        pub deal: Vec<Card>,
        /// Boxes in play, left to right.
        pub boxes: Vec<BlackjackBox>,
        /// The round was declared void: every stake goes back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub void: Option<VoidHand>,
    }
}

/// One box: the decisions of each of its hands in play order, and the bets on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlackjackBox {
    #[serde(rename = "box")]
    pub box_no: u8,
    /// For each hand in play order, the decisions taken on it: the original hand first; a
    /// split ends a hand (its list ends with `split`) and its two halves follow, left first.
    /// A hand that needed none (21, bust, a split ace) has an empty list.
    pub hands: Vec<Vec<Decision>>,
    pub bets: Vec<BlackjackBet>,
}

impl BlackjackBox {
    pub(super) fn has_insurance(&self) -> bool {
        self.bets
            .iter()
            .any(|b| b.kind == BlackjackBetKind::Insurance)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Hit,
    Stand,
    Double,
    Split,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Hit => "hit",
            Decision::Stand => "stand",
            Decision::Double => "double",
            Decision::Split => "split",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlackjackBetKind {
    /// The main bet; doubles and splits add the same stake again, following the box's play.
    Main,
    PerfectPairs,
    Insurance,
}

impl BlackjackBetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BlackjackBetKind::Main => "main",
            BlackjackBetKind::PerfectPairs => "perfect_pairs",
            BlackjackBetKind::Insurance => "insurance",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlackjackBet {
    pub bet_id: String,
    pub player: String,
    pub kind: BlackjackBetKind,
    /// The stake placed at the start (a main bet's doubles and splits are not included).
    pub stake_h: i64,
    /// Everything handed back for this bet, stakes included.
    pub paid_h: i64,
    /// The casino refused the win (card counting): only the original stake is returned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withheld: bool,
}
