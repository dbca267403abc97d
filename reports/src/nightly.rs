//! The nightly job: once a gaming day has closed, its reports are built, written under the data
//! directory and sealed into the ledger (each file's SHA-256 a `report_published` event), and
//! a checkpoint is signed over them. A night is done once its summary is sealed; running it
//! again changes nothing, and nights missed while the server was down are caught up.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone as _, Utc};
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use ledger::storage::{checkpoints, published_reports, reads};
use serde::Serialize;
use sha2::Digest as _;

use crate::monthly::{self, RtpRequest};
use crate::night_names::{night_prefix, summary_name, SUMMARY};
use crate::{daily, fantasy, month_page, shoes, wheels, ReportError};
use rules::gaming_day::{GamingDayClock, Month};

use dozor_verify::format::NIGHTLY_PREFIX;

/// How far back a catch-up goes.
pub const CATCH_UP_DAYS: i64 = 62;

#[derive(Debug, thiserror::Error)]
pub enum NightlyError {
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("signing the checkpoint: {0}")]
    Tree(#[from] ledger::storage::tree::TreeError),
    #[error("plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// When the night of gaming day `day` is due: the first `at` (local time) after the day ends.
pub fn due_at(clock: &GamingDayClock, at: NaiveTime, day: NaiveDate) -> DateTime<Utc> {
    let (_, end) = clock.bounds(day);
    let local_end = end.with_timezone(&clock.zone).date_naive();
    for date in [local_end, local_end + Duration::days(1)] {
        let local = date.and_time(at);
        let instant = clock
            .zone
            .from_local_datetime(&local)
            .earliest()
            .or_else(|| {
                clock
                    .zone
                    .from_local_datetime(&(local + Duration::hours(1)))
                    .earliest()
            })
            .map(|t| t.with_timezone(&Utc));
        if let Some(instant) = instant.filter(|t| *t >= end) {
            return instant;
        }
    }
    end
}

/// One report of the night.
#[derive(Debug, Clone, Serialize)]
pub struct NightFile {
    /// Its name in the ledger and its path under the data directory.
    pub name: String,
    pub sha256: String,
    pub bytes: u64,
}

/// What the summary of a night says.
#[derive(Debug, Clone, Serialize)]
pub struct NightSummary {
    pub gaming_day: NaiveDate,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Rounds played in the gaming day (all tables).
    pub rounds: i64,
    /// `no rounds were played on this gaming day` when there were none.
    pub note: Option<String>,
    /// The Ministry's packages whose latest version it has not confirmed yet, as the night
    /// found them (also on the month's page).
    pub ministry_packages_unconfirmed: Vec<crate::mf::status::Unconfirmed>,
    pub files: Vec<NightFile>,
}

/// What a run did for a night.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NightOutcome {
    /// Sealed now: the files, and the checkpoint that covers them.
    Published(NightSealed),
    /// Sealed before: nothing was changed.
    AlreadyDone { day: NaiveDate },
}

/// A night sealed now: what the scheduler logs and the command prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NightSealed {
    pub day: NaiveDate,
    pub files: usize,
    pub rounds: i64,
    pub checkpoint_size: u64,
    /// The Ministry's packages not confirmed yet, each `name (state)`.
    pub unconfirmed: Vec<String>,
}

/// A night's reports as (name in the ledger, bytes), the summary last.
pub struct Night {
    pub files: Vec<(String, Vec<u8>)>,
    /// Rounds played in the gaming day.
    pub rounds: i64,
    /// The Ministry's packages not confirmed yet, each `name (state)`.
    pub unconfirmed: Vec<String>,
}

/// The reports of gaming day `day`.
pub fn build_night(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    plans: &rules::PlanBook,
    day: NaiveDate,
) -> Result<Night, NightlyError> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let report = daily::build(conn, clock, day)?;
    let rounds = report.rounds;
    files.push(("daily.csv".into(), daily::to_csv(&report)?.into_bytes()));
    files.push(("daily.json".into(), serde_json::to_vec_pretty(&report)?));
    let month = Month::of(day);
    let rtp = monthly::build(
        conn,
        clock,
        &RtpRequest {
            month,
            through: Some(day),
            game: None,
            table_id: None,
        },
    )?;
    files.push((
        "rtp-month-to-date.csv".into(),
        monthly::to_csv(&rtp)?.into_bytes(),
    ));
    files.push((
        "rtp-month-to-date.html".into(),
        month_page::render(&rtp, plans).into_bytes(),
    ));
    let audit = shoes::build(conn, clock, day, plans)?;
    files.push(("shoes.csv".into(), shoes::to_csv(&audit)?.into_bytes()));
    let audit = fantasy::build(conn, clock, day, plans)?;
    files.push(("fantasy.csv".into(), fantasy::to_csv(&audit)?.into_bytes()));
    let audit = crate::time_audit::build(conn, clock, day, plans)?;
    files.push((
        "time-collection.csv".into(),
        crate::time_audit::to_csv(&audit)?.into_bytes(),
    ));
    let audit = crate::table_audit::build(conn, clock, day, plans)?;
    files.push((
        "table-audit.csv".into(),
        crate::table_audit::to_csv(&audit)?.into_bytes(),
    ));
    let statistics = wheels::build(conn, clock, month)?;
    files.push((
        "wheels-month.csv".into(),
        wheels::to_csv(&statistics)?.into_bytes(),
    ));
    let prefix = night_prefix(day);
    let (starts_at, ends_at) = clock.bounds(day);
    let summary = NightSummary {
        gaming_day: day,
        starts_at,
        ends_at,
        rounds,
        note: report.note.clone(),
        ministry_packages_unconfirmed: rtp.ministry_packages_unconfirmed.clone(),
        files: files
            .iter()
            .map(|(name, bytes)| NightFile {
                name: format!("{prefix}{name}"),
                sha256: hex::encode(sha2::Sha256::digest(bytes)),
                bytes: bytes.len() as u64,
            })
            .collect(),
    };
    files.push((SUMMARY.into(), serde_json::to_vec_pretty(&summary)?));
    Ok(Night {
        files: files
            .into_iter()
            .map(|(name, bytes)| (format!("{prefix}{name}"), bytes))
            .collect(),
        rounds,
        unconfirmed: rtp
            .ministry_packages_unconfirmed
            .iter()
            .map(|p| format!("{} ({})", p.package, p.state))
            .collect(),
    })
}

/// Where the nightly job works.
pub struct NightlyJob<'a> {
    pub clock: &'a GamingDayClock,
    pub plans: &'a rules::PlanBook,
    pub sealer: &'a NoteSigner,
    /// In whose name the night's reports are sealed: `server:nightly` for the server's own
    /// schedule, `cli:<user>` from the command line.
    pub actor: &'a str,
    /// The data directory: a night's files go to `<data dir>/reports/nightly/<day>/`.
    pub data_dir: &'a Path,
}

impl NightlyJob<'_> {
    /// Builds, writes and seals the night of `day`, unless it is done already.
    pub fn run(
        &self,
        conn: &mut PgConnection,
        day: NaiveDate,
        now: DateTime<Utc>,
    ) -> Result<NightOutcome, NightlyError> {
        let sealed = published_reports::latest_publications(conn)?;
        if sealed.contains_key(&summary_name(day)) {
            return Ok(NightOutcome::AlreadyDone { day });
        }
        let Night {
            files,
            rounds,
            unconfirmed,
        } = build_night(conn, self.clock, self.plans, day)?;
        // A night cut short (a crash between sealing and the summary) keeps what it sealed:
        // those files stay as they are, the rest are written and sealed now.
        let to_seal: Vec<(String, Vec<u8>)> = files
            .into_iter()
            .filter(|(name, _)| !sealed.contains_key(name))
            .collect();
        for (name, bytes) in &to_seal {
            write_atomically(&self.data_dir.join(name), bytes)?;
        }
        let count = to_seal.len();
        published_reports::publish(conn, self.sealer.signing_key(), &to_seal, self.actor, now)?;
        let size = reads::size(conn)?;
        checkpoints::create(conn, self.sealer, size, now)?;
        Ok(NightOutcome::Published(NightSealed {
            day,
            files: count,
            rounds,
            checkpoint_size: size,
            unconfirmed,
        }))
    }

    /// The nights due by `now` and not done yet, oldest first: from the day after the last
    /// night done (or the ledger's first gaming day), at most [`CATCH_UP_DAYS`] back.
    pub fn pending(
        &self,
        conn: &mut PgConnection,
        at: NaiveTime,
        now: DateTime<Utc>,
    ) -> Result<Vec<NaiveDate>, NightlyError> {
        let sealed = published_reports::latest_publications(conn)?;
        let today = self.clock.day_of(now);
        // A round may be played before it is received (a table catching up), so the first
        // night is that of the earliest of both.
        let first_played = ledger::storage::report_reads::nightly::first_played_at(conn)?;
        let first_received = reads::first_received_at(conn)?;
        let Some(first) = [first_played, first_received]
            .into_iter()
            .flatten()
            .min()
            .map(|t| self.clock.day_of(t))
        else {
            return Ok(Vec::new());
        };
        let earliest = first.max(today - Duration::days(CATCH_UP_DAYS));
        let done = |day: NaiveDate| sealed.contains_key(&summary_name(day));
        Ok(earliest
            .iter_days()
            .take_while(|d| *d < today)
            .filter(|d| due_at(self.clock, at, *d) <= now && !done(*d))
            .collect())
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), NightlyError> {
    let io = |source| NightlyError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    // Written whole and flushed before it takes the report's name: a crash leaves the old file
    // or the new one, never half of one.
    let partial = path.with_extension("partial");
    let mut file = std::fs::File::create(&partial).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&partial, path).map_err(io)
}

/// A sealed nightly report that no longer matches its seal under the data directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedReport {
    pub name: String,
    pub ledger_index: u64,
    /// `missing`, or `SHA-256 is …, sealed …`.
    pub problem: String,
}

/// Every nightly report sealed in the ledger, checked against its file under `data_dir`.
/// Returns how many matched and those that do not.
pub fn check_files(
    conn: &mut PgConnection,
    data_dir: &Path,
) -> Result<(u64, Vec<ChangedReport>), NightlyError> {
    let sealed: HashMap<String, (u64, String)> = published_reports::latest_publications(conn)?;
    let mut names: Vec<(&String, &(u64, String))> = sealed
        .iter()
        .filter(|(name, _)| name.starts_with(NIGHTLY_PREFIX))
        .collect();
    names.sort();
    let mut matched = 0;
    let mut changed = Vec::new();
    for (name, (index, sha256)) in names {
        let problem = match std::fs::read(data_dir.join(name)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("missing".to_owned()),
            Err(e) => Some(format!("unreadable: {e}")),
            Ok(bytes) => {
                let sum = hex::encode(sha2::Sha256::digest(&bytes));
                (sum != *sha256).then(|| format!("SHA-256 is {sum}, sealed {sha256}"))
            }
        };
        match problem {
            None => matched += 1,
            Some(problem) => changed.push(ChangedReport {
                name: name.clone(),
                ledger_index: *index,
                problem,
            }),
        }
    }
    Ok((matched, changed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_night_is_due_at_the_first_configured_time_after_its_day_closes() {
        let clock = GamingDayClock::default();
        let day = NaiveDate::from_ymd_opt(2026, 10, 5).unwrap();
        // The gaming day 5 October ends at 06:00 on the 6th in Prague (04:00 UTC, summer
        // time): a 06:30 job runs half an hour later, a 03:00 job only on the 7th.
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        assert_eq!(due_at(&clock, at(6, 30), day), utc("2026-10-06T04:30:00Z"));
        assert_eq!(due_at(&clock, at(3, 0), day), utc("2026-10-07T01:00:00Z"));
        assert_eq!(due_at(&clock, at(6, 0), day), utc("2026-10-06T04:00:00Z"));
        // Winter time (UTC+1): 5 December's night at 06:30 is 05:30 UTC on the 6th.
        let winter = NaiveDate::from_ymd_opt(2026, 12, 5).unwrap();
        assert_eq!(
            due_at(&clock, at(6, 30), winter),
            utc("2026-12-06T05:30:00Z")
        );
    }
}
