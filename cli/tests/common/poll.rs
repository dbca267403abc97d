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
