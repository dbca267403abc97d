//! Archived gaming days: which days an archive may take (whole, closed and sealed), and what a
//! report of an archived day says of where its figures come from. The figures themselves are
//! added where the reports read rounds (`ledger::storage::archived_days`).

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use ledger::storage::archived_days::DaySpan;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::{archive, archived_days, published_reports, reads};
use serde::Serialize;
use utoipa::ToSchema;

use crate::ReportError;

use rules::gaming_day::GamingDayClock;

/// The inspection export that holds an archived day's entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArchiveExportRef {
    pub first_day: String,
    pub last_day: String,
    /// SHA-256 of the export's MANIFEST, as the `range_archived` event names it.
    pub manifest_sha256: String,
}

/// An archived gaming day in a report: its rounds left the database, its figures are those
/// kept and sealed when they did (and any round of the day received since is added to them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ArchivedDay {
    pub gaming_day: NaiveDate,
    /// The `report_published` event that seals the kept figures
    /// (`reports/archived/<day>/figures.json`).
    pub from_sealed_report_index: u64,
    /// The `range_archived` event of the archive that took the day.
    pub range_archived_index: u64,
    /// The kept figures are of the entries below this index.
    pub entries_below: u64,
    pub export: ArchiveExportRef,
}

impl ArchivedDay {
    /// The day's note for people.
    pub fn note(&self) -> String {
        format!(
            "gaming day {} is archived: its figures were kept and sealed at ledger entry {} when its rounds left the database (range_archived at {}); the rounds are in the inspection export of {} to {}, MANIFEST SHA-256 {}",
            self.gaming_day,
            self.from_sealed_report_index,
            self.range_archived_index,
            self.export.first_day,
            self.export.last_day,
            self.export.manifest_sha256
        )
    }
}

/// The archived days lying wholly inside `[start, end)`, oldest first.
pub fn days_within(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<ArchivedDay>, ReportError> {
    let kept = archived_days::within(conn, cut, start, end)?;
    if kept.is_empty() {
        return Ok(Vec::new());
    }
    let ranges = archive::ranges(conn)?;
    kept.into_iter()
        .map(|k| {
            let range = ranges
                .iter()
                .find(|r| r.index == k.range_archived_index)
                .ok_or_else(|| {
                    ledger::LedgerError::Archive(format!(
                        "gaming day {} names range_archived entry {}, which is not one",
                        k.figures.gaming_day, k.range_archived_index
                    ))
                })?;
            Ok(ArchivedDay {
                gaming_day: k.figures.gaming_day,
                from_sealed_report_index: k.sealed_index,
                range_archived_index: k.range_archived_index,
                entries_below: k.figures.below_index,
                export: ArchiveExportRef {
                    first_day: range.export_first_day.clone(),
                    last_day: range.export_last_day.clone(),
                    manifest_sha256: range.export_manifest_sha256.clone(),
                },
            })
        })
        .collect()
}

/// What an archive up to `to` takes: the range and its gaming days, whole.
#[derive(Debug, Clone)]
pub struct ArchivePlan {
    pub from: u64,
    pub to: u64,
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    pub days: Vec<DaySpan>,
}

/// Whether `to` may end an archive now: every entry below it (by when it was received, and
/// every round by when it was played) belongs to gaming days that have closed and whose night
/// is sealed in the ledger, and no entry received on those days lies at or above it. `Err` is
/// the one-line reason, naming the day. Rounds of those days received later still (late
/// rounds) stay in the ledger and are added to the kept figures.
pub fn plan(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    to: u64,
    now: DateTime<Utc>,
) -> Result<Result<ArchivePlan, String>, ReportError> {
    let from = archive::archived_below(conn)?;
    if to <= from {
        return Ok(Err(format!(
            "--to {to} must be above {from} (where the archived entries end)"
        )));
    }
    let size = reads::size(conn)?;
    if to > size {
        return Ok(Err(format!(
            "--to {to} lies beyond the ledger's {size} entries"
        )));
    }
    let day_of = |conn: &mut PgConnection, index: u64| -> Result<NaiveDate, ReportError> {
        let at = archive::received_at(conn, index)?.ok_or_else(|| {
            ledger::LedgerError::Archive(format!("entry {index} is not in the ledger"))
        })?;
        Ok(clock.day_of(at))
    };
    let first_received = day_of(conn, from)?;
    let (mut first_day, mut last_day) = (first_received, day_of(conn, to - 1)?);
    if let Some((first, last)) = archive::played_span(conn, from, to)? {
        first_day = first_day.min(clock.day_of(first));
        last_day = last_day.max(clock.day_of(last));
    }
    for day in first_day.iter_days().take_while(|d| *d <= last_day) {
        let (_, end) = clock.bounds(day);
        if end > now {
            return Ok(Err(format!(
                "gaming day {day} is not over (it ends at {end}): an archive takes only whole gaming days that have closed and been sealed"
            )));
        }
    }
    if from > 0 && day_of(conn, from - 1)? == first_received {
        return Ok(Err(format!(
            "gaming day {first_received} was split by the archive that ended at {from}: its figures cannot be kept whole"
        )));
    }
    if to < size {
        let next = day_of(conn, to)?;
        if next <= last_day {
            return Ok(Err(format!(
                "gaming day {next} has entries on both sides of --to {to} (entry {to} was received on it): an archive takes only whole gaming days"
            )));
        }
    }
    let sealed = published_reports::latest_publications(conn)?;
    for day in first_day.iter_days().take_while(|d| *d <= last_day) {
        if !sealed.contains_key(&crate::night_names::summary_name(day)) {
            return Ok(Err(format!(
                "gaming day {day} is not sealed: its night's reports are not in the ledger (`dozor report nightly --day {day}` seals them)"
            )));
        }
    }
    let days = first_day
        .iter_days()
        .take_while(|d| *d <= last_day)
        .map(|day| {
            let (starts_at, ends_at) = clock.bounds(day);
            DaySpan {
                day,
                starts_at,
                ends_at,
            }
        })
        .collect();
    Ok(Ok(ArchivePlan {
        from,
        to,
        first_day,
        last_day,
        days,
    }))
}

/// How many gaming days [`last_boundary`] looks back over, newest first.
const DAYS_TRIED: u32 = 400;

/// The largest `--to` an archive may take now, with the last gaming day it would archive: the
/// first entry of a gaming day after closed, sealed days; none when no such day ends above
/// what is archived already.
pub fn last_boundary(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    now: DateTime<Utc>,
) -> Result<Option<(u64, NaiveDate)>, ReportError> {
    let from = archive::archived_below(conn)?;
    let mut day = clock.day_of(now);
    for _ in 0..DAYS_TRIED {
        let (starts_at, _) = clock.bounds(day);
        let Some(to) = archive::first_index_received_at(conn, starts_at)? else {
            day = day.pred_opt().unwrap_or(day);
            continue;
        };
        if to <= from {
            break;
        }
        if let Ok(plan) = plan(conn, clock, to, now)? {
            return Ok(Some((to, plan.last_day)));
        }
        match day.pred_opt() {
            Some(before) => day = before,
            None => break,
        }
    }
    Ok(None)
}
