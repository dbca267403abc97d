//! CPU time spent by a process (this one, or the PostgreSQL backend serving a connection), read
//! from Linux's `/proc`: what a benchmark on a machine whose cores are all busy needs beside its
//! wall time, to say which process the time went to, and what a walk in the background counts
//! against its budget.

use std::time::Duration;

/// Clock ticks per second, as `/proc` counts CPU time (asked of `getconf` once).
fn ticks_per_second() -> Option<u64> {
    static TICKS: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        let out = std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    })
}

/// User and system CPU time of process `pid` (`None`: this process), all its threads together;
/// `None` where `/proc` does not say (another system, or a process on another machine).
pub fn of_process(pid: Option<u32>) -> Option<Duration> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".to_owned(),
    };
    let ticks = ticks_in(&std::fs::read_to_string(path).ok()?)?;
    Some(Duration::from_secs_f64(
        ticks as f64 / ticks_per_second()? as f64,
    ))
}

/// The machine's processor time since boot: busy (user, nice, system, interrupts, stolen) and
/// in all (busy, idle and waiting on I/O), every core together, from `/proc/stat`.
pub fn of_machine() -> Option<(Duration, Duration)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let (busy, all) = machine_ticks(stat.lines().next()?)?;
    let per_second = ticks_per_second()? as f64;
    let seconds = |ticks: u64| Duration::from_secs_f64(ticks as f64 / per_second);
    Some((seconds(busy), seconds(all)))
}

/// Busy and all ticks of the `cpu` line of `/proc/stat`: user nice system idle iowait irq
/// softirq steal (guest time is counted in user already).
fn machine_ticks(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.strip_prefix("cpu ")?.split_ascii_whitespace();
    let mut next = || -> Option<u64> { fields.next()?.parse().ok() };
    let (user, nice, system, idle, iowait) = (next()?, next()?, next()?, next()?, next()?);
    let (irq, softirq, steal) = (next()?, next()?, next().unwrap_or(0));
    let busy = user + nice + system + irq + softirq + steal;
    Some((busy, busy + idle + iowait))
}

/// Whether process `pid` on this machine is a PostgreSQL server process.
pub fn is_postgres(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|name| name.trim() == "postgres")
}

/// `utime + stime` of a `/proc/<pid>/stat` line: fields 14 and 15, counted after the command
/// name, which is in parentheses and may itself hold spaces and parentheses.
fn ticks_in(stat: &str) -> Option<u64> {
    let after_name = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    user.checked_add(system)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn user_and_system_time_are_read_past_a_name_with_spaces_and_parentheses() {
        // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
        // utime stime …: utime 250 and stime 70 ticks.
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 900 0 3 0 250 70 0 0 20 0 9 0";
        assert_eq!(ticks_in(stat), Some(320));
        assert_eq!(ticks_in("4242 (short) S 1"), None);
    }

    #[test]
    fn the_machines_busy_time_leaves_out_idle_and_io_wait() {
        // user 100, nice 5, system 20, idle 800, iowait 30, irq 1, softirq 2, steal 3, guest 0:
        // busy 100 + 5 + 20 + 1 + 2 + 3 = 131; all 131 + 800 + 30 = 961.
        let line = "cpu  100 5 20 800 30 1 2 3 0 0";
        assert_eq!(machine_ticks(line), Some((131, 961)));
        assert_eq!(machine_ticks("cpu0 1 2 3 4 5 6 7 8"), None);
        let (busy, all) = of_machine().unwrap();
        assert!(busy <= all && all > Duration::ZERO);
    }

    #[test]
    fn this_process_has_spent_some_cpu_time() {
        // Spin until the clock ticks at least once: a running test has used CPU.
        let started = std::time::Instant::now();
        let mut x = 0u64;
        while started.elapsed() < Duration::from_millis(50) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        assert!(x > 0);
        assert!(of_process(None).unwrap() > Duration::ZERO);
        // A test binary is not PostgreSQL.
        assert!(!is_postgres(std::process::id()));
    }
}
