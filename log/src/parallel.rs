//! Work spread over every core, results kept in order.

/// A worker thread panicked; its results are lost.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("a worker thread failed")]
pub struct WorkerPanicked;

/// Maps `f` over `items` on every core, results in the items' order. Each thread takes the
/// next item not yet taken, so a thread slowed down by other work does not hold the rest back.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(usize, &T) -> R + Sync,
) -> Result<Vec<R>, WorkerPanicked> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, f(i, item)));
                    }
                })
            })
            .collect();
        let mut out: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
        for h in handles {
            let done = h.join().map_err(|_| WorkerPanicked)?;
            for (i, result) in done {
                out[i] = Some(result);
            }
        }
        Ok(out.into_iter().flatten().collect())
    })
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn par_map_keeps_the_order_of_the_items() {
        for n in [0usize, 1, 2, 3, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let squares = par_map(&items, |i, x| {
                assert_eq!(i, *x);
                x * x
            })
            .unwrap();
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }
}
