//! Waiting for something another process does.

use std::time::{Duration, Instant};

/// Tries `attempt` every `every` until it gives a value; once `wait` has passed, fails with the
/// reason the last attempt gave.
pub fn poll_until<T>(
    wait: Duration,
    every: Duration,
    mut attempt: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + wait;
    loop {
        match attempt() {
            Ok(value) => return value,
            Err(why) => assert!(Instant::now() < deadline, "{why}"),
        }
        std::thread::sleep(every);
    }
}

/// Waits until the witness file's latest checkpoint covers more than `index` entries.
pub fn wait_for_witnessed(file: &std::path::Path, index: u64) {
    poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let latest = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|c| c["size"].as_u64())
            .next_back()
            .unwrap_or(0);
        if latest > index {
            return Ok(());
        }
        Err(format!("no witnessed checkpoint past {index}: {text}"))
    });
}
