//! The quarterly gambling tax (daň z hazardních her, zákon č. 187/2016 Sb.) from the ledger.
//!
//! Each category of the rate table is one partial base (dílčí základ daně, § 3): the stakes
//! received less the wins paid and the stakes returned, over the quarter's gaming days. A
//! partial base is the amount by which the stakes exceed the rest, so a negative difference makes
//! a base of zero; the law neither sets it against another base nor carries it into a later
//! quarter (docs/TAX.md). The base is rounded up to whole hundreds of koruny and multiplied by
//! the category's rate (§ 5 odst. 2); the tax is the sum of the partial taxes (§ 5 odst. 1).
//! Rates are data ([`RateTable`]); a quarter in which a category's rate changes is split at the
//! change, each part a base of its own at its own rate.

mod due;
mod quarter;
mod rates;

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use rules::GameCode;
use serde::Serialize;
use utoipa::ToSchema;

use crate::ReportError;

use rules::gaming_day::GamingDayClock;

pub use due::{due_date, easter_sunday, is_public_holiday, is_working_day, next_working_day};
pub use quarter::Quarter;
pub use rates::{Category, Rate, RateTable, BUNDLED, MAX_RATE_BP};

/// Haléře in the whole hundred of koruny a base is rounded up to (§ 5 odst. 2).
pub const BASE_ROUNDING_H: i64 = 10_000;
/// Haléře in a koruna: the tax is rounded up to whole koruny (daňový řád § 146).
pub const TAX_ROUNDING_H: i64 = 100;

/// What the report says about a negative difference.
pub const NEGATIVE_BASE_RULE: &str = "zákon č. 187/2016 Sb., § 3: a partial base is the amount \
by which the stakes received exceed the wins paid and the stakes returned; when they do not, the \
base is zero. The excess of wins is not set against another base and is not carried into a later \
quarter.";

#[derive(Debug, thiserror::Error)]
pub enum TaxError {
    /// The rate table could not be read or is not valid.
    #[error("{origin}: {reason}")]
    Rates { origin: String, reason: String },
    #[error("the rate table `{table}` has no rate for `{category}` on {day} (in {quarter})")]
    NoRate {
        table: String,
        category: String,
        day: NaiveDate,
        quarter: String,
    },
    #[error("game `{0}` in the ledger is in no category of the rate table")]
    UnknownGame(String),
    #[error(transparent)]
    Report(#[from] ReportError),
}

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

/// What the ledger says of one game over some gaming days.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameSums {
    pub rounds: i64,
    pub void_rounds: i64,
    pub stakes_h: i64,
    pub returned_h: i64,
    pub wins_h: i64,
    pub time_collection_h: i64,
    pub fees_h: i64,
    pub overlay_h: i64,
}

fn add(a: i64, b: i64) -> Result<i64, ReportError> {
    a.checked_add(b).ok_or(ReportError::Overflow("tax sums"))
}

fn sub(a: i64, b: i64) -> Result<i64, ReportError> {
    a.checked_sub(b)
        .ok_or(ReportError::Overflow("tax difference"))
}

impl GameSums {
    fn absorb(&mut self, o: &GameSums) -> Result<(), ReportError> {
        self.rounds = add(self.rounds, o.rounds)?;
        self.void_rounds = add(self.void_rounds, o.void_rounds)?;
        self.stakes_h = add(self.stakes_h, o.stakes_h)?;
        self.returned_h = add(self.returned_h, o.returned_h)?;
        self.wins_h = add(self.wins_h, o.wins_h)?;
        self.time_collection_h = add(self.time_collection_h, o.time_collection_h)?;
        self.fees_h = add(self.fees_h, o.fees_h)?;
        self.overlay_h = add(self.overlay_h, o.overlay_h)?;
        Ok(())
    }

    /// stakes − returned stakes − wins.
    fn difference(&self) -> Result<i64, ReportError> {
        sub(sub(self.stakes_h, self.returned_h)?, self.wins_h)
    }
}

/// `amount` (≥ 0) rounded up to a multiple of `unit`.
pub fn round_up(amount: i64, unit: i64) -> Result<i64, ReportError> {
    let rest = amount.rem_euclid(unit);
    if rest == 0 {
        return Ok(amount);
    }
    add(amount, unit - rest)
}

/// A part's tax: its rounded base × the rate, rounded up to whole koruny (exact: no floats).
pub fn tax_of(rounded_base_h: i64, rate_bp: u32) -> Result<i64, ReportError> {
    let product = i128::from(rounded_base_h) * i128::from(rate_bp);
    let bp = i128::from(MAX_RATE_BP);
    // Up to the haléř, then up to the koruna.
    let haler = (product + bp - 1).div_euclid(bp);
    let haler = i64::try_from(haler).map_err(|_| ReportError::Overflow("tax"))?;
    round_up(haler, TAX_ROUNDING_H)
}

/// The quarter's gaming days cut where any category's rate changes: `[first, next_first)` each.
/// Fails when a category has no rate on one of them.
pub fn segments(
    quarter: Quarter,
    rates: &RateTable,
) -> Result<Vec<(NaiveDate, NaiveDate)>, TaxError> {
    let (first, end) = (quarter.first_day(), quarter.next_first_day());
    let mut cuts: Vec<NaiveDate> = rates
        .categories
        .iter()
        .flat_map(|c| c.changes_between(first, end))
        .collect();
    cuts.sort();
    cuts.dedup();
    let mut starts = vec![first];
    starts.extend(cuts);
    let mut out = Vec::with_capacity(starts.len());
    for (i, start) in starts.iter().enumerate() {
        for c in &rates.categories {
            if c.rate_at(*start).is_none() {
                return Err(TaxError::NoRate {
                    table: rates.name.clone(),
                    category: c.id.clone(),
                    day: *start,
                    quarter: quarter.to_string(),
                });
            }
        }
        out.push((*start, starts.get(i + 1).copied().unwrap_or(end)));
    }
    Ok(out)
}

/// The game sums of each segment, as [`segments`] cut them, keyed by game code.
pub type SegmentSums = Vec<((NaiveDate, NaiveDate), BTreeMap<String, GameSums>)>;

/// The report from the sums of each segment.
pub fn assess(
    quarter: Quarter,
    clock: &GamingDayClock,
    rates: &RateTable,
    sums: &SegmentSums,
) -> Result<TaxReport, TaxError> {
    for (_, games) in sums {
        for game in games.keys() {
            let known = GameCode::parse(game).and_then(|g| rates.category_of(g));
            if known.is_none() {
                return Err(TaxError::UnknownGame(game.clone()));
            }
        }
    }
    let mut categories = Vec::with_capacity(rates.categories.len());
    let mut law_versions: Vec<String> = Vec::new();
    let mut total_tax_h = 0i64;
    for category in &rates.categories {
        // Consecutive segments under the same rate make one part.
        let mut runs: Vec<Run> = Vec::new();
        for (i, ((first, end), _)) in sums.iter().enumerate() {
            let (index, rate) = category.rate_at(*first).ok_or_else(|| TaxError::NoRate {
                table: rates.name.clone(),
                category: category.id.clone(),
                day: *first,
                quarter: quarter.to_string(),
            })?;
            match runs.last_mut() {
                Some(run) if run.rate_index == index => {
                    run.end = *end;
                    run.members.push(i);
                }
                _ => runs.push(Run {
                    rate_index: index,
                    rate,
                    first: *first,
                    end: *end,
                    members: vec![i],
                }),
            }
        }
        let mut parts = Vec::with_capacity(runs.len());
        for run in &runs {
            let part = part(clock, category, run, sums)?;
            if !law_versions.contains(&part.law_version) {
                law_versions.push(part.law_version.clone());
            }
            parts.push(part);
        }
        let total = category_total(category, parts)?;
        total_tax_h = add(total_tax_h, total.tax_h)?;
        categories.push(total);
    }
    let (starts_at, ends_at) = quarter.bounds(clock);
    Ok(TaxReport {
        quarter: quarter.to_string(),
        first_gaming_day: quarter.first_day(),
        last_gaming_day: quarter.last_day(),
        starts_at,
        ends_at,
        gaming_day_start_hour: clock.start_hour,
        rate_table: rates.name.clone(),
        categories,
        total_tax_h,
        due_date: due_date(quarter),
        law_versions,
        negative_base_rule: NEGATIVE_BASE_RULE.to_owned(),
        provisional: chrono::Utc::now() < ends_at,
        provisional_note: (chrono::Utc::now() < ends_at).then(|| {
            format!(
                "provisional: the quarter {quarter} is not over (its last gaming day ends at {ends_at}); the base and the tax will still change"
            )
        }),
        covers: None,
        archived_days: Vec::new(),
    })
}

/// Consecutive segments of a category under one rate: `[first, end)`.
struct Run<'a> {
    rate_index: usize,
    rate: &'a Rate,
    first: NaiveDate,
    end: NaiveDate,
    /// Indexes into the segment sums.
    members: Vec<usize>,
}

/// The part of `category` made of a run of segments.
fn part(
    clock: &GamingDayClock,
    category: &Category,
    run: &Run<'_>,
    sums: &SegmentSums,
) -> Result<PartTax, TaxError> {
    let (first, end, rate, members) = (run.first, run.end, run.rate, &run.members);
    let mut games = Vec::new();
    let mut total = GameSums::default();
    for game in &category.games {
        let mut s = GameSums::default();
        for (_, per_game) in members.iter().filter_map(|i| sums.get(*i)) {
            if let Some(g) = per_game.get(game.as_str()) {
                s.absorb(g)?;
            }
        }
        if s.rounds == 0 {
            continue;
        }
        total.absorb(&s)?;
        games.push(game_line(*game, &s)?);
    }
    let difference_h = total.difference()?;
    let base_h = difference_h.max(0);
    let negative_difference_h = difference_h
        .min(0)
        .checked_neg()
        .ok_or(ReportError::Overflow("negative difference"))?;
    let rounded_base_h = round_up(base_h, BASE_ROUNDING_H)?;
    Ok(PartTax {
        first_gaming_day: first,
        last_gaming_day: end.pred_opt().unwrap_or(first),
        starts_at: clock.start_of(first),
        ends_at: clock.start_of(end),
        stakes_h: total.stakes_h,
        returned_stakes_h: total.returned_h,
        wins_h: total.wins_h,
        difference_h,
        base_h,
        rounded_base_h,
        negative_difference_h,
        rate_bp: rate.rate_bp,
        rate_from: rate.from,
        law_version: rate.law_version.clone(),
        tax_h: tax_of(rounded_base_h, rate.rate_bp)?,
        games,
    })
}

fn game_line(game: GameCode, s: &GameSums) -> Result<GameLine, ReportError> {
    let (basis, time_collection_h, fees_h, overlay_h) = match game {
        GameCode::PokerCash => ("rake", Some(s.time_collection_h), None, None),
        GameCode::OpenFaceChinese => ("rake", None, None, None),
        GameCode::PokerTournament => ("fees_less_overlay", None, Some(s.fees_h), Some(s.overlay_h)),
        _ => ("stakes_minus_wins", None, None, None),
    };
    Ok(GameLine {
        game: game.as_str().to_owned(),
        rounds: s.rounds,
        void_rounds: s.void_rounds,
        stakes_h: s.stakes_h,
        returned_stakes_h: s.returned_h,
        wins_h: s.wins_h,
        difference_h: s.difference()?,
        basis: basis.to_owned(),
        time_collection_h,
        tournament_fees_h: fees_h,
        tournament_overlay_h: overlay_h,
    })
}

fn category_total(category: &Category, parts: Vec<PartTax>) -> Result<CategoryTax, ReportError> {
    let mut t = CategoryTax {
        category: category.id.clone(),
        name: category.name.clone(),
        games: category
            .games
            .iter()
            .map(|g| g.as_str().to_owned())
            .collect(),
        stakes_h: 0,
        returned_stakes_h: 0,
        wins_h: 0,
        difference_h: 0,
        base_h: 0,
        rounded_base_h: 0,
        negative_difference_h: 0,
        tax_h: 0,
        parts: Vec::new(),
    };
    for p in &parts {
        t.stakes_h = add(t.stakes_h, p.stakes_h)?;
        t.returned_stakes_h = add(t.returned_stakes_h, p.returned_stakes_h)?;
        t.wins_h = add(t.wins_h, p.wins_h)?;
        t.difference_h = add(t.difference_h, p.difference_h)?;
        t.base_h = add(t.base_h, p.base_h)?;
        t.rounded_base_h = add(t.rounded_base_h, p.rounded_base_h)?;
        t.negative_difference_h = add(t.negative_difference_h, p.negative_difference_h)?;
        t.tax_h = add(t.tax_h, p.tax_h)?;
    }
    t.parts = parts;
    Ok(t)
}

/// Every adjudicated record played in `[start, end)`, summed per game. A time collection is a
/// `poker_cash` record whose bets are the players' payments.
fn game_sums(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<BTreeMap<String, GameSums>, ReportError> {
    Ok(report_reads::tax::game_totals(conn, cut, start, end)?
        .into_iter()
        .map(|r| {
            (
                r.game,
                GameSums {
                    rounds: r.rounds,
                    void_rounds: r.void_rounds,
                    stakes_h: r.stakes_h,
                    returned_h: r.returned_h,
                    wins_h: r.wins_h,
                    time_collection_h: r.time_collection_h,
                    fees_h: r.fees_h,
                    overlay_h: r.overlay_h,
                },
            )
        })
        .collect())
}

/// The quarter's tax from the ledger's verdicts, under `rates`.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    quarter: Quarter,
    rates: &RateTable,
) -> Result<TaxReport, TaxError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, quarter, rates)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    quarter: Quarter,
    rates: &RateTable,
) -> Result<TaxReport, TaxError> {
    let mut sums = SegmentSums::new();
    for (first, end) in segments(quarter, rates)? {
        let games = game_sums(conn, cut, clock.start_of(first), clock.start_of(end))?;
        sums.push(((first, end), games));
    }
    let mut report = assess(quarter, clock, rates, &sums)?;
    report.covers = Some(cut.into());
    let (starts_at, ends_at) = quarter.bounds(clock);
    report.archived_days = crate::archived::days_within(conn, cut, starts_at, ends_at)?;
    Ok(report)
}

/// One line of the CSV: each level fills the columns that apply to it, the rest stay empty.
#[derive(Default)]
struct CsvLine<'a> {
    quarter: &'a str,
    level: &'a str,
    category: &'a str,
    game: &'a str,
    first_gaming_day: Option<NaiveDate>,
    last_gaming_day: Option<NaiveDate>,
    rounds: Option<i64>,
    void_rounds: Option<i64>,
    stakes_h: Option<i64>,
    returned_stakes_h: Option<i64>,
    wins_h: Option<i64>,
    difference_h: Option<i64>,
    basis: &'a str,
    time_collection_h: Option<i64>,
    tournament_fees_h: Option<i64>,
    tournament_overlay_h: Option<i64>,
    base_h: Option<i64>,
    rounded_base_h: Option<i64>,
    negative_difference_h: Option<i64>,
    rate_bp: Option<u32>,
    law_version: String,
    tax_h: Option<i64>,
    due_date: Option<NaiveDate>,
    /// The quarter is not over: the figures will still change.
    provisional: bool,
}

/// The CSV's columns, in the order of [`CsvLine`]'s fields.
const CSV_COLUMNS: [&str; 24] = [
    "quarter",
    "level",
    "category",
    "game",
    "first_gaming_day",
    "last_gaming_day",
    "rounds",
    "void_rounds",
    "stakes_h",
    "returned_stakes_h",
    "wins_h",
    "difference_h",
    "basis",
    "time_collection_h",
    "tournament_fees_h",
    "tournament_overlay_h",
    "base_h",
    "rounded_base_h",
    "negative_difference_h",
    "rate_bp",
    "law_version",
    "tax_h",
    "due_date",
    "provisional",
];

impl CsvLine<'_> {
    fn cells(&self) -> Vec<crate::sheet::Cell> {
        use crate::sheet::Cell;
        let text = |t: &str| {
            if t.is_empty() {
                Cell::Empty
            } else {
                Cell::Text(t.to_owned())
            }
        };
        let day = |d: Option<NaiveDate>| d.map_or(Cell::Empty, Cell::Day);
        let count = |n: Option<i64>| n.map_or(Cell::Empty, Cell::Count);
        let money = |h: Option<i64>| h.map_or(Cell::Empty, Cell::Money);
        vec![
            text(self.quarter),
            text(self.level),
            text(self.category),
            text(self.game),
            day(self.first_gaming_day),
            day(self.last_gaming_day),
            count(self.rounds),
            count(self.void_rounds),
            money(self.stakes_h),
            money(self.returned_stakes_h),
            money(self.wins_h),
            money(self.difference_h),
            text(self.basis),
            money(self.time_collection_h),
            money(self.tournament_fees_h),
            money(self.tournament_overlay_h),
            money(self.base_h),
            money(self.rounded_base_h),
            money(self.negative_difference_h),
            count(self.rate_bp.map(i64::from)),
            text(&self.law_version),
            money(self.tax_h),
            day(self.due_date),
            text(&self.provisional.to_string()),
        ]
    }
}

/// The report as CSV (RFC 4180, UTF-8, CRLF): a `game` line per game and part, a `part` line
/// per part with its rate and tax, a `category` line per category, and the `total`.
pub fn to_csv(report: &TaxReport) -> Result<String, ReportError> {
    use crate::sheet::{Audience, CsvWriter};
    let mut w = CsvWriter::new(Audience::Machines);
    w.heading(CSV_COLUMNS)?;
    let quarter = report.quarter.as_str();
    for c in &report.categories {
        for p in &c.parts {
            let part = CsvLine {
                quarter,
                category: &c.category,
                first_gaming_day: Some(p.first_gaming_day),
                last_gaming_day: Some(p.last_gaming_day),
                provisional: report.provisional,
                ..CsvLine::default()
            };
            for g in &p.games {
                w.row(
                    &CsvLine {
                        level: "game",
                        game: &g.game,
                        rounds: Some(g.rounds),
                        void_rounds: Some(g.void_rounds),
                        stakes_h: Some(g.stakes_h),
                        returned_stakes_h: Some(g.returned_stakes_h),
                        wins_h: Some(g.wins_h),
                        difference_h: Some(g.difference_h),
                        basis: &g.basis,
                        time_collection_h: g.time_collection_h,
                        tournament_fees_h: g.tournament_fees_h,
                        tournament_overlay_h: g.tournament_overlay_h,
                        law_version: String::new(),
                        ..part
                    }
                    .cells(),
                )?;
            }
            w.row(
                &CsvLine {
                    level: "part",
                    stakes_h: Some(p.stakes_h),
                    returned_stakes_h: Some(p.returned_stakes_h),
                    wins_h: Some(p.wins_h),
                    difference_h: Some(p.difference_h),
                    base_h: Some(p.base_h),
                    rounded_base_h: Some(p.rounded_base_h),
                    negative_difference_h: Some(p.negative_difference_h),
                    rate_bp: Some(p.rate_bp),
                    law_version: p.law_version.clone(),
                    tax_h: Some(p.tax_h),
                    ..part
                }
                .cells(),
            )?;
        }
        w.row(
            &CsvLine {
                quarter,
                level: "category",
                category: &c.category,
                first_gaming_day: Some(report.first_gaming_day),
                last_gaming_day: Some(report.last_gaming_day),
                stakes_h: Some(c.stakes_h),
                returned_stakes_h: Some(c.returned_stakes_h),
                wins_h: Some(c.wins_h),
                difference_h: Some(c.difference_h),
                base_h: Some(c.base_h),
                rounded_base_h: Some(c.rounded_base_h),
                negative_difference_h: Some(c.negative_difference_h),
                tax_h: Some(c.tax_h),
                provisional: report.provisional,
                ..CsvLine::default()
            }
            .cells(),
        )?;
    }
    w.row(
        &CsvLine {
            quarter,
            level: "total",
            first_gaming_day: Some(report.first_gaming_day),
            last_gaming_day: Some(report.last_gaming_day),
            law_version: report.law_versions.join("; "),
            tax_h: Some(report.total_tax_h),
            due_date: Some(report.due_date),
            provisional: report.provisional,
            ..CsvLine::default()
        }
        .cells(),
    )?;
    w.into_string()
}

#[cfg(test)]
mod tests;

/// The columns of the tax report for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 13] = {
    use crate::sheet::column;
    [
        column("quarter", "Čtvrtletí", "Quarter"),
        column("category", "Dílčí základ", "Partial base"),
        column("first_gaming_day", "Od herního dne", "From gaming day"),
        column("last_gaming_day", "Do herního dne", "To gaming day"),
        column("stakes_h", "Vsazeno (Kč)", "Staked (CZK)"),
        column(
            "returned_stakes_h",
            "Vrácené sázky (Kč)",
            "Stakes returned (CZK)",
        ),
        column("wins_h", "Vyplacené výhry (Kč)", "Wins paid (CZK)"),
        column("difference_h", "Rozdíl (Kč)", "Difference (CZK)"),
        column(
            "rounded_base_h",
            "Základ zaokrouhlený (Kč)",
            "Base, rounded (CZK)",
        ),
        column("rate_pct", "Sazba (%)", "Rate (%)"),
        column("tax_h", "Daň (Kč)", "Tax (CZK)"),
        column("due_date", "Splatnost", "Due"),
        column("provisional", "Předběžné", "Provisional"),
    ]
};

/// The quarter's tax as a sheet for people: a line per partial base and rate, a line per
/// category and the total.
pub fn sheet(
    report: &TaxReport,
    _plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let provisional = Cell::yes_no(report.provisional, language);
    let mut rows = Vec::new();
    for c in &report.categories {
        for p in &c.parts {
            rows.push(vec![
                Cell::Text(report.quarter.clone()),
                Cell::Text(c.name.clone()),
                Cell::Day(p.first_gaming_day),
                Cell::Day(p.last_gaming_day),
                Cell::Money(p.stakes_h),
                Cell::Money(p.returned_stakes_h),
                Cell::Money(p.wins_h),
                Cell::Money(p.difference_h),
                Cell::Money(p.rounded_base_h),
                // Basis points: 2 300 = 23 %.
                Cell::Percent(f64::from(p.rate_bp) / 100.0),
                Cell::Money(p.tax_h),
                Cell::Empty,
                provisional.clone(),
            ]);
        }
        rows.push(vec![
            Cell::Text(report.quarter.clone()),
            Cell::Text(format!("{} — {}", c.name, language.pick("celkem", "total"))),
            Cell::Day(report.first_gaming_day),
            Cell::Day(report.last_gaming_day),
            Cell::Money(c.stakes_h),
            Cell::Money(c.returned_stakes_h),
            Cell::Money(c.wins_h),
            Cell::Money(c.difference_h),
            Cell::Money(c.rounded_base_h),
            Cell::Empty,
            Cell::Money(c.tax_h),
            Cell::Empty,
            provisional.clone(),
        ]);
    }
    rows.push(vec![
        Cell::Text(report.quarter.clone()),
        Cell::Text(language.pick("Daň celkem", "Total tax").to_owned()),
        Cell::Day(report.first_gaming_day),
        Cell::Day(report.last_gaming_day),
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Money(report.total_tax_h),
        Cell::Day(report.due_date),
        provisional,
    ]);
    crate::sheet::Sheet {
        name: format!("{} {}", language.pick("Daň", "Tax"), report.quarter),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
