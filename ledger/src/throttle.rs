//! The budget of a walk in the background: the processor time it and the database process
//! serving it may take (in cores), and the bytes of entries it may read each second. After each
//! page the walk waits as long as it takes to be back within both; between them it runs at the
//! lowest priority, so that ingest, which shares the machine, keeps its pace. The walk's own
//! processor time is that of its threads while they work for it (counted around each piece of
//! work), not its process's: the server's walk shares its process with ingest.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a background walk may take; `None` is no limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Processor time per second of the walk, in cores: its own threads and, when the database
    /// runs on the same machine, the database process serving it.
    pub cores: Option<f64>,
    /// Bytes of entries read per second.
    pub read_bytes_per_second: Option<u64>,
}

impl Default for Budget {
    /// One core, reads unbounded (the processor budget bounds them too).
    fn default() -> Self {
        Budget {
            cores: Some(1.0),
            read_bytes_per_second: None,
        }
    }
}

/// The lowest priority: the walk takes what ingest leaves.
pub const NICENESS: i32 = 19;

/// The budget being kept: what was spent since the walk started.
pub struct Throttle {
    budget: Budget,
    started: Instant,
    /// Nanoseconds of processor time the walk's threads spent working for it.
    walk_cpu: AtomicU64,
    backend: Option<Backend>,
    read: Mutex<u64>,
}

/// The database process serving the walk, when it runs on this machine and its processor time
/// can be read (`/proc/<pid>/stat`, crate::cpu_time).
struct Backend {
    pid: i32,
    cpu_at_start: Duration,
}

impl Throttle {
    /// Starts keeping `budget`; `backend_pid` is the database process serving the walk
    /// (`pg_backend_pid()`), counted when it runs here.
    pub fn start(budget: Budget, backend_pid: Option<i32>) -> Throttle {
        let backend = backend_pid
            .and_then(|pid| process_cpu(pid).map(|cpu_at_start| Backend { pid, cpu_at_start }));
        Throttle {
            budget,
            started: Instant::now(),
            walk_cpu: AtomicU64::new(0),
            backend,
            read: Mutex::new(0),
        }
    }

    /// Whether the database process's processor time is counted too.
    pub fn counts_the_database(&self) -> bool {
        self.backend.is_some()
    }

    /// Lowers the calling thread (and the threads it starts after) to [`NICENESS`], and the
    /// database process serving the walk when allowed (the same user, or root). Whether the
    /// database process was lowered.
    pub fn lower_priority(&self) -> bool {
        use rustix::process::{setpriority_process, Pid};
        if let Err(e) = setpriority_process(Some(rustix::thread::gettid()), NICENESS) {
            tracing::warn!(error = %e, "the walk runs at the caller's priority");
        }
        self.backend
            .as_ref()
            .and_then(|b| Pid::from_raw(b.pid))
            .is_some_and(|pid| setpriority_process(Some(pid), NICENESS).is_ok())
    }

    /// Runs `f` on the calling thread, its processor time counted as the walk's.
    pub fn count<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = thread_cpu();
        let value = f();
        let spent = thread_cpu().saturating_sub(before);
        self.walk_cpu.fetch_add(
            u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        value
    }

    /// Called after each page read with its entries' bytes: waits until the walk is within its
    /// budget again.
    pub fn after_page(&self, bytes: u64) {
        let read = match self.read.lock() {
            Ok(mut read) => {
                *read = read.saturating_add(bytes);
                *read
            }
            Err(_) => return,
        };
        let wait = self.wait(read);
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }

    /// How long to wait, `read` bytes read so far: the longer of what the processor budget and
    /// the read budget ask.
    fn wait(&self, read: u64) -> Duration {
        let elapsed = self.started.elapsed();
        let for_cpu = self.budget.cores.filter(|c| *c > 0.0).map(|cores| {
            let spent = self.cpu_spent();
            spent.div_f64(cores)
        });
        let for_reads = self
            .budget
            .read_bytes_per_second
            .filter(|r| *r > 0)
            .map(|rate| Duration::from_secs_f64(read as f64 / rate as f64));
        let due = for_cpu.max(for_reads).unwrap_or_default();
        // No more than a second at a time: the budget is an average, not a debt paid at once.
        due.saturating_sub(elapsed).min(Duration::from_secs(1))
    }

    /// Processor time spent since the start: the walk's threads' and the database process's.
    fn cpu_spent(&self) -> Duration {
        let own = Duration::from_nanos(self.walk_cpu.load(Ordering::Relaxed));
        let backend = self.backend.as_ref().map_or(Duration::ZERO, |b| {
            process_cpu(b.pid).map_or(Duration::ZERO, |now| now.saturating_sub(b.cpu_at_start))
        });
        own + backend
    }
}

/// The calling thread's processor time.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// The processor time of process `pid`, if `/proc` shows it and it is PostgreSQL's.
fn process_cpu(pid: i32) -> Option<Duration> {
    let pid = u32::try_from(pid).ok()?;
    crate::cpu_time::is_postgres(pid)
        .then(|| crate::cpu_time::of_process(Some(pid)))
        .flatten()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_work_counted_is_the_walks_threads_only() {
        let throttle = Throttle::start(Budget::default(), None);
        // Work on another thread, not counted: the walk spent nothing.
        std::thread::spawn(|| spin(Duration::from_millis(30)))
            .join()
            .unwrap();
        assert_eq!(throttle.cpu_spent(), Duration::ZERO);
        // Work counted: at least most of the 30 ms spun (the clock's granularity aside).
        throttle.count(|| spin(Duration::from_millis(30)));
        assert!(throttle.cpu_spent() >= Duration::from_millis(20));
        // One core: the walk is due when its processor time is, so about no wait right after.
        assert!(throttle.wait(0) <= Duration::from_millis(40));
    }

    fn spin(time: Duration) {
        let started = Instant::now();
        while started.elapsed() < time {
            std::hint::black_box(started.elapsed());
        }
    }

    #[test]
    fn the_read_budget_sets_the_wait() {
        let throttle = Throttle::start(
            Budget {
                cores: None,
                read_bytes_per_second: Some(1000),
            },
            None,
        );
        // 500 bytes at 1000 a second are due half a second after the start.
        let wait = throttle.wait(500);
        assert!(wait > Duration::from_millis(400) && wait <= Duration::from_millis(500));
        // Far beyond the budget: a second at most at a time.
        assert_eq!(throttle.wait(1_000_000), Duration::from_secs(1));
        let unbounded = Throttle::start(
            Budget {
                cores: None,
                read_bytes_per_second: None,
            },
            None,
        );
        assert_eq!(unbounded.wait(1_000_000), Duration::ZERO);
    }
}
