//! The roulette spin as the table reports it.

use serde::{Deserialize, Serialize};

use super::layout::{self, Position, PositionClass};
use crate::round_header::round_record;

/// Most bets a single spin may carry; more is not a real table.
pub const MAX_BETS_PER_ROUND: usize = 2_000;

round_record! {
    /// A roulette spin as the table reports it.
    pub struct RouletteRound {
        pub outcome: SpinOutcome,
        pub bets: Vec<RouletteBet>,
        /// What the wheel reports of the spin, when it reports it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub spin: Option<SpinEvidence>,
    }
}

/// Which way a wheel's rotor or its ball turned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Clockwise,
    Counterclockwise,
}

/// What a modern wheel reports of a spin (Ruleta, 3. HRA): the ball is spun against the
/// rotor's direction and must go round at least five times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpinEvidence {
    pub rotor: Direction,
    pub ball: Direction,
    pub ball_revolutions: u16,
}

/// The result of the spin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpinOutcome {
    /// The ball fell into this pocket.
    Number { number: u8 },
    /// "Chybné roztočení" / No-spin: the game is void and every stake is returned.
    Void { reason: VoidReason },
}

/// Why a spin was declared void (Ruleta, 3. HRA).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoidReason {
    /// The wheel turned the same way as on the previous spin.
    WheelNotReversed,
    /// The ball was spun in the direction of the wheel.
    BallSpunWithWheel,
    /// The ball ran fewer than five revolutions (the inspector's call).
    TooFewRevolutions,
    /// Any other reason given by the inspector.
    InspectorDecision,
}

impl VoidReason {
    pub fn as_str(self) -> &'static str {
        match self {
            VoidReason::WheelNotReversed => "wheel_not_reversed",
            VoidReason::BallSpunWithWheel => "ball_spun_with_wheel",
            VoidReason::TooFewRevolutions => "too_few_revolutions",
            VoidReason::InspectorDecision => "inspector_decision",
        }
    }
}

/// Bets of the layout and the call bets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BetKind {
    Straight,
    Split,
    Street,
    Corner,
    SixLine,
    #[serde(rename = "dozen_1")]
    Dozen1,
    #[serde(rename = "dozen_2")]
    Dozen2,
    #[serde(rename = "dozen_3")]
    Dozen3,
    #[serde(rename = "column_1")]
    Column1,
    #[serde(rename = "column_2")]
    Column2,
    #[serde(rename = "column_3")]
    Column3,
    Red,
    Black,
    Odd,
    Even,
    Low,
    High,
    /// A number and two wheel neighbours each side: 5 straights.
    Neighbours,
    ZeroSpiel,
    /// Velká série.
    #[serde(alias = "velka_serie")]
    Voisins,
    /// Malá série.
    #[serde(alias = "mala_serie")]
    Tiers,
    Orphelins,
}

impl BetKind {
    pub fn is_call_bet(self) -> bool {
        matches!(
            self,
            BetKind::Neighbours
                | BetKind::ZeroSpiel
                | BetKind::Voisins
                | BetKind::Tiers
                | BetKind::Orphelins
        )
    }

    pub(super) fn inside_class(self) -> Option<PositionClass> {
        match self {
            BetKind::Straight => Some(PositionClass::Straight),
            BetKind::Split => Some(PositionClass::Split),
            BetKind::Street => Some(PositionClass::Street),
            BetKind::Corner => Some(PositionClass::Corner),
            BetKind::SixLine => Some(PositionClass::SixLine),
            _ => None,
        }
    }

    pub(super) fn outside_position(self) -> Option<Position> {
        use layout::*;
        let p = |class, mask| Some(Position::new(class, mask));
        match self {
            BetKind::Dozen1 => p(PositionClass::Dozen, DOZEN_MASKS[0]),
            BetKind::Dozen2 => p(PositionClass::Dozen, DOZEN_MASKS[1]),
            BetKind::Dozen3 => p(PositionClass::Dozen, DOZEN_MASKS[2]),
            BetKind::Column1 => p(PositionClass::Column, COLUMN_MASKS[0]),
            BetKind::Column2 => p(PositionClass::Column, COLUMN_MASKS[1]),
            BetKind::Column3 => p(PositionClass::Column, COLUMN_MASKS[2]),
            BetKind::Red => p(PositionClass::EvenChance, RED_MASK),
            BetKind::Black => p(PositionClass::EvenChance, BLACK_MASK),
            BetKind::Odd => p(PositionClass::EvenChance, ODD_MASK),
            BetKind::Even => p(PositionClass::EvenChance, EVEN_MASK),
            BetKind::Low => p(PositionClass::EvenChance, LOW_MASK),
            BetKind::High => p(PositionClass::EvenChance, HIGH_MASK),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BetKind::Straight => "straight",
            BetKind::Split => "split",
            BetKind::Street => "street",
            BetKind::Corner => "corner",
            BetKind::SixLine => "six_line",
            BetKind::Dozen1 => "dozen_1",
            BetKind::Dozen2 => "dozen_2",
            BetKind::Dozen3 => "dozen_3",
            BetKind::Column1 => "column_1",
            BetKind::Column2 => "column_2",
            BetKind::Column3 => "column_3",
            BetKind::Red => "red",
            BetKind::Black => "black",
            BetKind::Odd => "odd",
            BetKind::Even => "even",
            BetKind::Low => "low",
            BetKind::High => "high",
            BetKind::Neighbours => "neighbours",
            BetKind::ZeroSpiel => "zero_spiel",
            BetKind::Voisins => "voisins",
            BetKind::Tiers => "tiers",
            BetKind::Orphelins => "orphelins",
        }
    }
}

/// One bet as the table reports it, with what the table paid for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouletteBet {
    /// Short ids and seat names are kept inline, without an allocation each: a spin carries
    /// a dozen bets, and a verifier reads a million spins.
    pub bet_id: compact_str::CompactString,
    /// Seat or player reference (one chip colour per player).
    pub player: compact_str::CompactString,
    pub kind: BetKind,
    /// Inside bets: the numbers of the position; neighbours: the centre number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbers: Vec<u8>,
    /// Stake of a layout bet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stake_h: Option<i64>,
    /// Value of each chip of a call bet (the stake is chips × chip value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chip_h: Option<i64>,
    /// Everything handed back for this bet: winnings plus stake, the stake on a void spin, else 0.
    pub paid_h: i64,
}
