//! `dozor bench mf`: the Ministry's monthly package of one premises over a month of signed
//! rounds, table periods and cage days (filled once straight into the ledger, kept between
//! runs): the period audit, the package's files and its ZIP, timed.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use chrono::Utc;
use diesel::PgConnection;
use ledger::storage::append::WriterCache;
use ledger::storage::database::DatabaseChoice as Global;
use ledger::storage::registry::NewTable;
use reports::mf::{OperatorConfig, PackageRequest};

use crate::database::KeptDatabase;
use simulator::games::table::table_key;
use simulator::month::{station_records, MonthSettings, Station};

/// A month of the benchmarks that build the month's reports.
#[derive(Debug, clap::Args)]
pub struct MonthArgs {
    /// Rounds in the month.
    #[arg(long, default_value_t = 1_000_000)]
    pub rounds: u64,
    /// Tables playing them.
    #[arg(long, default_value_t = 40)]
    pub tables: usize,
    #[arg(long, default_value = "2026-10")]
    pub month: String,
    /// Times it is built (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

const SEED: u64 = 23;
const MONTH: MonthDatabase = MonthDatabase::new("dozor_bench_mf", SEED, 0x5e, stations, describe);

fn table_id(t: usize) -> String {
    format!("MF-R{t:02}")
}

const CAGE: &str = "MF-CAGE";

fn config(tables: usize) -> anyhow::Result<OperatorConfig> {
    let mut stations: Vec<String> = (0..tables)
        .map(|t| format!("\"{}\"", table_id(t)))
        .collect();
    stations.push(format!("\"{CAGE}\""));
    Ok(OperatorConfig::parse(&format!(
        "[operator]\nico = \"12345679\"\nname = \"Benchmark a.s.\"\n\n[[premises]]\nid = \"kasino_1\"\n\
         name = \"Benchmark\"\npostcode = 11000\nmunicipality = \"Praha\"\nregion = \"PHA\"\n\
         ruian = 21723265\nstations = [{}]\n",
        stations.join(", ")
    ))?)
}

/// The month's stations: roulette tables and the cage.
fn describe(tables: usize, days: u32) -> String {
    format!("at {tables} tables over {days} days, with their periods and a cage")
}

fn stations(plan: &rules::Plan, tables: usize) -> anyhow::Result<Vec<Station>> {
    let mut stations: Vec<Station> = (0..tables)
        .map(|t| Station::table(table_id(t), "roulette", SEED + t as u64, plan))
        .collect::<anyhow::Result<_>>()?;
    stations.push(Station::cage(CAGE.into()));
    Ok(stations)
}

/// Registers the stations and appends their month straight into the ledger, each round judged
/// as ingest judges it (no HTTP: the benchmarks that use it measure reports, not ingest).
pub(crate) fn fill(
    conn: &mut PgConnection,
    operator: &dozor_log::checkpoint::NoteSigner,
    settings: &MonthSettings,
    plan: &rules::Plan,
    mut stations: Vec<Station>,
) -> anyhow::Result<u64> {
    let plays_from =
        settings.clock.start_of(settings.month.first_day()) - chrono::Duration::hours(1);
    let progress = simulator::progress_bar(stations.len() as u64, "stations filled");
    let mut cache = WriterCache::default();
    let mut appended = 0u64;
    for station in &mut stations {
        let key = table_key(settings.seed, &station.table_id);
        let layout = station.wheel_layout().map(<[String]>::to_vec);
        let setup = match rules::GameCode::parse(&station.game) {
            Some(game) => rules::TableSetup::for_table(plan, game, layout.as_deref(), None)?,
            None => rules::TableSetup::NONE,
        };
        let table = NewTable {
            table_id: &station.table_id,
            game: &station.game,
            location: "benchmark",
            plan_id: &plan.plan_id,
            wheel_layout: layout.as_deref(),
            plays_from: Some(plays_from),
            limits: None,
        };
        crate::direct::register(conn, operator, table, &key)?;
        let records = station_records(station, plan, settings, 1)?;
        for chunk in records.chunks(2_000) {
            let mut batch = Vec::with_capacity(chunk.len());
            for record in chunk {
                batch.push(crate::direct::submission(
                    record.clone(),
                    &key,
                    plan,
                    &setup,
                )?);
            }
            crate::direct::append(conn, &batch, &mut cache)?;
            appended += batch.len() as u64;
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(appended)
}

/// The delivery keys the `[delivery]` section of the configuration at `path` names.
fn delivery_keys(path: &std::path::Path) -> anyhow::Result<reports::mf::keys::DeliveryKeys> {
    let config = reports::mf::OperatorConfig::load(path)?;
    let delivery = config
        .delivery
        .as_ref()
        .context("--delivery-config has no [delivery] section")?;
    let base = path
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    Ok(reports::mf::keys::DeliveryKeys::load(
        delivery,
        &base,
        &|name| std::env::var(name).ok(),
    )?)
}

/// The package delivered as `report mf deliver` does it: validated, encrypted, sealed; the
/// sealed file's size.
fn deliver(
    name: &str,
    zip: &[u8],
    keys: &reports::mf::keys::DeliveryKeys,
    clock: rules::gaming_day::GamingDayClock,
) -> anyhow::Result<usize> {
    let source = reports::mf::PackageSource::from_zip(name, zip)?;
    let errors = reports::mf::validate(
        reports::mf::Schema::embedded().map_err(|e| anyhow::anyhow!("{e}"))?,
        &source,
        &reports::mf::ValidationSettings {
            now: Utc::now(),
            clock,
        },
    );
    crate::outcome::expect_result(errors.is_empty(), || {
        format!(
            "{name} fails validation ({} error(s)): {}",
            errors.len(),
            errors.first().map(ToString::to_string).unwrap_or_default()
        )
    })?;
    let encrypted = delivery::encrypt(zip, &keys.recipients)?;
    Ok(delivery::seal(&encrypted, &keys.seal, Utc::now())?.len())
}

/// A benchmark's month: its database (kept filled between runs), the seed of its rounds and of
/// its operator key, where its tables stand, and what the filling holds (by tables and days).
pub(crate) struct MonthDatabase {
    name: &'static str,
    seed: u64,
    operator_seed: u8,
    stations: fn(&rules::Plan, usize) -> anyhow::Result<Vec<Station>>,
    describe: fn(usize, u32) -> String,
}

impl MonthDatabase {
    pub(crate) const fn new(
        name: &'static str,
        seed: u64,
        operator_seed: u8,
        stations: fn(&rules::Plan, usize) -> anyhow::Result<Vec<Station>>,
        describe: fn(usize, u32) -> String,
    ) -> MonthDatabase {
        MonthDatabase {
            name,
            seed,
            operator_seed,
            stations,
            describe,
        }
    }
}

/// The month `args` asks for, filled into its database once: its settings, the database and a
/// connection to it.
pub(crate) fn filled_month(
    global: &Global,
    args: &MonthArgs,
    db: &MonthDatabase,
) -> anyhow::Result<(MonthSettings, KeptDatabase, PgConnection)> {
    let tables = args.tables;
    let settings = MonthSettings::benchmark(args.rounds, tables, args.month.as_str(), db.seed)?;
    let operator = crate::direct::operator(db.operator_seed)?;
    let (database, conn) = KeptDatabase::open_filled(
        global,
        db.name,
        settings.total_rounds(tables),
        &(db.describe)(tables, settings.days),
        |conn| {
            let plan = crate::outcome::plan()?;
            fill(
                conn,
                &operator,
                &settings,
                &plan,
                (db.stations)(&plan, tables)?,
            )
        },
    )?;
    Ok((settings, database, conn))
}

pub fn mf(
    global: &Global,
    args: &MonthArgs,
    delivery_config: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let (tables, runs) = (args.tables, args.runs);
    // The keys first: a wrong password is found before the month is filled.
    let keys = delivery_config.map(delivery_keys).transpose()?;
    let (settings, database, mut conn) = filled_month(global, args, &MONTH)?;
    let (month, clock) = (settings.month, settings.clock);
    let expected_rounds = settings.total_rounds(tables);
    let config = config(tables)?;
    let plans = rules::PlanBook::builtin()?;
    let mut seconds = Vec::new();
    for run in 1..=runs.max(1) {
        let started = Instant::now();
        let package = reports::mf::build(
            &mut conn,
            &PackageRequest {
                config: &config,
                premises: "kasino_1",
                month,
                version: 1,
                clock,
                plans: &plans,
                now: Utc::now(),
            },
        )?;
        crate::outcome::expect_result(package.summary.rounds == expected_rounds as i64, || {
            format!(
                "the package counts {} rounds of the {expected_rounds} in the month",
                package.summary.rounds
            )
        })?;
        let zip = reports::mf::deliver::zip_bytes(&package).context("zipping the package")?;
        let built = started.elapsed().as_secs_f64();
        // Delivered as `report mf deliver` does it: validated, encrypted, sealed.
        let sealed_bytes = match &keys {
            Some(keys) => Some(deliver(&package.name.to_string(), &zip, keys, clock)?),
            None => None,
        };
        let took = started.elapsed().as_secs_f64();
        eprintln!(
            "run {run}: {} in {took:.2} s ({} table periods, {} cage periods, {} rounds, ZIP {} bytes{})",
            package.name,
            package.summary.table_periods,
            package.summary.cage_periods,
            package.summary.rounds,
            zip.len(),
            sealed_bytes
                .map(|n| format!("; built in {built:.2} s, validated, encrypted and sealed: {n} bytes"))
                .unwrap_or_default()
        );
        seconds.push(took);
    }
    drop(conn);
    database.stop()?;
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({
            "benchmark": if keys.is_some() { "mf deliver" } else { "mf" },
            "month": month.to_string(),
            "tables": tables,
            "rounds": expected_rounds,
            "runs": seconds.len(),
            "median_seconds": (median * 100.0).round() / 100.0,
            "seconds": seconds.iter().map(|s| (s * 100.0).round() / 100.0).collect::<Vec<_>>(),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
