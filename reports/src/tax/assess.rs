//! The tax from the sums of the quarter's segments: the parts under one rate, their bases
//! rounded and taxed, the categories' totals (no database here).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use ledger::storage::report_reads::round_sums::{RoundCounts, TournamentSums};
use rules::gaming_day::GamingDayClock;
use rules::GameCode;

use super::due::due_date;
use super::error::TaxError;
use super::quarter::Quarter;
use super::rates::{Category, Rate, RateTable, MAX_RATE_BP};
use super::report::{CategoryTax, GameLine, PartTax, TaxReport};
use crate::ReportError;

/// Haléře in the whole hundred of koruny a base is rounded up to (§ 5 odst. 2).
pub const BASE_ROUNDING_H: i64 = 10_000;
/// Haléře in a koruna: the tax is rounded up to whole koruny (daňový řád § 146).
pub const TAX_ROUNDING_H: i64 = 100;

/// What the report says about a negative difference.
pub const NEGATIVE_BASE_RULE: &str = "zákon č. 187/2016 Sb., § 3: a partial base is the amount \
by which the stakes received exceed the wins paid and the stakes returned; when they do not, the \
base is zero. The excess of wins is not set against another base and is not carried into a later \
quarter.";

/// What the ledger says of one game over some gaming days.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameSums {
    /// Rounds, void rounds, every stake and the stakes handed back on void rounds.
    pub counts: RoundCounts,
    pub wins_h: i64,
    pub time_collection_h: i64,
    /// Tournaments' fees and overlays.
    pub tournaments: TournamentSums,
}

fn add(a: i64, b: i64) -> Result<i64, ReportError> {
    crate::error::checked_sum(a, b, "tax sums")
}

fn sub(a: i64, b: i64) -> Result<i64, ReportError> {
    a.checked_sub(b)
        .ok_or(ReportError::Overflow("tax difference"))
}

impl GameSums {
    fn absorb(&mut self, o: &GameSums) -> Result<(), ReportError> {
        self.counts.absorb_with(&o.counts, add)?;
        self.wins_h = add(self.wins_h, o.wins_h)?;
        self.time_collection_h = add(self.time_collection_h, o.time_collection_h)?;
        self.tournaments.absorb_with(&o.tournaments, add)
    }

    /// stakes − returned stakes − wins.
    fn difference(&self) -> Result<i64, ReportError> {
        sub(
            sub(self.counts.stakes_h, self.counts.returned_h)?,
            self.wins_h,
        )
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
        if s.counts.rounds == 0 {
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
        stakes_h: total.counts.stakes_h,
        returned_stakes_h: total.counts.returned_h,
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
        GameCode::PokerTournament => (
            "fees_less_overlay",
            None,
            Some(s.tournaments.fees_h),
            Some(s.tournaments.overlay_h),
        ),
        _ => ("stakes_minus_wins", None, None, None),
    };
    Ok(GameLine {
        game: game.as_str().to_owned(),
        rounds: s.counts.rounds,
        void_rounds: s.counts.void_rounds,
        stakes_h: s.counts.stakes_h,
        returned_stakes_h: s.counts.returned_h,
        wins_h: s.wins_h,
        difference_h: s.difference()?,
        basis: basis.to_owned(),
        time_collection_h,
        tournament_fees_h: fees_h,
        tournament_overlay_h: overlay_h,
    })
}

fn category_total(category: &Category, parts: Vec<PartTax>) -> Result<CategoryTax, ReportError> {
    // Each of the category's figures is the sum of its parts'.
    let sum = |figure: fn(&PartTax) -> i64| {
        parts
            .iter()
            .try_fold(0, |total, part| add(total, figure(part)))
    };
    Ok(CategoryTax {
        category: category.id.clone(),
        name: category.name.clone(),
        games: category
            .games
            .iter()
            .map(|g| g.as_str().to_owned())
            .collect(),
        stakes_h: sum(|p| p.stakes_h)?,
        returned_stakes_h: sum(|p| p.returned_stakes_h)?,
        wins_h: sum(|p| p.wins_h)?,
        difference_h: sum(|p| p.difference_h)?,
        base_h: sum(|p| p.base_h)?,
        rounded_base_h: sum(|p| p.rounded_base_h)?,
        negative_difference_h: sum(|p| p.negative_difference_h)?,
        tax_h: sum(|p| p.tax_h)?,
        parts,
    })
}
