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
    /// The same while the rest of the machine keeps more than half its cores busy (ingest):
    /// even at the idle priority, a walk that runs whenever a core is free slows a busy ingest
    /// by sharing the processors' caches with it (docs/PERFORMANCE.md), so it takes less then.
    pub cores_under_load: Option<f64>,
    /// Bytes of entries read per second.
    pub read_bytes_per_second: Option<u64>,
}

impl Budget {
    /// No limit at all (a walk measured, or run by hand on a quiet machine).
    pub const UNLIMITED: Budget = Budget {
        cores: None,
        cores_under_load: None,
        read_bytes_per_second: None,
    };

    /// Whether it limits anything: a walk without a limit runs at the caller's priority.
    pub fn limits(&self) -> bool {
        self.cores.is_some()
            || self.cores_under_load.is_some()
            || self.read_bytes_per_second.is_some()
    }

    /// `cores` (none: no limit), a quarter core under load (no more than `cores`), reads
    /// unbounded.
    pub fn cores(cores: Option<f64>) -> Budget {
        Budget {
            cores,
            cores_under_load: Some(cores.map_or(UNDER_LOAD, |c| c.min(UNDER_LOAD))),
            read_bytes_per_second: None,
        }
    }
}

/// Cores a walk takes by default while the machine is busy.
pub const UNDER_LOAD: f64 = 0.25;

impl Default for Budget {
    /// One core, a quarter under load, reads unbounded (the processor budget bounds them too).
    fn default() -> Self {
        Budget::cores(Some(1.0))
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
    spent: Mutex<Spent>,
}

/// What the walk had spent at the last page, and the processor time it was due to have by then.
#[derive(Default)]
struct Spent {
    read: u64,
    cpu: Duration,
    /// The machine's busy and all processor time at the last page.
    machine: Option<(Duration, Duration)>,
    /// When, after the start, the walk's processor time so far is within its budget.
    cpu_due: Duration,
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
            spent: Mutex::new(Spent {
                machine: crate::cpu_time::of_machine(),
                ..Spent::default()
            }),
        }
    }

    /// Whether the database process's processor time is counted too.
    pub fn counts_the_database(&self) -> bool {
        self.backend.is_some()
    }

    /// Puts the calling thread (and the threads it starts after) under the idle policy
    /// (`SCHED_IDLE`: it runs only when no other thread wants the processor, and gives way at
    /// once when one does; at [`NICENESS`] where the policy cannot be set), and lowers the
    /// database process serving the walk to [`NICENESS`] when allowed (the same user, or root).
    /// Whether the database process was lowered.
    pub fn lower_priority(&self) -> bool {
        use rustix::process::{setpriority_process, Pid};
        use thread_priority::{
            set_thread_priority_and_policy, thread_native_id, NormalThreadSchedulePolicy,
            ThreadPriority, ThreadSchedulePolicy,
        };
        let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
        if let Err(e) =
            set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle)
        {
            tracing::debug!(error = ?e, "the walk runs at the lowest niceness instead of the idle policy");
            if let Err(e) = setpriority_process(Some(rustix::thread::gettid()), NICENESS) {
                tracing::warn!(error = %e, "the walk runs at the caller's priority");
            }
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
        let wait = match self.spent.lock() {
            Ok(mut spent) => self.account(&mut spent, bytes),
            Err(_) => return,
        };
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }

    /// Adds a page of `bytes` and the processor time spent since the last page (at the rate of
    /// the budget that held meanwhile: under load or not) to what the walk has spent: how long
    /// it must wait to be within its budget.
    fn account(&self, spent: &mut Spent, bytes: u64) -> Duration {
        let elapsed = self.started.elapsed();
        spent.read = spent.read.saturating_add(bytes);
        let cpu = self.cpu_spent();
        let used = cpu.saturating_sub(spent.cpu);
        spent.cpu = cpu;
        let machine = crate::cpu_time::of_machine();
        let loaded = spent
            .machine
            .zip(machine)
            .is_some_and(|(before, after)| others_keep_half_busy(used, before, after));
        spent.machine = machine;
        let cores = if loaded {
            self.budget.cores_under_load.or(self.budget.cores)
        } else {
            self.budget.cores
        };
        // Time not used is not saved for later beyond a second: no burst after a quiet spell.
        let floor = elapsed.saturating_sub(Duration::from_secs(1));
        spent.cpu_due = match cores.filter(|c| *c > 0.0) {
            Some(cores) => spent.cpu_due.max(floor) + used.div_f64(cores),
            None => elapsed,
        };
        let for_reads = self
            .budget
            .read_bytes_per_second
            .filter(|r| *r > 0)
            .map_or(Duration::ZERO, |rate| {
                Duration::from_secs_f64(spent.read as f64 / rate as f64)
            });
        spent.cpu_due.max(for_reads).saturating_sub(elapsed)
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

/// Whether, between two readings of the machine's (busy, all) processor time, the processes
/// other than the walk (which used `used`) kept more than half of it busy.
fn others_keep_half_busy(
    used: Duration,
    (busy_before, all_before): (Duration, Duration),
    (busy_after, all_after): (Duration, Duration),
) -> bool {
    let others = busy_after.saturating_sub(busy_before).saturating_sub(used);
    let all = all_after.saturating_sub(all_before);
    !all.is_zero() && others.as_secs_f64() > all.as_secs_f64() / 2.0
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

/// Puts the calling thread, a reader of the database's rows, under the batch policy
/// (`SCHED_BATCH`) unless it runs under another than the normal one (a background walk's idle
/// policy is kept). The database sends a few kilobytes at a time; a normal thread woken for
/// each takes the processor from the checking threads at once and sleeps again, twice a
/// context switch for every few kilobytes, while a batch thread is not preferred on waking and
/// reads what has come meanwhile in one go.
pub fn wake_in_batches() {
    use thread_priority::{
        set_thread_priority_and_policy, thread_native_id, thread_schedule_policy,
        NormalThreadSchedulePolicy, ThreadPriority, ThreadPriorityOsValue, ThreadSchedulePolicy,
    };
    let normal = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other);
    // The policy is set with a niceness: only the default one (0) is kept as it is.
    let niceness = rustix::process::getpriority_process(rustix::process::Pid::from_raw(
        rustix::thread::gettid().as_raw_nonzero().get(),
    ));
    if thread_schedule_policy().is_ok_and(|policy| policy == normal)
        && niceness.is_ok_and(|n| n == 0)
    {
        let batch = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Batch);
        let unchanged = ThreadPriority::Os(ThreadPriorityOsValue::default());
        if let Err(e) = set_thread_priority_and_policy(thread_native_id(), unchanged, batch) {
            tracing::debug!(error = ?e, "the reading thread keeps the normal policy");
        }
    }
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
        // Work counted: the 30 ms spun.
        throttle.count(|| spin(Duration::from_millis(30)));
        assert!(throttle.cpu_spent() >= Duration::from_millis(30));
        // One core (or a quarter under load: 30 ms are due 120 ms after the start): at most
        // about 120 ms less the 60 ms spun to wait.
        let mut spent = throttle.spent.lock().unwrap();
        assert!(throttle.account(&mut spent, 0) <= Duration::from_millis(80));
    }

    /// Works until the calling thread has spent `time` of processor time (however busy the
    /// machine is).
    fn spin(time: Duration) {
        let started = thread_cpu();
        while thread_cpu().saturating_sub(started) < time {
            std::hint::black_box(started);
        }
    }

    #[test]
    fn the_read_budget_sets_the_wait() {
        let throttle = Throttle::start(
            Budget {
                read_bytes_per_second: Some(1000),
                ..Budget::UNLIMITED
            },
            None,
        );
        let mut spent = throttle.spent.lock().unwrap();
        // 500 bytes at 1000 a second are due half a second after the start.
        let wait = throttle.account(&mut spent, 500);
        assert!(wait > Duration::from_millis(400) && wait <= Duration::from_millis(500));
        // 500 + 999 500 = 1 000 000 bytes are due 1 000 s after the start.
        assert!(throttle.account(&mut spent, 999_500) > Duration::from_secs(999));
        let unbounded = Throttle::start(Budget::UNLIMITED, None);
        let mut spent = unbounded.spent.lock().unwrap();
        assert_eq!(unbounded.account(&mut spent, 1_000_000), Duration::ZERO);
    }

    #[test]
    fn the_machine_is_under_load_when_others_keep_half_of_it_busy() {
        let s = Duration::from_secs;
        // Two cores for 10 s: 20 s in all. Busy 14 s, 5 of them the walk's: others 9 < 10.
        assert!(!others_keep_half_busy(
            s(5),
            (s(100), s(1000)),
            (s(114), s(1020))
        ));
        // Busy 16 s, 5 the walk's: others 11 > 10.
        assert!(others_keep_half_busy(
            s(5),
            (s(100), s(1000)),
            (s(116), s(1020))
        ));
        // No time passed: not under load.
        assert!(!others_keep_half_busy(
            s(0),
            (s(100), s(1000)),
            (s(100), s(1000))
        ));
    }

    #[test]
    fn under_load_the_budget_is_a_quarter_core_at_most() {
        assert_eq!(Budget::default().cores_under_load, Some(UNDER_LOAD));
        assert_eq!(Budget::cores(Some(0.1)).cores_under_load, Some(0.1));
        assert_eq!(Budget::cores(None).cores, None);
    }
}
