//! Benchmarks run as commands, so the figures in docs/PERFORMANCE.md can be reproduced.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::bench_db::KeptDatabase;
use crate::games::{table_key, RouletteSimulator};
use actix_web::{App, HttpServer};
use anyhow::{anyhow, Context as _};
use api::server::{self, Settings};
use chrono::Utc;
use futures_util::{stream, StreamExt as _};
use ledger::keys::encode_public_key;
use ledger::storage::cluster::LocalCluster;
use ledger::Envelope;
use serde_json::json;

use ledger::storage::database::DatabaseChoice as Global;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    kind: BenchKind,
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
    Ingest {
        /// Signed spins to submit.
        #[arg(long, default_value_t = 20_000)]
        rounds: u64,
        /// Requests in flight at once.
        #[arg(long, default_value_t = 64)]
        concurrency: usize,
        /// Tables submitting.
        #[arg(long, default_value_t = 16)]
        tables: usize,
        /// Records per request: 1 posts each to `/records`, more posts arrays to `/records/batch`.
        #[arg(long, default_value_t = 1)]
        batch: usize,
        /// Witnesses (C2SP tlog-witness) to show every checkpoint to, each a `dozor witness`
        /// server started on this machine: the cost of being witnessed.
        #[arg(long, default_value_t = 0)]
        witnesses: usize,
    },
    /// `dozor verify` of a large inspection export (filled once, kept), against bare batch
    /// verification of the same signatures.
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

pub fn run(global: &Global, args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.kind {
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
        BenchKind::Ingest {
            rounds,
            concurrency,
            tables,
            batch,
            witnesses,
        } => ingest(global, rounds, concurrency, tables, batch.max(1), witnesses),
    }
}

pub(crate) fn plan() -> anyhow::Result<rules::Plan> {
    rules::PlanBook::builtin()?
        .get(server::DEFAULT_PLAN)
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
    fn start(n: usize, log: &ledger::checkpoint::NoteVerifier) -> anyhow::Result<LocalWitnesses> {
        let mut witnesses = LocalWitnesses {
            endpoints: Vec::new(),
            handles: Vec::new(),
            threads: Vec::new(),
            _stores: tempfile::tempdir()?,
        };
        for i in 0..n {
            let signer = ledger::cosignature::CosignatureSigner::new(
                &format!("witness.bench/{i}"),
                ledger::keys::generate(),
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

fn ingest(
    global: &Global,
    rounds: u64,
    concurrency: usize,
    tables: usize,
    batch: usize,
    witness_count: usize,
) -> anyhow::Result<ExitCode> {
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
        ledger::checkpoint::NoteSigner::new("dozor.bench/ledger", ledger::keys::generate())?,
    );
    settings.checkpoints = Some(ledger::ingest::CheckpointPolicy {
        every_entries: 1_000,
        every: Duration::from_secs(10),
        witness: None,
    });
    // The admin key that registers the tables, made as `dozor apikey create` makes one.
    let admin = ledger::access::ApiKeySecret::generate();
    ledger::storage::api_keys::create_api_key(
        &mut ledger::storage::connect(&settings.database_url)?,
        settings.operator.signing_key(),
        &ledger::storage::api_keys::NewApiKey {
            name: "bench-admin",
            role: ledger::access::Role::Admin,
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

    let plan = plan()?;
    let mut simulator = RouletteSimulator::new(7, plan.clone(), 0.02);
    let mut envelopes = Vec::with_capacity(rounds as usize);
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
    for i in 0..rounds {
        let (table_id, key) = &keys[(i as usize) % tables.max(1)];
        let (record, _) = simulator.spin(table_id, i / tables as u64 + 1, Utc::now());
        envelopes.push(serde_json::to_value(Envelope::sign(record, key)?)?);
    }
    // One body per request: a single envelope, or an array of `batch` of them.
    let (path, bodies) = if batch == 1 {
        let bodies = envelopes
            .iter()
            .map(serde_json::to_vec)
            .collect::<Result<Vec<_>, _>>()?;
        ("records", bodies)
    } else {
        let bodies = envelopes
            .chunks(batch)
            .map(serde_json::to_vec)
            .collect::<Result<Vec<_>, _>>()?;
        ("records/batch", bodies)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("bench-client")
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(concurrency)
            .build()?;
        for (table_id, key) in &keys {
            let r = client
                .post(format!("{base}/api/v1/tables"))
                .bearer_auth(admin.token())
                .json(
                    &json!({"table_id": table_id, "game": "roulette", "location": "benchmark",
                              "public_key": encode_public_key(&key.verifying_key()),
                              "valid_from": plays_from}),
                )
                .send()
                .await?;
            anyhow::ensure!(
                r.status().as_u16() == 201,
                "registering {table_id}: {}",
                r.status()
            );
        }
        eprintln!("tables registered, records signed; submitting {rounds} spins");
        let started = Instant::now();
        let outcomes: Vec<(Vec<u16>, Duration)> = stream::iter(bodies)
            .map(|body| {
                let client = client.clone();
                let url = format!("{base}/api/v1/{path}");
                async move {
                    let t = Instant::now();
                    let statuses = match client
                        .post(url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await
                    {
                        Ok(r) if batch == 1 => vec![r.status().as_u16()],
                        Ok(r) => r
                            .json::<serde_json::Value>()
                            .await
                            .ok()
                            .and_then(|v| {
                                v["results"].as_array().map(|items| {
                                    items
                                        .iter()
                                        .map(|i| i["status"].as_u64().unwrap_or(0) as u16)
                                        .collect()
                                })
                            })
                            .unwrap_or_default(),
                        Err(_) => vec![0],
                    };
                    (statuses, t.elapsed())
                }
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
    let accepted = outcomes
        .iter()
        .flat_map(|(s, _)| s)
        .filter(|s| **s == 201)
        .count();
    let mut latencies: Vec<Duration> = outcomes.iter().map(|(_, d)| *d).collect();
    latencies.sort_unstable();
    let seconds = elapsed.as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": "signed roulette spins over HTTP into the durable ledger (client and server on this machine)",
            "spins": rounds,
            "accepted_201": accepted,
            "concurrency": concurrency,
            "tables": tables,
            "records_per_request": batch,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "spins_per_second": (accepted as f64 / seconds).round(),
            "latency_ms": {
                "p50": (percentile(&latencies, 50.0) * 100.0).round() / 100.0,
                "p99": (percentile(&latencies, 99.0) * 100.0).round() / 100.0,
                "max": (percentile(&latencies, 100.0) * 100.0).round() / 100.0,
            },
            "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
            "witnesses": witnessed,
        }))?
    );
    Ok(if accepted as u64 == rounds {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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
        anyhow::ensure!(
            proof_root == root
                && ledger::merkle::verify_inclusion(index, entries, &leaf, &proof, &root),
            "proof for {index} does not verify"
        );
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
