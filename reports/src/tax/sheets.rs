//! The report written out: the CSV for machines (every level's figures) and the sheet for
//! people.

use chrono::NaiveDate;

use super::report::TaxReport;
use crate::sheet::columns::{DIFFERENCE, PROVISIONAL, RETURNED_STAKES, STAKES};
use crate::sheet::{column, Audience, Cell, Column, CsvWriter, Language, Sheet};
use crate::ReportError;

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
    fn cells(&self) -> Vec<Cell> {
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

/// The columns of the tax report for people.
const PEOPLE_COLUMNS: [Column; 13] = {
    [
        column("quarter", "Čtvrtletí", "Quarter"),
        column("category", "Dílčí základ", "Partial base"),
        column("first_gaming_day", "Od herního dne", "From gaming day"),
        column("last_gaming_day", "Do herního dne", "To gaming day"),
        STAKES,
        RETURNED_STAKES,
        column("wins_h", "Vyplacené výhry (Kč)", "Wins paid (CZK)"),
        DIFFERENCE,
        column(
            "rounded_base_h",
            "Základ zaokrouhlený (Kč)",
            "Base, rounded (CZK)",
        ),
        column("rate_pct", "Sazba (%)", "Rate (%)"),
        column("tax_h", "Daň (Kč)", "Tax (CZK)"),
        column("due_date", "Splatnost", "Due"),
        PROVISIONAL,
    ]
};

/// The quarter's tax as a sheet for people: a line per partial base and rate, a line per
/// category and the total.
pub fn sheet(report: &TaxReport, _plans: &rules::PlanBook, language: Language) -> Sheet {
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
    Sheet {
        name: format!("{} {}", language.pick("Daň", "Tax"), report.quarter),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
