//! `dozor monitor` as a child process of this binary, as the regulator runs it: its state in the
//! database `DATABASE_URL` names, its output in a log file; its CPU time and resident memory read
//! from Linux's `/proc` while it runs.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};

pub(super) struct MonitorProcess {
    child: Child,
    log: PathBuf,
    /// The latest CPU time and peak resident set read of it.
    pub usage: Usage,
}

/// What `/proc` said of a process when last read.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Usage {
    pub cpu: Option<Duration>,
    /// `VmHWM`: the peak resident set, bytes.
    pub peak_resident: u64,
    /// `VmRSS`, bytes.
    pub resident: u64,
}

impl Usage {
    /// Reads process `pid`'s usage; what `/proc` does not say (it has exited) is kept.
    pub fn read(&mut self, pid: u32) {
        if let Some(cpu) = ledger::cpu_time::of_process(Some(pid)) {
            self.cpu = Some(cpu);
        }
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let field = |name: &str| -> Option<u64> {
                let line = status.lines().find(|l| l.starts_with(name))?;
                let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
                Some(kib * 1024)
            };
            if let Some(hwm) = field("VmHWM:") {
                self.peak_resident = self.peak_resident.max(hwm);
            }
            if let Some(rss) = field("VmRSS:") {
                self.resident = rss;
            }
        }
    }

    pub fn cpu_seconds(&self) -> Option<f64> {
        crate::cpu_time::seconds(self.cpu)
    }
}

/// The CPU time of a PostgreSQL cluster's server processes (its postmaster's children: the
/// backends serving the monitor, the writer, the WAL writer…), each process's latest reading kept
/// so that a backend that has exited still counts.
#[derive(Debug, Default)]
pub(super) struct ClusterUsage {
    postmaster: Option<u32>,
    seen: std::collections::HashMap<u32, Duration>,
    /// What each process had spent before the measurement ([`ClusterUsage::start`]).
    before: std::collections::HashMap<u32, Duration>,
}

/// The parent process id in a `/proc/<pid>/stat` line (the field after the state, which follows
/// the command name in parentheses).
fn parent_of(stat: &str) -> Option<u32> {
    let after_name = stat.get(stat.rfind(')')? + 1..)?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

impl ClusterUsage {
    /// The cluster whose data directory is `data`: its postmaster from `postmaster.pid`.
    pub fn of(data: &Path) -> ClusterUsage {
        let postmaster = std::fs::read_to_string(data.join("postmaster.pid"))
            .ok()
            .and_then(|text| text.lines().next()?.trim().parse().ok());
        ClusterUsage {
            postmaster,
            ..ClusterUsage::default()
        }
    }

    /// Starts the measurement: what its processes have spent so far is not counted.
    pub fn start(&mut self) {
        self.read();
        self.before = self.seen.clone();
    }

    /// Reads the CPU time of every child of the postmaster now running.
    pub fn read(&mut self) {
        let Some(postmaster) = self.postmaster else {
            return;
        };
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if parent_of(&stat) == Some(postmaster) {
                if let Some(cpu) = ledger::cpu_time::of_process(Some(pid)) {
                    self.seen.insert(pid, cpu);
                }
            }
        }
    }

    /// The CPU seconds of its server processes since their start (`None`: no postmaster found).
    pub fn seconds(&self) -> Option<f64> {
        self.postmaster.map(|_| {
            self.seen
                .iter()
                .map(|(pid, cpu)| {
                    let before = self.before.get(pid).copied().unwrap_or_default();
                    cpu.saturating_sub(before).as_secs_f64()
                })
                .sum()
        })
    }
}

/// MiB, one decimal.
pub(super) fn mib(bytes: u64) -> f64 {
    (bytes as f64 / 1024.0 / 1024.0 * 10.0).round() / 10.0
}

impl MonitorProcess {
    /// Starts `dozor monitor --config <config> [--once]` on the state at `state_url`.
    pub fn start(config: &Path, state_url: &str, once: bool) -> anyhow::Result<MonitorProcess> {
        let log = config.with_extension("log");
        let out = std::fs::File::create(&log)?;
        let mut command = Command::new(std::env::current_exe()?);
        command.arg("monitor").arg("--config").arg(config);
        if once {
            command.arg("--once");
        }
        let child = command
            .env("DATABASE_URL", state_url)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()
            .context("starting dozor monitor")?;
        Ok(MonitorProcess {
            child,
            log,
            usage: Usage::default(),
        })
    }

    /// Waits for it to end, reading its usage every 20 ms and that of its state's cluster every
    /// 250 ms meanwhile (a scan of every process: at 20 ms it took a tenth of a core from what
    /// is measured): how it ended and when.
    pub fn wait(&mut self, state: &mut ClusterUsage) -> anyhow::Result<(ExitStatus, Instant)> {
        let mut cluster_read = Instant::now();
        state.read();
        loop {
            self.usage.read(self.child.id());
            if cluster_read.elapsed() >= Duration::from_millis(250) {
                state.read();
                cluster_read = Instant::now();
            }
            if let Some(status) = self.child.try_wait()? {
                let ended = Instant::now();
                state.read();
                return Ok((status, ended));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether it still runs (an error naming its log when it has ended).
    pub fn running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => Err(anyhow!(
                "dozor monitor exited ({status}): {}",
                self.log_tail()
            )),
        }
    }

    /// The end of what it wrote.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(5)..].join(" | ")
    }

    /// Its usage read one last time, then stopped.
    pub fn stop(mut self) -> Usage {
        self.usage.read(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_after_a_command_name_with_spaces_and_parentheses() {
        // pid (comm) state ppid …: the name may hold ") 9 " itself.
        let stat = "4242 (postgres: a) 9 b) S 1717 4242 4242 0 -1 4194304 300 0 0 0 12 3";
        assert_eq!(parent_of(stat), Some(1717));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn this_process_is_seen_as_a_child_of_its_parent() {
        let own = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let parent = parent_of(&own);
        assert!(parent.is_some(), "{own}");
        let mut usage = ClusterUsage {
            postmaster: parent,
            ..ClusterUsage::default()
        };
        usage.start();
        assert!(usage.seen.contains_key(&std::process::id()));
        let own = || ledger::cpu_time::of_process(None).map_or(0.0, |d| d.as_secs_f64());
        let before = own();
        // Spin for a while: what this process spends from now on is counted, nothing before.
        let until = Instant::now() + Duration::from_millis(300);
        let mut spins = 0u64;
        while Instant::now() < until {
            spins = std::hint::black_box(spins + 1);
        }
        usage.read();
        let spent = usage.seconds().unwrap_or(-1.0);
        let spun = own() - before;
        // The parent's other children (tests run beside this one) may add to it, never take
        // away: at least what this process spent spinning, less the clock ticks' rounding.
        assert!(
            spent > 0.0 && spent + 0.02 >= spun,
            "{spent} counted, {spun} spun"
        );
        assert_eq!(ClusterUsage::default().seconds(), None);
    }
}
