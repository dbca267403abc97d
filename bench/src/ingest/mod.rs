//! `bench ingest`: sustained ingest of signed spins over HTTP into a durable ledger.

mod client;
mod witnesses;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use api::server::{self, Settings};
use chrono::Utc;
use dozor_log::keys::encode_public_key;
use dozor_log::Envelope;
use futures_util::{stream, StreamExt as _};
use ledger::storage::cluster::LocalCluster;
use ledger::storage::database::DatabaseChoice;
use serde_json::json;
use simulator::games::roulette::RouletteSimulator;
use simulator::games::table::table_key;

use crate::outcome::{percentile, plan, NotMeasured};
use client::{
    fits_in_memory, register_table, submit, table_address, Answers, MAX_ADDRESSED_TABLES,
};
use witnesses::LocalWitnesses;

/// `bench ingest`: what is sent, and the limit the server it starts applies to each address.
#[derive(Debug, clap::Args)]
pub struct IngestArgs {
    /// Signed spins to submit.
    #[arg(long, default_value_t = 20_000)]
    rounds: u64,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Tables submitting [default: 64 with one record per request, each table from its own
    /// loopback address (127.0.0.2 onwards, at most 253 tables); 16 with --batch, all from one
    /// address, as a gateway].
    #[arg(long)]
    tables: Option<usize>,
    /// Records per request: 1 posts each to `/records`, more posts arrays to `/records/batch`.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Witnesses (C2SP tlog-witness) to show every checkpoint to, each a `dozor witness`
    /// server started on this machine: the cost of being witnessed.
    #[arg(long, default_value_t = 0)]
    witnesses: usize,
    /// Publish the ledger as tiles to a temporary folder while it runs, as `serve` does with
    /// `[tiles] publish_dir`: the cost of publishing.
    #[arg(long)]
    tiles: bool,
    /// With `--tiles`: publish to this folder (new or empty) and keep it, instead of a temporary
    /// folder removed after the run. `bench monitor ingest` keeps each run's folder until its
    /// last run: removing thousands of files just before the next run would make that run's
    /// publisher pay for it (see docs/PERFORMANCE.md).
    #[arg(long, requires = "tiles")]
    tiles_dir: Option<std::path::PathBuf>,
    /// Requests per second the started server allows each client address (`limits.address_rate`;
    /// default: the server's).
    #[arg(long, default_value_t = server::DEFAULT_ADDRESS_RATE.per_second)]
    address_limit_per_second: u32,
    /// Requests the started server allows each client address at once (`limits.address_burst`;
    /// default: the server's).
    #[arg(long, default_value_t = server::DEFAULT_ADDRESS_RATE.burst)]
    address_limit_burst: u32,
}

/// Where `--tiles` publishes.
enum TilesFolder {
    /// A temporary folder, removed after the run.
    Temporary,
    /// This folder, kept.
    Kept(std::path::PathBuf),
}

impl TilesFolder {
    /// Where `args` ask to publish, if they do; a folder to keep must be new or empty.
    fn of(args: &IngestArgs) -> anyhow::Result<Option<TilesFolder>> {
        if !args.tiles {
            return Ok(None);
        }
        let Some(dir) = &args.tiles_dir else {
            return Ok(Some(TilesFolder::Temporary));
        };
        let empty = match std::fs::read_dir(dir) {
            Ok(mut entries) => entries.next().is_none(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => anyhow::bail!("--tiles-dir {}: {e}", dir.display()),
        };
        anyhow::ensure!(empty, "--tiles-dir {}: not empty", dir.display());
        Ok(Some(TilesFolder::Kept(dir.clone())))
    }

    /// The folder, and what removes it when dropped (a temporary one).
    fn open(&self) -> anyhow::Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
        match self {
            TilesFolder::Temporary => {
                let dir = tempfile::tempdir()?;
                Ok((dir.path().to_path_buf(), Some(dir)))
            }
            TilesFolder::Kept(dir) => Ok((dir.clone(), None)),
        }
    }
}

/// The run `IngestArgs` ask for, checked.
struct Shape {
    rounds: u64,
    concurrency: usize,
    tables: usize,
    batch: usize,
    /// One record per request, each table from its own address (else batches from a gateway).
    single: bool,
    witnesses: usize,
    tiles: Option<TilesFolder>,
    address_rate: api::auth::RateLimit,
    /// The addresses requests are sent from (the tables are registered from 127.0.0.1).
    addresses: Vec<std::net::IpAddr>,
}

impl Shape {
    fn of(args: &IngestArgs) -> anyhow::Result<Shape> {
        let batch = args.batch.max(1);
        let single = batch == 1;
        let tables = args.tables.unwrap_or(if single { 64 } else { 16 });
        anyhow::ensure!(tables > 0, "--tables must be positive");
        anyhow::ensure!(
            !single || tables <= MAX_ADDRESSED_TABLES,
            "--tables {tables}: with one record per request each table sends from its own loopback address (127.0.0.2 to 127.0.0.254): at most {MAX_ADDRESSED_TABLES} tables"
        );
        anyhow::ensure!(
            args.address_limit_per_second > 0 && args.address_limit_burst > 0,
            "--address-limit-per-second and --address-limit-burst must be positive"
        );
        // Single records come from each table's own address; batches from one gateway's. The
        // tables are registered from 127.0.0.1, an address of its own.
        let addresses = if single {
            (0..tables).map(table_address).collect()
        } else {
            vec![table_address(0)]
        };
        Ok(Shape {
            rounds: args.rounds,
            concurrency: args.concurrency.max(1),
            tables,
            batch,
            single,
            witnesses: args.witnesses,
            tiles: TilesFolder::of(args)?,
            address_rate: api::auth::RateLimit {
                per_second: args.address_limit_per_second,
                burst: args.address_limit_burst,
            },
            addresses,
        })
    }

    fn path(&self) -> &'static str {
        if self.single {
            "records"
        } else {
            "records/batch"
        }
    }
}

/// The tables and the request bodies they send, signed before the clock starts so that the
/// client's signing is not in the figure.
struct Signed {
    keys: Vec<(String, ed25519_dalek::SigningKey)>,
    /// The tables play from a second before signing (records give played_at in whole seconds).
    plays_from: chrono::DateTime<Utc>,
    /// Per request: the client (address) it is sent from, its records and its body: a single
    /// envelope from its table's address, or an array of `batch` of them from the gateway's.
    bodies: Vec<(usize, usize, Vec<u8>)>,
}

fn sign(shape: &Shape) -> anyhow::Result<Signed> {
    let mut simulator = RouletteSimulator::new(7, plan()?, 0.02);
    let keys: Vec<_> = (0..shape.tables)
        .map(|t| {
            let table_id = format!("BENCH-{t:02}");
            let key = table_key(7, &table_id);
            (table_id, key)
        })
        .collect();
    let plays_from = Utc::now() - chrono::Duration::seconds(1);
    let (rounds, batch, tables) = (shape.rounds, shape.batch, shape.tables);
    let mut bodies = Vec::with_capacity((rounds as usize).div_ceil(batch));
    let mut pending: Vec<Envelope> = Vec::with_capacity(batch);
    let mut body_bytes = 0usize;
    let mut judged_memory = false;
    for i in 0..rounds {
        let table = (i as usize) % tables;
        let (table_id, key) = &keys[table];
        let (record, _) = simulator.spin(table_id, i / tables as u64 + 1, Utc::now());
        pending.push(Envelope::sign(record, key)?);
        if pending.len() == batch || i + 1 == rounds {
            let (client, body) = if shape.single {
                (table, serde_json::to_vec(&pending[0])?)
            } else {
                (0, serde_json::to_vec(&pending)?)
            };
            body_bytes += body.len();
            bodies.push((client, pending.len(), body));
            pending.clear();
            if !judged_memory && i + 1 >= 10_000.min(rounds) {
                fits_in_memory(rounds, i + 1, body_bytes)?;
                judged_memory = true;
            }
        }
    }
    Ok(Signed {
        keys,
        plays_from,
        bodies,
    })
}

/// A `dozor serve` of the benchmark's own on a fresh database, with its witnesses.
struct Served {
    settings: Settings,
    cluster: Option<LocalCluster>,
    admin: dozor_log::access::ApiKeySecret,
    witnesses: LocalWitnesses,
    witness_clients: api::witnessing::WitnessClients,
    progress_of_witnesses: std::sync::Arc<api::witnessing::Witnesses>,
    server_thread: std::thread::JoinHandle<std::io::Result<()>>,
    handle: actix_web::dev::ServerHandle,
    base: String,
    /// The folder the tiles are published to, and the publisher.
    tiles: Option<(
        std::path::PathBuf,
        Option<tempfile::TempDir>,
        ledger::tile_publish::thread::TilePublishing,
    )>,
}

/// A dedicated database on the durable cluster (or the given one), emptied for each run.
fn fresh_database(global: &DatabaseChoice) -> anyhow::Result<(String, Option<LocalCluster>)> {
    let (url, cluster) = match &global.database_url {
        Some(url) => (url.clone(), None),
        None => {
            let cluster = LocalCluster::open(&global.data_dir.join("pg"))?;
            cluster.drop_database("dozor_bench")?;
            cluster.create_database("dozor_bench")?;
            (cluster.url("dozor_bench"), Some(cluster))
        }
    };
    ledger::storage::migrate(&mut ledger::storage::connect(&url)?)?;
    Ok((url, cluster))
}

/// The settings as served: checkpoints signed every 1 000 entries or 10 s.
fn settings(url: String, address_rate: api::auth::RateLimit) -> anyhow::Result<Settings> {
    let mut settings = Settings::new(
        url,
        dozor_log::checkpoint::NoteSigner::new("dozor.bench/ledger", dozor_log::keys::generate())?,
    );
    settings.checkpoints = Some(ledger::ingest::CheckpointPolicy {
        every_entries: 1_000,
        every: Duration::from_secs(10),
        witness: None,
    });
    settings.address_rate = address_rate;
    Ok(settings)
}

/// The admin key that registers the tables, made as `dozor apikey create` makes one.
fn admin_key(settings: &Settings) -> anyhow::Result<dozor_log::access::ApiKeySecret> {
    let admin = dozor_log::access::ApiKeySecret::generate();
    ledger::storage::api_keys::create_api_key(
        &mut ledger::storage::connect(&settings.database_url)?,
        settings.operator.signing_key(),
        &ledger::storage::api_keys::NewApiKey {
            name: "bench-admin",
            role: dozor_log::access::Role::Admin,
            created_by: "cli:bench",
            expires_at: None,
        },
        &admin,
        chrono::Utc::now(),
    )?;
    Ok(admin)
}

impl Served {
    fn start(global: &DatabaseChoice, shape: &Shape) -> anyhow::Result<Served> {
        let (url, cluster) = fresh_database(global)?;
        let mut settings = settings(url, shape.address_rate)?;
        // As `serve` publishing tiles: the writer hands what it commits to the publisher.
        settings.tile_handoff = shape
            .tiles
            .is_some()
            .then(|| std::sync::Arc::new(ledger::tile_publish::handoff::Handoff::new()));
        let admin = admin_key(&settings)?;
        let witnesses = LocalWitnesses::start(shape.witnesses, &settings.operator.verifier())?;
        settings.witnesses = witnesses.endpoints.clone();
        let state = server::state(&settings)?;
        let witness_clients = api::witnessing::spawn(
            state.pool.clone(),
            state.witnesses.clone(),
            state.metrics.clone(),
        )?;
        let progress_of_witnesses = state.witnesses.clone();
        let tiles = match &shape.tiles {
            Some(folder) => {
                let (dir, temporary) = folder.open()?;
                let publisher = ledger::tile_publish::thread::spawn(
                    state.pool.clone(),
                    dir.clone(),
                    settings.tile_handoff.clone(),
                    Box::new(|_| {}),
                )?;
                Some((dir, temporary, publisher))
            }
            None => None,
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let server_thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server =
                    HttpServer::new(move || App::new().configure(server::configure(state.clone())))
                        .workers(2)
                        .bind("127.0.0.1:0")?;
                let port = server.addrs().first().map(|a| a.port()).unwrap_or(0);
                let running = server.run();
                let _ = tx.send((port, running.handle()));
                running.await
            })
        });
        let (port, handle) = rx
            .recv_timeout(Duration::from_secs(30))
            .context("server did not start")?;
        Ok(Served {
            settings,
            cluster,
            admin,
            witnesses,
            witness_clients,
            progress_of_witnesses,
            server_thread,
            handle,
            base: format!("http://127.0.0.1:{port}"),
            tiles,
        })
    }

    /// Stops the server (with its final checkpoint), the witnesses and the cluster; returns
    /// where the witnesses stood when the last record was acknowledged (ingest never waits for
    /// them), and the size of the tiles published (after the final checkpoint).
    fn stop(
        mut self,
        runtime: &tokio::runtime::Runtime,
    ) -> anyhow::Result<(serde_json::Value, Option<u64>)> {
        runtime.block_on(self.handle.stop(true));
        let _ = self.server_thread.join();
        server::final_checkpoint(&self.settings)?;
        let tiles = self.tiles.take().map(|(dir, _temporary, publisher)| {
            publisher.stop();
            std::fs::read_to_string(dir.join("checkpoint"))
                .ok()
                .and_then(|note| note.lines().nth(1)?.parse().ok())
        });
        let witnessed = self.progress_of_witnesses.progress();
        self.witness_clients.stop();
        self.witnesses.stop();
        if let Some(c) = self.cluster.as_mut() {
            c.stop()?;
        }
        Ok((serde_json::to_value(witnessed)?, tiles.flatten()))
    }
}

/// Registers the tables, then sends every body, `concurrency` requests in flight: the time it
/// took and each request's answers.
async fn send(
    shape: &Shape,
    signed: Signed,
    served: &Served,
) -> anyhow::Result<(Duration, Vec<Answers>)> {
    let base = &served.base;
    let admin_client = reqwest::Client::builder()
        .local_address(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
        .build()?;
    let clients = shape
        .addresses
        .iter()
        .map(|address| {
            reqwest::Client::builder()
                .local_address(*address)
                .pool_max_idle_per_host(shape.concurrency)
                .build()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (table_id, key) in &signed.keys {
        let body = json!({"table_id": table_id, "game": "roulette", "location": "benchmark",
                          "public_key": encode_public_key(&key.verifying_key()),
                          "valid_from": signed.plays_from});
        register_table(&admin_client, base, &served.admin.token(), &body).await?;
    }
    eprintln!(
        "tables registered, records signed; submitting {} spins",
        shape.rounds
    );
    let url = format!("{base}/api/v1/{}", shape.path());
    let started = Instant::now();
    let outcomes: Vec<Answers> = stream::iter(signed.bodies)
        .map(|(client, records, body)| {
            let client = clients.get(client).unwrap_or(&admin_client).clone();
            submit(client, url.clone(), body, records, !shape.single)
        })
        .buffer_unordered(shape.concurrency)
        .collect()
        .await;
    Ok((started.elapsed(), outcomes))
}

/// The records accepted, or the benchmark refused when any was not (a record the server never
/// answered for is not accepted either).
fn accepted(outcomes: &[Answers], rounds: u64) -> anyhow::Result<usize> {
    let mut tally = simulator::submit::Tally::default();
    for (status, code) in outcomes.iter().flat_map(|(answers, _)| answers) {
        tally.count(*status, code.as_deref());
    }
    let answered: usize = tally.by_status.values().sum();
    if answered < rounds as usize {
        for _ in answered..rounds as usize {
            tally.count(0, Some("no result"));
        }
    }
    if let Some(line) = tally.refusal_line() {
        return Err(NotMeasured(line).into());
    }
    Ok(tally.by_status.get(&201).copied().unwrap_or(0))
}

fn figures(
    shape: &Shape,
    elapsed: Duration,
    outcomes: &[Answers],
    accepted: usize,
    (witnessed, tiles): (serde_json::Value, Option<u64>),
) -> serde_json::Value {
    let mut latencies: Vec<Duration> = outcomes.iter().map(|(_, d)| *d).collect();
    latencies.sort_unstable();
    let seconds = elapsed.as_secs_f64();
    let rate = shape.address_rate;
    json!({
        "benchmark": "signed roulette spins over HTTP into the durable ledger (client and server on this machine)",
        "spins": shape.rounds,
        "accepted_201": accepted,
        "concurrency": shape.concurrency,
        "tables": shape.tables,
        "records_per_request": shape.batch,
        "addresses": shape.addresses.len(),
        "per_address_limit": {
            "per_second": rate.per_second,
            "burst": rate.burst,
            "server_default": rate == server::DEFAULT_ADDRESS_RATE,
        },
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "spins_per_second": (shape.rounds as f64 / seconds).round(),
        "latency_ms": {
            "p50": (percentile(&latencies, 50.0) * 100.0).round() / 100.0,
            "p99": (percentile(&latencies, 99.0) * 100.0).round() / 100.0,
            "max": (percentile(&latencies, 100.0) * 100.0).round() / 100.0,
        },
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "witnesses": witnessed,
        "tiles_published_size": tiles,
    })
}

pub fn ingest(global: &DatabaseChoice, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let figures = measure(global, args)?;
    println!("{}", serde_json::to_string_pretty(&figures)?);
    Ok(ExitCode::SUCCESS)
}

impl IngestArgs {
    /// `--rounds rounds --batch 500 --concurrency 4`, the rest the defaults: the gateway's
    /// figure other benchmarks set theirs beside.
    pub(crate) fn batches_of_500(rounds: u64) -> IngestArgs {
        IngestArgs {
            rounds,
            concurrency: 4,
            tables: None,
            batch: 500,
            witnesses: 0,
            tiles: false,
            tiles_dir: None,
            address_limit_per_second: server::DEFAULT_ADDRESS_RATE.per_second,
            address_limit_burst: server::DEFAULT_ADDRESS_RATE.burst,
        }
    }
}

/// One run of `args`: its figures.
pub(crate) fn measure(
    global: &DatabaseChoice,
    args: &IngestArgs,
) -> anyhow::Result<serde_json::Value> {
    let shape = Shape::of(args)?;
    let signed = sign(&shape)?;
    let served = Served::start(global, &shape)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()?;
    let sent = runtime.block_on(send(&shape, signed, &served));
    let witnessed = served.stop(&runtime)?;
    let (elapsed, outcomes) = sent?;
    let accepted = accepted(&outcomes, shape.rounds)?;
    Ok(figures(&shape, elapsed, &outcomes, accepted, witnessed))
}
