//! `dozor bench monitor casinos`: many casinos growing while one monitor follows them all.
//!
//! Each casino is its own ledger (a database of its own in one throwaway PostgreSQL cluster, its
//! own operator key and tables) published by dozor's tile publisher to its own folder; one nginx
//! serves every folder. Each casino appends signed, judged spins at `--rounds-per-second`, and
//! every `--publish-seconds` signs a checkpoint and publishes it (the casinos' turns spread over
//! the interval), as `serve` with `[tiles] publish_dir` does. One `dozor monitor` (a child
//! process, its state in a second throwaway cluster, polling every `--poll-seconds`) follows all
//! of them. The delay of a publication is from its checkpoint file being in place to the
//! monitor's state saying that casino is followed to at least its size (the state is read every
//! 100 ms); its memory is the child's peak resident set (`VmHWM`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use chrono::Utc;
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use ed25519_dalek::SigningKey;
use ledger::storage::append::WriterCache;
use ledger::storage::cluster::LocalCluster;
use ledger::storage::{checkpoints, reads};
use ledger::tile_publish::Publisher;
use serde_json::json;
use simulator::games::roulette::RouletteSimulator;
use simulator::games::table::table_key;

use super::nginx::Nginx;
use super::process::{mib, MonitorProcess};
use super::shared::round2;
use crate::outcome::{expect_result, percentile};

#[derive(Debug, clap::Args)]
pub struct CasinosArgs {
    /// Casinos, each its own ledger and folder.
    #[arg(long, default_value_t = 50)]
    casinos: usize,
    /// How long the casinos grow while the monitor follows them.
    #[arg(long, default_value_t = 300)]
    seconds: u64,
    /// Spins each casino appends a second (a casino of 20 – 40 live tables: about one).
    #[arg(long, default_value_t = 1.0)]
    rounds_per_second: f64,
    /// How often each casino signs a checkpoint and publishes it.
    #[arg(long, default_value_t = 5)]
    publish_seconds: u64,
    /// The monitor's `[follow] poll_seconds` (its default: 30).
    #[arg(long, default_value_t = 30)]
    poll_seconds: u64,
    /// Tables per casino.
    #[arg(long, default_value_t = 4)]
    tables: usize,
}

/// One simulated casino: its ledger, keys, tables and publisher.
struct Casino {
    name: String,
    conn: PgConnection,
    operator: NoteSigner,
    keys: Vec<SigningKey>,
    simulator: RouletteSimulator,
    /// Spins appended so far (a table's next `seq_no` follows from it).
    spins: u64,
    cache: WriterCache,
    publisher: Publisher,
    folder: std::path::PathBuf,
}

fn table_id(t: usize) -> String {
    format!("T{t:02}")
}

/// The operator key of casino `n`: fixed by its number.
fn operator(n: usize) -> anyhow::Result<NoteSigner> {
    let mut seed = [0x6du8; 32];
    seed[..8].copy_from_slice(&(n as u64).to_le_bytes());
    Ok(NoteSigner::new(
        &format!("casino-{n:02}.bench/ledger"),
        SigningKey::from_bytes(&seed),
    )?)
}

impl Casino {
    /// Casino `n`: its database created from the migrated template, its tables registered.
    fn new(
        cluster: &LocalCluster,
        n: usize,
        tables: usize,
        root: &std::path::Path,
    ) -> anyhow::Result<Casino> {
        let database = format!("casino_{n:02}");
        create_from_template(cluster, &database)?;
        let mut conn = ledger::storage::connect(&cluster.url(&database))?;
        let operator = operator(n)?;
        let plan = crate::outcome::plan()?;
        let keys: Vec<SigningKey> = (0..tables)
            .map(|t| table_key(n as u64, &table_id(t)))
            .collect();
        for (t, key) in keys.iter().enumerate() {
            crate::direct::register_roulette(
                &mut conn,
                &operator,
                &table_id(t),
                &plan.plan_id,
                key,
            )?;
        }
        let folder = root.join(format!("casino-{n:02}"));
        Ok(Casino {
            name: format!("casino-{n:02}"),
            conn,
            operator,
            keys,
            simulator: RouletteSimulator::new(n as u64, plan, 0.02),
            spins: 0,
            cache: WriterCache::default(),
            publisher: Publisher::new(&folder)?,
            folder,
        })
    }

    /// Appends `spins` signed, judged spins in one transaction, signs a checkpoint of the ledger
    /// and publishes it: the size published.
    fn grow(&mut self, spins: u64) -> anyhow::Result<u64> {
        let plan = crate::outcome::plan()?;
        let tables = self.keys.len() as u64;
        let mut batch = Vec::with_capacity(spins as usize);
        for i in self.spins..self.spins + spins {
            let t = (i % tables) as usize;
            let (record, _) = self
                .simulator
                .spin(&table_id(t), i / tables + 1, Utc::now());
            batch.push(crate::direct::submission(
                record,
                &self.keys[t],
                &plan,
                &rules::TableSetup::NONE,
            )?);
        }
        if !batch.is_empty() {
            crate::direct::append(&mut self.conn, &batch, &mut self.cache)?;
        }
        self.spins += spins;
        let size = reads::size(&mut self.conn)?;
        checkpoints::create(&mut self.conn, &self.operator, size, Utc::now())
            .map_err(|e| anyhow!("{}: checkpoint: {e}", self.name))?;
        let published = self.publisher.publish(&mut self.conn)?.size();
        expect_result(published == size, || {
            format!("{}: published {published} of {size} entries", self.name)
        })?;
        Ok(size)
    }
}

/// Creates `database` as a copy of the migrated `template` database.
fn create_from_template(cluster: &LocalCluster, database: &str) -> anyhow::Result<()> {
    use diesel::RunQueryDsl as _;
    let mut conn = ledger::storage::connect(&cluster.url("postgres"))?;
    diesel::sql_query(format!(
        "CREATE DATABASE \"{database}\" TEMPLATE \"template_casino\""
    ))
    .execute(&mut conn)?;
    Ok(())
}

/// Entries the monitor has followed of each casino, by casino name.
fn followed_sizes(
    conn: &mut PgConnection,
) -> anyhow::Result<std::collections::HashMap<String, u64>> {
    use diesel::prelude::*;
    use dozor_monitor::store::schema::monitor_casinos as c;
    let rows: Vec<(String, i64)> = c::table.select((c::casino, c::size)).load(conn)?;
    Ok(rows.into_iter().map(|(n, s)| (n, s as u64)).collect())
}

/// A publication not yet seen followed: casino, size, when its checkpoint was in place.
struct Pending {
    casino: usize,
    size: u64,
    at: Instant,
}

/// The delays of every publication seen followed, and those never seen followed by the end.
struct Delays {
    seen: Vec<Duration>,
    pending: Vec<Pending>,
}

impl Delays {
    fn observe(&mut self, sizes: &std::collections::HashMap<String, u64>, casinos: &[Casino]) {
        let now = Instant::now();
        let seen = &mut self.seen;
        self.pending.retain(|p| {
            let followed = sizes.get(&casinos[p.casino].name).copied().unwrap_or(0);
            if followed >= p.size {
                seen.push(now.duration_since(p.at));
                false
            } else {
                true
            }
        });
    }
}

/// The throwaway cluster of the casinos' ledgers, with the migrated template database.
fn ledgers_cluster() -> anyhow::Result<LocalCluster> {
    let cluster = LocalCluster::temporary()?;
    cluster.create_database("template_casino")?;
    let mut conn = ledger::storage::connect(&cluster.url("template_casino"))?;
    ledger::storage::migrate(&mut conn)?;
    Ok(cluster)
}

/// Grows the casinos for `args.seconds`, each publishing every `args.publish_seconds` (their
/// turns spread over the interval), watching the monitor's state between publications; then
/// waits for the monitor to catch the last ones (at most two polls and a minute).
fn grow_and_watch(
    args: &CasinosArgs,
    casinos: &mut [Casino],
    monitor: &mut MonitorProcess,
    state: &mut PgConnection,
) -> anyhow::Result<(Delays, u64)> {
    let interval = Duration::from_secs(args.publish_seconds.max(1));
    let spins = (args.rounds_per_second * interval.as_secs_f64()).round() as u64;
    let started = Instant::now();
    let end = started + Duration::from_secs(args.seconds);
    let mut delays = Delays {
        seen: Vec::new(),
        pending: Vec::new(),
    };
    let mut publications = 0u64;
    let mut turn = 0u64;
    let n = casinos.len() as u64;
    loop {
        let due = started + interval.mul_f64(turn as f64 / n as f64);
        if due >= end {
            break;
        }
        while Instant::now() < due {
            monitor.running()?;
            delays.observe(&followed_sizes(state)?, casinos);
            std::thread::sleep(
                Duration::from_millis(100).min(due.saturating_duration_since(Instant::now())),
            );
        }
        let casino = (turn % n) as usize;
        let size = casinos[casino].grow(spins)?;
        delays.pending.push(Pending {
            casino,
            size,
            at: Instant::now(),
        });
        publications += 1;
        turn += 1;
    }
    let deadline = Instant::now() + Duration::from_secs(2 * args.poll_seconds + 60);
    while !delays.pending.is_empty() && Instant::now() < deadline {
        monitor.running()?;
        delays.observe(&followed_sizes(state)?, casinos);
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok((delays, publications))
}

pub fn casinos(args: &CasinosArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        (1..=99).contains(&args.casinos),
        "--casinos must be 1 to 99"
    );
    anyhow::ensure!(args.tables > 0, "--tables must be positive");
    anyhow::ensure!(args.poll_seconds > 0, "--poll-seconds must be positive");
    let cluster = ledgers_cluster()?;
    let folders = tempfile::tempdir()?;
    eprintln!("starting {} casinos", args.casinos);
    let mut casinos = (0..args.casinos)
        .map(|n| Casino::new(&cluster, n, args.tables, folders.path()))
        .collect::<anyhow::Result<Vec<Casino>>>()?;
    // Each casino's first checkpoint (its tables' registrations and a first batch), followed
    // when the monitor starts: not counted.
    for casino in &mut casinos {
        casino.grow(1)?;
    }
    let served: Vec<_> = casinos
        .iter()
        .map(|c| (c.folder.clone(), c.name.clone()))
        .collect();
    let nginx = Nginx::serve(&served, true)?;
    let state_cluster = LocalCluster::temporary()?;
    state_cluster.create_database("monitor")?;
    let state_url = state_cluster.url("monitor");
    let followed: Vec<_> = casinos
        .iter()
        .map(|c| {
            (
                c.name.clone(),
                nginx.url_of(&c.name),
                c.operator.verifier().to_string(),
            )
        })
        .collect();
    let config = folders.path().join("monitor.toml");
    std::fs::write(
        &config,
        super::shared::monitor_config(args.poll_seconds, &followed),
    )?;
    let mut monitor = MonitorProcess::start(&config, &state_url, false)?;
    let mut state = connect_when_migrated(&state_url, &mut monitor)?;
    eprintln!(
        "{} casinos growing for {} s, one monitor following them",
        args.casinos, args.seconds
    );
    let (delays, publications) = grow_and_watch(args, &mut casinos, &mut monitor, &mut state)?;
    let usage = monitor.stop();
    let status = dozor_monitor::store::status::status(&mut state)?;
    report(args, &delays, publications, usage, &status)
}

/// A connection to the monitor's state once the monitor has created its tables.
fn connect_when_migrated(url: &str, monitor: &mut MonitorProcess) -> anyhow::Result<PgConnection> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        monitor.running()?;
        let mut conn = dozor_monitor::store::connection::connect(url)?;
        if followed_sizes(&mut conn).is_ok() {
            return Ok(conn);
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "the monitor's state has no tables after 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn report(
    args: &CasinosArgs,
    delays: &Delays,
    publications: u64,
    usage: super::process::Usage,
    status: &[dozor_monitor::store::status::CasinoStatus],
) -> anyhow::Result<ExitCode> {
    let alerts: i64 = status.iter().map(|s| s.alerts).sum();
    let mismatched: i64 = status.iter().map(|s| s.mismatched_rounds).sum();
    let rounds: i64 = status.iter().map(|s| s.rounds).sum();
    expect_result(alerts == 0 && mismatched == 0, || {
        format!("the monitor raised {alerts} alert(s) and found {mismatched} round(s) whose verdict differs")
    })?;
    let mut seen = delays.seen.clone();
    seen.sort_unstable();
    let seconds = |p: f64| round2(percentile(&seen, p) / 1000.0);
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "casinos growing and publishing tiles (served by Debian's nginx) while one dozor monitor follows them all: delay from a checkpoint's publication to the monitor's state holding it, and the monitor's memory",
            "server": "nginx",
            "casinos": args.casinos,
            "seconds": args.seconds,
            "rounds_per_second_per_casino": args.rounds_per_second,
            "publish_seconds": args.publish_seconds,
            "poll_seconds": args.poll_seconds,
            "publications": publications,
            "publications_followed": seen.len(),
            "publications_not_followed_by_the_end": delays.pending.len(),
            "delay_seconds": {
                "median": seconds(50.0),
                "p95": seconds(95.0),
                "max": seconds(100.0),
            },
            "monitor_rounds_judged": rounds,
            "monitor_alerts": alerts,
            "monitor_peak_resident_mib": mib(usage.peak_resident),
            "monitor_resident_at_end_mib": mib(usage.resident),
            "monitor_cpu_seconds": usage.cpu_seconds().map(round2),
            "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
