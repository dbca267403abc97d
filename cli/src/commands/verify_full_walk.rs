//! `dozor verify --full-walk`: the whole ledger walked in the background, resumable and within
//! a budget, its result recorded as a full verification mark (docs/VERIFY.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use dozor_log::registry_history::cli_actor;
use ledger::storage::database::DatabaseChoice;
use ledger::storage::full_walk::{self, FullWalk, WalkOutcome};
use ledger::storage::full_walk_progress::PROGRESS_FILE;
use ledger::storage::nightly_check::{CheckMade, Recording};
use ledger::throttle::Budget;
use serde_json::json;

/// How the full walk runs.
#[derive(Debug, clap::Args)]
pub struct FullWalkOptions {
    /// With `--full-walk`: where its progress is kept, so that a walk stopped or killed goes on
    /// from the last segment it finished (default: `full-walk.progress` in the data directory).
    #[arg(long, value_name = "FILE")]
    progress_file: Option<PathBuf>,
    /// With `--full-walk`: processor time it may take, in cores, its own threads and the
    /// database process serving it counted together (0: no limit).
    #[arg(long, default_value_t = 1.0, value_name = "CORES")]
    cores: f64,
    /// With `--full-walk`: the same while the rest of the machine keeps more than half its
    /// cores busy (ingest); no more than `--cores`.
    #[arg(long, default_value_t = ledger::throttle::UNDER_LOAD, value_name = "CORES")]
    cores_under_load: f64,
    /// With `--full-walk`: bytes of entries it may read per second, in MiB (default: no limit
    /// beyond the processor budget's).
    #[arg(long, value_name = "MIB")]
    read_mib_per_second: Option<f64>,
    /// With `--full-walk`: pages (of 16 384 entries) per segment, each read in a snapshot of
    /// its own and followed by the progress kept.
    #[arg(long, default_value_t = ledger::storage::full_walk::SEGMENT_PAGES, value_name = "PAGES")]
    segment_pages: usize,
    /// With `--full-walk`: walk only when due, one walk every so many days (a walk in progress
    /// always goes on); what the nightly job runs.
    #[arg(long, value_name = "DAYS")]
    every_days: Option<u32>,
    /// Entries per page (tests walk small ledgers in many segments).
    #[arg(long, default_value_t = 16 * 1024, hide = true)]
    page_entries: usize,
}

impl FullWalkOptions {
    fn budget(&self) -> anyhow::Result<Budget> {
        for (name, cores) in [
            ("--cores", self.cores),
            ("--cores-under-load", self.cores_under_load),
        ] {
            if !cores.is_finite() || cores < 0.0 {
                anyhow::bail!("{name} {cores} is not a number of cores");
            }
        }
        let read = match self.read_mib_per_second {
            Some(mib) if !mib.is_finite() || mib <= 0.0 => {
                anyhow::bail!("--read-mib-per-second {mib} is not a positive rate")
            }
            Some(mib) => Some((mib * 1024.0 * 1024.0) as u64),
            None => None,
        };
        let cores = (self.cores > 0.0).then_some(self.cores);
        let under_load = (self.cores_under_load > 0.0).then_some(self.cores_under_load);
        Ok(Budget {
            cores,
            cores_under_load: match (under_load, cores) {
                (Some(u), Some(c)) => Some(u.min(c)),
                (u, c) => u.or(c),
            },
            read_bytes_per_second: read,
        })
    }
}

/// What `dozor verify --full-walk` was given beyond its options.
pub(super) struct FullWalkArgs<'a> {
    pub witness: Option<PathBuf>,
    pub mark_file: Option<PathBuf>,
    pub signatures: dozor_log::entry_check::SignatureCheck,
    pub options: &'a FullWalkOptions,
}

pub(super) fn run(global: &DatabaseChoice, args: &FullWalkArgs<'_>) -> anyhow::Result<ExitCode> {
    let budget = args.options.budget()?;
    let super::verify_since::Checking {
        operator,
        db,
        mut conn,
        operators,
        witnessed,
    } = super::verify_since::Checking::open(global, args.witness.as_deref())?;
    let progress_file = args
        .options
        .progress_file
        .clone()
        .unwrap_or_else(|| global.data_dir.join(PROGRESS_FILE));
    if let Some(days) = args.options.every_days {
        let every = chrono::Duration::days(i64::from(days));
        let due = full_walk::due(
            &mut conn,
            &operators,
            &progress_file,
            every,
            chrono::Utc::now(),
        )?;
        if let full_walk::WalkDue::NotDue(last) = due {
            println!(
                "{}",
                json!({"scope": "full", "due": false, "last_passed": last})
            );
            eprintln!("full walk not due: the last passed at {last}, within {days} days");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let walk = FullWalk {
        operator: &operator,
        operators: &operators,
        signatures: args.signatures,
        witnessed,
        progress_file: &progress_file,
        budget,
        paging: ledger::storage::verify::Paging {
            page: args.options.page_entries.max(1),
            ..Default::default()
        },
        segment_pages: args.options.segment_pages.max(1),
    };
    let bar = simulator::progress_bar(0, "entries");
    let outcome = walk.run(&mut conn, &AtomicBool::new(false), |next, target| {
        bar.set_length(target);
        bar.set_position(next);
    })?;
    bar.finish_and_clear();
    let code = match outcome {
        WalkOutcome::NothingSigned => {
            println!("{}", json!({"scope": "full", "nothing_signed": true}));
            eprintln!("nothing to walk: no checkpoint is signed yet; nothing recorded");
            ExitCode::SUCCESS
        }
        WalkOutcome::RegistryBroken(f) => {
            eprintln!(
                "ledger BROKEN at index {}: {} (nothing recorded: the registry does not read)",
                f.index, f.reason
            );
            ExitCode::from(1)
        }
        WalkOutcome::AlreadyRunning => {
            println!("{}", json!({"scope": "full", "already_running": true}));
            eprintln!(
                "a full walk is already running with {}; nothing done",
                progress_file.display()
            );
            ExitCode::SUCCESS
        }
        WalkOutcome::Stopped(progress) => {
            eprintln!(
                "walk stopped at entry {} of {}; it goes on from there next time",
                progress.next, progress.target
            );
            ExitCode::SUCCESS
        }
        WalkOutcome::Finished(finished) => {
            let recording = Recording {
                operator: &operator,
                operators: &operators,
                mark_file: &args
                    .mark_file
                    .clone()
                    .unwrap_or_else(|| super::verify_since::default_mark_file(global)),
                actor: cli_actor(),
            };
            let check = CheckMade::Full(finished.report, finished.frontier);
            let made = recording.record(&mut conn, check, finished.started_at)?;
            let index = made.recorded.as_ref().ok().map(|r| r.index);
            let mut printed = super::verify_since::printed(&made.check, &made.mark, index)?;
            printed["segments"] = finished.segments.into();
            printed["resumed"] = finished.resumed.into();
            printed["budget_counted_the_database"] = finished.budget_counted_the_database.into();
            println!("{}", serde_json::to_string_pretty(&printed)?);
            let code = super::verify_since::result_line(&made.check, &made.mark, index);
            if let Err(e) = made.recorded {
                eprintln!("the walk was NOT recorded: {e}");
                ExitCode::from(1)
            } else {
                code
            }
        }
    };
    drop(conn);
    db.close()?;
    Ok(code)
}
