//! Writing an inspection export of a period ([`dozor_verify::format`]): the period's reports
//! sealed first, then the export cut at the checkpoint that covers them and written a stage at
//! a time.

mod contents;
mod cut;
mod error;
mod files;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use dozor_verify::format::{self as fmt, ExportInfo, KeyRecord};
use ledger::storage::{checkpoints, published_reports, reads};
use rules::gaming_day::GamingDayClock;

use crate::daily;
use contents::Contents;
use cut::{reading_connection, ExportCheckpoints, Period};
use files::Writer;

pub use cut::ExportWitnesses;
pub use error::ExportError;

/// The reports of every gaming day of the period, by their path in the export
/// ([`fmt::report_names`]).
fn build_reports(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    let plans = rules::PlanBook::builtin()?;
    let mut reports = Vec::new();
    for day in from.iter_days().take_while(|d| *d <= to) {
        let [daily_name, shoes_name] = fmt::report_names(day);
        let report = daily::build(conn, clock, day)?;
        reports.push((daily_name, daily::to_csv(&report)?.into_bytes()));
        let audit = crate::shoes::build(conn, clock, day, &plans)?;
        reports.push((shoes_name, crate::shoes::to_csv(&audit)?.into_bytes()));
    }
    Ok(reports)
}

/// Seals `reports` into the ledger in the name of `actor` and makes sure a checkpoint covers
/// them, so the export carries their seals and a verifier can tell a changed report; the
/// ledger's size with them.
fn seal_reports(
    primary: &mut PgConnection,
    sealer: &NoteSigner,
    reports: &[(String, Vec<u8>)],
    actor: &str,
    now: DateTime<Utc>,
) -> Result<u64, ExportError> {
    let published = published_reports::publish(primary, sealer.signing_key(), reports, actor, now)?;
    let sealed_size = reads::size(primary)?;
    let covered = checkpoints::latest(primary)?.map(|c| c.size as u64);
    if published.iter().any(|p| p.appended) || covered.is_none_or(|c| c < sealed_size) {
        checkpoints::create(primary, sealer, sealed_size, now)?;
    }
    Ok(sealed_size)
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ExportSummary {
    pub dir: PathBuf,
    pub period_entries: u64,
    pub first_index: u64,
    pub checkpoint_size: u64,
    pub latest_size: u64,
    /// Rounds played in the period but received after it, exported with their proofs.
    pub late_rounds: u64,
    /// When the latest checkpoint lacks the witnesses' quorum (a server stopped, witnesses
    /// down): the size of the latest one that has it, carried with its consistency proof.
    pub witnessed_checkpoint_size: Option<u64>,
    pub files: usize,
    /// Where the export's entries were read: the replica once it held the checkpoint that
    /// covers the export's seals, else the primary.
    pub read_from: crate::coverage::ReadFrom,
}

/// An export to write: its gaming days, who seals it and when, where it goes and what it
/// carries besides the ledger.
#[derive(Debug, Clone)]
pub struct ExportRequest<'a> {
    pub clock: &'a GamingDayClock,
    pub sealer: &'a NoteSigner,
    /// Whose request it is: the period's reports are sealed in this name.
    pub actor: &'a str,
    /// The first and the last gaming day, both included.
    pub days: (NaiveDate, NaiveDate),
    /// Created; must be empty.
    pub dir: &'a Path,
    pub now: DateTime<Utc>,
    /// The data directory whose sealed nightly reports of the period the export carries.
    pub nightly_from: Option<&'a Path>,
    pub witnesses: ExportWitnesses,
}

impl<'a> ExportRequest<'a> {
    /// The export of `days` into `dir`, sealed by `sealer` for `actor` at `now`: without
    /// nightly reports or witnesses.
    pub fn new(
        clock: &'a GamingDayClock,
        sealer: &'a NoteSigner,
        actor: &'a str,
        days: (NaiveDate, NaiveDate),
        dir: &'a Path,
        now: DateTime<Utc>,
    ) -> Self {
        ExportRequest {
            clock,
            sealer,
            actor,
            days,
            dir,
            now,
            nightly_from: None,
            witnesses: ExportWitnesses::default(),
        }
    }
}

/// Writes the export `request` asks for, calling `progress(entries written, entries to write)`
/// after each page of entries (for a progress bar on long exports).
pub fn write_export(
    conn: &mut PgConnection,
    request: &ExportRequest<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExportSummary, ExportError> {
    write_export_reading(conn, None, request, progress)
}

/// [`write_export`], its entries read on `replica` (when given, and once it holds the
/// checkpoint that covers the export's seals, which are written on `conn`, the primary).
pub fn write_export_reading(
    primary: &mut PgConnection,
    replica: Option<&mut PgConnection>,
    request: &ExportRequest<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExportSummary, ExportError> {
    let &ExportRequest {
        clock,
        sealer,
        actor,
        days: (from, to),
        dir,
        now,
        nightly_from,
        ref witnesses,
    } = request;
    if to < from {
        return Err(ExportError::BadPeriod { from, to });
    }
    let files = Writer::create(dir)?;
    let reports = build_reports(primary, clock, from, to)?;
    let sealed_size = seal_reports(primary, sealer, &reports, actor, now)?;
    // Everything below is read only, of entries below `sealed_size`: on the replica once it
    // has replayed the checkpoint just ensured. The export stops at that checkpoint: entries a
    // running server appends meanwhile belong to a later export, not to a race for a
    // checkpoint not yet signed.
    let (conn, read_from) = reading_connection(primary, replica, sealed_size);
    let period = Period::cut(conn, clock, (from, to), sealed_size)?;
    let checkpoints = ExportCheckpoints::read(conn, witnesses, period.run_end)?;
    let mut export = Contents {
        conn,
        files,
        period,
        checkpoints,
    };
    export.entries(progress)?;
    let history = export.registry()?;
    export.tree_and_checkpoints(&history)?;
    export.resolved_rounds(&history)?;
    let late_rounds = export.late_rounds()?;
    export
        .files
        .json(fmt::KEYS, &KeyRecord::from_history(&history))?;
    let mut plan_ids: BTreeSet<String> = history.tables().map(|t| t.plan_id.clone()).collect();
    export.adjudications(&mut plan_ids)?;
    export.plans(&plan_ids)?;
    for (name, bytes) in &reports {
        export.files.file(name, bytes)?;
    }
    if let Some(data_dir) = nightly_from {
        export.nightly_reports(data_dir)?;
    }
    finish(export, now, late_rounds, read_from)
}

/// The export's own description, then its manifest; what was written.
fn finish(
    export: Contents<'_>,
    now: DateTime<Utc>,
    late_rounds: u64,
    read_from: crate::coverage::ReadFrom,
) -> Result<ExportSummary, ExportError> {
    let Contents {
        mut files,
        period,
        checkpoints,
        ..
    } = export;
    let info = ExportInfo {
        format: fmt::FORMAT.to_owned(),
        origin: checkpoints.checkpoint.origin.clone(),
        from: period.from.to_string(),
        to: period.to.to_string(),
        starts_at: period.bounds.0,
        ends_at: period.bounds.1,
        first_index: period.first_index,
        period_first_index: period.entries.start,
        period_entries: period.entries.end - period.entries.start,
        link_after: period.link_after,
        late_rounds,
        created_at: now,
    };
    files.json(fmt::EXPORT_JSON, &info)?;
    let dir = files.dir().to_path_buf();
    Ok(ExportSummary {
        dir,
        period_entries: info.period_entries,
        first_index: period.entries.start,
        checkpoint_size: checkpoints.checkpoint.size,
        latest_size: checkpoints.latest.size,
        late_rounds: info.late_rounds,
        witnessed_checkpoint_size: checkpoints.witnessed.as_ref().map(|(size, _)| *size),
        files: files.finish()?,
        read_from,
    })
}
