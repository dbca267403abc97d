//! The cash-game hand as the table reports it.

use serde::{Deserialize, Serialize};

use crate::cards::Card;
use crate::examined::Examined;
use crate::round_header::round_record;
use crate::void_hand::VoidHand;

/// Seats at a cash-game table (seed 001: at most 10).
pub const MAX_SEATS: u8 = 10;

/// The verdict names each seat's line by its number.
pub(super) const SEAT_IDS: [&str; 11] = [
    "seat-0", "seat-1", "seat-2", "seat-3", "seat-4", "seat-5", "seat-6", "seat-7", "seat-8",
    "seat-9", "seat-10",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Holdem,
    Omaha,
}

impl Variant {
    pub(super) fn hole_cards(self) -> usize {
        match self {
            Variant::Holdem => 2,
            Variant::Omaha => 4,
        }
    }
}

/// How the casino is paid for the hand.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collection {
    /// A share of the pot.
    #[default]
    Rake,
    /// Time collection, taken per 30 minutes as a table event: no rake from the hand.
    Time,
}

round_record! {
    /// One hand as the table reports it.
    pub struct PokerHand examined {
        pub variant: Variant,
        /// The seat with the dealer button (a dead button may be an empty seat).
        pub button: u8,
        pub small_blind_h: i64,
        pub big_blind_h: i64,
        /// The seats dealt in, by seat number.
        pub seats: Vec<PokerSeat>,
        /// Every action in the order taken, blinds first.
        pub actions: Vec<PokerAction>,
        /// The community cards dealt (0, 3, 4 or 5).
        #[serde(default)]
        pub board: Vec<Card>,
        /// The cards burned, when the table records them: one before the flop, the turn and
        /// the river each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub burned: Vec<Card>,
        /// The pots as the dealer made them, main pot first (optional: checked when given).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub pots: Option<Vec<DealerPot>>,
        /// What each seat was handed from the pots (uncalled bets returned included).
        pub awards: Vec<Award>,
        #[serde(default)]
        pub collection: Collection,
        /// What the casino took from the pot.
        pub rake_h: i64,
        /// Players seated at the table when the hand was dealt, those sitting it out included,
        /// when the table records them (the rake cap counts them if the plan says so).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub seated_players: Option<u8>,
        /// The hand was declared void: every chip goes back where it came from, no rake.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub void: Option<VoidHand>,
        /// What cannot have happened, as found when the record was read (not part of it).
        #[serde(skip)]
        pub examined: Examined,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PokerSeat {
    pub seat: u8,
    pub player: String,
    /// Chips in front of the player when the hand started.
    pub stack_h: i64,
    /// The hole cards the player turned over, if any (a hand must be fully shown to win).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<Vec<Card>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    SmallBlind,
    BigBlind,
    /// A voluntary blind of twice the big blind, by the seat after the big blind.
    Straddle,
    Fold,
    Check,
    Call,
    Bet,
    Raise,
    /// Everything the player has left, whatever that amounts to (a call, bet or raise).
    AllIn,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::SmallBlind => "small_blind",
            ActionKind::BigBlind => "big_blind",
            ActionKind::Straddle => "straddle",
            ActionKind::Fold => "fold",
            ActionKind::Check => "check",
            ActionKind::Call => "call",
            ActionKind::Bet => "bet",
            ActionKind::Raise => "raise",
            ActionKind::AllIn => "all_in",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PokerAction {
    pub seat: u8,
    pub street: Street,
    pub action: ActionKind,
    /// Blinds, bets and raises: the seat's total on this street after the action ("raise to").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_h: Option<i64>,
}

/// A pot as the dealer made it: its size (before rake) and the seats that could win it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealerPot {
    pub amount_h: i64,
    pub seats: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Award {
    pub seat: u8,
    pub amount_h: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Street {
    Preflop,
    Flop,
    Turn,
    River,
}

impl PokerHand {
    pub(super) fn seat(&self, seat: u8) -> Option<&PokerSeat> {
        self.seats.iter().find(|s| s.seat == seat)
    }

    /// Seats in the order they act after the button: first left of the button, …
    pub(super) fn left_of_button(&self) -> Vec<u8> {
        let mut order: Vec<u8> = self.seats.iter().map(|s| s.seat).collect();
        order.sort_by_key(|&s| (s <= self.button, s));
        order
    }
}

impl Street {
    pub fn as_str(self) -> &'static str {
        match self {
            Street::Preflop => "pre-flop",
            Street::Flop => "flop",
            Street::Turn => "turn",
            Street::River => "river",
        }
    }

    /// Community cards showing once this street's betting starts.
    pub fn board_cards(self) -> usize {
        match self {
            Street::Preflop => 0,
            Street::Flop => 3,
            Street::Turn => 4,
            Street::River => 5,
        }
    }

    pub(super) fn next(self) -> Option<Street> {
        match self {
            Street::Preflop => Some(Street::Flop),
            Street::Flop => Some(Street::Turn),
            Street::Turn => Some(Street::River),
            Street::River => None,
        }
    }
}
