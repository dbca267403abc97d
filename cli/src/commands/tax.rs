//! `dozor report tax`: the quarter's gambling tax (zákon č. 187/2016 Sb.) from the ledger.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use reports::tax::{self, Quarter, RateTable};

use super::database::with_database;
use super::output::{Output, Writers};
use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct TaxArgs {
    /// The quarter, `YYYYQn` (e.g. `2026Q3`), or `last` (its gaming days, Europe/Prague).
    #[arg(long)]
    quarter: String,
    #[command(flatten)]
    output: Output,
    /// A rate table to use instead of the bundled one (same TOML format; docs/TAX.md).
    #[arg(long, env = "DOZOR_TAX_RATES")]
    rates: Option<PathBuf>,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

pub fn run(global: &DatabaseChoice, args: TaxArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let quarter = match args.quarter.as_str() {
        "last" => Quarter::of(clock.day_of(Utc::now())).previous(),
        text => Quarter::parse(text)
            .with_context(|| format!("--quarter `{text}` is not YYYYQn (e.g. 2026Q3) or last"))?,
    };
    let format = args.output.format("csv", false)?;
    let plans = rules::PlanBook::builtin()?;
    let rates = match &args.rates {
        Some(path) => RateTable::load(path)?,
        None => RateTable::bundled()?,
    };
    // A quarter the table has no rate for is refused before the database is opened.
    tax::segments(quarter, &rates)?;
    let report = with_database(global, |conn| tax::build(conn, &clock, quarter, &rates))?;
    let writers = Writers {
        csv: tax::to_csv,
        sheet: tax::sheet,
        plans: &plans,
    };
    args.output.write(format, &report?, writers)?;
    Ok(ExitCode::SUCCESS)
}
