//! The plan sections of the games between players: cash games, Open Face Chinese and
//! tournaments.

use serde::{Deserialize, Serialize};

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
