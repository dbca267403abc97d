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
        if let Some(cpu) = crate::cpu_time::of_process(Some(pid)) {
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

    /// Waits for it to end, reading its usage every 20 ms meanwhile: how it ended and when.
    pub fn wait(&mut self) -> anyhow::Result<(ExitStatus, Instant)> {
        loop {
            self.usage.read(self.child.id());
            if let Some(status) = self.child.try_wait()? {
                return Ok((status, Instant::now()));
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
