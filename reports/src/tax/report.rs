//! The quarter's tax as the report gives it: per category, per part between rate changes, per
//! game.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use utoipa::ToSchema;

/// The quarter's tax.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TaxReport {
    /// `YYYYQn`.
    pub quarter: String,
    /// The quarter's gaming days (Europe/Prague), first and last.
    pub first_gaming_day: NaiveDate,
    pub last_gaming_day: NaiveDate,
    /// `[starts_at, ends_at)`: the bounds of those gaming days in UTC.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Local hour at which a gaming day starts.
    pub gaming_day_start_hour: u32,
    /// The rate table used (its `name`).
    pub rate_table: String,
    /// One per category of the rate table (one partial base each).
    pub categories: Vec<CategoryTax>,
    /// Sum of the categories' tax (§ 5 odst. 1).
    pub total_tax_h: i64,
    /// Last day to file the return and pay (§ 9; daňový řád § 135 odst. 3 and § 33 odst. 4).
    pub due_date: NaiveDate,
    /// The law versions of the rates applied, in order.
    pub law_versions: Vec<String>,
    /// How a negative difference is treated.
    pub negative_base_rule: String,
    /// The quarter has not ended yet: the base and the tax will still change.
    pub provisional: bool,
    /// Why it is provisional, in words; none when final.
    pub provisional_note: Option<String>,
    /// The ledger entries the sums cover; none only for a report assessed from sums given.
    pub covers: Option<crate::coverage::Coverage>,
    /// The quarter's archived gaming days: their sums are those kept and sealed when their
    /// rounds left the database (with any round of theirs received since).
    pub archived_days: Vec<crate::archived::ArchivedDay>,
}

/// One category (partial base): the sums of its parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct CategoryTax {
    pub category: String,
    pub name: String,
    pub games: Vec<String>,
    pub stakes_h: i64,
    pub returned_stakes_h: i64,
    pub wins_h: i64,
    /// stakes − returned stakes − wins; negative when the tables paid out more.
    pub difference_h: i64,
    /// Sum of the parts' bases before rounding (each at least 0).
    pub base_h: i64,
    /// Sum of the parts' bases rounded up to whole hundreds of koruny.
    pub rounded_base_h: i64,
    /// Sum of the parts' negative differences: not deductible and not carried over.
    pub negative_difference_h: i64,
    pub tax_h: i64,
    /// The quarter, or its pieces between rate changes of this category.
    pub parts: Vec<PartTax>,
}

/// A category over the gaming days with one rate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct PartTax {
    pub first_gaming_day: NaiveDate,
    pub last_gaming_day: NaiveDate,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Stakes received, void rounds' included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds (a cancelled tournament's refunds).
    pub returned_stakes_h: i64,
    /// What the tables paid out on played rounds, stakes included; a tournament's prizes.
    pub wins_h: i64,
    /// stakes − returned stakes − wins.
    pub difference_h: i64,
    /// The difference when positive, else 0.
    pub base_h: i64,
    /// The base rounded up to whole hundreds of koruny.
    pub rounded_base_h: i64,
    /// −difference when the difference is negative, else 0.
    pub negative_difference_h: i64,
    /// Basis points: 3000 = 30 %.
    pub rate_bp: u32,
    /// The first day of the rate.
    pub rate_from: NaiveDate,
    pub law_version: String,
    /// rounded base × rate, rounded up to whole koruny.
    pub tax_h: i64,
    /// The games of the category that had rounds in the part.
    pub games: Vec<GameLine>,
}

/// What one game contributed to a part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameLine {
    pub game: String,
    pub rounds: i64,
    pub void_rounds: i64,
    pub stakes_h: i64,
    pub returned_stakes_h: i64,
    pub wins_h: i64,
    pub difference_h: i64,
    /// What the difference is: `stakes_minus_wins` (games against the house), `rake` (poker
    /// cash games: rake and time collection; Open Face Chinese: rake), `fees_less_overlay`
    /// (tournaments: buy-ins less prizes).
    pub basis: String,
    /// Poker cash games: the part of the difference taken as time collection.
    pub time_collection_h: Option<i64>,
    /// Tournaments: the fees, and what the operator added to reach guarantees.
    pub tournament_fees_h: Option<i64>,
    pub tournament_overlay_h: Option<i64>,
}
