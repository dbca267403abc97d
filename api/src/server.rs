//! Server wiring: state and routes.

use std::sync::Arc;

use actix_web::web;
use ledger::checkpoint::NoteSigner;
use reports::GamingDayClock;
use rules::PlanBook;

use crate::appender::{Appender, CheckpointPolicy};
use crate::auth::{Gatekeeper, RateLimit};
use crate::routes;
use crate::state::{AppState, Directory};

pub const DEFAULT_PLAN: &str = "69games-ziva-hra";
/// Origin (and key name) of checkpoints when the operator has not chosen one.
pub const DEFAULT_ORIGIN: &str = "dozor.local/ledger";
/// 256 KiB: a roulette spin with every bet of a full table is far below this.
pub const DEFAULT_BODY_LIMIT: usize = 256 * 1024;

/// Requests one client address may make under the API unless configured: a gateway in front
/// of many tables stays well within it.
pub const DEFAULT_ADDRESS_RATE: RateLimit = RateLimit {
    per_second: 200,
    burst: 400,
};

/// How long a client may take to send its request head, and how long an idle keep-alive
/// connection is kept: slow or silent clients do not hold connections.
pub const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
pub const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Debug, Clone)]
pub struct Settings {
    pub database_url: String,
    pub clock: GamingDayClock,
    pub default_plan: String,
    pub body_limit: usize,
    pub pool_size: u32,
    /// Most records appended in one transaction.
    pub max_batch: usize,
    /// The operator's key: signs checkpoints and registry events (tables and their keys).
    pub operator: NoteSigner,
    /// When checkpoints are signed; none without a policy.
    pub checkpoints: Option<CheckpointPolicy>,
    /// Requests each API key may make.
    pub api_key_rate: RateLimit,
    /// Requests each client address may make under the API, with or without a key.
    pub address_rate: RateLimit,
}

impl Settings {
    pub fn new(database_url: String, operator: NoteSigner) -> Settings {
        Settings {
            operator,
            database_url,
            clock: GamingDayClock::default(),
            default_plan: DEFAULT_PLAN.to_owned(),
            body_limit: DEFAULT_BODY_LIMIT,
            pool_size: 16,
            max_batch: 1_000,
            checkpoints: None,
            api_key_rate: RateLimit::default(),
            address_rate: DEFAULT_ADDRESS_RATE,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
    #[error("plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error("default plan `{0}` is not among the known plans")]
    UnknownDefaultPlan(String),
}

pub fn state(settings: &Settings) -> Result<AppState, StartError> {
    let plans = PlanBook::builtin()?;
    if plans.get(&settings.default_plan).is_none() {
        return Err(StartError::UnknownDefaultPlan(
            settings.default_plan.clone(),
        ));
    }
    // Never append on top of a ledger rolled back behind a signed checkpoint, whether the
    // database still holds it or only the witness file does.
    let witnessed = match settings
        .checkpoints
        .as_ref()
        .and_then(|p| p.witness.as_ref())
    {
        Some(witness) => witness.read(&[settings.operator.verifier()])?,
        None => Vec::new(),
    };
    ledger::storage::issued::check_not_rolled_back(
        &mut ledger::storage::connect(&settings.database_url)?,
        &witnessed,
    )?;
    Ok(AppState {
        pool: ledger::storage::pool(&settings.database_url, settings.pool_size)?,
        plans: Arc::new(plans),
        clock: settings.clock,
        appender: Appender::start(
            settings.database_url.clone(),
            settings.max_batch,
            20_000,
            settings.operator.clone(),
            settings.checkpoints.clone(),
        ),
        operator: Arc::new(settings.operator.clone()),
        directory: Arc::new(Directory::new([settings.operator.verifier().key])),
        gatekeeper: Arc::new(Gatekeeper::new(
            settings.api_key_rate,
            settings.address_rate,
        )),
        default_plan: settings.default_plan.clone(),
        body_limit: settings.body_limit,
    })
}

/// Routes and extractor settings for an `App`.
pub fn configure(state: AppState) -> impl Fn(&mut web::ServiceConfig) + Clone {
    move |cfg: &mut web::ServiceConfig| {
        let limit = state.body_limit;
        cfg.app_data(web::Data::new(state.clone()));
        routes::extractor_configs(cfg, limit);
        routes::configure(cfg);
    }
}

/// Signs a checkpoint of everything appended, if the latest does not cover it: at shutdown, so
/// that no receipt is left without a checkpoint while the server is down.
pub fn final_checkpoint(settings: &Settings) -> Result<(), StartError> {
    if settings.checkpoints.is_none() {
        return Ok(());
    }
    let mut conn = ledger::storage::connect(&settings.database_url)?;
    let size = ledger::storage::reads::size(&mut conn)?;
    let latest = ledger::storage::checkpoints::latest(&mut conn)
        .map_err(ledger::LedgerError::Database)?
        .map(|c| c.size as u64);
    if latest.is_none_or(|l| l < size) {
        let row = ledger::storage::checkpoints::create(
            &mut conn,
            &settings.operator,
            size,
            chrono::Utc::now(),
        )
        .map_err(|e| match e {
            ledger::storage::tree::TreeError::Storage(s) => StartError::Ledger(s),
            other => StartError::Ledger(ledger::LedgerError::Corrupt(other.to_string())),
        })?;
        if let Some(witness) = settings
            .checkpoints
            .as_ref()
            .and_then(|p| p.witness.as_ref())
        {
            witness.record(size, row.created_at, &row.note)?;
        }
    }
    Ok(())
}
