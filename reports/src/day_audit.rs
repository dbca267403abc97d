//! The skeleton every audit of a gaming day shares (shoes, fantasy land, time collection,
//! tables): it reads the day's rounds, each table followed from up to a gaming day earlier, and
//! finds its lines; it is written a line each, as CSV for machines and as a sheet for people.

use chrono::NaiveDate;
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use rules::gaming_day::GamingDayClock;
use rules::{GameCode, PlanBook, Round};

use crate::day_rounds::rounds_with_lookback;
use crate::sheet::columns::GAMING_DAY;
use crate::sheet::{machine_csv, Cell, Column, Language, Sheet};
use crate::ReportError;

/// What an audit of a day reads: the day, the entries below `cut`, the clock that bounds
/// gaming days, and the plans.
#[derive(Debug, Clone, Copy)]
pub struct DayRead<'a> {
    pub cut: LedgerCut,
    pub clock: &'a GamingDayClock,
    pub day: NaiveDate,
    pub plans: &'a PlanBook,
}

impl DayRead<'_> {
    /// Every `game` round from the start of the gaming day before the day to its end, each with
    /// whether it was played in the day itself.
    pub fn rounds(
        &self,
        conn: &mut PgConnection,
        game: GameCode,
    ) -> Result<Vec<(Round, bool)>, ReportError> {
        rounds_with_lookback(conn, self.cut, self.clock, self.day, game)
    }
}

/// Whom a line's cells are worded for: machines (codes, `true`/`false`) or people (the plan's
/// game names, yes and no in their language).
#[derive(Debug, Clone, Copy)]
pub enum Words<'a> {
    Machines,
    People(&'a PlanBook, Language),
}

impl Words<'_> {
    /// A game by its code: the code for machines, the plan's name with it for people.
    pub fn game(self, code: &str) -> Cell {
        match self {
            Words::Machines => Cell::Text(code.to_owned()),
            Words::People(plans, _) => Cell::game(code, plans),
        }
    }

    /// `true`/`false` for machines, yes or no for people.
    pub fn yes_no(self, value: bool) -> Cell {
        match self {
            Words::Machines => Cell::Text(value.to_string()),
            Words::People(_, language) => Cell::yes_no(value, language),
        }
    }

    /// A code: itself for machines, with what `word` calls it for people.
    pub fn coded(self, code: &str, word: impl Fn(&str, Language) -> String) -> Cell {
        match self {
            Words::Machines => Cell::Text(code.to_owned()),
            Words::People(_, language) => Cell::coded(code, word(code, language)),
        }
    }
}

/// An audit's gaming day and the lines it lists (written by [`day_audit_entry_points`] from
/// the field that holds them).
pub trait DayLines {
    /// What the audit lists: a shoe, a finding, a mismatch.
    type Line;

    /// The audit's gaming day and its lines.
    fn day_and_lines(&self) -> (NaiveDate, &[Self::Line]);
}

/// An audit of one gaming day.
pub trait DayAudit: DayLines + Sized {
    /// The columns after the gaming day's: their keys head the CSV, their words the sheet.
    const COLUMNS: &'static [Column];

    /// The audit of the day `at` names.
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<Self, ReportError>;

    /// A line's cells after its gaming day's, worded for machines (the CSV) or people (the
    /// sheet).
    fn cells(line: &Self::Line, words: Words<'_>) -> Vec<Cell>;

    /// The sheet's name (a workbook tab).
    fn sheet_name(&self, l: Language) -> String;
}

/// The audit as CSV (RFC 4180, UTF-8, CRLF line ends): a line each.
pub fn to_csv<A: DayAudit>(audit: &A) -> Result<String, ReportError> {
    let lines = rows(audit, Words::Machines);
    machine_csv(columns::<A>().map(|c| c.key), lines)
}

/// The audit as a sheet for people: a line each.
pub fn sheet<A: DayAudit>(audit: &A, plans: &PlanBook, language: Language) -> Sheet {
    Sheet {
        name: audit.sheet_name(language),
        columns: columns::<A>().collect(),
        rows: rows(audit, Words::People(plans, language)).collect(),
    }
}

/// The gaming day's column, then the audit's.
fn columns<A: DayAudit>() -> impl Iterator<Item = Column> {
    std::iter::once(GAMING_DAY).chain(A::COLUMNS.iter().copied())
}

/// Each line's row: its gaming day, then its cells.
fn rows<'a, A: DayAudit>(audit: &'a A, words: Words<'a>) -> impl Iterator<Item = Vec<Cell>> + 'a {
    let (day, lines) = audit.day_and_lines();
    lines.iter().map(move |line| {
        std::iter::once(Cell::Day(day))
            .chain(A::cells(line, words))
            .collect()
    })
}

/// An audit module's entry points, for its audit type: `build`, `build_at`, `to_csv` and
/// `sheet`, each the skeleton's for that type (callers name them per audit); and the type's
/// [`DayLines`]: its `gaming_day` and the lines of type `$line` in its field `$lines`.
macro_rules! day_audit_entry_points {
    ($audit:ty, $line:ty, $lines:ident) => {
        impl crate::day_audit::DayLines for $audit {
            type Line = $line;

            fn day_and_lines(&self) -> (chrono::NaiveDate, &[$line]) {
                (self.gaming_day, &self.$lines)
            }
        }

        /// The audit of gaming day `day`, of the entries the primary holds now.
        pub fn build(
            conn: &mut diesel::PgConnection,
            clock: &rules::gaming_day::GamingDayClock,
            day: chrono::NaiveDate,
            plans: &rules::PlanBook,
        ) -> Result<$audit, crate::ReportError> {
            let cut = crate::coverage::primary_now(conn)?;
            build_at(conn, cut, clock, day, plans)
        }

        /// [`build`] of the entries below `cut` (a replica's checkpoint, say).
        pub fn build_at(
            conn: &mut diesel::PgConnection,
            cut: ledger::storage::read_cut::LedgerCut,
            clock: &rules::gaming_day::GamingDayClock,
            day: chrono::NaiveDate,
            plans: &rules::PlanBook,
        ) -> Result<$audit, crate::ReportError> {
            let at = crate::day_audit::DayRead {
                cut,
                clock,
                day,
                plans,
            };
            <$audit as crate::day_audit::DayAudit>::read(conn, at)
        }

        /// The audit as CSV (RFC 4180, UTF-8, CRLF line ends): a line each.
        pub fn to_csv(audit: &$audit) -> Result<String, crate::ReportError> {
            crate::day_audit::to_csv(audit)
        }

        /// The audit as a sheet for people: a line each.
        pub fn sheet(
            audit: &$audit,
            plans: &rules::PlanBook,
            language: crate::sheet::Language,
        ) -> crate::sheet::Sheet {
            crate::day_audit::sheet(audit, plans, language)
        }
    };
}
pub(crate) use day_audit_entry_points;
