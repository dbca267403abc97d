//! Spreading the long enumerations over threads.

/// Runs `work(k)` for k in 0 … threads − 1, each on its own thread; the results in that order.
/// A panic in a worker goes on in the caller.
pub(super) fn on_threads<T: Send>(threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|k| scope.spawn(move || work(k)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
