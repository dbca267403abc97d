use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::{Datelike as _, NaiveDate, Utc};
use ledger::storage::connect;
use ledger::storage::database::Database;
use reports::daily;

use super::Global;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    #[command(subcommand)]
    kind: ReportKind,
}

#[derive(Debug, clap::Subcommand)]
enum ReportKind {
    /// Daily per-game payout/RTP report of one gaming day.
    Daily(DayArgs),
    /// Shoe audit of one gaming day: each blackjack shoe's cards across its rounds.
    Shoes(DayArgs),
    /// Fantasy-land audit of one gaming day: each Open Face Chinese hand's deal against the
    /// table's previous hand.
    Fantasy(DayArgs),
    /// Wheel statistics of a month: segment frequencies of each money wheel, chi-square test.
    Wheels(MonthArgs),
}

#[derive(Debug, clap::Args)]
struct MonthArgs {
    /// `YYYY-MM`, `this` or `last` (months of gaming days, Europe/Prague).
    #[arg(long, default_value = "last")]
    month: String,
    /// `csv` or `json`.
    #[arg(long, default_value = "csv")]
    format: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

fn wheels(global: &Global, args: MonthArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let this = clock.day_of(Utc::now()).with_day(1).unwrap_or_default();
    let first = match args.month.as_str() {
        "this" => this,
        "last" => this.pred_opt().and_then(|d| d.with_day(1)).unwrap_or(this),
        other => reports::wheels::parse_month(other)
            .with_context(|| format!("--month `{other}` is not YYYY-MM, this or last"))?,
    };
    if args.format != "csv" && args.format != "json" {
        anyhow::bail!("--format must be csv or json, not `{}`", args.format);
    }
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let statistics = reports::wheels::build(&mut conn, &clock, first)?;
    drop(conn);
    db.close()?;
    let text = as_text(
        &statistics,
        (args.format == "csv").then_some(reports::wheels::to_csv),
    )?;
    match args.out {
        Some(path) => {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The reports of one gaming day.
enum DayReport {
    Daily,
    Shoes,
    Fantasy,
}

#[derive(Debug, clap::Args)]
struct DayArgs {
    /// `YYYY-MM-DD`, `today` or `yesterday` (gaming days, Europe/Prague).
    #[arg(long, default_value = "yesterday")]
    day: String,
    /// `csv` or `json`.
    #[arg(long, default_value = "csv")]
    format: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    clock: super::ClockArgs,
}

pub fn run(global: &Global, args: ReportArgs) -> anyhow::Result<ExitCode> {
    let (
        kind,
        DayArgs {
            day,
            format,
            out,
            clock,
        },
    ) = match args.kind {
        ReportKind::Daily(a) => (DayReport::Daily, a),
        ReportKind::Shoes(a) => (DayReport::Shoes, a),
        ReportKind::Fantasy(a) => (DayReport::Fantasy, a),
        ReportKind::Wheels(a) => return wheels(global, a),
    };
    let clock = clock.clock()?;
    let today = clock.day_of(Utc::now());
    let day = match day.as_str() {
        "today" => today,
        "yesterday" => today.pred_opt().unwrap_or(today),
        other => NaiveDate::parse_from_str(other, "%Y-%m-%d")
            .with_context(|| format!("--day `{other}` is not YYYY-MM-DD, today or yesterday"))?,
    };
    if format != "csv" && format != "json" {
        anyhow::bail!("--format must be csv or json, not `{format}`");
    }
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let csv = format == "csv";
    let plans = rules::PlanBook::builtin()?;
    let text = match kind {
        DayReport::Shoes => as_text(
            &reports::shoes::build(&mut conn, &clock, day, &plans)?,
            csv.then_some(reports::shoes::to_csv),
        )?,
        DayReport::Fantasy => as_text(
            &reports::fantasy::build(&mut conn, &clock, day, &plans)?,
            csv.then_some(reports::fantasy::to_csv),
        )?,
        DayReport::Daily => as_text(
            &daily::build(&mut conn, &clock, day)?,
            csv.then_some(daily::to_csv),
        )?,
    };
    drop(conn);
    db.close()?;
    match out {
        Some(path) => {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes a report as CSV.
type CsvWriter<R> = fn(&R) -> Result<String, reports::ReportError>;

/// A report as CSV (when given the writer) or as pretty JSON.
fn as_text<R: serde::Serialize>(report: &R, csv: Option<CsvWriter<R>>) -> anyhow::Result<String> {
    Ok(match csv {
        Some(to_csv) => to_csv(report)?,
        None => serde_json::to_string_pretty(report)? + "\n",
    })
}
