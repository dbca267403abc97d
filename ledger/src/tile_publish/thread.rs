//! Publishing beside the server: a thread of its own looks for a new checkpoint (or new
//! cosignatures) every second and publishes it; a failure is logged and retried later, and never
//! touches ingest, which does not wait for it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::handoff::Handoff;
use super::{Published, Publisher};
use crate::storage::PgPool;

/// How often the thread looks for a new checkpoint.
const POLL: Duration = Duration::from_secs(1);
/// The longest wait after failures in a row.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// The running publisher; [`TilePublishing::stop`] ends it after a last publication.
pub struct TilePublishing {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl TilePublishing {
    /// Publishes once more (what was signed at shutdown) and ends the thread.
    pub fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.thread().unpark();
        if self.thread.join().is_err() {
            tracing::error!("the tile publisher panicked");
        }
    }
}

/// What each attempt came to: the size of the checkpoint the folder holds, or `None` when it
/// failed (for the server's metrics).
pub type Report = Box<dyn Fn(Option<u64>) + Send>;

/// Starts publishing the ledger of `pool` to `dir`, telling `report` what each attempt came to;
/// full entry bundles are taken from `handoff` where ingest's writer handed them over.
pub fn spawn(
    pool: PgPool,
    dir: PathBuf,
    handoff: Option<Arc<Handoff>>,
    report: Report,
) -> std::io::Result<TilePublishing> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let thread = std::thread::Builder::new()
        .name("dozor-tiles".into())
        .spawn(move || run(&pool, (dir, handoff), &stopping, &report))?;
    Ok(TilePublishing { stop, thread })
}

fn run(
    pool: &PgPool,
    (dir, handoff): (PathBuf, Option<Arc<Handoff>>),
    stop: &AtomicBool,
    report: &Report,
) {
    lower_priority();
    let mut publisher = None;
    let mut backoff = POLL;
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        let wait = match attempt(pool, (&dir, handoff.as_ref()), &mut publisher) {
            Ok(published) => {
                report(Some(published.size()));
                backoff = POLL;
                match published {
                    // A step of a long catch-up: the next one at once.
                    Published::Grew {
                        from, to, latest, ..
                    } if to < latest => {
                        tracing::info!(from, to, latest, dir = %dir.display(), "tiles published, catching up");
                        Duration::ZERO
                    }
                    Published::Grew {
                        from, to, handed, ..
                    } => {
                        let (held, dropped) = handoff.as_ref().map_or((0, 0), |h| h.counts());
                        tracing::debug!(from, to, handed, held, dropped, dir = %dir.display(), "tiles published");
                        POLL
                    }
                    _ => POLL,
                }
            }
            Err(e) => {
                report(None);
                tracing::error!(error = %e, dir = %dir.display(), retry_in = ?backoff, "tile publication failed");
                let wait = backoff;
                backoff = (backoff * 2).min(MAX_BACKOFF);
                wait
            }
        };
        if stopping {
            return;
        }
        sleep_unless_stopped(wait, stop);
    }
}

fn attempt(
    pool: &PgPool,
    (dir, handoff): (&std::path::Path, Option<&Arc<Handoff>>),
    publisher: &mut Option<Publisher>,
) -> Result<Published, String> {
    if publisher.is_none() {
        let mut new = Publisher::new(dir).map_err(|e| e.to_string())?;
        if let Some(handoff) = handoff {
            new.take_handed(handoff.clone());
        }
        *publisher = Some(new);
    }
    let Some(publisher) = publisher.as_mut() else {
        return Err("no publisher".into());
    };
    let mut conn = pool
        .get()
        .map_err(|e| format!("no database connection: {e}"))?;
    publisher.publish(&mut conn).map_err(|e| e.to_string())
}

/// The publisher's niceness: it takes what ingest leaves of the processors.
const NICENESS: i32 = 19;

/// Lowers this thread's priority to [`NICENESS`] (and that of the threads it starts, which
/// inherit it): publishing runs in bursts, once a second, and would otherwise take a share of
/// the processors from ingest's writer, whose pace sets ingest's.
fn lower_priority() {
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), NICENESS) {
        tracing::warn!(error = %e, "the tile publisher runs at the server's priority");
    }
}

/// Sleeps `wait`, or less when the thread is told to stop.
fn sleep_unless_stopped(wait: Duration, stop: &AtomicBool) {
    let until = Instant::now() + wait;
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= until {
            return;
        }
        std::thread::park_timeout(until - now);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn own_niceness() -> i32 {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
    }

    #[test]
    fn the_publisher_and_the_threads_it_starts_run_at_the_lowest_priority() {
        let (before, after, started) = std::thread::spawn(|| {
            let before = own_niceness();
            lower_priority();
            let after = own_niceness();
            // As the flushing threads a publication starts.
            let started = std::thread::spawn(own_niceness).join().unwrap();
            (before, after, started)
        })
        .join()
        .unwrap();
        assert!(before < NICENESS, "{before}");
        assert_eq!((after, started), (NICENESS, NICENESS));
        // Only that thread: this one is as it was.
        assert_eq!(own_niceness(), before);
    }
}
