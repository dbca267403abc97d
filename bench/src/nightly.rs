//! `dozor bench nightly`: the nightly check (`verify --since-last`) of one day's rounds on a
//! large ledger. The ledger is filled once and kept (streamed, a batch at a time) and checked
//! whole once, which records the first mark; each run then appends a day of spins at every
//! table, signs a checkpoint over them, and times the check of what the day added.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::anyhow;
use chrono::Utc;
use diesel::prelude::*;
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::entry_check::SignatureCheck;
use ledger::storage::database::DatabaseChoice as Global;
use ledger::storage::nightly_check::{CheckMade, NightlyCheck, NightlyOutcome};
use ledger::storage::{checkpoints, reads};
use serde_json::json;

use crate::database::KeptDatabase;
use crate::direct::SpinningTables;
use crate::verify::{backend_pid, Measured};

const DATABASE: &str = "dozor_bench_nightly";

/// What `bench nightly` runs.
#[derive(Debug, clap::Args)]
pub struct NightlyArgs {
    /// Entries in the ledger after the first day's rounds (filled once, kept).
    #[arg(long, default_value_t = 10_000_000)]
    entries: u64,
    /// Rounds of the day the check measures: 300 tables × 60 rounds an hour × 20 hours.
    #[arg(long, default_value_t = 360_000)]
    rounds: u64,
    /// Tables the rounds are spun at.
    #[arg(long, default_value_t = 300)]
    tables: usize,
}

fn table_id(t: usize) -> String {
    format!("NIGHT-{t:03}")
}

pub fn nightly(global: &Global, args: &NightlyArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.tables > 0 && args.rounds > 0 && args.entries > args.rounds,
        "--tables and --rounds must be positive, and --entries more than --rounds"
    );
    let operator = crate::direct::operator(0x5e)?;
    let verifier = operator.verifier();
    let operators = HashMap::from([(dozor_log::keys::key_id(&verifier.key), verifier.key)]);
    let mark_file = global.data_dir.join("bench-nightly.mark");
    let (database, mut conn) = filled(global, &operator, args)?;
    let check = || NightlyCheck {
        operator: &operator,
        operators: &operators,
        signatures: SignatureCheck::Batch,
        witnessed: Vec::new(),
        mark_file: &mark_file,
        actor: dozor_log::registry_history::cli_actor(),
        walk_all_first: true,
    };
    // What no check has covered yet (the whole fill the first time, once): the day's check
    // goes on from its mark.
    eprintln!("checking what no mark covers yet (the whole fill, once)");
    let bar = simulator::progress_bar(0, "entries");
    passed(check().run(&mut conn, |walked| bar.set_position(walked))?)?;
    bar.finish_and_clear();
    let before = reads::size(&mut conn)?;
    eprintln!(
        "appending a day of {} spins at {} tables to a ledger of {before} entries",
        args.rounds, args.tables
    );
    let mut tables = SpinningTables::new(13, (0..args.tables).map(table_id).collect(), |id| {
        next_seq_no(&mut conn, id)
    })?;
    tables.append(&mut conn, args.rounds)?;
    let size = reads::size(&mut conn)?;
    checkpoints::create(&mut conn, &operator, size, Utc::now())
        .map_err(|e| anyhow!("checkpoint: {e}"))?;
    let backend = backend_pid(&mut conn);
    let night = Measured::of(backend, || check().run(&mut conn, |_| {}))?;
    let (seconds, cpu_seconds) = (night.seconds, night.cpu_seconds());
    let checked = passed(night.value)?;
    let Some(CheckMade::Incremental(report)) = &checked else {
        return Err(anyhow!("the day's check was not an incremental one"));
    };
    crate::outcome::expect_result(
        report.to == size && report.rounds_readjudicated == args.rounds,
        || {
            format!(
                "the check went to {} and re-judged {} rounds, not to {size} and the day's {}",
                report.to, report.rounds_readjudicated, args.rounds
            )
        },
    )?;
    drop(conn);
    database.stop()?;
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "dozor verify --since-last (the nightly check) of one day's rounds, on a ledger filled once and checked whole once",
            "ledger_entries": size,
            "entries_before_the_day": before,
            "day_rounds": args.rounds,
            "tables": args.tables,
            "entries_checked": report.entries_checked,
            "rounds_readjudicated": report.rounds_readjudicated,
            "seconds": (seconds * 100.0).round() / 100.0,
            "entries_per_second": (report.entries_checked as f64 / seconds).round(),
            "cpu_seconds": cpu_seconds,
            "target_seconds": 15,
            "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

/// The database holding `entries - rounds` spins at the tables (filled now if it holds fewer;
/// the day each run appends keeps it).
fn filled(
    global: &Global,
    operator: &NoteSigner,
    args: &NightlyArgs,
) -> anyhow::Result<(KeptDatabase, PgConnection)> {
    let (database, mut conn) = KeptDatabase::open(global, DATABASE)?;
    let base = args.entries - args.rounds;
    let size = reads::size(&mut conn)?;
    if size < base + args.tables as u64 {
        conn = database.start_over(conn, size == 0, || {
            format!("the database holds {size} entries, fewer than the {base} of a fill")
        })?;
        eprintln!("filling the ledger with {base} signed spins (once; kept for later runs)");
        let mut tables = SpinningTables::new(13, (0..args.tables).map(table_id).collect(), |_| 1)?;
        tables.register(&mut conn, operator)?;
        tables.append(&mut conn, base)?;
        let size = reads::size(&mut conn)?;
        checkpoints::create(&mut conn, operator, size, Utc::now())
            .map_err(|e| anyhow!("checkpoint: {e}"))?;
    }
    Ok((database, conn))
}

/// The sequence number the table's next record takes (from the table's sequence numbers, by
/// their key: not a scan of the entries).
fn next_seq_no(conn: &mut PgConnection, table: &str) -> u64 {
    use ledger::storage::schema::table_records as r;
    r::table
        .filter(r::table_id.eq(table))
        .select(diesel::dsl::max(r::seq_no))
        .first::<Option<i64>>(conn)
        .ok()
        .flatten()
        .map_or(1, |last| last as u64 + 1)
}

/// The check made, if it passed and was recorded (none: nothing new to check).
fn passed(outcome: NightlyOutcome) -> anyhow::Result<Option<CheckMade>> {
    match outcome {
        NightlyOutcome::Made(made) => {
            made.recorded
                .map_err(|e| anyhow!("the check's mark was not recorded: {e}"))?;
            let failure = match &made.check {
                CheckMade::Full(report, _) => report.failure.as_ref(),
                CheckMade::Incremental(report) => report.failure.as_ref(),
            };
            match failure {
                None => Ok(Some(made.check)),
                Some(f) => Err(crate::outcome::NotMeasured(format!(
                    "the ledger does not verify: entry {}: {}",
                    f.index, f.reason
                ))
                .into()),
            }
        }
        NightlyOutcome::NothingNew { .. } => Ok(None),
        other => Err(anyhow!("the check did not run: {other:?}")),
    }
}
