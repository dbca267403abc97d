use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use api::database::Database;
use chrono::{NaiveDate, Utc};
use ledger::storage::connect;
use reports::GamingDayClock;

use super::Global;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// First gaming day of the period, YYYY-MM-DD.
    #[arg(long)]
    from: NaiveDate,
    /// Last gaming day of the period (inclusive), YYYY-MM-DD.
    #[arg(long)]
    to: NaiveDate,
    /// Directory to write (created; must be empty).
    dir: PathBuf,
    #[arg(long, env = "DOZOR_GAMING_DAY_START_HOUR", default_value_t = 6)]
    gaming_day_start_hour: u32,
}

pub fn run(global: &Global, args: ExportArgs) -> anyhow::Result<ExitCode> {
    let clock = GamingDayClock::new(chrono_tz::Europe::Prague, args.gaming_day_start_hour)
        .context("--gaming-day-start-hour must be 0-23")?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let summary = reports::export::write_export(
        &mut connect(&db.url)?,
        &clock,
        args.from,
        args.to,
        &args.dir,
        Utc::now(),
    );
    db.close()?;
    let summary = summary?;
    println!("{}", serde_json::to_string_pretty(&summary)?);
    Ok(ExitCode::SUCCESS)
}
