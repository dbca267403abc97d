//! Plan parameters as data: one TOML file per herní plán (see `rules/plans/`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{PlanError, RecordError};
use crate::rtp::TheoreticalFigures;

/// The plans shipped with this version of dozor, each with its theoretical figures
/// (`dozor rtp --write`).
const BUILTIN_PLANS: &[(&str, &str)] = &[(
    include_str!("../plans/69games-ziva-hra.toml"),
    include_str!("../plans/69games-ziva-hra.rtp.toml"),
)];

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

/// Cash game section: the casino's rake.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PokerCashPlan {
    /// Share of the closed pot, rounded down to whole Kč.
    pub rake_percent: u8,
    /// The cap by the number of players dealt in (the first line that covers them applies; more
    /// players than any line: the last).
    pub rake_caps: Vec<RakeCap>,
    /// The smallest chip: pots split in whole chips, odd chips to the first winner left of the
    /// button.
    pub chip_unit_h: i64,
    /// Time collection instead of rake, per 30 minutes.
    pub time_collection_min_h: i64,
    pub time_collection_max_h: i64,
    /// Whether that range is each player's fee or the table's together.
    #[serde(default)]
    pub time_collection_per: TimeCollectionPer,
    /// Whom the rake cap's "players at the table" counts.
    #[serde(default)]
    pub rake_cap_counts: RakeCapCounts,
    /// The rake cap the plan's glossary states, if it states one (`dozor plan lint` compares it
    /// with the game section's caps, which are the ones applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glossary_rake_cap_h: Option<i64>,
}

/// Pineapple Open Face Chinese poker: rake, scoring, royalties and fantasy land.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfcPlan {
    pub min_players: u8,
    pub max_players: u8,
    /// Taken from every player of every hand (unless the table is on time collection).
    pub rake_per_player_h: i64,
    /// Points for each row won, and the bonus for winning all three (a scoop).
    pub row_points: i64,
    pub scoop_bonus: i64,
    pub back_royalties: RoyaltyTable,
    pub middle_royalties: RoyaltyTable,
    /// Front (three cards): points for a pair and for trips, by rank letter (`6`…`A`).
    pub front_pair_royalties: std::collections::BTreeMap<String, i64>,
    pub front_trip_royalties: std::collections::BTreeMap<String, i64>,
    /// Cards dealt at once in the next hand for a front pair of these ranks (without a foul).
    pub fantasy_pair_cards: std::collections::BTreeMap<String, u8>,
    /// … and for trips in front.
    pub fantasy_trips_cards: u8,
    /// Cards dealt to a player staying in fantasy land whose front does not earn more by itself
    /// (the plan does not say; see docs/PLAN-NOTES.md).
    pub fantasy_stay_cards: u8,
    /// Whether rows of equal strength foul (the plan's foul is a weaker back; its rules say the
    /// middle "must be weaker").
    #[serde(default)]
    pub equal_rows: EqualRows,
}

/// Tournament money: the fee and how the prize pool is paid out.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentPlan {
    pub fee_percent_min: u8,
    pub fee_percent_max: u8,
    pub fee_announced_days_before: u16,
    /// What the fee percentage is taken from (the base applied).
    pub fee_base: FeeBase,
    /// The base as each section of the plan states it (`dozor plan lint` compares them).
    #[serde(default)]
    pub fee_base_stated: Vec<StatedFeeBase>,
    /// The payout table, one column per range of entries, in the plan's order.
    pub payouts: Vec<PayoutColumn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeeBase {
    /// All entries' money (buy-ins, re-entries, rebuys, add-ons).
    Moneypool,
    /// What is paid out to the winners.
    Prizepool,
}

impl FeeBase {
    pub fn as_str(self) -> &'static str {
        match self {
            FeeBase::Moneypool => "moneypool",
            FeeBase::Prizepool => "prize pool",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatedFeeBase {
    pub section: String,
    pub base: FeeBase,
}

/// One column of the payout table: for tournaments of `entries[0]..=entries[1]` entries, each
/// paid place's share of the prize pool in hundredths of a percent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayoutColumn {
    pub entries: [u32; 2],
    pub places_bp: Vec<u32>,
}

impl TournamentPlan {
    /// The column for a tournament of `entries` entries: the first that covers it (the plan's
    /// headings overlap at 9 entries; see docs/PLAN-NOTES.md).
    pub fn payout_column(&self, entries: u32) -> Option<&PayoutColumn> {
        self.payouts
            .iter()
            .find(|c| c.entries[0] <= entries && entries <= c.entries[1])
    }
}

/// Royalty points of a five-card row by category (absent: none).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoyaltyTable {
    #[serde(default)]
    pub trips: i64,
    #[serde(default)]
    pub straight: i64,
    #[serde(default)]
    pub flush: i64,
    #[serde(default)]
    pub full_house: i64,
    #[serde(default)]
    pub quads: i64,
    #[serde(default)]
    pub straight_flush: i64,
    #[serde(default)]
    pub royal_flush: i64,
}

impl RoyaltyTable {
    /// The points of a five-card row of strength `hand`.
    pub fn points(&self, hand: crate::hand_rank::HandRank) -> i64 {
        use crate::hand_rank::Category;
        match hand.category() {
            _ if hand.is_royal_flush() => self.royal_flush,
            Category::StraightFlush => self.straight_flush,
            Category::Quads => self.quads,
            Category::FullHouse => self.full_house,
            Category::Flush => self.flush,
            Category::Straight => self.straight,
            Category::Trips => self.trips,
            _ => 0,
        }
    }
}

/// A rank written as in card codes (`2`…`9`, `T`, `J`, `Q`, `K`, `A`).
pub fn rank_of_letter(letter: &str) -> Option<crate::cards::Rank> {
    let mut chars = letter.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    crate::cards::Rank::all().find(|r| r.letter() == c)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RakeCap {
    pub players_up_to: u8,
    pub cap_h: i64,
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

/// The players the rake cap counts ("závislá na počtu Hráčů u stolu").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RakeCapCounts {
    /// The players dealt into the hand.
    #[default]
    DealtIn,
    /// The players seated at the table, from the hand's `seated_players` when recorded.
    Seated,
}

/// Whom the time collection's range (per 30 minutes) applies to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeCollectionPer {
    /// The fee each player pays.
    #[default]
    Player,
    /// What the table pays together, shared by its players.
    Table,
}

/// Whether Open Face Chinese rows of equal strength (back = middle, middle = front) foul.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EqualRows {
    /// Only a weaker back than middle (or middle than front) fouls.
    #[default]
    Allowed,
    /// Each row must be strictly weaker than the one below it.
    Foul,
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

impl Plan {
    pub fn from_toml_str(text: &str) -> Result<Plan, PlanError> {
        let plan: Plan = toml::from_str(text)?;
        plan.check()?;
        Ok(plan)
    }

    pub fn roulette(&self) -> Result<&RoulettePlan, RecordError> {
        self.roulette
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "roulette".into(),
            })
    }

    pub fn blackjack(&self) -> Result<&BlackjackPlan, RecordError> {
        self.blackjack
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "blackjack".into(),
            })
    }

    /// The money wheel section for `game` (`money_wheel_1` or `money_wheel_2`).
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

    pub fn wheel(&self, game: crate::round_header::GameCode) -> Result<&WheelPlan, RecordError> {
        let section = match game {
            crate::round_header::GameCode::MoneyWheel1 => self.money_wheel_1.as_ref(),
            crate::round_header::GameCode::MoneyWheel2 => self.money_wheel_2.as_ref(),
            _ => None,
        };
        section.ok_or_else(|| RecordError::GameNotInPlan {
            plan_id: self.plan_id.clone(),
            game: game.as_str().into(),
        })
    }

    pub fn open_face_chinese(&self) -> Result<&OfcPlan, RecordError> {
        self.open_face_chinese
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "open_face_chinese".into(),
            })
    }

    pub fn poker_tournament(&self) -> Result<&TournamentPlan, RecordError> {
        self.poker_tournament
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "poker_tournament".into(),
            })
    }

    pub fn poker_cash(&self) -> Result<&PokerCashPlan, RecordError> {
        self.poker_cash
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "poker_cash".into(),
            })
    }

    pub fn ultimate_texas_holdem(&self) -> Result<&UltimateTexasHoldemPlan, RecordError> {
        self.ultimate_texas_holdem
            .as_ref()
            .ok_or_else(|| RecordError::GameNotInPlan {
                plan_id: self.plan_id.clone(),
                game: "ultimate_texas_holdem".into(),
            })
    }

    /// The game's name as the plan writes it, or its code when the plan names none.
    pub fn game_name<'a>(&'a self, code: &'a str) -> &'a str {
        self.game_names.get(code).map_or(code, String::as_str)
    }

    fn check(&self) -> Result<(), PlanError> {
        let bad = |reason: String| PlanError::Inconsistent {
            plan_id: self.plan_id.clone(),
            reason,
        };
        if self.currency != "CZK" {
            return Err(bad(format!("currency must be CZK, not {}", self.currency)));
        }
        for (code, name) in &self.game_names {
            if crate::round_header::GameCode::parse(code).is_none() || name.trim().is_empty() {
                return Err(bad(format!(
                    "game_names: `{code}` must be a game code with a name"
                )));
            }
        }
        if let Some(r) = &self.roulette {
            if r.min_bet_h <= 0 || r.min_bet_h > r.max_bet_h {
                return Err(bad(format!(
                    "roulette limits must satisfy 0 < min ({}) <= max ({})",
                    r.min_bet_h, r.max_bet_h
                )));
            }
            if r.max_win_h <= 0 {
                return Err(bad("roulette max_win_h must be positive".into()));
            }
        }
        let limits = |game: &str, min: i64, max: i64| {
            if 0 < min && min <= max {
                Ok(())
            } else {
                Err(bad(format!(
                    "{game} limits must satisfy 0 < min ({min}) <= max ({max})"
                )))
            }
        };
        let odds = |what: &str, o: Odds| {
            if o.num > 0 && o.den > 0 {
                Ok(())
            } else {
                Err(bad(format!(
                    "{what} odds {}:{} are not a ratio",
                    o.num, o.den
                )))
            }
        };
        if let Some(b) = &self.blackjack {
            limits("blackjack", b.min_bet_h, b.box_max_h)?;
            limits(
                "perfect pairs",
                b.perfect_pairs.min_bet_h,
                b.perfect_pairs.max_bet_h,
            )?;
            odds("blackjack", b.blackjack_odds)?;
            odds("insurance", b.insurance_odds)?;
            odds("insurance maximum", b.insurance_max_fraction)?;
            if b.decks == 0 || b.max_bets_per_box == 0 {
                return Err(bad(
                    "blackjack needs at least one deck and one bet per box".into()
                ));
            }
        }
        for (game, wheel) in [
            ("money_wheel_1", &self.money_wheel_1),
            ("money_wheel_2", &self.money_wheel_2),
        ] {
            let Some(w) = wheel else { continue };
            limits(game, w.min_bet_h, w.max_bet_h)?;
            if w.max_net_win_h <= 0 || w.min_turns == 0 {
                return Err(bad(format!(
                    "{game}: max_net_win_h and min_turns must be positive"
                )));
            }
            if w.boxes.is_empty() || w.boxes.iter().any(|b| b.pays == 0 || b.segments == 0) {
                return Err(bad(format!(
                    "{game}: every box needs a payout and at least one segment"
                )));
            }
            for (i, b) in w.boxes.iter().enumerate() {
                crate::round_header::validate_identifier("box", &b.id)
                    .map_err(|e| bad(format!("{game}: {e}")))?;
                if w.boxes[..i].iter().any(|other| other.id == b.id) {
                    return Err(bad(format!("{game}: box {} is listed twice", b.id)));
                }
            }
        }
        if let Some(o) = &self.open_face_chinese {
            if !(2..=3).contains(&o.min_players) || !(o.min_players..=3).contains(&o.max_players) {
                return Err(bad(
                    "open face chinese is for 2 or 3 players (min_players <= max_players)".into(),
                ));
            }
            if o.rake_per_player_h < 0 || o.row_points <= 0 || o.scoop_bonus < 0 {
                return Err(bad(
                    "open face chinese: rake and scoop bonus must not be negative, row points positive".into(),
                ));
            }
            for (what, map) in [
                ("front_pair_royalties", &o.front_pair_royalties),
                ("front_trip_royalties", &o.front_trip_royalties),
            ] {
                if let Some(key) = map.keys().find(|k| rank_of_letter(k).is_none()) {
                    return Err(bad(format!(
                        "open face chinese {what}: `{key}` is not a rank (2-9, T, J, Q, K, A)"
                    )));
                }
            }
            if let Some(key) = o
                .fantasy_pair_cards
                .keys()
                .find(|k| rank_of_letter(k).is_none())
            {
                return Err(bad(format!(
                    "open face chinese fantasy_pair_cards: `{key}` is not a rank"
                )));
            }
            let counts = o
                .fantasy_pair_cards
                .values()
                .chain([&o.fantasy_trips_cards, &o.fantasy_stay_cards]);
            if let Some(n) = counts.into_iter().find(|n| !(14..=17).contains(*n)) {
                return Err(bad(format!(
                    "open face chinese: fantasy land deals 14 to 17 cards, not {n}"
                )));
            }
        }
        if let Some(t) = &self.poker_tournament {
            if t.fee_percent_min > t.fee_percent_max || t.fee_percent_max >= 100 {
                return Err(bad("poker tournament fee: min <= max < 100 percent".into()));
            }
            for c in &t.payouts {
                if c.entries[0] == 0 || c.entries[0] > c.entries[1] || c.places_bp.is_empty() {
                    return Err(bad(format!(
                        "poker tournament payouts: column {:?} needs 1 <= first <= last entries and at least one place",
                        c.entries
                    )));
                }
                if c.places_bp.len() > c.entries[0] as usize {
                    return Err(bad(format!(
                        "poker tournament payouts: column {:?} pays {} places, more than its {} entries",
                        c.entries,
                        c.places_bp.len(),
                        c.entries[0]
                    )));
                }
            }
        }
        if let Some(u) = &self.ultimate_texas_holdem {
            limits("ultimate texas hold'em", u.min_bet_h, u.max_bet_h)?;
            for table in [&u.blind, &u.trips] {
                for o in [
                    table.royal_flush,
                    table.straight_flush,
                    table.quads,
                    table.full_house,
                    table.flush,
                    table.straight,
                ]
                .into_iter()
                .chain(table.trips)
                {
                    odds("ultimate texas hold'em pay table", o)?;
                }
            }
            if u.play_preflop.is_empty() || u.play_flop == 0 || u.play_river == 0 {
                return Err(bad(
                    "ultimate texas hold'em play multiples must be positive".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The plan a table plays under unless configured otherwise.
pub const DEFAULT_PLAN: &str = "69games-ziva-hra";

/// All plans known to this instance, by id.
#[derive(Debug, Clone, Default)]
pub struct PlanBook {
    plans: BTreeMap<String, Plan>,
}

impl PlanBook {
    /// The plans bundled with dozor.
    pub fn builtin() -> Result<PlanBook, PlanError> {
        let mut book = PlanBook::default();
        for (text, figures) in BUILTIN_PLANS {
            let mut plan = Plan::from_toml_str(text)?;
            plan.theoretical = TheoreticalFigures::from_toml_str(figures)
                .map_err(|e| PlanError::Inconsistent {
                    plan_id: plan.plan_id.clone(),
                    reason: format!("theoretical figures: {e}"),
                })?
                .matching(&plan);
            book.insert(plan)?;
        }
        Ok(book)
    }

    pub fn insert(&mut self, plan: Plan) -> Result<(), PlanError> {
        if self.plans.contains_key(&plan.plan_id) {
            return Err(PlanError::Duplicate(plan.plan_id));
        }
        self.plans.insert(plan.plan_id.clone(), plan);
        Ok(())
    }

    pub fn get(&self, plan_id: &str) -> Option<&Plan> {
        self.plans.get(plan_id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.plans.keys().map(String::as_str)
    }

    /// A game's name as the first plan naming it writes it, or its code.
    pub fn game_name<'a>(&'a self, code: &'a str) -> &'a str {
        self.plans
            .values()
            .find_map(|p| p.game_names.get(code))
            .map_or(code, String::as_str)
    }

    /// The theoretical figures file of a bundled plan (`<plan_id>.rtp.toml`), for inspection
    /// exports.
    pub fn builtin_figures_source(plan_id: &str) -> Option<&'static str> {
        BUILTIN_PLANS
            .iter()
            .find(|(text, _)| Plan::from_toml_str(text).is_ok_and(|plan| plan.plan_id == plan_id))
            .map(|(_, figures)| *figures)
    }

    /// The source text of a bundled plan, for inspection exports.
    pub fn builtin_source(plan_id: &str) -> Option<&'static str> {
        BUILTIN_PLANS
            .iter()
            .map(|(text, _)| *text)
            .find(|text| Plan::from_toml_str(text).is_ok_and(|plan| plan.plan_id == plan_id))
    }
}

/// The bundled plan, for tests.
#[cfg(test)]
pub(crate) fn bundled_plan() -> Plan {
    PlanBook::builtin()
        .ok()
        .and_then(|book| book.get("69games-ziva-hra").cloned())
        .unwrap_or_else(|| panic!("the bundled plan loads"))
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let text = include_str!("../plans/69games-ziva-hra.toml")
            .replace("min_bet_h = 1_000", "min_bet_h = 9_000_000");
        assert!(matches!(
            Plan::from_toml_str(&text),
            Err(PlanError::Inconsistent { .. })
        ));
        let text = format!(
            "{}\nsurprise = 1\n",
            include_str!("../plans/69games-ziva-hra.toml")
        );
        assert!(Plan::from_toml_str(&text).is_err());
    }
}
