//! The skeleton every audit of a gaming day shares (shoes, fantasy land, time collection,
//! tables): it reads the day's rounds, each table followed from up to a gaming day earlier, and
//! finds its lines; it is written a line each, as CSV for machines and as a sheet for people.

use chrono::NaiveDate;
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use rules::gaming_day::GamingDayClock;
use rules::PlanBook;

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

/// An audit of one gaming day.
pub trait DayAudit: Sized {
    /// What the audit lists: a shoe, a finding, a mismatch.
    type Line;
    /// The columns: their keys head the CSV, their words the sheet.
    const COLUMNS: &'static [Column];

    /// The audit of the day `at` names.
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<Self, ReportError>;

    /// The audit's gaming day and its lines.
    fn day_and_lines(&self) -> (NaiveDate, &[Self::Line]);

    /// A line of the CSV, for machines.
    fn machine_line(day: NaiveDate, line: &Self::Line) -> Vec<Cell>;

    /// A line of the sheet, for people: the CSV's line unless the audit words it otherwise.
    fn people_line(day: NaiveDate, line: &Self::Line, _: &PlanBook, _: Language) -> Vec<Cell> {
        Self::machine_line(day, line)
    }

    /// The sheet's name (a workbook tab).
    fn sheet_name(&self, l: Language) -> String;
}

/// The audit of `day`, of the entries the primary holds now.
pub fn build<A: DayAudit>(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &PlanBook,
) -> Result<A, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, day, plans)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at<A: DayAudit>(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &PlanBook,
) -> Result<A, ReportError> {
    let at = DayRead {
        cut,
        clock,
        day,
        plans,
    };
    A::read(conn, at)
}

/// The audit as CSV (RFC 4180, UTF-8, CRLF line ends): a line each.
pub fn to_csv<A: DayAudit>(audit: &A) -> Result<String, ReportError> {
    let (day, lines) = audit.day_and_lines();
    let lines = lines.iter().map(|l| A::machine_line(day, l));
    machine_csv(A::COLUMNS.iter().map(|c| c.key), lines)
}

/// The audit as a sheet for people: a line each.
pub fn sheet<A: DayAudit>(audit: &A, plans: &PlanBook, language: Language) -> Sheet {
    let (day, lines) = audit.day_and_lines();
    Sheet {
        name: audit.sheet_name(language),
        columns: A::COLUMNS.to_vec(),
        rows: lines
            .iter()
            .map(|l| A::people_line(day, l, plans, language))
            .collect(),
    }
}

/// An audit module's entry points, for its audit type: `build`, `build_at`, `to_csv` and
/// `sheet`, each the skeleton's for that type (callers name them per audit).
macro_rules! day_audit_entry_points {
    ($audit:ty) => {
        /// The audit of gaming day `day`, of the entries the primary holds now.
        pub fn build(
            conn: &mut diesel::PgConnection,
            clock: &rules::gaming_day::GamingDayClock,
            day: chrono::NaiveDate,
            plans: &rules::PlanBook,
        ) -> Result<$audit, crate::ReportError> {
            crate::day_audit::build(conn, clock, day, plans)
        }

        /// [`build`] of the entries below `cut` (a replica's checkpoint, say).
        pub fn build_at(
            conn: &mut diesel::PgConnection,
            cut: ledger::storage::read_cut::LedgerCut,
            clock: &rules::gaming_day::GamingDayClock,
            day: chrono::NaiveDate,
            plans: &rules::PlanBook,
        ) -> Result<$audit, crate::ReportError> {
            crate::day_audit::build_at(conn, cut, clock, day, plans)
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
