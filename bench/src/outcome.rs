//! How a benchmark ends: a figure, or a refusal to give one when it did not measure what it
//! claims; and the small pieces every benchmark shares.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::anyhow;

/// A benchmark that did not measure what it claims (a record refused, a result not the one
/// expected): it gives no figure, says why in one line on standard error and exits 1.
#[derive(Debug)]
pub struct NotMeasured(pub String);

impl std::fmt::Display for NotMeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotMeasured {}

/// Fails the benchmark with `why` unless `ok`: no figure is given.
pub fn expect_result(ok: bool, why: impl FnOnce() -> String) -> anyhow::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(NotMeasured(why()).into())
    }
}

/// A benchmark's end: a figure given (its code), a refusal named (1), or an error.
pub fn ended(result: anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match result {
        Err(e) => match e.downcast_ref::<NotMeasured>() {
            Some(not_measured) => {
                eprintln!("{not_measured}");
                Ok(ExitCode::from(1))
            }
            None => Err(e),
        },
        done => done,
    }
}

/// The plan the benchmarks play under: the default one.
pub fn plan() -> anyhow::Result<rules::Plan> {
    rules::PlanBook::builtin()?
        .get(rules::plan::DEFAULT_PLAN)
        .cloned()
        .ok_or_else(|| anyhow!("default plan missing"))
}

/// The `p`-th percentile of sorted durations, in milliseconds.
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn a_benchmark_that_did_not_measure_exits_1_and_an_error_stays_an_error() {
        let refused: anyhow::Result<ExitCode> =
            Err(NotMeasured("2 record(s) not accepted: 429 rate_limited ×2".into()).into());
        assert_eq!(ended(refused).ok(), Some(ExitCode::from(1)));
        // Wrapped in context, still a refusal.
        let wrapped: anyhow::Result<ExitCode> = expect_result(false, || "differs".to_owned())
            .context("bench mf")
            .map(|()| ExitCode::SUCCESS);
        assert_eq!(ended(wrapped).ok(), Some(ExitCode::from(1)));
        assert!(ended(Err(anyhow!("no database"))).is_err());
        assert_eq!(ended(Ok(ExitCode::SUCCESS)).ok(), Some(ExitCode::SUCCESS));
        assert!(expect_result(true, || unreachable!()).is_ok());
    }
}
