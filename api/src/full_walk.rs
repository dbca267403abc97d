//! The full walk inside the server (docs/VERIFY.md): once every so many days (7 by default),
//! started at the nightly time, the whole ledger walked on a thread of its own within its
//! budget, its progress kept so that a stop or a crash loses at most a segment (a walk in
//! progress goes on as soon as the server starts), its result recorded as a full verification
//! mark. Its progress is on `/metrics`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{NaiveTime, Utc};
use ledger::storage::full_walk::{self, FullWalk, WalkOutcome};
use ledger::storage::full_walk_progress::PROGRESS_FILE;
use ledger::storage::nightly_check::{CheckMade, Recording, MARK_FILE};
use ledger::throttle::Budget;
use reports::nightly::due_at;

use crate::metrics::FullWalkSeries;
use crate::state::AppState;
use crate::stopping::sleep_unless_stopped;

/// When and how the server walks the whole ledger.
#[derive(Debug, Clone)]
pub struct WalkSchedule {
    /// The nightly time (the gaming day's zone) at which a due walk starts.
    pub at: NaiveTime,
    /// One walk every so many days.
    pub every_days: u32,
    pub budget: Budget,
    /// Where the progress and the last mark are kept.
    pub data_dir: PathBuf,
    pub checkpoint_witness: Option<ledger::witness::Witness>,
}

/// The running walker; [`Walker::stop`] stops a walk in progress after its segment, its
/// progress kept.
pub struct Walker {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Walker {
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
        if self.thread.join().is_err() {
            tracing::error!("the full walk's thread panicked");
        }
    }
}

/// Starts the walker on its own thread.
pub fn spawn(state: AppState, schedule: WalkSchedule) -> Result<Walker, std::io::Error> {
    let series = FullWalkSeries::register(&state.metrics).map_err(std::io::Error::other)?;
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let thread = std::thread::Builder::new()
        .name("dozor-full-walk".into())
        .spawn(move || run(&state, &schedule, &series, &stopping))?;
    Ok(Walker { stop, thread })
}

fn run(state: &AppState, schedule: &WalkSchedule, series: &FullWalkSeries, stop: &AtomicBool) {
    let progress_file = schedule.data_dir.join(PROGRESS_FILE);
    // A walk in progress goes on at once; a new one waits for the night.
    let mut night = progress_file.exists();
    while !stop.load(Ordering::SeqCst) {
        if night {
            match walk_if_due(state, schedule, series, stop) {
                Ok(()) => {}
                Err(e) => {
                    tracing::error!(error = %e, "full walk could not run; trying again next night")
                }
            }
        }
        let today = state.clock.day_of(Utc::now());
        let next = due_at(&state.clock, schedule.at, today);
        let wait = (next - Utc::now()).to_std().unwrap_or(Duration::ZERO);
        sleep_unless_stopped(wait, stop);
        night = true;
    }
}

/// Walks (or goes on walking) when due, and records the result.
fn walk_if_due(
    state: &AppState,
    schedule: &WalkSchedule,
    series: &FullWalkSeries,
    stop: &AtomicBool,
) -> Result<(), ledger::error::LedgerError> {
    let mut conn = state.pool.get().map_err(ledger::error::LedgerError::from)?;
    let (operators, witnessed) = crate::nightly::operators_and_witnessed(
        state,
        &mut conn,
        schedule.checkpoint_witness.as_ref(),
    )?;
    let progress_file = schedule.data_dir.join(PROGRESS_FILE);
    let every = chrono::Duration::days(i64::from(schedule.every_days));
    let due = full_walk::due(&mut conn, &operators, &progress_file, every, Utc::now())?;
    if !due.is_due() {
        tracing::info!(?due, "full walk not due");
        return Ok(());
    }
    tracing::info!(?due, "full walk starting");
    let walk = FullWalk {
        operator: &state.operator,
        operators: &operators,
        signatures: dozor_log::entry_check::SignatureCheck::Batch,
        witnessed,
        progress_file: &progress_file,
        budget: schedule.budget,
        paging: ledger::storage::verify::Paging::default(),
        segment_pages: ledger::storage::full_walk::SEGMENT_PAGES,
    };
    let outcome = walk.run(&mut conn, stop, |next, target| series.walking(next, target));
    series.stopped();
    match outcome? {
        WalkOutcome::NothingSigned => tracing::info!("full walk: no checkpoint signed yet"),
        WalkOutcome::AlreadyRunning => {
            tracing::info!("full walk: another walk is running (`dozor verify --full-walk`)");
        }
        WalkOutcome::RegistryBroken(f) => {
            tracing::error!(index = f.index, reason = %f.reason, "full walk: the registry does not read; nothing recorded");
        }
        WalkOutcome::Stopped(progress) => tracing::info!(
            next = progress.next,
            target = progress.target,
            "full walk stopped; it goes on at the next start"
        ),
        WalkOutcome::Finished(finished) => {
            let recording = Recording {
                operator: &state.operator,
                operators: &operators,
                mark_file: &schedule.data_dir.join(MARK_FILE),
                actor: dozor_log::registry_history::SCHEDULER_ACTOR.to_owned(),
            };
            let check = CheckMade::Full(finished.report, finished.frontier);
            let made = recording.record(&mut conn, check, finished.started_at)?;
            let index = made.recorded.as_ref().ok().map(|r| r.index);
            match (&made.mark.failure, &made.recorded) {
                (None, Ok(_)) => tracing::info!(
                    to = made.mark.to,
                    mark_index = index,
                    segments = finished.segments,
                    resumed = finished.resumed,
                    "full walk passed"
                ),
                (Some(f), _) => tracing::error!(
                    index = f.index,
                    reason = %f.reason,
                    mark_index = index,
                    "full walk FAILED"
                ),
                (None, Err(e)) => {
                    tracing::error!(error = %e, "full walk passed but was not recorded");
                }
            }
        }
    }
    Ok(())
}
