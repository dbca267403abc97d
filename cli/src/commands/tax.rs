//! `dozor report tax`: the quarter's gambling tax (zákon č. 187/2016 Sb.) from the ledger.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use ledger::storage::connect;
use ledger::storage::database::Database;
use reports::tax::{self, Quarter, RateTable};

use super::Global;

#[derive(Debug, clap::Args)]
pub struct TaxArgs {
    /// The quarter, `YYYYQn` (e.g. `2026Q3`), or `last` (its gaming days, Europe/Prague).
    #[arg(long)]
    quarter: String,
    /// `csv` or `json`.
    #[arg(long, default_value = "csv")]
    format: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// A rate table to use instead of the bundled one (same TOML format; docs/TAX.md).
    #[arg(long, env = "DOZOR_TAX_RATES")]
    rates: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

pub fn run(global: &Global, args: TaxArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let quarter = match args.quarter.as_str() {
        "last" => Quarter::of(clock.day_of(Utc::now())).previous(),
        text => Quarter::parse(text)
            .with_context(|| format!("--quarter `{text}` is not YYYYQn (e.g. 2026Q3) or last"))?,
    };
    let csv = match args.format.as_str() {
        "csv" => true,
        "json" => false,
        other => anyhow::bail!("--format must be csv or json, not `{other}`"),
    };
    let rates = match &args.rates {
        Some(path) => RateTable::load(path)?,
        None => RateTable::bundled()?,
    };
    // A quarter the table has no rate for is refused before the database is opened.
    tax::segments(quarter, &rates)?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let report = tax::build(&mut conn, &clock, quarter, &rates);
    drop(conn);
    db.close()?;
    let report = report?;
    let text = if csv {
        tax::to_csv(&report)?
    } else {
        serde_json::to_string_pretty(&report)? + "\n"
    };
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
