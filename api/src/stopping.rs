//! Waiting in the server's background threads (the nightly scheduler, the witness clients),
//! cut short when they are asked to stop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Sleeps `wait` in short steps, returning early when asked to stop (the thread is unparked
/// when it is): the nightly scheduler's and the witness clients'.
pub(crate) fn sleep_unless_stopped(wait: Duration, stop: &AtomicBool) {
    let until = std::time::Instant::now() + wait;
    while !stop.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::park_timeout(left.min(Duration::from_secs(30)));
    }
}
