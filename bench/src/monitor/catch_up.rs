//! `dozor bench monitor catch-up`: one monitor following a large ledger from nothing, against the
//! offline verifier of the same ledger's inspection export, in the same run on the same machine.
//!
//! The ledger is `bench verify`'s (filled once, kept); its export is written anew (it seals a
//! report into the ledger), a checkpoint of the whole ledger is signed, and the ledger is
//! published as tiles to a folder kept beside it (each run adds what the ledger grew by). nginx
//! serves the folder (the files as published, or with `--gzip` compressed on the fly); `dozor monitor --once` follows it from entry 0 with its state in a throwaway
//! cluster, and must end with every entry followed, every round judged, and no alert.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::anyhow;
use chrono::Utc;
use ledger::storage::database::DatabaseChoice as Global;
use ledger::storage::{checkpoints, reads};
use ledger::tile_publish::error::PublishError;
use ledger::tile_publish::Publisher;
use serde_json::json;

use super::nginx::Nginx;
use super::process::{mib, ClusterUsage, MonitorProcess, Usage};
use super::shared::round2;
use crate::outcome::expect_result;

#[derive(Debug, clap::Args)]
pub struct CatchUpArgs {
    /// Signed spins in the ledger (`bench verify`'s: the same fill, kept between runs).
    #[arg(long, default_value_t = 1_000_000)]
    entries: u64,
    /// nginx compresses bundles and verdicts on the fly (its CPU is then taken from the
    /// monitor's cores: the casino's server shares the machine here, as it never does in use).
    #[arg(long)]
    gzip: bool,
}

/// Publishes the ledger up to its latest checkpoint (of `size` entries) into `dir`: the size
/// published and seconds. A folder of another ledger (the bench's ledger was filled anew since)
/// is published anew.
fn publish(
    conn: &mut diesel::PgConnection,
    dir: &std::path::Path,
    size: u64,
) -> anyhow::Result<(u64, f64)> {
    let (published, seconds) = match publish_into(conn, dir) {
        Err(PublishError::Folder(_) | PublishError::Conflict { .. }) if dir.exists() => {
            eprintln!("{}: another ledger's tiles, published anew", dir.display());
            std::fs::remove_dir_all(dir)?;
            publish_into(conn, dir)?
        }
        published => published?,
    };
    expect_result(published >= size, || {
        format!(
            "publishing the tiles to {} stopped at {published} of {size} entries",
            dir.display()
        )
    })?;
    Ok((published, seconds))
}

fn publish_into(
    conn: &mut diesel::PgConnection,
    dir: &std::path::Path,
) -> Result<(u64, f64), PublishError> {
    let started = Instant::now();
    let mut publisher = Publisher::new(dir)?;
    let latest = reads::size(conn)?;
    loop {
        let published = publisher.publish(conn)?;
        if published.size() >= latest {
            return Ok((published.size(), started.elapsed().as_secs_f64()));
        }
        if published.size() == 0 {
            // No progress: the caller finds the size short of the ledger's.
            return Ok((0, started.elapsed().as_secs_f64()));
        }
    }
}

/// What the monitor's state says it did: entries followed, rounds, findings, rounds whose verdict
/// differs, alerts.
fn followed(state_url: &str) -> anyhow::Result<dozor_monitor::store::status::CasinoStatus> {
    let mut conn = dozor_monitor::store::connection::connect(state_url)?;
    dozor_monitor::store::status::status(&mut conn)?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("the monitor's state holds no casino"))
}

pub fn catch_up(global: &Global, args: &CatchUpArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.entries > 0, "--entries must be positive");
    let rounds = args.entries;
    let operator = crate::direct::operator(0x5e)?;
    let (database, mut conn) = crate::verify::filled_database(global, &operator, rounds)?;
    let export_dir = global.data_dir.join("bench-verify-export");
    let filled = rounds + crate::verify::TABLES as u64;
    let (summary, export_seconds) =
        crate::verify::export(&mut conn, &operator, filled, &export_dir)?;
    // The export sealed its report into the ledger: the checkpoint covers it too.
    let size = reads::size(&mut conn)?;
    checkpoints::create(&mut conn, &operator, size, Utc::now())
        .map_err(|e| anyhow!("checkpoint: {e}"))?;
    let tiles_dir = global
        .data_dir
        .join(format!("bench-monitor-tiles-{rounds}"));
    eprintln!(
        "exported {} entries in {export_seconds:.1} s; publishing the tiles",
        summary.period_entries
    );
    let (published, publish_seconds) = publish(&mut conn, &tiles_dir, size)?;
    drop(conn);
    database.stop()?;

    eprintln!("verifying the export");
    let (offline, _) = crate::verify::verify_offline(
        &export_dir,
        &operator,
        false,
        rounds,
        summary.period_entries,
    )?;

    eprintln!("following {published} entries with dozor monitor --once");
    let nginx = Nginx::serve(&[(tiles_dir.clone(), "casino".to_owned())], args.gzip)?;
    let state = ledger::storage::cluster::LocalCluster::temporary()?;
    state.create_database("monitor")?;
    let state_url = state.url("monitor");
    let scratch = tempfile::tempdir()?;
    let config = scratch.path().join("monitor.toml");
    let casino = (
        "casino".to_owned(),
        nginx.url_of("casino"),
        operator.verifier().to_string(),
    );
    std::fs::write(&config, super::shared::monitor_config(30, &[casino]))?;
    let mut nginx_usage = Usage::default();
    nginx_usage.read(nginx.pid());
    let nginx_cpu_before = nginx_usage.cpu;
    let mut state_usage = ClusterUsage::of(&state.data_directory());
    state_usage.start();
    let started = Instant::now();
    let mut child = MonitorProcess::start(&config, &state_url, true)?;
    let (status, ended) = child.wait(&mut state_usage)?;
    let monitor_seconds = ended.duration_since(started).as_secs_f64();
    nginx_usage.read(nginx.pid());
    expect_result(status.success(), || {
        format!(
            "dozor monitor --once exited ({status}): {}",
            child.log_tail()
        )
    })?;
    let held = followed(&state_url)?;
    expect_result(
        held.size as u64 == published && held.rounds as u64 == rounds,
        || {
            format!(
                "the monitor followed {} of {published} entries and judged {} of {rounds} rounds",
                held.size, held.rounds
            )
        },
    )?;
    expect_result(held.alerts == 0 && held.mismatched_rounds == 0, || {
        format!(
            "the monitor raised {} alert(s) and found {} round(s) whose verdict differs",
            held.alerts, held.mismatched_rounds
        )
    })?;
    drop(state);

    let verify_rate = offline.value.signatures_checked as f64 / offline.seconds;
    let monitor_rate = published as f64 / monitor_seconds;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let nginx_cpu = nginx_usage
        .cpu
        .zip(nginx_cpu_before)
        .map(|(after, before)| round2(after.saturating_sub(before).as_secs_f64()));
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "dozor monitor --once following a ledger from entry 0 (tiles served by Debian's nginx, state in a throwaway PostgreSQL), against dozor verify of the same ledger's inspection export (every check, rounds re-judged), same run",
            "server": "nginx",
            "server_gzip": args.gzip,
            "cores": cores,
            "ledger_entries": published,
            "rounds": rounds,
            "monitor_seconds": round2(monitor_seconds),
            "monitor_entries_per_second": monitor_rate.round(),
            "monitor_rounds_judged": held.rounds,
            "monitor_findings": held.findings,
            "monitor_alerts": held.alerts,
            "monitor_peak_resident_mib": mib(child.usage.peak_resident),
            "cpu_seconds": {
                "monitor": child.usage.cpu_seconds().map(round2),
                "nginx": nginx_cpu,
                "monitor_state_postgresql": state_usage.seconds().map(round2),
                "verify": offline.cpu_seconds(),
            },
            "verify_entries": offline.value.signatures_checked,
            "verify_seconds": round2(offline.seconds),
            "verify_entries_per_second": verify_rate.round(),
            "monitor_vs_verify": (monitor_rate / verify_rate * 1000.0).round() / 1000.0,
            "publish_seconds": round2(publish_seconds),
            "export_seconds": round2(export_seconds),
            "tiles": tiles_dir.display().to_string(),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
