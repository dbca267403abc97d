//! The nightly job inside the server: at start, every night missed while it was down is caught
//! up; then each night runs at the configured local time after its gaming day has closed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::{NaiveTime, Utc};
use ledger::storage::nightly_check::{NightlyCheck, NightlyOutcome};
use reports::nightly::{due_at, NightOutcome, NightlyJob};

use crate::state::AppState;
use crate::stopping::sleep_unless_stopped;

/// When and where the server runs the nightly job.
#[derive(Debug, Clone)]
pub struct NightlySchedule {
    /// Local time (the gaming day's zone) after which a closed day's night is due.
    pub at: NaiveTime,
    /// The data directory the reports are written under, and the last verification mark kept
    /// (`verification-mark.json`).
    pub data_dir: PathBuf,
    /// The file every signed checkpoint is kept in, if any: the night's check of the ledger
    /// holds the database to it.
    pub checkpoint_witness: Option<ledger::witness::Witness>,
}

/// The running scheduler; [`Scheduler::stop`] lets a night in progress finish.
pub struct Scheduler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Scheduler {
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
        if self.thread.join().is_err() {
            tracing::error!("the nightly scheduler panicked");
        }
    }
}

/// How long to wait before trying again after a night failed.
const RETRY: Duration = Duration::from_secs(600);

/// Starts the scheduler on its own thread.
pub fn spawn(state: AppState, schedule: NightlySchedule) -> std::io::Result<Scheduler> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let thread = std::thread::Builder::new()
        .name("dozor-nightly".into())
        .spawn(move || run(&state, &schedule, &stopping))?;
    Ok(Scheduler { stop, thread })
}

fn run(state: &AppState, schedule: &NightlySchedule, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let wait = match catch_up(state, schedule, stop) {
            Ok(()) => {
                if !stop.load(Ordering::SeqCst) {
                    check_ledger(state, schedule);
                }
                // The night of the gaming day in progress comes next.
                let today = state.clock.day_of(Utc::now());
                let next = due_at(&state.clock, schedule.at, today);
                tracing::info!(%next, "next nightly run");
                (next - Utc::now()).to_std().unwrap_or(Duration::ZERO)
            }
            Err(e) => {
                tracing::error!(error = %e, "nightly run failed; retrying in ten minutes");
                RETRY
            }
        };
        sleep_unless_stopped(wait, stop);
    }
}

/// Every night due and not done, oldest first.
fn catch_up(
    state: &AppState,
    schedule: &NightlySchedule,
    stop: &AtomicBool,
) -> Result<(), reports::nightly::NightlyError> {
    let mut conn = state
        .pool
        .get()
        .map_err(|e| reports::nightly::NightlyError::Ledger(e.into()))?;
    let job = NightlyJob {
        clock: &state.clock,
        plans: &state.plans,
        sealer: &state.operator,
        actor: dozor_log::registry_history::SCHEDULER_ACTOR,
        data_dir: &schedule.data_dir,
    };
    for day in job.pending(&mut conn, schedule.at, Utc::now())? {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        match job.run(&mut conn, day, Utc::now())? {
            NightOutcome::Published(sealed) => {
                let day = sealed.day;
                tracing::info!(
                    %day,
                    files = sealed.files,
                    rounds = sealed.rounds,
                    checkpoint_size = sealed.checkpoint_size,
                    "nightly reports sealed"
                );
                if !sealed.unconfirmed.is_empty() {
                    let packages = sealed.unconfirmed.join(", ");
                    tracing::warn!(%day, %packages, "the Ministry has not confirmed these packages yet");
                }
            }
            NightOutcome::AlreadyDone { day } => tracing::info!(%day, "night done before"),
        }
    }
    Ok(())
}

/// The night's check of the ledger (docs/VERIFY.md): what was appended since the last passing
/// check, the whole ledger the first time, recorded as a verification mark. Its result goes to
/// the log; a check that could not run is tried again the next night.
fn check_ledger(state: &AppState, schedule: &NightlySchedule) {
    match run_check(state, schedule) {
        Ok(NightlyOutcome::NothingNew { verified_to, .. }) => {
            tracing::info!(
                verified_to,
                "ledger check: no checkpoint signed since the last"
            );
        }
        Ok(NightlyOutcome::NoPassingCheck) => tracing::warn!(
            "ledger check: no check has passed yet; the full walk (tonight, within its budget, or now: `dozor verify --full-walk`) checks the whole ledger once, then each night checks what it gained"
        ),
        Ok(NightlyOutcome::RolledBack(f)) => {
            tracing::error!(index = f.index, reason = %f.reason, "ledger check FAILED; nothing recorded");
        }
        Ok(NightlyOutcome::RegistryBroken(f)) => {
            tracing::error!(index = f.index, reason = %f.reason, "ledger check: the registry does not read; nothing recorded");
        }
        Ok(NightlyOutcome::Made(made)) => {
            let (mark, index) = (&made.mark, made.recorded.as_ref().ok().map(|r| r.index));
            match (&mark.failure, &made.recorded) {
                (None, Ok(_)) => tracing::info!(
                    scope = mark.scope.as_str(),
                    from = mark.from,
                    to = mark.to,
                    mark_index = index,
                    "ledger check passed"
                ),
                (Some(f), _) => tracing::error!(
                    scope = mark.scope.as_str(),
                    index = f.index,
                    reason = %f.reason,
                    mark_index = index,
                    "ledger check FAILED"
                ),
                (None, Err(e)) => {
                    tracing::error!(error = %e, "ledger check passed but was not recorded");
                }
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "ledger check could not run; trying again next night")
        }
    }
}

fn run_check(
    state: &AppState,
    schedule: &NightlySchedule,
) -> Result<NightlyOutcome, ledger::error::LedgerError> {
    let mut conn = state.pool.get().map_err(ledger::error::LedgerError::from)?;
    let (operators, witnessed) =
        operators_and_witnessed(state, &mut conn, schedule.checkpoint_witness.as_ref())?;
    let mark_file = schedule
        .data_dir
        .join(ledger::storage::nightly_check::MARK_FILE);
    NightlyCheck {
        operator: &state.operator,
        operators: &operators,
        signatures: dozor_log::entry_check::SignatureCheck::Batch,
        witnessed,
        mark_file: &mark_file,
        actor: dozor_log::registry_history::SCHEDULER_ACTOR.to_owned(),
        walk_all_first: false,
    }
    .run(&mut conn, |_| {})
}

/// The operator keys the ledger's entries may be signed by (the current one and those it
/// rotated from), and the checkpoints kept in the witness file, if one is kept.
pub(crate) fn operators_and_witnessed(
    state: &AppState,
    conn: &mut diesel::PgConnection,
    witness: Option<&ledger::witness::Witness>,
) -> Result<
    (
        std::collections::HashMap<String, ed25519_dalek::VerifyingKey>,
        Vec<ledger::storage::issued::IssuedCheckpoint>,
    ),
    ledger::error::LedgerError,
> {
    let verifiers = ledger::storage::rotation::operator_chain(conn, &state.operator.verifier())?;
    let operators = verifiers
        .iter()
        .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
        .collect();
    let witnessed = match witness {
        Some(witness) => witness.read(&verifiers)?,
        None => Vec::new(),
    };
    Ok((operators, witnessed))
}
