use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::{NaiveDate, Utc};
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
    /// Time collection audit of one gaming day: each poker cash or Open Face Chinese hand
    /// played for time against the periods its table collected time for.
    TimeCollection(DayArgs),
    /// Table audit of a gaming day: roulette wheel reversed every spin, poker button and big
    /// blind moved one player a hand.
    TableAudit(DayArgs),
    /// Monthly payout/RTP report: per game, table and gaming day, actual against theoretical
    /// RTP of the bets placed, the deviation in standard deviations per bet kind, findings.
    Rtp(super::monthly::RtpReportArgs),
    /// The nightly job once: each closed gaming day's reports (daily, month-to-date RTP with
    /// its page, shoe, fantasy and wheel audits) written under the data directory and sealed
    /// into the ledger, and a checkpoint over them. Nights done before are left as they are.
    Nightly(super::nightly::NightlyArgs),
    /// Wheel statistics of a month: number or segment frequencies of each roulette and money
    /// wheel, chi-square test, the most deviating neighbour sector.
    Wheels(MonthArgs),
    /// The Ministry of Finance's monthly package (vyhláška 10/2019 Sb., model M, live game Z)
    /// of one premises: its folder and ZIP, the ZIP's SHA-256 sealed into the ledger.
    Mf(super::mf::MfArgs),
    /// Check a package (folder or ZIP) against the Ministry's schema: its error codes, or
    /// `OK: YYYYMMDD-HHMMSS`.
    MfValidate(super::mf::MfValidateArgs),
    /// Period audit of a month (JSON): table and cage operating periods, drop-and-win
    /// reconciliation, rounds played outside a period.
    Periods(super::mf::PeriodsArgs),
    /// The quarter's gambling tax (zákon č. 187/2016 Sb.): per category stakes, wins, base
    /// rounded up to hundreds of koruny, rate, tax; the total and the due date.
    Tax(super::tax::TaxArgs),
}

#[derive(Debug, clap::Args)]
struct MonthArgs {
    /// `YYYY-MM`, `this` or `last` (months of gaming days, Europe/Prague).
    #[arg(long, default_value = "last")]
    month: String,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    clock: super::ClockArgs,
}

/// How a report is written, and where.
#[derive(Debug, clap::Args)]
struct Output {
    /// `csv` or `json`; the daily report also `csv-cz` (for a spreadsheet in a Czech office:
    /// `;`, koruny with a decimal comma, the plan's game names) and `xlsx` (with `--out`).
    #[arg(long, default_value = "csv")]
    format: String,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` or `en`.
    #[arg(long, default_value = "cs")]
    lang: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

impl Output {
    /// Whether CSV is asked for (else JSON); anything else is refused before any work.
    fn csv(&self) -> anyhow::Result<bool> {
        match self.format.as_str() {
            "csv" => Ok(true),
            "json" => Ok(false),
            other => anyhow::bail!("--format must be csv or json, not `{other}`"),
        }
    }

    /// Whether a sheet for people is asked for (`csv-cz`, `xlsx`), checked before any work.
    fn people(&self) -> anyhow::Result<Option<reports::sheet::Language>> {
        match self.format.as_str() {
            "csv-cz" | "xlsx" => {
                anyhow::ensure!(
                    self.format != "xlsx" || self.out.is_some(),
                    "--format xlsx writes a workbook: give --out FILE"
                );
                reports::sheet::Language::parse(&self.lang)
                    .map(Some)
                    .ok_or_else(|| anyhow::anyhow!("--lang is cs or en, not `{}`", self.lang))
            }
            "csv" | "json" => Ok(None),
            other => anyhow::bail!("--format must be csv, json, csv-cz or xlsx, not `{other}`"),
        }
    }

    /// `sheet` as CSV for people or XLSX, to the file or standard output.
    fn write_sheet(
        &self,
        sheet: &reports::sheet::Sheet,
        language: reports::sheet::Language,
    ) -> anyhow::Result<()> {
        let bytes = if self.format == "xlsx" {
            sheet.to_xlsx(language)?
        } else {
            sheet.to_people_csv(language)?.into_bytes()
        };
        match &self.out {
            Some(path) => {
                std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
            }
            None => {
                std::io::Write::write_all(&mut std::io::stdout(), &bytes)?;
                Ok(())
            }
        }
    }

    /// `report` as CSV (with `to_csv`) or pretty JSON, to the file or standard output.
    fn write<R: serde::Serialize>(&self, report: &R, to_csv: CsvWriter<R>) -> anyhow::Result<()> {
        let text = if self.csv()? {
            to_csv(report)?
        } else {
            serde_json::to_string_pretty(report)? + "\n"
        };
        match &self.out {
            Some(path) => {
                std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
            }
            None => {
                print!("{text}");
                Ok(())
            }
        }
    }
}

fn wheels(global: &Global, args: MonthArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let month = super::monthly::month_arg(&args.month, &clock)?;
    args.output.csv()?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let statistics = reports::wheels::build(&mut conn, &clock, month)?;
    drop(conn);
    db.close()?;
    args.output.write(&statistics, reports::wheels::to_csv)?;
    Ok(ExitCode::SUCCESS)
}

/// The reports of one gaming day.
enum DayReport {
    Daily,
    Shoes,
    Fantasy,
    TimeCollection,
    TableAudit,
}

#[derive(Debug, clap::Args)]
struct DayArgs {
    /// `YYYY-MM-DD`, `today` or `yesterday` (gaming days, Europe/Prague).
    #[arg(long, default_value = "yesterday")]
    day: String,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    clock: super::ClockArgs,
}

pub fn run(global: &Global, args: ReportArgs) -> anyhow::Result<ExitCode> {
    let (kind, DayArgs { day, output, clock }) = match args.kind {
        ReportKind::Daily(a) => (DayReport::Daily, a),
        ReportKind::Shoes(a) => (DayReport::Shoes, a),
        ReportKind::Fantasy(a) => (DayReport::Fantasy, a),
        ReportKind::TimeCollection(a) => (DayReport::TimeCollection, a),
        ReportKind::TableAudit(a) => (DayReport::TableAudit, a),
        ReportKind::Wheels(a) => return wheels(global, a),
        ReportKind::Rtp(a) => return super::monthly::run(global, a),
        ReportKind::Nightly(a) => return super::nightly::run(global, a),
        ReportKind::Mf(a) => return super::mf::package(global, a),
        ReportKind::MfValidate(a) => return super::mf::validate(a),
        ReportKind::Periods(a) => return super::mf::periods(global, a),
        ReportKind::Tax(a) => return super::tax::run(global, a),
    };
    let clock = clock.clock()?;
    let today = clock.day_of(Utc::now());
    let day = match day.as_str() {
        "today" => today,
        "yesterday" => today.pred_opt().unwrap_or(today),
        other => NaiveDate::parse_from_str(other, "%Y-%m-%d")
            .with_context(|| format!("--day `{other}` is not YYYY-MM-DD, today or yesterday"))?,
    };
    let people = output.people()?;
    if people.is_none() {
        output.csv()?;
    } else if !matches!(kind, DayReport::Daily) {
        anyhow::bail!(
            "this report is written as csv or json; csv-cz and xlsx are the daily report's"
        );
    }
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let plans = rules::PlanBook::builtin()?;
    let written = match kind {
        DayReport::Shoes => output.write(
            &reports::shoes::build(&mut conn, &clock, day, &plans)?,
            reports::shoes::to_csv,
        ),
        DayReport::Fantasy => output.write(
            &reports::fantasy::build(&mut conn, &clock, day, &plans)?,
            reports::fantasy::to_csv,
        ),
        DayReport::TimeCollection => output.write(
            &reports::time_audit::build(&mut conn, &clock, day, &plans)?,
            reports::time_audit::to_csv,
        ),
        DayReport::TableAudit => output.write(
            &reports::table_audit::build(&mut conn, &clock, day, &plans)?,
            reports::table_audit::to_csv,
        ),
        DayReport::Daily => {
            let report = daily::build(&mut conn, &clock, day)?;
            match people {
                Some(language) => {
                    output.write_sheet(&daily::sheet(&report, &plans, language), language)
                }
                None => output.write(&report, daily::to_csv),
            }
        }
    };
    drop(conn);
    db.close()?;
    written?;
    Ok(ExitCode::SUCCESS)
}

/// Writes a report as CSV.
type CsvWriter<R> = fn(&R) -> Result<String, reports::ReportError>;
