//! `dozor bench monitor ingest`: `dozor bench ingest` without and with `--tiles` (publishing the
//! ledger as tiles while it runs, as `serve` with `[tiles] publish_dir` does), alternated, each a
//! child process of this binary with the same arguments: the medians and their difference.

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use anyhow::{anyhow, Context as _};
use serde_json::{json, Value};

use super::shared::{median, round2};
use crate::outcome::expect_result;

#[derive(Debug, clap::Args)]
pub struct IngestAbArgs {
    /// Runs of each (without, with, without, with, …).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Spins per run.
    #[arg(long, default_value_t = 300_000)]
    rounds: u64,
    /// Records per request.
    #[arg(long, default_value_t = 500)]
    batch: usize,
    /// Requests in flight.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
}

/// One `dozor bench ingest` run, publishing to `tiles` if given: its figures.
fn run_once(args: &IngestAbArgs, tiles: Option<&Path>) -> anyhow::Result<Value> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(["bench", "ingest", "--rounds"]);
    command.arg(args.rounds.to_string());
    command.arg("--batch").arg(args.batch.to_string());
    command
        .arg("--concurrency")
        .arg(args.concurrency.to_string());
    if let Some(dir) = tiles {
        command.arg("--tiles").arg("--tiles-dir").arg(dir);
    }
    let out = command
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("starting dozor bench ingest")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    expect_result(out.status.success(), || {
        format!(
            "bench ingest{} exited ({}): {last}",
            if tiles.is_some() { " --tiles" } else { "" },
            out.status
        )
    })?;
    serde_json::from_slice(&out.stdout).map_err(|e| anyhow!("bench ingest's figures: {e}"))
}

pub fn ingest_ab(args: &IngestAbArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.runs > 0, "--runs must be positive");
    let (mut without, mut with) = (Vec::new(), Vec::new());
    let mut published = Vec::new();
    // Each run's folder is kept until the last run: removing thousands of files just before
    // a run makes its publisher skip their inodes at each file it creates (ext4 without a
    // journal), a cost a serving log, which never removes a full tile, does not have.
    let folders = tempfile::tempdir()?;
    for run in 0..args.runs {
        for tiles in [false, true] {
            eprintln!(
                "run {} of {}: bench ingest{}",
                run + 1,
                args.runs,
                if tiles { " --tiles" } else { "" }
            );
            let folder = folders.path().join(format!("run-{run}"));
            let figures = run_once(args, tiles.then_some(folder.as_path()))?;
            let rate = figures["spins_per_second"]
                .as_f64()
                .ok_or_else(|| anyhow!("bench ingest gave no spins_per_second: {figures}"))?;
            expect_result(
                figures["accepted_201"].as_u64() == Some(args.rounds),
                || {
                    format!(
                        "bench ingest accepted {} of {} spins",
                        figures["accepted_201"], args.rounds
                    )
                },
            )?;
            if tiles {
                let size = figures["tiles_published_size"].as_u64().unwrap_or(0);
                expect_result(size >= args.rounds, || {
                    format!(
                        "bench ingest --tiles published {size} of at least {} entries",
                        args.rounds
                    )
                })?;
                published.push(size);
                with.push(rate);
            } else {
                without.push(rate);
            }
        }
    }
    // Each run with tiles against the run without it just before: the machine's drift between
    // pairs cancels.
    let mut paired: Vec<f64> = without
        .iter()
        .zip(&with)
        .map(|(a, b)| round2((b - a) / a * 100.0))
        .collect();
    let runs = (without.clone(), with.clone(), paired.clone());
    let (m_without, m_with) = (median(&mut without), median(&mut with));
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "dozor bench ingest without and with --tiles (the ledger published as tiles to a folder while it runs), alternated",
            "rounds": args.rounds,
            "batch": args.batch,
            "concurrency": args.concurrency,
            "runs_each": args.runs,
            "without_tiles_spins_per_second": runs.0,
            "with_tiles_spins_per_second": runs.1,
            "tiles_published_size": published,
            "median_without": m_without.round(),
            "median_with": m_with.round(),
            "difference_percent": round2((m_with - m_without) / m_without * 100.0),
            "paired_difference_percent": runs.2,
            "median_paired_difference_percent": round2(median(&mut paired)),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
