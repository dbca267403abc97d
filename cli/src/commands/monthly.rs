//! `dozor report rtp`: the monthly payout/RTP report with deviation, as CSV, JSON or HTML.

use std::process::ExitCode;

use chrono::NaiveDate;
use reports::monthly::{self, RtpRequest};

use super::database::with_database;
use super::output::{Format, Output, Writers};
use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct RtpReportArgs {
    /// `YYYY-MM`, `this` or `last` (months of gaming days, Europe/Prague).
    #[arg(long, default_value = "last")]
    month: String,
    /// The last gaming day included, `YYYY-MM-DD` (month to date); the whole month without it.
    #[arg(long)]
    through: Option<NaiveDate>,
    /// Only this game (e.g. `roulette`).
    #[arg(long)]
    game: Option<String>,
    /// Only this table.
    #[arg(long)]
    table_id: Option<String>,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

pub fn run(global: &DatabaseChoice, args: RtpReportArgs) -> anyhow::Result<ExitCode> {
    let (clock, month, format, plans) = args.output.month(&args.clock, &args.month, "csv", true)?;
    let request = RtpRequest {
        month,
        through: args.through,
        game: args.game,
        table_id: args.table_id,
    };
    let report = with_database(global, |conn| monthly::build(conn, &clock, &request))??;
    match format {
        Format::Html(language) => args
            .output
            .write_bytes(reports::month_page::render_in(&report, &plans, language).as_bytes())?,
        format => {
            let writers = Writers {
                csv: monthly::to_csv,
                sheet: monthly::sheet,
                plans: &plans,
            };
            args.output.write(format, &report, writers)?
        }
    }
    Ok(ExitCode::SUCCESS)
}
