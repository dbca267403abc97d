//! A plan: its sections, one per game, and the figures kept beside it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::poker::{OfcPlan, PokerCashPlan, TournamentPlan};
use super::table_games::{BlackjackPlan, RoulettePlan, UltimateTexasHoldemPlan, WheelPlan};
use crate::error::RecordError;
use crate::rtp::figures::TheoreticalFigures;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub plan_id: String,
    pub name: String,
    pub version: String,
    pub currency: String,
    #[serde(default)]
    pub roulette: Option<RoulettePlan>,
    #[serde(default)]
    pub blackjack: Option<BlackjackPlan>,
    #[serde(default)]
    pub ultimate_texas_holdem: Option<UltimateTexasHoldemPlan>,
    /// Šťastné kolo (money wheel I).
    #[serde(default)]
    pub money_wheel_1: Option<WheelPlan>,
    /// Šťastné kolo II (money wheel II).
    #[serde(default)]
    pub money_wheel_2: Option<WheelPlan>,
    /// Cash game (Texas Hold'em, Omaha Hold'em).
    #[serde(default)]
    pub poker_cash: Option<PokerCashPlan>,
    /// Pineapple Open Face Chinese poker (cash game).
    #[serde(default)]
    pub open_face_chinese: Option<OfcPlan>,
    /// Poker tournaments (Hold'em, Omaha, OFC): fee and payout tables.
    #[serde(default)]
    pub poker_tournament: Option<TournamentPlan>,
    /// Each game's name as the plan writes it (what people read in reports), by game code.
    #[serde(default)]
    pub game_names: BTreeMap<String, String>,
    /// Figures too long to compute per report, kept beside the plan file; not part of it.
    #[serde(skip)]
    pub theoretical: TheoreticalFigures,
}

impl Plan {
    pub fn roulette(&self) -> Result<&RoulettePlan, RecordError> {
        self.section(&self.roulette, "roulette")
    }

    pub fn blackjack(&self) -> Result<&BlackjackPlan, RecordError> {
        self.section(&self.blackjack, "blackjack")
    }

    /// The most one bet may win under the plan (its stake included), for the games that set a
    /// limit; `None` for games between players (poker, OFC, tournaments) or not in the plan.
    pub fn max_win_h(&self, game: crate::round_header::GameCode) -> Option<i64> {
        use crate::round_header::GameCode;
        match game {
            GameCode::Roulette => self.roulette.as_ref().map(|r| r.max_win_h),
            GameCode::Blackjack => self
                .blackjack
                .as_ref()
                .map(|b| b.max_win_h.max(b.perfect_pairs.max_win_h)),
            GameCode::UltimateTexasHoldem => {
                self.ultimate_texas_holdem.as_ref().map(|u| u.max_win_h)
            }
            GameCode::MoneyWheel1 | GameCode::MoneyWheel2 => self
                .wheel(game)
                .ok()
                .and_then(|w| w.max_net_win_h.checked_add(w.max_bet_h)),
            GameCode::PokerCash | GameCode::OpenFaceChinese | GameCode::PokerTournament => None,
        }
    }

    /// The money wheel section for `game` (`money_wheel_1` or `money_wheel_2`).
    pub fn wheel(&self, game: crate::round_header::GameCode) -> Result<&WheelPlan, RecordError> {
        let section = match game {
            crate::round_header::GameCode::MoneyWheel1 => &self.money_wheel_1,
            crate::round_header::GameCode::MoneyWheel2 => &self.money_wheel_2,
            _ => &None,
        };
        self.section(section, game.as_str())
    }

    /// A game's section, or the error that the plan has none.
    fn section<'a, T>(&self, section: &'a Option<T>, game: &str) -> Result<&'a T, RecordError> {
        section.as_ref().ok_or_else(|| RecordError::GameNotInPlan {
            plan_id: self.plan_id.clone(),
            game: game.into(),
        })
    }

    pub fn open_face_chinese(&self) -> Result<&OfcPlan, RecordError> {
        self.section(&self.open_face_chinese, "open_face_chinese")
    }

    pub fn poker_tournament(&self) -> Result<&TournamentPlan, RecordError> {
        self.section(&self.poker_tournament, "poker_tournament")
    }

    pub fn poker_cash(&self) -> Result<&PokerCashPlan, RecordError> {
        self.section(&self.poker_cash, "poker_cash")
    }

    pub fn ultimate_texas_holdem(&self) -> Result<&UltimateTexasHoldemPlan, RecordError> {
        self.section(&self.ultimate_texas_holdem, "ultimate_texas_holdem")
    }

    /// The game's name as the plan writes it, or its code when the plan names none.
    pub fn game_name<'a>(&'a self, code: &'a str) -> &'a str {
        self.game_names.get(code).map_or(code, String::as_str)
    }
}
