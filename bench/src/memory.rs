//! `dozor bench memory`: the server's memory under concurrency, as a separate `dozor serve`
//! process whose resident set is read from /proc. Two loads, one after the other:
//!
//! 1. bodies: many large batch bodies at once, with no key and nothing valid in them (each
//!    answered 400, or 503 when the server's budget of bodies in flight is spent);
//! 2. files: several XLSX downloads of 100 000 findings at once (a ledger of rounds that each
//!    overpay a bet, filled once and kept).
//!
//! Throughout, `/healthz` is asked every 100 ms; every question must be answered. The figure is
//! the server's peak resident set during each load (`VmHWM` after the peak is reset through
//! `/proc/<pid>/clear_refs`, and the largest `VmRSS` sampled every 20 ms).

use std::process::{Child, ExitCode};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context as _};
use chrono::{TimeZone as _, Utc};
use ledger::storage::append::WriterCache;
use ledger::storage::database::DatabaseChoice as Global;
use ledger::storage::registry::NewTable;
use serde_json::json;

use crate::database::KeptDatabase;
use crate::outcome::expect_result;
use simulator::games::table::table_key;

const DATABASE: &str = "dozor_bench_memory";
const TABLE: &str = "MEM-R01";
const SEED: u64 = 29;

/// What the drill sends.
#[derive(Debug, Clone, clap::Args)]
pub struct MemoryArgs {
    /// Batch bodies sent at once.
    #[arg(long, default_value_t = 120)]
    bodies: usize,
    /// Size of each body, in MiB (at most the server's batch limit, 16).
    #[arg(long, default_value_t = 15)]
    body_mib: usize,
    /// XLSX downloads of the findings at once.
    #[arg(long, default_value_t = 8)]
    downloads: usize,
    /// Rounds in the ledger, each with one finding (the download holds at most 100 000).
    #[arg(long, default_value_t = 100_000)]
    findings: u64,
    /// Files the started server makes at once (`limits.file_downloads`; default: the
    /// server's). The others wait for a turn, then 503.
    #[arg(long)]
    file_downloads: Option<usize>,
}

pub fn memory(global: &Global, args: &MemoryArgs) -> anyhow::Result<ExitCode> {
    let operator = crate::direct::operator(0x5e)?;
    let (database, mut conn) = KeptDatabase::open_filled(
        global,
        DATABASE,
        args.findings,
        "at one roulette table, each overpaying a bet",
        |conn| fill(conn, &operator, args.findings),
    )?;
    let token = compliance_key(&mut conn, &operator)?;
    drop(conn);
    let dir = tempfile::tempdir()?;
    let key_file = dir.path().join("operator.key");
    ledger::operator_key::write_private(&key_file, &operator.private_key())?;
    let mut server =
        ServerProcess::start(&database.url, dir.path(), &key_file, args.file_downloads)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async {
        server.wait_healthy().await?;
        let idle = server.resident()?;
        println!(
            "server: pid {}, resident at rest {}",
            server.pid(),
            mib(idle.0)
        );
        let bodies = server
            .measure("bodies", || send_bodies(server.base.clone(), args))
            .await?;
        let files = server
            .measure("files", || {
                download_files(server.base.clone(), token.clone(), args)
            })
            .await?;
        Ok::<_, anyhow::Error>((bodies, files))
    });
    server.stop();
    database.stop()?;
    let (bodies, files) = outcome?;
    expect_result(bodies && files, || {
        "a load was not answered as expected (see above)".into()
    })?;
    Ok(ExitCode::SUCCESS)
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / 1_048_576.0)
}

/// The ledger: one roulette table, `rounds` spins each paying a straight win 1 000 haléřů too
/// much (one finding each), appended straight into the ledger as ingest judges them.
fn fill(
    conn: &mut diesel::PgConnection,
    operator: &dozor_log::checkpoint::NoteSigner,
    rounds: u64,
) -> anyhow::Result<u64> {
    let plan = crate::outcome::plan()?;
    let key = table_key(SEED, TABLE);
    let started = Utc
        .with_ymd_and_hms(2026, 10, 1, 8, 0, 0)
        .single()
        .ok_or_else(|| anyhow!("start time"))?;
    crate::direct::register(
        conn,
        operator,
        NewTable {
            table_id: TABLE,
            game: "roulette",
            location: "benchmark",
            plan_id: &plan.plan_id,
            wheel_layout: None,
            plays_from: Some(started - chrono::Duration::hours(1)),
            limits: None,
        },
        &key,
    )?;
    let setup = rules::TableSetup::for_table(&plan, rules::GameCode::Roulette, None, None)?;
    let mut cache = WriterCache::default();
    let progress = simulator::progress_bar(rounds, "rounds filled");
    let seq_nos: Vec<u64> = (1..=rounds).collect();
    for chunk in seq_nos.chunks(2_000) {
        let mut batch = Vec::with_capacity(chunk.len());
        for &seq_no in chunk {
            let played_at = started + chrono::Duration::seconds(seq_no as i64 * 20);
            let record = json!({"type": "round", "game": "roulette", "table_id": TABLE,
                "seq_no": seq_no, "plan_id": plan.plan_id, "round_id": format!("MEM-{seq_no}"),
                "played_at": played_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                "outcome": {"result": "number", "number": 7},
                "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "straight",
                          "numbers": [7], "stake_h": 1_000, "paid_h": 37_000}]});
            batch.push(crate::direct::submission(record, &key, &plan, &setup)?);
        }
        crate::direct::append(conn, &batch, &mut cache)?;
        progress.inc(chunk.len() as u64);
    }
    progress.finish_and_clear();
    Ok(rounds)
}

/// A compliance key for the downloads: its token.
fn compliance_key(
    conn: &mut diesel::PgConnection,
    operator: &dozor_log::checkpoint::NoteSigner,
) -> anyhow::Result<String> {
    let secret = dozor_log::access::ApiKeySecret::generate();
    let name = format!("bench-memory-{}", Utc::now().format("%Y%m%d%H%M%S%3f"));
    ledger::storage::api_keys::create_api_key(
        conn,
        operator.signing_key(),
        &ledger::storage::api_keys::NewApiKey {
            name: &name,
            role: dozor_log::access::Role::Compliance,
            created_by: "cli:bench",
            expires_at: None,
        },
        &secret,
        Utc::now(),
    )
    .context("creating the download key")?;
    Ok(secret.token())
}

/// `dozor serve` as a process of its own, on the kept database.
struct ServerProcess {
    child: Child,
    base: String,
}

impl ServerProcess {
    fn start(
        url: &str,
        data_dir: &std::path::Path,
        key: &std::path::Path,
        file_downloads: Option<usize>,
    ) -> anyhow::Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let log = std::fs::File::create(data_dir.join("serve.log"))?;
        let mut command = std::process::Command::new(std::env::current_exe()?);
        if let Some(files) = file_downloads {
            command.env("DOZOR_FILE_DOWNLOADS", files.to_string());
        }
        let child = command
            .args(["serve", "--nightly-at", "off", "--bind"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--operator-key")
            .arg(key)
            .env("DATABASE_URL", url)
            .env("DOZOR_DATA_DIR", data_dir)
            .env_remove("DOZOR_CONFIG")
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("starting dozor serve")?;
        Ok(ServerProcess {
            child,
            base: format!("http://127.0.0.1:{port}"),
        })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    async fn wait_healthy(&mut self) -> anyhow::Result<()> {
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                return Err(anyhow!("dozor serve exited ({status})"));
            }
            let answered = client.get(format!("{}/healthz", self.base)).send().await;
            if answered.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(anyhow!("dozor serve did not answer /healthz within 60 s"))
    }

    /// `VmRSS` and `VmHWM` of the server, in bytes.
    fn resident(&self) -> anyhow::Result<(u64, u64)> {
        resident_of(self.pid())
    }

    /// Runs `load` while sampling the server's memory and asking `/healthz`; prints the
    /// figures and whether `load` and the health checks went as expected.
    async fn measure<F, Fut>(&self, name: &str, load: F) -> anyhow::Result<bool>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = anyhow::Result<bool>>,
    {
        let pid = self.pid();
        let before = resident_of(pid)?.0;
        // Resets VmHWM to the current resident set (Linux ≥ 4.0); the sampling stands alone
        // where the kernel does not allow it.
        let reset = std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok();
        let running = Arc::new(AtomicBool::new(true));
        let sampled = Arc::new(AtomicU64::new(before));
        let sampler = {
            let (running, sampled) = (Arc::clone(&running), Arc::clone(&sampled));
            tokio::spawn(async move {
                while running.load(Ordering::Relaxed) {
                    if let Ok((rss, _)) = resident_of(pid) {
                        sampled.fetch_max(rss, Ordering::Relaxed);
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        };
        let health = tokio::spawn(ask_health(self.base.clone(), Arc::clone(&running)));
        let started = Instant::now();
        let loaded = load().await;
        let took = started.elapsed();
        running.store(false, Ordering::Relaxed);
        sampler.await?;
        let (asked, answered, slowest) = health.await?;
        let (_, hwm) = resident_of(pid)?;
        let peak = sampled
            .load(Ordering::Relaxed)
            .max(if reset { hwm } else { 0 });
        println!(
            "{name}: {:.1} s; server resident before {}, peak {} (VmHWM {}, sampled {}); \
             /healthz answered {answered}/{asked}, slowest {} ms",
            took.as_secs_f64(),
            mib(before),
            mib(peak),
            if reset { mib(hwm) } else { "not reset".into() },
            mib(sampled.load(Ordering::Relaxed)),
            slowest.as_millis()
        );
        let loaded = loaded?;
        if answered < asked {
            println!(
                "{name}: /healthz went unanswered {} time(s)",
                asked - answered
            );
        }
        Ok(loaded && answered == asked && asked > 0)
    }

    fn stop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(40);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn resident_of(pid: u32) -> anyhow::Result<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let field = |name: &str| -> anyhow::Result<u64> {
        let line = status
            .lines()
            .find(|l| l.starts_with(name))
            .ok_or_else(|| anyhow!("{name} not in /proc/{pid}/status"))?;
        let kib: u64 = line
            .split_whitespace()
            .nth(1)
            .ok_or_else(|| anyhow!("{line}"))?
            .parse()?;
        Ok(kib * 1024)
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

/// Asks `/healthz` every 100 ms (each within 2 s) while `running`: asked, answered 200, the
/// slowest answer.
async fn ask_health(base: String, running: Arc<AtomicBool>) -> (u64, u64, Duration) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap_or_default();
    let (mut asked, mut answered, mut slowest) = (0, 0, Duration::ZERO);
    while running.load(Ordering::Relaxed) {
        let started = Instant::now();
        asked += 1;
        match client.get(format!("{base}/healthz")).send().await {
            Ok(reply) if reply.status().is_success() => {
                answered += 1;
                slowest = slowest.max(started.elapsed());
            }
            Ok(reply) => eprintln!("/healthz answered {}", reply.status()),
            Err(e) => eprintln!(
                "/healthz not answered after {} ms: {e:?}",
                started.elapsed().as_millis()
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (asked, answered, slowest)
}

/// `bodies` batch bodies of `body_mib` MiB at once, no key: `[0,0,…]`, a JSON array of far more
/// than 1 000 items. Each must be refused: 400 (read, then refused) or 503 (the budget spent).
async fn send_bodies(base: String, args: &MemoryArgs) -> anyhow::Result<bool> {
    let size = args.body_mib << 20;
    let mut text = Vec::with_capacity(size);
    text.push(b'[');
    while text.len() + 3 < size {
        text.extend_from_slice(b"0,");
    }
    text.extend_from_slice(b"0]");
    let body = actix_web::web::Bytes::from(text);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .pool_max_idle_per_host(args.bodies)
        .build()?;
    let sent = (0..args.bodies).map(|_| {
        let request = client
            .post(format!("{base}/api/v1/records/batch"))
            .header("Content-Type", "application/json")
            .body(body.clone());
        async move { request.send().await.map(|r| r.status().as_u16()) }
    });
    let statuses = futures_util::future::join_all(sent).await;
    tally("bodies", &statuses, |s| s == 400 || s == 503)
}

/// `downloads` XLSX files of every finding at once; each must be a workbook (200, `PK`) or
/// wait its turn and be refused (503 `server_busy`), and one at least a workbook.
async fn download_files(base: String, token: String, args: &MemoryArgs) -> anyhow::Result<bool> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()?;
    let page: serde_json::Value = client
        .get(format!("{base}/api/v1/findings?limit=1"))
        .bearer_auth(&token)
        .send()
        .await?
        .json()
        .await?;
    let total = page["total"].as_i64().unwrap_or(0);
    println!(
        "files: {} downloads at once of {total} findings as XLSX",
        args.downloads
    );
    let fetched = (0..args.downloads).map(|_| {
        let request = client
            .get(format!("{base}/api/v1/findings?format=xlsx"))
            .bearer_auth(&token);
        async move {
            let reply = request.send().await?;
            let status = reply.status().as_u16();
            let bytes = reply.bytes().await?;
            Ok::<_, reqwest::Error>(if status == 200 && !bytes.starts_with(b"PK") {
                0
            } else {
                status
            })
        }
    });
    let statuses = futures_util::future::join_all(fetched).await;
    let tallied = tally("files", &statuses, |s| s == 200 || s == 503)?
        && statuses.iter().any(|s| matches!(s, Ok(200)));
    if total < reports::findings::MAX_EXPORT.min(args.findings as i64) {
        println!("files: the ledger holds {total} findings, fewer than asked");
        return Ok(false);
    }
    Ok(tallied)
}

/// Prints the statuses by count; whether each is one `expected` allows.
fn tally(
    name: &str,
    statuses: &[Result<u16, reqwest::Error>],
    expected: impl Fn(u16) -> bool,
) -> anyhow::Result<bool> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut all_expected = true;
    for status in statuses {
        let key = match status {
            Ok(s) => {
                all_expected &= expected(*s);
                s.to_string()
            }
            Err(e) => {
                all_expected = false;
                format!("error ({e})")
            }
        };
        *counts.entry(key).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
    println!("{name}: answered {}", parts.join(", "));
    Ok(all_expected)
}
