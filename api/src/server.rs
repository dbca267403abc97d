//! Server wiring: state and routes.

use std::sync::Arc;

use actix_web::web;
use dozor_log::checkpoint::NoteSigner;
use rules::gaming_day::GamingDayClock;
use rules::PlanBook;

use ledger::ingest::{CheckpointPolicy, Ingest, IngestSettings};

use crate::auth::{Gatekeeper, RateLimit};
use crate::routes;
use crate::state::AppState;

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
    /// A streaming replica that reports, exports and lists read from; none: the primary.
    pub replica_url: Option<String>,
    pub clock: GamingDayClock,
    pub default_plan: String,
    pub body_limit: usize,
    /// What all requests in flight may hold at once (bodies' bytes, files being made).
    pub in_flight: crate::in_flight::InFlightLimits,
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
    /// The operator and its premises (the Ministry's package), the delivery's keys and the
    /// tax-rate table: what a SIGHUP re-reads.
    pub configured: crate::configured::Configured,
    /// The data directory: where the nightly job keeps its sealed reports (exports carry
    /// them); none when the server keeps no files.
    pub data_dir: Option<std::path::PathBuf>,
    /// The witnesses each signed checkpoint is shown to (C2SP tlog-witness).
    pub witnesses: Vec<crate::witnessing::WitnessEndpoint>,
    /// Where the ledger writer hands each committed entry to the tile publisher (when the
    /// ledger is published as tiles beside the server).
    pub tile_handoff: Option<Arc<ledger::tile_publish::handoff::Handoff>>,
}

impl Settings {
    pub fn new(database_url: String, operator: NoteSigner) -> Settings {
        Settings {
            operator,
            database_url,
            replica_url: None,
            clock: GamingDayClock::default(),
            default_plan: rules::plan::DEFAULT_PLAN.to_owned(),
            body_limit: DEFAULT_BODY_LIMIT,
            in_flight: crate::in_flight::InFlightLimits::default(),
            pool_size: 16,
            max_batch: 1_000,
            checkpoints: None,
            api_key_rate: RateLimit::default(),
            address_rate: DEFAULT_ADDRESS_RATE,
            configured: crate::configured::Configured::default(),
            data_dir: None,
            witnesses: Vec::new(),
            tile_handoff: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
    #[error("plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error(transparent)]
    Metrics(#[from] crate::metrics::MetricsError),
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
    let pool = ledger::storage::pool(&settings.database_url, settings.pool_size)?;
    {
        let mut conn = pool
            .get()
            .map_err(|e| ledger::LedgerError::Connection(e.to_string()))?;
        ledger::storage::checkpoints::check_signer(&mut conn, &settings.operator)?;
    }
    let plans = Arc::new(plans);
    let ingest = Ingest::start(
        IngestSettings {
            database_url: settings.database_url.clone(),
            max_batch: settings.max_batch,
            queue_len: 20_000,
            operator: settings.operator.clone(),
            checkpoints: settings.checkpoints.clone(),
            late_after: settings.clock.late_after,
            tile_handoff: settings.tile_handoff.clone(),
        },
        pool.clone(),
        plans.clone(),
    )?;
    let metrics = Arc::new(crate::metrics::Metrics::new()?);
    let witnesses = crate::witnessing::Witnesses::new(settings.witnesses.clone());
    metrics.register_witnesses(
        &witnesses
            .keys()
            .into_iter()
            .map(|k| k.name)
            .collect::<Vec<_>>(),
    );
    let replica = settings
        .replica_url
        .as_deref()
        .map(|url| ledger::storage::replica_pool(url, settings.pool_size))
        .transpose()?;
    Ok(AppState {
        pool,
        replica,
        plans,
        clock: settings.clock,
        ingest: Arc::new(ingest),
        operator: Arc::new(settings.operator.clone()),
        gatekeeper: Arc::new(Gatekeeper::new(
            settings.api_key_rate,
            settings.address_rate,
        )),
        default_plan: settings.default_plan.clone(),
        body_limit: settings.body_limit,
        in_flight: crate::in_flight::InFlight::new(settings.in_flight),
        configured: Arc::new(crate::configured::Reloadable::new(
            settings.configured.clone(),
        )),
        data_dir: settings.data_dir.clone(),
        metrics,
        witnesses: Arc::new(witnesses),
        form_secret: Arc::new(crate::csrf::FormSecret::generate()),
    })
}

/// Routes and extractor settings for an `App`.
pub fn configure(state: AppState) -> impl Fn(&mut web::ServiceConfig) + Clone {
    move |cfg: &mut web::ServiceConfig| {
        let limit = state.body_limit;
        crate::gate::register(cfg, state.clone());
        routes::extractor_configs(cfg, limit, state.in_flight.clone());
        cfg.app_data(routes::health::DocumentSource(crate::openapi::served));
        crate::docs::configure(cfg);
        routes::configure(&mut utoipa_actix_web::service_config::ServiceConfig::new(
            cfg,
        ));
    }
}

/// Signs a checkpoint of everything appended, if the latest does not cover it: at shutdown, so
/// that no receipt is left without a checkpoint while the server is down.
pub fn final_checkpoint(settings: &Settings) -> Result<(), StartError> {
    let Some(policy) = &settings.checkpoints else {
        return Ok(());
    };
    ledger::ingest::final_checkpoint(
        &settings.database_url,
        &settings.operator,
        policy.witness.as_ref(),
    )?;
    Ok(())
}
