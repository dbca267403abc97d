use std::process::ExitCode;

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use api::server::{self, Settings};
use dozor_log::checkpoint::NoteSigner;
use ledger::ingest::CheckpointPolicy;
use ledger::storage::database::Database;
use std::path::PathBuf;

use crate::config::{self, Config};
use ledger::storage::database::DatabaseChoice;
use serde_json::json;

/// Flags of `serve`. Each overrides its key of the configuration file (`dozor.toml`,
/// deploy/dozor.example.toml) and its environment variable; the loader is `crate::config`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The configuration file; default `<data dir>/dozor.toml` if it exists.
    #[arg(long, env = "DOZOR_CONFIG")]
    config: Option<PathBuf>,
    /// Address to listen on (`server.listen`, default 127.0.0.1:8080).
    #[arg(long)]
    bind: Option<String>,
    /// HTTP worker threads (`server.workers`, default one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// Local hour (Europe/Prague) at which a gaming day starts (`gaming_day.start_hour`).
    #[arg(long)]
    gaming_day_start_hour: Option<u32>,
    /// Hours after which a round received is flagged late (`gaming_day.late_after_hours`).
    #[arg(long)]
    late_after_hours: Option<u32>,
    /// Operator checkpoint key (`ledger.operator_key`); default `<data dir>/operator.key`,
    /// created on first start if missing.
    #[arg(long)]
    operator_key: Option<PathBuf>,
    /// Sign a checkpoint after this many new entries (`ledger.checkpoint_every`)...
    #[arg(long)]
    checkpoint_every: Option<u64>,
    /// ...or this many seconds after the last one (`ledger.checkpoint_seconds`).
    #[arg(long)]
    checkpoint_seconds: Option<u64>,
    /// Keep every signed checkpoint in this file (`ledger.checkpoint_witness`; default
    /// `<data dir>/checkpoints.jsonl`): a ledger rolled back behind it is refused at start and
    /// named by `verify --witness FILE`.
    #[arg(long)]
    checkpoint_witness: Option<PathBuf>,
    /// Requests per second each API key may make on average (`limits.api_key_rate`)...
    #[arg(long)]
    api_key_rate: Option<u32>,
    /// ...and at once (`limits.api_key_burst`).
    #[arg(long)]
    api_key_burst: Option<u32>,
    /// Requests per second one client address may make on average (`limits.address_rate`)...
    #[arg(long)]
    address_rate: Option<u32>,
    /// ...and at once (`limits.address_burst`).
    #[arg(long)]
    address_burst: Option<u32>,
    /// The owner's database URL, used only to migrate at start (`database.owner_url`).
    #[arg(long, hide_env_values = true)]
    owner_database_url: Option<String>,
    /// A streaming replica that reports, exports and lists read from (`database.replica_url`),
    /// each cut at the largest signed checkpoint it holds.
    #[arg(long, hide_env_values = true)]
    replica_database_url: Option<String>,
    /// The gambling-tax rate table (`reports.tax_rates`) instead of the bundled one.
    #[arg(long)]
    tax_rates: Option<PathBuf>,
    /// When the nightly job seals the last closed gaming day's reports, `HH:MM`
    /// (Europe/Prague), or `off` (`reports.nightly_at`, default 06:30).
    #[arg(long)]
    nightly_at: Option<String>,
    /// `text` or `json` logs (`log.format`).
    #[arg(long)]
    log_format: Option<String>,
}

impl ServeArgs {
    /// The flags given, as a partial configuration.
    fn overrides(&self) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        let mut set = |key: &str, value: Option<serde_json::Value>| {
            if let Some(value) = value {
                let (section, name) = key.split_once('.').unwrap_or(("", key));
                let entry = out
                    .entry(section.to_owned())
                    .or_insert_with(|| serde_json::Value::Object(Default::default()));
                if let serde_json::Value::Object(map) = entry {
                    map.insert(name.to_owned(), value);
                }
            }
        };
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| json!(p.display().to_string()));
        set("server.listen", given(&self.bind));
        set("server.workers", given(&self.workers));
        set("gaming_day.start_hour", given(&self.gaming_day_start_hour));
        set("gaming_day.late_after_hours", given(&self.late_after_hours));
        set("ledger.operator_key", path(&self.operator_key));
        set("ledger.checkpoint_every", given(&self.checkpoint_every));
        set("ledger.checkpoint_seconds", given(&self.checkpoint_seconds));
        set("ledger.checkpoint_witness", path(&self.checkpoint_witness));
        set("limits.api_key_rate", given(&self.api_key_rate));
        set("limits.api_key_burst", given(&self.api_key_burst));
        set("limits.address_rate", given(&self.address_rate));
        set("limits.address_burst", given(&self.address_burst));
        set("database.owner_url", given(&self.owner_database_url));
        set("database.replica_url", given(&self.replica_database_url));
        set("reports.tax_rates", path(&self.tax_rates));
        set("reports.nightly_at", given(&self.nightly_at));
        set("log.format", given(&self.log_format));
        serde_json::Value::Object(out)
    }
}

/// A flag's value as configuration, if the flag was given.
fn given<T: serde::Serialize>(value: &Option<T>) -> Option<serde_json::Value> {
    value.as_ref().map(|v| json!(v))
}

/// Reads the operator key, or creates one at the default place (under `origin`, or an origin
/// of its own).
pub(super) fn operator_key(
    global: &DatabaseChoice,
    path: Option<PathBuf>,
    origin: Option<&str>,
) -> anyhow::Result<NoteSigner> {
    Ok(ledger::operator_key::load_or_create(
        &global.data_dir,
        path,
        origin,
    )?)
}

/// The operator key at `path`, or else at the default place; never created (for commands that
/// sign on behalf of an existing ledger).
pub(super) fn existing_operator_key(
    global: &DatabaseChoice,
    path: Option<PathBuf>,
) -> anyhow::Result<NoteSigner> {
    Ok(ledger::operator_key::load_existing(&global.data_dir, path)?)
}

/// Loads the configuration (and starts the logs as it says); a bad one is one line.
pub fn configuration(global: &DatabaseChoice, args: &ServeArgs) -> anyhow::Result<Config> {
    let source = config::Source::find(args.config.clone(), &global.data_dir);
    Ok(config::load(&source, &args.overrides())?)
}

pub fn run(global: &DatabaseChoice, args: &ServeArgs, config: Config) -> anyhow::Result<ExitCode> {
    api::configured::survive_hangup().context("taking SIGHUP for reloads")?;
    let clock = config.clock()?;
    let nightly_at = config.nightly_at().map_err(anyhow::Error::msg)?;
    if let Some(dir) = config.tiles_publish_dir() {
        // A folder that cannot be made or written stops the start, named.
        ledger::tile_publish::Publisher::new(&dir)
            .context("configuration: key `tiles.publish_dir`")?;
    }
    let global = database_choice(global, &config);
    let owner_url = config
        .database
        .owner_url
        .clone()
        .filter(|u| !u.trim().is_empty());
    let db = Database::open_as_owner(global.database_url.clone(), owner_url, &global.data_dir)?;
    // Migrations ran as the owner; the server itself gets only the writer's privileges.
    let settings = settings(&global, &config, db.server_url(), clock)?;
    let state = server::state(&settings)?;
    let tiles = config
        .tiles_publish_dir()
        .map(|dir| (dir, settings.tile_handoff.clone()));
    let witness = settings
        .checkpoints
        .as_ref()
        .and_then(|c| c.witness.clone());
    let walk = WalkSettings {
        every_days: config.reports.full_walk_every_days,
        cores: config.reports.full_walk_cores,
    };
    let background = Background::start(&state, (nightly_at, witness, walk), &global, tiles)?;
    let ministry = ministry_listener(&config)?;
    let reload = reloader(&global, args, &config);
    let served = serve_http(state, &config, ministry, reload);
    tracing::info!("stopped accepting; requests in flight have finished");
    if let Some(scheduler) = background.scheduler {
        scheduler.stop();
    }
    if let Some(walker) = background.walker {
        walker.stop();
    }
    let sealed = server::final_checkpoint(&settings);
    if sealed.is_ok() {
        tracing::info!("final checkpoint signed over every acknowledged record");
    }
    background.witness_clients.stop();
    if let Some(tiles) = background.tiles {
        // After the final checkpoint: the folder ends with it.
        tiles.stop();
    }
    db.close()?;
    tracing::info!("stopped");
    let bind = &config.server.listen;
    served.with_context(|| format!("serving on {bind}"))?;
    sealed?;
    Ok(ExitCode::SUCCESS)
}

/// The database to serve: DATABASE_URL and --database-url win over the file's `database.url`.
fn database_choice(global: &DatabaseChoice, config: &Config) -> DatabaseChoice {
    DatabaseChoice {
        database_url: global
            .database_url
            .clone()
            .or_else(|| config.database.url.clone())
            .filter(|u| !u.trim().is_empty()),
        data_dir: global.data_dir.clone(),
    }
}

/// The server's settings from the configuration; the files it names (the delivery's keys, the
/// tax rates) are read here, so that a bad one stops the server before it starts.
fn settings(
    global: &DatabaseChoice,
    config: &Config,
    server_url: &str,
    clock: rules::gaming_day::GamingDayClock,
) -> anyhow::Result<Settings> {
    let mut settings = Settings::new(
        server_url.to_owned(),
        operator_key(
            global,
            config.ledger.operator_key.clone(),
            config.ledger.origin.as_deref(),
        )?,
    );
    settings.clock = clock;
    settings.data_dir = Some(global.data_dir.clone());
    settings.pool_size = config.database.pool_size;
    settings.replica_url = config
        .database
        .replica_url
        .clone()
        .filter(|u| !u.trim().is_empty());
    settings.max_batch = config.ledger.max_batch;
    settings.body_limit = config.limits.body_limit_bytes;
    settings.in_flight = config.limits.in_flight();
    settings.configured = reloadable_parts(config)?;
    settings.api_key_rate = api::auth::RateLimit {
        per_second: config.limits.api_key_rate,
        burst: config.limits.api_key_burst,
    };
    settings.address_rate = api::auth::RateLimit {
        per_second: config.limits.address_rate,
        burst: config.limits.address_burst,
    };
    settings.checkpoints = Some(CheckpointPolicy {
        every_entries: config.ledger.checkpoint_every,
        every: std::time::Duration::from_secs(config.ledger.checkpoint_seconds),
        // By default beside the data (what a restore check holds a copy to); better on storage
        // the database's administrators cannot write (`ledger.checkpoint_witness`).
        witness: Some(ledger::witness::Witness::new(
            config
                .ledger
                .checkpoint_witness
                .clone()
                .unwrap_or_else(|| global.data_dir.join("checkpoints.jsonl")),
        )),
    });
    settings.witnesses = config.witness_endpoints()?;
    // Published as tiles: the writer hands what it commits to the publisher.
    settings.tile_handoff = config
        .tiles_publish_dir()
        .map(|_| std::sync::Arc::new(ledger::tile_publish::handoff::Handoff::new()));
    Ok(settings)
}

/// The parts of `config` a running server re-reads on SIGHUP (`api::configured`); the files
/// they name (the delivery's keys, the tax rates) are read here, so that a bad one is refused
/// whole: at the start it stops the server, on a reload it leaves the configuration in force.
fn reloadable_parts(config: &Config) -> anyhow::Result<api::configured::Configured> {
    use std::sync::Arc;
    let mut configured = api::configured::Configured {
        operator_config: config.operator_config()?.map(Arc::new),
        ..Default::default()
    };
    if let Some(delivery) = &config.delivery {
        let base = config.file_dir.clone().unwrap_or_default();
        configured.delivery_keys = Some(Arc::new(
            reports::mf::keys::DeliveryKeys::load(delivery, &base, &|name| {
                std::env::var(name).ok()
            })
            .context("configuration: delivery")?,
        ));
    }
    if let Some(path) = &config.reports.tax_rates {
        configured.tax_rates = Some(Arc::new(
            reports::tax::RateTable::load(path)
                .with_context(|| "configuration: key `reports.tax_rates`")?,
        ));
    }
    Ok(configured)
}

/// How `serve` re-reads its configuration on SIGHUP: the same file (or, when none was there at
/// the start, the data directory's `dozor.toml` if it has appeared since), the same
/// environment and flags. The keys that change only at a restart are named in the log.
fn reloader(
    global: &DatabaseChoice,
    args: &ServeArgs,
    started: &Config,
) -> impl Fn() -> Result<api::configured::Configured, String> + Send + Sync + 'static {
    let global = global.clone();
    let explicit = args.config.clone();
    let flags = args.overrides();
    let started = config::restart_keys(started);
    move || {
        let source = config::Source::find(explicit.clone(), &global.data_dir);
        let config = config::load(&source, &flags).map_err(|e| e.to_string())?;
        let changed = config::changed_keys(&started, &config::restart_keys(&config));
        if !changed.is_empty() {
            tracing::warn!(
                keys = %changed.join(", "),
                "configuration changed where only a restart applies it; in force until then: the values of the start"
            );
        }
        reloadable_parts(&config).map_err(|e| format!("{e:#}"))
    }
}

/// The folder tiles are published to, and what the ledger writer hands the publisher.
type TilesBeside = (
    PathBuf,
    Option<std::sync::Arc<ledger::tile_publish::handoff::Handoff>>,
);

/// The full walk's schedule and budget (`[reports] full_walk_*`).
struct WalkSettings {
    every_days: u32,
    cores: f64,
}

/// What runs beside the HTTP server: the witness clients, the nightly scheduler and the tile
/// publisher.
struct Background {
    witness_clients: api::witnessing::WitnessClients,
    scheduler: Option<api::nightly::Scheduler>,
    walker: Option<api::full_walk::Walker>,
    tiles: Option<ledger::tile_publish::thread::TilePublishing>,
}

impl Background {
    fn start(
        state: &api::state::AppState,
        (nightly_at, checkpoint_witness, walk): (
            Option<chrono::NaiveTime>,
            Option<ledger::witness::Witness>,
            WalkSettings,
        ),
        global: &DatabaseChoice,
        tiles: Option<TilesBeside>,
    ) -> anyhow::Result<Background> {
        let tiles = tiles
            .map(|(dir, handoff)| {
                tracing::info!(dir = %dir.display(), "publishing the ledger as tiles");
                let series = api::metrics::TileSeries::register(&state.metrics)?;
                let report = Box::new(move |size| series.published(size));
                ledger::tile_publish::thread::spawn(state.pool.clone(), dir, handoff, report)
                    .context("starting the tile publisher")
            })
            .transpose()?;
        let witness_clients = api::witnessing::spawn(
            state.pool.clone(),
            state.witnesses.clone(),
            state.metrics.clone(),
        )
        .context("starting the witness clients")?;
        let scheduler = nightly_at
            .map(|at| {
                api::nightly::spawn(
                    state.clone(),
                    api::nightly::NightlySchedule {
                        at,
                        data_dir: global.data_dir.clone(),
                        checkpoint_witness: checkpoint_witness.clone(),
                    },
                )
            })
            .transpose()
            .context("starting the nightly scheduler")?;
        let walker = nightly_at
            .filter(|_| walk.every_days > 0)
            .map(|at| {
                api::full_walk::spawn(
                    state.clone(),
                    api::full_walk::WalkSchedule {
                        at,
                        every_days: walk.every_days,
                        budget: ledger::throttle::Budget::cores(
                            (walk.cores > 0.0).then_some(walk.cores),
                        ),
                        data_dir: global.data_dir.clone(),
                        checkpoint_witness,
                    },
                )
            })
            .transpose()
            .context("starting the full walk")?;
        Ok(Background {
            witness_clients,
            scheduler,
            walker,
            tiles,
        })
    }
}

/// Serves the API (and the Ministry's listener when configured) until a signal stops it.
fn serve_http(
    state: api::state::AppState,
    config: &Config,
    ministry: Option<(String, rustls::ServerConfig, String)>,
    reload: impl Fn() -> Result<api::configured::Configured, String> + Send + Sync + 'static,
) -> std::io::Result<()> {
    let workers = config
        .server
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let listen = config.server.listen.clone();
    let ministry_limits = config.limits.ministry_listener();
    tracing::info!(bind = %listen, workers, "dozor listening");
    let ministry_state = state.clone();
    actix_web::rt::System::new().block_on(async move {
        api::configured::reload_on_hangup(state.configured.clone(), reload)?;
        let api = HttpServer::new(move || App::new().configure(server::configure(state.clone())))
            .workers(workers)
            .client_request_timeout(server::REQUEST_HEAD_TIMEOUT)
            .client_disconnect_timeout(std::time::Duration::from_secs(5))
            .keep_alive(server::KEEP_ALIVE)
            // On SIGTERM/SIGINT: stop accepting, let requests in flight (ingests waiting for
            // their commit) finish for up to this long, then return.
            .shutdown_timeout(SHUTDOWN_GRACE.as_secs())
            .bind(&listen)?
            .run();
        let Some((ministry_listen, tls, download_path)) = ministry else {
            return api.await;
        };
        tracing::info!(bind = %ministry_listen, path = %download_path, "the Ministry's listener (HTTPS, its client certificates only)");
        let ministry = api::publish::serve(
            api::publish::ListenerSettings {
                listen: ministry_listen,
                limits: ministry_limits,
                shutdown_seconds: SHUTDOWN_GRACE.as_secs(),
                request_head_timeout: server::REQUEST_HEAD_TIMEOUT,
                keep_alive: MINISTRY_KEEP_ALIVE,
            },
            tls,
            api::publish::MinistryState {
                state: ministry_state,
                download_path,
            },
        )?;
        futures_util::future::try_join(api, ministry).await.map(|_| ())
    })
}

/// The Ministry's listener when `[delivery] listen` asks for one: its address, TLS (the
/// server's chain and key, the Ministry's client certificates) and download path.
fn ministry_listener(
    config: &Config,
) -> anyhow::Result<Option<(String, rustls::ServerConfig, String)>> {
    let Some(delivery) = &config.delivery else {
        return Ok(None);
    };
    let Some(listen) = &delivery.listen else {
        return Ok(None);
    };
    let base = config.file_dir.clone().unwrap_or_default();
    let file = |path: &Option<PathBuf>, key: &str| -> anyhow::Result<Vec<u8>> {
        let path = path.as_ref().with_context(|| {
            format!("configuration: delivery.{key} is needed with delivery.listen")
        })?;
        Ok(reports::mf::keys::read(&base, path)?)
    };
    let clients = reports::mf::keys::certificates(&base, &delivery.ministry_client_certificates)?;
    let tls = api::publish::tls_config(
        &file(&delivery.server_certificate, "server_certificate")?,
        &file(&delivery.server_key, "server_key")?,
        clients,
    )
    .context("configuration: delivery")?;
    Ok(Some((
        listen.clone(),
        tls,
        delivery.download_path().to_owned(),
    )))
}

/// How long an idle connection of the Ministry's is kept open.
const MINISTRY_KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(5);

/// How long requests in flight may take to finish at shutdown.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(30);
