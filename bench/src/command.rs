//! Benchmarks run as commands, so the figures in docs/PERFORMANCE.md can be reproduced.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::bench_db::KeptDatabase;
use crate::games::{table_key, RouletteSimulator};
use actix_web::{App, HttpServer};
use anyhow::{anyhow, Context as _};
use api::server::{self, Settings};
use chrono::Utc;
use dozor_log::keys::encode_public_key;
use dozor_log::Envelope;
use futures_util::{stream, StreamExt as _};
use ledger::storage::cluster::LocalCluster;
use serde_json::json;

use ledger::storage::database::DatabaseChoice as Global;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    kind: BenchKind,
}

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
    /// Requests per second the started server allows each client address (`limits.address_rate`;
    /// default: the server's).
    #[arg(long, default_value_t = server::DEFAULT_ADDRESS_RATE.per_second)]
    address_limit_per_second: u32,
    /// Requests the started server allows each client address at once (`limits.address_burst`;
    /// default: the server's).
    #[arg(long, default_value_t = server::DEFAULT_ADDRESS_RATE.burst)]
    address_limit_burst: u32,
}

/// A benchmark that did not measure what it claims (a record refused, a result not the one
/// expected): it gives no figure, says why in one line on standard error and exits 1.
#[derive(Debug)]
pub(crate) struct NotMeasured(pub String);

impl std::fmt::Display for NotMeasured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotMeasured {}

/// Fails the benchmark with `why` unless `ok`: no figure is given.
pub(crate) fn expect_result(ok: bool, why: impl FnOnce() -> String) -> anyhow::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(NotMeasured(why()).into())
    }
}

#[derive(Debug, clap::Subcommand)]
enum BenchKind {
    /// Adjudication alone, on one core: roulette, blackjack, ultimate_texas_holdem, poker_cash
    /// (Hold'em), poker_omaha, open_face_chinese or poker_tournament (a whole tournament each).
    Adjudicate {
        /// Distinct rounds generated (then adjudicated repeatedly for at least 3 s).
        #[arg(long, default_value_t = 100_000)]
        rounds: usize,
        #[arg(long, default_value = "roulette")]
        game: String,
    },
    /// Sustained ingest of signed spins over HTTP into a durable ledger (fsync on).
    Ingest(IngestArgs),
    /// `dozor verify` of a large inspection export (filled once, kept), against bare batch
    /// verification of the same signatures, and `dozor verify` of the same ledger in the
    /// database.
    Verify {
        /// Signed spins in the ledger and the export.
        #[arg(long, default_value_t = 1_000_000)]
        entries: u64,
        /// Check signatures one by one with `verify_strict` instead of in batches.
        #[arg(long)]
        strict_signatures: bool,
    },
    /// The Ministry's monthly package over a month of rounds, periods and cage days (filled
    /// once, kept): period audit, files and ZIP.
    Mf {
        /// Rounds in the month.
        #[arg(long, default_value_t = 1_000_000)]
        rounds: u64,
        /// Tables playing them.
        #[arg(long, default_value_t = 40)]
        tables: usize,
        #[arg(long, default_value = "2026-10")]
        month: String,
        /// Times the package is built (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Also deliver it each run — validate, encrypt, seal (not kept) — with the keys the
        /// `[delivery]` section of this configuration file names.
        #[arg(long)]
        delivery_config: Option<std::path::PathBuf>,
    },
    /// The monthly payout/RTP report and its HTML page over a month of roulette, blackjack,
    /// UTH and money wheel rounds (filled once, kept).
    Rtp {
        /// Rounds in the month.
        #[arg(long, default_value_t = 1_000_000)]
        rounds: u64,
        /// Tables playing them, the five games in turn.
        #[arg(long, default_value_t = 40)]
        tables: usize,
        #[arg(long, default_value = "2026-10")]
        month: String,
        /// Times the report and the page are built (the medians are reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// The server's peak memory (a `dozor serve` of its own) under 120 batch bodies of 15 MiB
    /// at once, then 8 XLSX downloads of 100 000 findings at once, `/healthz` asked throughout.
    Memory(crate::bench_memory::MemoryArgs),
    /// Inclusion-proof latency on a large tree (synthetic entries generated in SQL, kept between runs).
    Proofs {
        /// Entries in the tree.
        #[arg(long, default_value_t = 10_000_000)]
        entries: u64,
        /// Proofs to time.
        #[arg(long, default_value_t = 10_000)]
        samples: usize,
    },
}

/// Runs a benchmark. One that did not measure what it claims prints no figure, names why in one
/// line on standard error and exits 1; one that could not run returns the error (exit 2).
pub fn run(global: &Global, args: BenchArgs) -> anyhow::Result<ExitCode> {
    ended(run_kind(global, args.kind))
}

/// A benchmark's end: a figure given (its code), a refusal named (1), or an error.
fn ended(result: anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
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

fn run_kind(global: &Global, kind: BenchKind) -> anyhow::Result<ExitCode> {
    match kind {
        BenchKind::Adjudicate { rounds, game } => match game.as_str() {
            "roulette" | "blackjack" | "ultimate_texas_holdem" | "poker_cash" | "poker_omaha"
            | "open_face_chinese" | "poker_tournament" => adjudicate(rounds, &game),
            other => Err(anyhow!(
                "unknown game `{other}` (roulette, blackjack, ultimate_texas_holdem, poker_cash, poker_omaha, open_face_chinese, poker_tournament)"
            )),
        },
        BenchKind::Proofs { entries, samples } => proofs(global, entries, samples),
        BenchKind::Mf {
            rounds,
            tables,
            month,
            runs,
            delivery_config,
        } => crate::bench_mf::mf(
            global,
            rounds,
            tables,
            &month,
            runs,
            delivery_config.as_deref(),
        ),
        BenchKind::Rtp {
            rounds,
            tables,
            month,
            runs,
        } => crate::bench_rtp::rtp(global, rounds, tables, &month, runs),
        BenchKind::Verify {
            entries,
            strict_signatures,
        } => crate::bench_verify::verify(global, entries, strict_signatures),
        BenchKind::Ingest(args) => ingest(global, &args),
        BenchKind::Memory(args) => crate::bench_memory::memory(global, &args),
    }
}

pub(crate) fn plan() -> anyhow::Result<rules::Plan> {
    rules::PlanBook::builtin()?
        .get(rules::plan::DEFAULT_PLAN)
        .cloned()
        .ok_or_else(|| anyhow!("default plan missing"))
}

/// Rounds of `game` (roulette spins with the simulator's error share; blackjack and UTH dealt
/// from shuffled cards, clean), parsed once, then adjudicated on one thread for at least 3 s.
fn adjudicate(rounds: usize, game: &str) -> anyhow::Result<ExitCode> {
    let plan = plan()?;
    // Roulette with its usual share of dealer errors; the other games clean.
    let error_share = if game == "roulette" { 0.05 } else { 0.0 };
    // Poker tables keep their players all night: hands come from 16 tables in turn, two of each
    // size from 2 to 9 players (5.5 a hand), so the benchmark is of a pit, not of one table.
    let poker = matches!(game, "poker_cash" | "poker_omaha");
    let tables: u64 = if poker { 16 } else { 1 };
    let mut simulators = (1..=tables)
        .map(
            |seed| -> anyhow::Result<Box<dyn crate::games::TableSimulator + Send>> {
                if poker {
                    let players = 2 + (seed % 8) as u8;
                    let omaha = game == "poker_omaha";
                    Ok(Box::new(crate::games::poker::PokerSimulator::with_players(
                        seed,
                        plan.clone(),
                        omaha,
                        players,
                    )))
                } else {
                    crate::games::table_of(game, seed, plan.clone(), 0.0)
                }
            },
        )
        .collect::<anyhow::Result<Vec<_>>>()?;
    let parsed: Vec<rules::Round> = (0..rounds as u64)
        .map(|i| {
            let t = i % tables;
            let table_id = format!("{}{:02}", game.to_uppercase(), t + 1);
            let slot = crate::games::Slot {
                table_id: &table_id,
                seq_no: i / tables,
                played_at: Utc::now(),
            };
            let simulator = simulators
                .get_mut(t as usize)
                .ok_or_else(|| anyhow!("no simulated table {t}"))?;
            let (record, _) = simulator.next_record(slot, error_share)?;
            rules::Round::parse(&record).map_err(|e| anyhow!("{e}"))
        })
        .collect::<Result<_, _>>()?;
    let bets: usize = parsed
        .iter()
        .map(|r| match r {
            rules::Round::Roulette(s) => s.bets.len(),
            rules::Round::Blackjack(b) => b.boxes.iter().map(|x| x.bets.len()).sum(),
            rules::Round::UltimateTexasHoldem(u) => u.spots.iter().map(|s| s.bets.len()).sum(),
            rules::Round::MoneyWheel(w) => w.bets.len(),
            rules::Round::PokerCash(h) => h.seats.len(),
            rules::Round::TimeCollection(t) => t.players.len(),
            rules::Round::OpenFaceChinese(h) => h.players.len(),
            rules::Round::Tournament(t) => t.entries.len(),
        })
        .sum();
    let started = Instant::now();
    let mut done = 0u64;
    let mut findings = 0usize;
    while started.elapsed() < Duration::from_secs(3) {
        for round in &parsed {
            let verdict = rules::adjudicate(&plan, round).map_err(|e| anyhow!("{e}"))?;
            findings += verdict.findings.len();
            done += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": format!("{game} adjudication, one thread"),
            "distinct_rounds": rounds,
            "bets_per_round": (bets as f64 / rounds as f64 * 100.0).round() / 100.0,
            "rounds_adjudicated": done,
            "findings": findings,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "rounds_per_second": (done as f64 / seconds).round(),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

/// Witness servers on loopback, each with a key and a store of its own (removed at the end).
struct LocalWitnesses {
    endpoints: Vec<api::witnessing::WitnessEndpoint>,
    handles: Vec<actix_web::dev::ServerHandle>,
    threads: Vec<std::thread::JoinHandle<std::io::Result<()>>>,
    _stores: tempfile::TempDir,
}

impl LocalWitnesses {
    fn start(
        n: usize,
        log: &dozor_log::checkpoint::NoteVerifier,
    ) -> anyhow::Result<LocalWitnesses> {
        let mut witnesses = LocalWitnesses {
            endpoints: Vec::new(),
            handles: Vec::new(),
            threads: Vec::new(),
            _stores: tempfile::tempdir()?,
        };
        for i in 0..n {
            let signer = dozor_log::cosignature::CosignatureSigner::new(
                &format!("witness.bench/{i}"),
                dozor_log::keys::generate(),
            )?;
            let key = signer.verifier();
            let store =
                dozor_witness::Store::open(&witnesses._stores.path().join(format!("{i}.redb")))?;
            let witness = std::sync::Arc::new(dozor_witness::Witness::new(
                signer,
                std::slice::from_ref(log),
                store,
            ));
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            let url = format!("http://{}", listener.local_addr()?);
            let (tx, rx) = std::sync::mpsc::channel();
            witnesses.threads.push(std::thread::spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    let server = dozor_witness::server::server(witness, listener)?;
                    let _ = tx.send(server.handle());
                    server.await
                })
            }));
            witnesses.handles.push(
                rx.recv_timeout(Duration::from_secs(10))
                    .context("witness did not start")?,
            );
            witnesses.endpoints.push(api::witnessing::WitnessEndpoint {
                url,
                key,
                ca_certificates: None,
            });
        }
        Ok(witnesses)
    }

    fn stop(self) {
        for handle in &self.handles {
            actix_web::rt::System::new().block_on(handle.stop(true));
        }
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

/// Most tables in single-record mode: each from its own address, 127.0.0.2 to 127.0.0.254.
const MAX_ADDRESSED_TABLES: usize = 253;

/// The loopback address table `t` sends from in single-record mode.
fn table_address(t: usize) -> std::net::IpAddr {
    let last = u8::try_from(t + 2).unwrap_or(u8::MAX);
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, last))
}

/// Registers `table_id` with the admin key, waiting out a 429 (the admin key's own limit, or the
/// address limit the benchmark was given) as a careful client does.
async fn register_table(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    body: &serde_json::Value,
) -> anyhow::Result<()> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let r = client
            .post(format!("{base}/api/v1/tables"))
            .bearer_auth(token)
            .json(body)
            .send()
            .await?;
        let status = r.status().as_u16();
        if status == 201 {
            return Ok(());
        }
        if status == 429 && attempt < 120 {
            let wait = r
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(1)
                .clamp(1, 30);
            tokio::time::sleep(Duration::from_secs(wait)).await;
            continue;
        }
        let answer = r.text().await.unwrap_or_default();
        return Err(anyhow!(
            "registering {}: {status} {answer}",
            body["table_id"]
        ));
    }
}

/// One request's answers, a status and (for a refusal) the error code per record, and how long
/// it took.
type Answers = (Vec<(u16, Option<String>)>, Duration);

/// Sends one request of `records` records and reads the answer of each.
async fn submit(
    client: reqwest::Client,
    url: String,
    body: Vec<u8>,
    records: usize,
    batch: bool,
) -> Answers {
    let t = Instant::now();
    let answers = match client
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
    {
        Ok(r) => {
            let status = r.status().as_u16();
            let bytes = r.bytes().await.unwrap_or_default();
            let body: serde_json::Value = if batch || !crate::submit::accepted(status) {
                serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)
            } else {
                serde_json::Value::Null
            };
            match body["results"].as_array() {
                Some(items) if batch => items
                    .iter()
                    .map(|item| {
                        let status = item["status"]
                            .as_u64()
                            .and_then(|s| u16::try_from(s).ok())
                            .unwrap_or(0);
                        (status, item["error"]["code"].as_str().map(str::to_owned))
                    })
                    .collect(),
                // One record, or a batch refused as a whole: each record answered so.
                _ => {
                    let code = body["code"].as_str().map(str::to_owned);
                    vec![(status, code); records]
                }
            }
        }
        Err(_) => vec![(0, None); records],
    };
    (answers, t.elapsed())
}

/// Whether the bodies of `rounds` records fit in the memory available, judged from the
/// `bytes` of the first `made`: a benchmark that would be killed for its memory says so first.
fn fits_in_memory(rounds: u64, made: u64, bytes: usize) -> anyhow::Result<()> {
    let needed = bytes as f64 / made.max(1) as f64 * rounds as f64;
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("MemAvailable:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map(|kb| kb * 1024.0);
    match available {
        // Room is left for the server, PostgreSQL and the answers.
        Some(available) if needed > available * 0.6 => Err(anyhow::anyhow!(
            "{rounds} signed records need about {:.1} GB held before sending; this machine has {:.1} GB available: use fewer --rounds",
            needed / 1e9,
            available / 1e9
        )),
        _ => Ok(()),
    }
}

fn ingest(global: &Global, args: &IngestArgs) -> anyhow::Result<ExitCode> {
    let IngestArgs {
        rounds,
        concurrency,
        tables,
        batch,
        witnesses: witness_count,
        address_limit_per_second,
        address_limit_burst,
    } = *args;
    let batch = batch.max(1);
    let single = batch == 1;
    let tables = tables.unwrap_or(if single { 64 } else { 16 });
    anyhow::ensure!(tables > 0, "--tables must be positive");
    anyhow::ensure!(
        !single || tables <= MAX_ADDRESSED_TABLES,
        "--tables {tables}: with one record per request each table sends from its own loopback address (127.0.0.2 to 127.0.0.254): at most {MAX_ADDRESSED_TABLES} tables"
    );
    anyhow::ensure!(
        address_limit_per_second > 0 && address_limit_burst > 0,
        "--address-limit-per-second and --address-limit-burst must be positive"
    );
    let address_rate = api::auth::RateLimit {
        per_second: address_limit_per_second,
        burst: address_limit_burst,
    };
    // Single records come from each table's own address; batches from one gateway's. The tables
    // are registered from 127.0.0.1, an address of its own.
    let addresses: Vec<std::net::IpAddr> = if single {
        (0..tables).map(table_address).collect()
    } else {
        vec![table_address(0)]
    };
    let plan = plan()?;
    let mut simulator = RouletteSimulator::new(7, plan.clone(), 0.02);
    let keys: Vec<_> = (0..tables)
        .map(|t| {
            (
                format!("BENCH-{t:02}"),
                table_key(7, &format!("BENCH-{t:02}")),
            )
        })
        .collect();
    // The spins are signed before the tables are registered: the tables play from a second ago
    // (records give played_at in whole seconds).
    let plays_from = Utc::now() - chrono::Duration::seconds(1);
    // One body per request, with the client (address) it is sent from and its records: a single
    // envelope from its table's address, or an array of `batch` of them from the gateway's.
    // Signed and written out before the clock starts, so that the client's signing is not in
    // the figure; only the bodies are kept.
    let path = if single { "records" } else { "records/batch" };
    let mut bodies: Vec<(usize, usize, Vec<u8>)> =
        Vec::with_capacity((rounds as usize).div_ceil(batch));
    let mut pending: Vec<Envelope> = Vec::with_capacity(batch);
    let mut body_bytes = 0usize;
    let mut judged_memory = false;
    for i in 0..rounds {
        let table = (i as usize) % tables;
        let (table_id, key) = &keys[table];
        let (record, _) = simulator.spin(table_id, i / tables as u64 + 1, Utc::now());
        pending.push(Envelope::sign(record, key)?);
        if pending.len() == batch || i + 1 == rounds {
            let (client, body) = if single {
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
    // A dedicated database on the durable cluster (or the given one), emptied for each run.
    let (url, mut cluster) = match &global.database_url {
        Some(url) => (url.clone(), None),
        None => {
            let cluster = LocalCluster::open(&global.data_dir.join("pg"))?;
            cluster.drop_database("dozor_bench")?;
            cluster.create_database("dozor_bench")?;
            (cluster.url("dozor_bench"), Some(cluster))
        }
    };
    ledger::storage::migrate(&mut ledger::storage::connect(&url)?)?;
    // As served: with checkpoints signed every 1 000 entries or 10 s.
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
    // The admin key that registers the tables, made as `dozor apikey create` makes one.
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
    let witnesses = LocalWitnesses::start(witness_count, &settings.operator.verifier())?;
    settings.witnesses = witnesses.endpoints.clone();
    let state = server::state(&settings)?;
    let witness_clients = api::witnessing::spawn(
        state.pool.clone(),
        state.witnesses.clone(),
        state.metrics.clone(),
    )?;
    let progress_of_witnesses = state.witnesses.clone();
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
    let base = format!("http://127.0.0.1:{port}");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let admin_client = reqwest::Client::builder()
            .local_address(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))
            .build()?;
        let clients = addresses
            .iter()
            .map(|address| {
                reqwest::Client::builder()
                    .local_address(*address)
                    .pool_max_idle_per_host(concurrency.max(1))
                    .build()
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (table_id, key) in &keys {
            let body = json!({"table_id": table_id, "game": "roulette", "location": "benchmark",
                              "public_key": encode_public_key(&key.verifying_key()),
                              "valid_from": plays_from});
            register_table(&admin_client, &base, &admin.token(), &body).await?;
        }
        eprintln!("tables registered, records signed; submitting {rounds} spins");
        let started = Instant::now();
        let outcomes: Vec<Answers> = stream::iter(bodies)
            .map(|(client, records, body)| {
                let client = clients.get(client).unwrap_or(&admin_client).clone();
                submit(
                    client,
                    format!("{base}/api/v1/{path}"),
                    body,
                    records,
                    !single,
                )
            })
            .buffer_unordered(concurrency.max(1))
            .collect()
            .await;
        anyhow::Ok((started.elapsed(), outcomes))
    });
    runtime.block_on(handle.stop(true));
    let _ = server_thread.join();
    server::final_checkpoint(&settings)?;
    // Where the witnesses stood when the last record was acknowledged (they are not waited
    // for: ingest never waits for them).
    let witnessed = progress_of_witnesses.progress();
    witness_clients.stop();
    witnesses.stop();
    if let Some(c) = cluster.as_mut() {
        c.stop()?;
    }
    let (elapsed, outcomes) = result?;
    let mut tally = crate::submit::Tally::default();
    for (status, code) in outcomes.iter().flat_map(|(answers, _)| answers) {
        tally.count(*status, code.as_deref());
    }
    // A record the server never answered for is not accepted either.
    let answered: usize = tally.by_status.values().sum();
    if answered < rounds as usize {
        for _ in answered..rounds as usize {
            tally.count(0, Some("no result"));
        }
    }
    if let Some(line) = tally.refusal_line() {
        return Err(NotMeasured(line).into());
    }
    let accepted = tally.by_status.get(&201).copied().unwrap_or(0);
    let mut latencies: Vec<Duration> = outcomes.iter().map(|(_, d)| *d).collect();
    latencies.sort_unstable();
    let seconds = elapsed.as_secs_f64();
    let default_limit = address_rate == server::DEFAULT_ADDRESS_RATE;
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "signed roulette spins over HTTP into the durable ledger (client and server on this machine)",
            "spins": rounds,
            "accepted_201": accepted,
            "concurrency": concurrency,
            "tables": tables,
            "records_per_request": batch,
            "addresses": addresses.len(),
            "per_address_limit": {
                "per_second": address_rate.per_second,
                "burst": address_rate.burst,
                "server_default": default_limit,
            },
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "spins_per_second": (rounds as f64 / seconds).round(),
            "latency_ms": {
                "p50": (percentile(&latencies, 50.0) * 100.0).round() / 100.0,
                "p99": (percentile(&latencies, 99.0) * 100.0).round() / 100.0,
                "max": (percentile(&latencies, 100.0) * 100.0).round() / 100.0,
            },
            "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
            "witnesses": witnessed,
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

/// Fills `dozor_bench_tree` with `entries` synthetic leaves and their tree, level by level, in SQL.
/// The entries are not signed records (the chain is not valid): only the tree is measured.
fn generate_tree(conn: &mut diesel::PgConnection, entries: u64) -> anyhow::Result<()> {
    use diesel::RunQueryDsl as _;
    let started = Instant::now();
    diesel::sql_query(
        "INSERT INTO gaming_tables VALUES ('BENCH', 'roulette', 'benchmark', 'none', now())",
    )
    .execute(conn)?;
    diesel::sql_query(
        "INSERT INTO table_keys VALUES ('bench', 'BENCH', decode(repeat('00', 32), 'hex'), now(), now())",
    )
    .execute(conn)?;
    diesel::sql_query(format!(
        "INSERT INTO ledger_entries \
         SELECT i, now(), decode(repeat('00', 32), 'hex'), \
                sha256('\\x00'::bytea || convert_to('entry ' || i, 'UTF8')), \
                convert_to('entry ' || i, 'UTF8'), 'round', 'BENCH', i, 'bench', \
                sha256(convert_to('entry ' || i, 'UTF8')) \
         FROM generate_series(0, {}) AS i",
        entries - 1
    ))
    .execute(conn)?;
    eprintln!(
        "{entries} leaves in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    diesel::sql_query(
        "INSERT INTO merkle_nodes SELECT 1, a.idx / 2, sha256('\\x01'::bytea || a.leaf_hash || b.leaf_hash) \
         FROM ledger_entries a JOIN ledger_entries b ON b.idx = a.idx + 1 WHERE a.idx % 2 = 0",
    )
    .execute(conn)?;
    for level in 2..64 {
        let added = diesel::sql_query(format!(
            "INSERT INTO merkle_nodes SELECT {level}, a.idx / 2, sha256('\\x01'::bytea || a.hash || b.hash) \
             FROM merkle_nodes a JOIN merkle_nodes b ON b.level = {prev} AND b.idx = a.idx + 1 \
             WHERE a.level = {prev} AND a.idx % 2 = 0",
            prev = level - 1
        ))
        .execute(conn)?;
        if added == 0 {
            break;
        }
    }
    diesel::sql_query("ANALYZE").execute(conn)?;
    eprintln!("tree built in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn proofs(global: &Global, entries: u64, samples: usize) -> anyhow::Result<ExitCode> {
    use rand::{Rng as _, SeedableRng as _};
    anyhow::ensure!(entries >= 2, "--entries must be at least 2");
    let (database, mut conn) = KeptDatabase::open(global, "dozor_bench_tree")?;
    let mut size = ledger::storage::reads::size(&mut conn)?;
    if size != entries && size != 0 {
        // A tree of another size: start over (only in dozor's own cluster).
        conn = database.start_over(conn, false, || {
            format!("the database holds {size} entries, not {entries}")
        })?;
        size = 0;
    }
    if size == 0 {
        generate_tree(&mut conn, entries)?;
    }
    let root = ledger::storage::tree::root(&mut conn, entries)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9162);
    let mut latencies = Vec::with_capacity(samples);
    for _ in 0..samples {
        let index = rng.gen_range(0..entries);
        let t = Instant::now();
        let (proof_root, proof) =
            ledger::storage::tree::inclusion_proof(&mut conn, index, entries)?;
        latencies.push(t.elapsed());
        let leaf = ledger::storage::reads::entry(&mut conn, index)?
            .map(|r| r.leaf_hash)
            .ok_or_else(|| anyhow!("entry {index} missing"))?;
        let leaf: [u8; 32] = leaf.try_into().map_err(|_| anyhow!("bad leaf"))?;
        expect_result(
            proof_root == root
                && dozor_log::merkle::verify_inclusion(index, entries, &leaf, &proof, &root),
            || {
                format!(
                    "the inclusion proof of entry {index} in the tree of {entries} does not verify"
                )
            },
        )?;
    }
    drop(conn);
    database.stop()?;
    latencies.sort_unstable();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "inclusion proof from PostgreSQL (two queries per proof), one connection",
            "entries": entries,
            "samples": samples,
            "all_verified": true,
            "latency_ms": {
                "p50": (percentile(&latencies, 50.0) * 1000.0).round() / 1000.0,
                "p99": (percentile(&latencies, 99.0) * 1000.0).round() / 1000.0,
                "max": (percentile(&latencies, 100.0) * 1000.0).round() / 1000.0,
            },
        }))?
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn an_ingest_run_too_large_to_hold_is_refused_before_it_starts() {
        // 10 000 records of 1 300 bytes each: 13 MB for a million, well within any machine.
        assert!(fits_in_memory(1_000_000, 10_000, 13_000_000).is_ok());
        // A hundred thousand million of them: 1 300 × 10¹¹ bytes = 130 000 GB.
        let refused = fits_in_memory(100_000_000_000, 10_000, 13_000_000).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("need about 130000.0 GB held before sending"),
            "{refused}"
        );
    }

    #[test]
    fn single_record_tables_send_from_their_own_loopback_addresses() {
        assert_eq!(table_address(0).to_string(), "127.0.0.2");
        assert_eq!(
            table_address(MAX_ADDRESSED_TABLES - 1).to_string(),
            "127.0.0.254"
        );
    }
}
