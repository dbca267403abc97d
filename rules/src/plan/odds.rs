//! Odds and the hand pay tables the card games pay by.

use serde::{Deserialize, Serialize};

/// A payout ratio `num:den` (3:2 pays 1.5 × stake plus the stake).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Odds {
    pub num: u32,
    pub den: u32,
}

impl Odds {
    /// Even money, 1:1.
    pub const EVEN: Odds = Odds { num: 1, den: 1 };

    /// What a winning `stake_h` gets back: `stake × num / den` rounded down to whole haléře
    /// (a 3:2 win on an odd stake), plus the stake; `None` on overflow.
    pub fn pays(self, stake_h: i64) -> Option<i64> {
        stake_h
            .checked_mul(i64::from(self.num))
            .map(|won| won / i64::from(self.den.max(1)))
            .and_then(|won| won.checked_add(stake_h))
    }
}

/// A pay table as another document states it, with the most it says a bet may pay.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatedPayTable {
    /// Where it is stated (document and section).
    pub source: String,
    pub table: HandPayTable,
    /// "maximální výplata": the most the bet may pay, if the document caps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_payout_h: Option<i64>,
}

/// A pay table by the player's best five cards (`None`: not paid by this table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandPayTable {
    pub royal_flush: Odds,
    pub straight_flush: Odds,
    pub quads: Odds,
    pub full_house: Odds,
    pub flush: Odds,
    pub straight: Odds,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trips: Option<Odds>,
}

impl HandPayTable {
    /// The odds for a hand, or `None` when this table does not pay it.
    pub fn odds_for(&self, hand: crate::hand_rank::HandRank) -> Option<Odds> {
        use crate::hand_rank::Category;
        if hand.is_royal_flush() {
            return Some(self.royal_flush);
        }
        match hand.category() {
            Category::StraightFlush => Some(self.straight_flush),
            Category::Quads => Some(self.quads),
            Category::FullHouse => Some(self.full_house),
            Category::Flush => Some(self.flush),
            Category::Straight => Some(self.straight),
            Category::Trips => self.trips,
            _ => None,
        }
    }
}
