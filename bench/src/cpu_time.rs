//! CPU time in a benchmark's report (read by `ledger::cpu_time`).

use std::time::Duration;

/// Seconds, to two decimals, for a report; `None` stays `null`.
pub fn seconds(cpu: Option<Duration>) -> Option<f64> {
    cpu.map(|d| (d.as_secs_f64() * 100.0).round() / 100.0)
}
