use std::process::ExitCode;

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use api::server::{self, Settings};
use ledger::checkpoint::NoteSigner;
use ledger::ingest::CheckpointPolicy;
use ledger::storage::database::Database;
use std::path::PathBuf;

use super::Global;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "DOZOR_BIND", default_value = "127.0.0.1:8080")]
    bind: String,
    #[command(flatten)]
    clock: super::ClockArgs,
    /// HTTP worker threads (default: one per core).
    #[arg(long)]
    workers: Option<usize>,
    /// Operator checkpoint key (`dozor keygen --operator`); default `<data dir>/operator.key`,
    /// created on first start if missing.
    #[arg(long, env = "DOZOR_OPERATOR_KEY")]
    operator_key: Option<PathBuf>,
    /// Sign a checkpoint after this many new entries...
    #[arg(long, env = "DOZOR_CHECKPOINT_EVERY", default_value_t = 1000)]
    checkpoint_every: u64,
    /// ...or this many seconds after the last one, whichever comes first.
    #[arg(long, env = "DOZOR_CHECKPOINT_SECONDS", default_value_t = 10)]
    checkpoint_seconds: u64,
    /// Requests per second each API key may make on average...
    #[arg(long, env = "DOZOR_API_KEY_RATE", default_value_t = 20)]
    api_key_rate: u32,
    /// ...and at once.
    #[arg(long, env = "DOZOR_API_KEY_BURST", default_value_t = 60)]
    api_key_burst: u32,
    /// Requests per second one client address may make under the API on average (429 with
    /// Retry-After beyond it)...
    #[arg(long, env = "DOZOR_ADDRESS_RATE", default_value_t = server::DEFAULT_ADDRESS_RATE.per_second)]
    address_rate: u32,
    /// ...and at once.
    #[arg(long, env = "DOZOR_ADDRESS_BURST", default_value_t = server::DEFAULT_ADDRESS_RATE.burst)]
    address_burst: u32,
    /// Also keep every signed checkpoint in this file, outside the database (another disk, a
    /// mount the database's owner cannot write): a ledger rolled back behind it is refused at
    /// start and named by `verify --witness FILE`.
    #[arg(long, env = "DOZOR_CHECKPOINT_WITNESS")]
    checkpoint_witness: Option<PathBuf>,
    /// With DATABASE_URL: the owner's URL, used only to migrate at start; DATABASE_URL is then
    /// the server's own login, a member of `dozor_writer` only.
    #[arg(long, env = "DOZOR_OWNER_DATABASE_URL", hide_env_values = true)]
    owner_database_url: Option<String>,
    /// The configuration file with the operator and its premises (`[operator]`,
    /// `[[premises]]`, `[reconciliation]`) for the Ministry's package; default
    /// `<data dir>/dozor.toml` if it exists.
    #[arg(long, env = "DOZOR_CONFIG")]
    config: Option<PathBuf>,
    /// The gambling-tax rate table of `GET /api/v1/reports/tax` (TOML, docs/TAX.md) instead of
    /// the bundled one; checked at start.
    #[arg(long, env = "DOZOR_TAX_RATES")]
    tax_rates: Option<PathBuf>,
    /// Local time (Europe/Prague) at which the nightly job seals the reports of the gaming day
    /// that closed last (`HH:MM`), or `off` (then run `dozor report nightly` from a timer).
    /// Nights missed while the server was down are caught up at start.
    #[arg(long, env = "DOZOR_NIGHTLY_AT", default_value = "06:30")]
    nightly_at: String,
}

/// Reads the operator key, or creates one at the default place.
pub(super) fn operator_key(global: &Global, path: Option<PathBuf>) -> anyhow::Result<NoteSigner> {
    Ok(ledger::operator_key::load_or_create(
        &global.data_dir,
        path,
        server::DEFAULT_ORIGIN,
    )?)
}

/// The operator key at `path`, or else at the default place; never created (for commands that
/// sign on behalf of an existing ledger).
pub(super) fn existing_operator_key(
    global: &Global,
    path: Option<PathBuf>,
) -> anyhow::Result<NoteSigner> {
    Ok(ledger::operator_key::load_existing(&global.data_dir, path)?)
}

pub fn run(global: &Global, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let nightly_at = match args.nightly_at.as_str() {
        "off" => None,
        text => Some(super::nightly::nightly_time(text)?),
    };
    let owner_url = args
        .owner_database_url
        .clone()
        .filter(|u| !u.trim().is_empty());
    let db = Database::open_as_owner(global.database_url.clone(), owner_url, &global.data_dir)?;
    // Migrations ran as the owner; the server itself gets only the writer's privileges.
    let mut settings = Settings::new(
        db.server_url().to_owned(),
        operator_key(global, args.operator_key.clone())?,
    );
    settings.clock = clock;
    settings.data_dir = Some(global.data_dir.clone());
    let config_path = super::mf::config_path(global, args.config.clone());
    if args.config.is_some() || config_path.exists() {
        settings.operator_config = Some(reports::mf::OperatorConfig::load(&config_path)?);
    }
    if let Some(path) = &args.tax_rates {
        settings.tax_rates = Some(reports::tax::RateTable::load(path)?);
    }
    if args.api_key_rate == 0 || args.api_key_burst == 0 {
        anyhow::bail!("--api-key-rate and --api-key-burst must be at least 1");
    }
    settings.api_key_rate = api::auth::RateLimit {
        per_second: args.api_key_rate,
        burst: args.api_key_burst,
    };
    if args.address_rate == 0 || args.address_burst == 0 {
        anyhow::bail!("--address-rate and --address-burst must be at least 1");
    }
    settings.address_rate = api::auth::RateLimit {
        per_second: args.address_rate,
        burst: args.address_burst,
    };
    settings.checkpoints = Some(CheckpointPolicy {
        every_entries: args.checkpoint_every.max(1),
        every: std::time::Duration::from_secs(args.checkpoint_seconds.max(1)),
        witness: args
            .checkpoint_witness
            .clone()
            .map(ledger::witness::Witness::new),
    });
    let state = server::state(&settings)?;
    let scheduler = nightly_at
        .map(|at| {
            api::nightly::spawn(
                state.clone(),
                api::nightly::NightlySchedule {
                    at,
                    data_dir: global.data_dir.clone(),
                },
            )
        })
        .transpose()
        .context("starting the nightly scheduler")?;
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    tracing::info!(bind = %args.bind, "dozor listening");
    let bind = args.bind.clone();
    let served = actix_web::rt::System::new().block_on(async move {
        HttpServer::new(move || App::new().configure(server::configure(state.clone())))
            .workers(workers)
            .client_request_timeout(server::REQUEST_HEAD_TIMEOUT)
            .client_disconnect_timeout(std::time::Duration::from_secs(5))
            .keep_alive(server::KEEP_ALIVE)
            .bind(&bind)?
            .run()
            .await
    });
    if let Some(scheduler) = scheduler {
        scheduler.stop();
    }
    let sealed = server::final_checkpoint(&settings);
    db.close()?;
    served.with_context(|| format!("serving on {}", args.bind))?;
    sealed?;
    Ok(ExitCode::SUCCESS)
}
