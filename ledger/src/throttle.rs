//! The budget of a walk in the background: the processor time it and the database process
//! serving it may take (in cores), and the bytes of entries it may read each second. After each
//! page the walk waits as long as it takes to be back within both; between them it runs at the
//! lowest priority, so that ingest, which shares the machine, keeps its pace.

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
    own_cpu_at_start: Duration,
    backend: Option<Backend>,
    read: Mutex<u64>,
}

/// The database process serving the walk, when it runs on this machine and its processor time
/// can be read (`/proc/<pid>/stat`).
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
            own_cpu_at_start: own_cpu(),
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

    /// Processor time spent since the start: this process's and the database process's.
    fn cpu_spent(&self) -> Duration {
        let own = own_cpu().saturating_sub(self.own_cpu_at_start);
        let backend = self.backend.as_ref().map_or(Duration::ZERO, |b| {
            process_cpu(b.pid).map_or(Duration::ZERO, |now| now.saturating_sub(b.cpu_at_start))
        });
        own + backend
    }
}

/// This process's processor time, all its threads.
fn own_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// Clock ticks per second in `/proc/<pid>/stat` (USER_HZ, 100 on Linux whatever the kernel's).
const TICKS_PER_SECOND: u64 = 100;

/// The processor time of process `pid` (user and system), if `/proc` shows it.
fn process_cpu(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    ticks_of_stat(&stat)
        .map(|ticks| Duration::from_millis(ticks.saturating_mul(1000) / TICKS_PER_SECOND))
}

/// `utime + stime` of a `/proc/<pid>/stat` line: fields 14 and 15, counted after the command
/// name in parentheses (which may hold spaces).
fn ticks_of_stat(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_ascii_whitespace();
    // After the name: state is field 3, so utime (14) is the 12th and stime the 13th.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn processor_ticks_are_read_after_a_name_with_spaces() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime=250 stime=50: 300 ticks.
        let stat = "4242 (postgres: dozor x) S 1 2 3 0 -1 4194304 10 0 0 0 250 50 0 0 20 0 1 0";
        assert_eq!(ticks_of_stat(stat), Some(300));
        assert_eq!(ticks_of_stat("4242 (short"), None);
    }

    #[test]
    fn this_process_shows_its_processor_time() {
        let pid = i32::try_from(std::process::id()).unwrap();
        assert!(process_cpu(pid).is_some());
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
