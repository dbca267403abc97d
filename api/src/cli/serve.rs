use std::process::ExitCode;

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use api::database::Database;
use api::server::{self, Settings};
use reports::GamingDayClock;

use super::Global;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "DOZOR_BIND", default_value = "127.0.0.1:8080")]
    bind: String,
    /// Local hour (Europe/Prague) at which a gaming day starts.
    #[arg(long, env = "DOZOR_GAMING_DAY_START_HOUR", default_value_t = 6)]
    gaming_day_start_hour: u32,
    /// HTTP worker threads (default: one per core).
    #[arg(long)]
    workers: Option<usize>,
}

pub fn run(global: &Global, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let clock = GamingDayClock::new(chrono_tz::Europe::Prague, args.gaming_day_start_hour)
        .context("--gaming-day-start-hour must be 0-23")?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut settings = Settings::new(db.url.clone());
    settings.clock = clock;
    let state = server::state(&settings)?;
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    tracing::info!(bind = %args.bind, "dozor listening");
    let bind = args.bind.clone();
    let served = actix_web::rt::System::new().block_on(async move {
        HttpServer::new(move || App::new().configure(server::configure(state.clone())))
            .workers(workers)
            .bind(&bind)?
            .run()
            .await
    });
    db.close()?;
    served.with_context(|| format!("serving on {}", args.bind))?;
    Ok(ExitCode::SUCCESS)
}
