//! `dozor bench walk`: ingest (`bench ingest`, batches of 500, 4 in flight) while the full walk
//! runs in the background within its budget, against ingest alone, in pairs run one after the
//! other on the same machine; the walk goes over the `bench verify` ledger (filled once, kept),
//! and records nothing there.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dozor_log::checkpoint::NoteSigner;
use ledger::storage::database::DatabaseChoice as Global;
use ledger::storage::full_walk::{FullWalk, WalkOutcome};
use ledger::throttle::Budget;
use serde_json::{json, Value};

use crate::ingest::{measure, IngestArgs};

/// What `bench walk` runs.
#[derive(Debug, clap::Args)]
pub struct WalkArgs {
    /// Signed spins in the walked ledger (the `bench verify` fill).
    #[arg(long, default_value_t = 1_000_000)]
    entries: u64,
    /// The walk's processor budget in cores, the database process serving it counted in.
    #[arg(long, default_value_t = 1.0)]
    cores: f64,
    /// Its budget while the rest of the machine keeps more than half its cores busy.
    #[arg(long, default_value_t = ledger::throttle::UNDER_LOAD)]
    cores_under_load: f64,
    /// Pairs of runs (ingest alone, then beside the walk).
    #[arg(long, default_value_t = 3)]
    pairs: usize,
    /// Spins each ingest run submits.
    #[arg(long, default_value_t = 200_000)]
    rounds: u64,
}

pub fn walk(global: &Global, args: &WalkArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.pairs > 0, "--pairs must be positive");
    anyhow::ensure!(
        [args.cores, args.cores_under_load]
            .iter()
            .all(|c| c.is_finite() && *c > 0.0),
        "--cores and --cores-under-load must be positive"
    );
    let operator = crate::direct::operator(0x5e)?;
    let (database, conn) = crate::verify::filled_database(global, &operator, args.entries)?;
    drop(conn);
    let ingest = IngestArgs::batches_of_500(args.rounds);
    let mut pairs = Vec::with_capacity(args.pairs);
    for pair in 1..=args.pairs {
        eprintln!("pair {pair}: ingest alone");
        let alone = rate(&measure(global, &ingest)?)?;
        eprintln!("pair {pair}: ingest beside the walk");
        let budget = Budget {
            cores: Some(args.cores),
            cores_under_load: Some(args.cores_under_load),
            read_bytes_per_second: None,
        };
        let beside = beside_the_walk(global, &database.url, &operator, budget, &ingest)?;
        pairs.push((alone, beside));
    }
    database.stop()?;
    let ratios: Vec<f64> = pairs.iter().map(|(a, b)| b.ingest / a).collect();
    let median = median(&ratios);
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "ingest (batches of 500, 4 in flight) beside the full walk in the background, against ingest alone, in pairs",
            "walked_ledger_entries": args.entries,
            "walk_budget_cores": args.cores,
            "walk_budget_cores_under_load": args.cores_under_load,
            "ingest_spins_per_run": args.rounds,
            "pairs": pairs.iter().zip(&ratios).map(|((alone, beside), ratio)| json!({
                "ingest_alone_spins_per_second": alone.round(),
                "ingest_beside_walk_spins_per_second": beside.ingest.round(),
                "ratio": (ratio * 1000.0).round() / 1000.0,
                "walk_entries_per_second_meanwhile": beside.walked.round(),
                "walk_database_process_cpu_cores_meanwhile": beside.database_cpu_cores,
            })).collect::<Vec<_>>(),
            "median_ratio": (median * 1000.0).round() / 1000.0,
            "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

/// Spins per second of an ingest run's figures.
fn rate(figures: &Value) -> anyhow::Result<f64> {
    figures["spins_per_second"]
        .as_f64()
        .ok_or_else(|| anyhow::anyhow!("ingest gave no rate: {figures}"))
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
}

/// An ingest run beside the walk: its rate, and the walk's pace and processor time meanwhile.
struct Beside {
    ingest: f64,
    walked: f64,
    /// Processor time of the database process serving the walk, per second, while ingest ran;
    /// `null` when `/proc` does not say (the walk's own threads share this process with ingest's
    /// server and client).
    database_cpu_cores: Option<f64>,
}

/// Starts the walk on a thread of its own, runs ingest once it reads, stops the walk after.
fn beside_the_walk(
    global: &Global,
    url: &str,
    operator: &NoteSigner,
    budget: Budget,
    ingest: &IngestArgs,
) -> anyhow::Result<Beside> {
    let verifier = operator.verifier();
    let operators =
        std::collections::HashMap::from([(dozor_log::keys::key_id(&verifier.key), verifier.key)]);
    let progress = tempfile::tempdir()?;
    let progress_file = progress.path().join("full-walk.progress");
    let (stop, next) = (AtomicBool::new(false), AtomicU64::new(0));
    let backend = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        let walker = scope.spawn(|| -> anyhow::Result<WalkOutcome> {
            let mut conn = ledger::storage::connect(url)?;
            if let Ok(mut pid) = backend.lock() {
                *pid = crate::verify::backend_pid(&mut conn);
            }
            let walk = FullWalk {
                operator,
                operators: &operators,
                signatures: dozor_log::entry_check::SignatureCheck::Batch,
                witnessed: Vec::new(),
                progress_file: &progress_file,
                budget,
                paging: ledger::storage::verify::Paging::default(),
                segment_pages: ledger::storage::full_walk::SEGMENT_PAGES,
            };
            Ok(walk.run(&mut conn, &stop, |at, _| next.store(at, Ordering::SeqCst))?)
        });
        let waited = Instant::now();
        while next.load(Ordering::SeqCst) == 0 && waited.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = backend.lock().ok().and_then(|pid| *pid);
        let cpu = || pid.and_then(|p| ledger::cpu_time::of_process(Some(p)));
        let (from, cpu_before, started) = (next.load(Ordering::SeqCst), cpu(), Instant::now());
        let figures = measure(global, ingest);
        let seconds = started.elapsed().as_secs_f64();
        let (walked, cpu_after) = (next.load(Ordering::SeqCst) - from, cpu());
        stop.store(true, Ordering::SeqCst);
        let outcome = walker
            .join()
            .map_err(|_| anyhow::anyhow!("the walk panicked"))??;
        anyhow::ensure!(
            matches!(outcome, WalkOutcome::Stopped(_)),
            "the walk ended before ingest did ({outcome:?}): give it a larger ledger"
        );
        let database_cpu_cores = cpu_before.zip(cpu_after).map(|(before, after)| {
            ((after - before).as_secs_f64() / seconds * 100.0).round() / 100.0
        });
        Ok(Beside {
            ingest: rate(&figures?)?,
            walked: walked as f64 / seconds,
            database_cpu_cores,
        })
    })
}
