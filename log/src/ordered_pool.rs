//! Work on every core with results taken in order, without waiting between batches of work:
//! verification checks chunk after chunk of entries while the chain is followed in order.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::Mutex;

/// Runs `work` on each of `jobs` on `threads` threads and hands the results to `consume` in
/// the jobs' order, on the calling thread. At most `window` jobs are taken from `jobs` before
/// their results are consumed, which bounds what they hold. The first error of `consume` stops
/// everything and is returned; a panic in `work` becomes `panicked()`.
pub fn run_in_order<J: Send, R: Send, E>(
    threads: usize,
    window: usize,
    jobs: impl Iterator<Item = J>,
    work: impl Fn(J) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
    panicked: impl Fn() -> E,
) -> Result<(), E> {
    let window = window.max(1) as u64;
    let mut jobs = jobs.fuse();
    let (job_sender, job_receiver) = mpsc::channel::<(u64, J)>();
    let job_receiver = Mutex::new(job_receiver);
    let (result_sender, results) = mpsc::channel::<(u64, Option<R>)>();
    std::thread::scope(|scope| {
        // Owned here, so that returning drops them: idle workers stop, busy ones stop after
        // their job.
        let (job_sender, results) = (job_sender, results);
        for _ in 0..threads.max(1) {
            let (job_receiver, work, result_sender) = (&job_receiver, &work, result_sender.clone());
            scope.spawn(move || loop {
                let next = match job_receiver.lock() {
                    Ok(receiver) => receiver.recv(),
                    Err(_) => return,
                };
                let Ok((n, job)) = next else {
                    // No more jobs.
                    return;
                };
                let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(job))).ok();
                if result_sender.send((n, result)).is_err() {
                    return;
                }
            });
        }
        drop(result_sender);
        let mut sent = 0u64;
        let mut consumed = 0u64;
        let mut waiting: BTreeMap<u64, Option<R>> = BTreeMap::new();
        loop {
            while sent - consumed < window {
                let Some(job) = jobs.next() else { break };
                if job_sender.send((sent, job)).is_err() {
                    return Err(panicked());
                }
                sent += 1;
            }
            if consumed == sent {
                return Ok(());
            }
            let Ok((n, result)) = results.recv() else {
                return Err(panicked());
            };
            waiting.insert(n, result);
            while let Some(result) = waiting.remove(&consumed) {
                consumed += 1;
                consume(result.ok_or_else(&panicked)?)?;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::run_in_order;

    #[test]
    fn results_are_consumed_in_the_order_of_the_jobs() {
        for (threads, window, n) in [(1, 1, 10), (2, 3, 100), (4, 8, 200), (3, 100, 7), (2, 4, 0)] {
            let mut seen = Vec::new();
            run_in_order(
                threads,
                window,
                0..n,
                // Later jobs often finish first.
                |i: u64| {
                    std::thread::sleep(Duration::from_micros((n - i) % 7 * 50));
                    i * i
                },
                |square| {
                    seen.push(square);
                    Ok::<(), ()>(())
                },
                || (),
            )
            .unwrap();
            assert_eq!(seen, (0..n).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn no_more_than_the_window_is_taken_ahead_of_what_was_consumed() {
        let taken = AtomicUsize::new(0);
        let mut consumed = 0;
        let jobs = (0..50).inspect(|_| {
            taken.fetch_add(1, Ordering::SeqCst);
        });
        run_in_order(
            2,
            5,
            jobs,
            |i| i,
            |i| {
                // Taken: this job, every earlier one and at most four after it.
                assert!(taken.load(Ordering::SeqCst) <= i + 5);
                consumed += 1;
                Ok::<(), ()>(())
            },
            || (),
        )
        .unwrap();
        assert_eq!(consumed, 50);
    }

    #[test]
    fn the_first_error_in_order_stops_the_work() {
        let worked = AtomicUsize::new(0);
        let result = run_in_order(
            2,
            4,
            0..1000,
            |i| {
                worked.fetch_add(1, Ordering::SeqCst);
                i
            },
            |i| if i == 10 || i == 20 { Err(i) } else { Ok(()) },
            || usize::MAX,
        );
        assert_eq!(result, Err(10));
        // Jobs past the window were never taken.
        assert!(worked.load(Ordering::SeqCst) <= 10 + 4 + 1);
    }

    #[test]
    fn a_panicking_job_becomes_an_error_in_its_place() {
        let mut seen = Vec::new();
        let result = run_in_order(
            2,
            3,
            0..20u32,
            |i| {
                assert!(i != 7, "job 7 fails");
                i
            },
            |i| {
                seen.push(i);
                Ok(())
            },
            || "panicked",
        );
        assert_eq!(result, Err("panicked"));
        assert_eq!(seen, (0..7).collect::<Vec<_>>());
    }
}
