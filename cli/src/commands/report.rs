use std::process::ExitCode;

use chrono::Utc;
use ledger::storage::connect;
use ledger::storage::database::Database;
use reports::daily;

use super::output::{Output, Writers};
use ledger::storage::database::DatabaseChoice;

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
    clock: super::clock::ClockArgs,
}

fn wheels(global: &DatabaseChoice, args: MonthArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let month = super::clock::month_arg(&args.month, &clock)?;
    let format = args.output.format("csv", false)?;
    let plans = rules::PlanBook::builtin()?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let statistics = reports::wheels::build(&mut conn, &clock, month);
    drop(conn);
    db.close()?;
    let writers = Writers {
        csv: reports::wheels::to_csv,
        sheet: reports::wheels::sheet,
        plans: &plans,
    };
    args.output.write(format, &statistics?, writers)?;
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
    /// `YYYY-MM-DD`, `today`, `yesterday` or `last` (the last that has closed) (gaming days,
    /// Europe/Prague).
    #[arg(long, default_value = "yesterday")]
    day: String,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

pub fn run(global: &DatabaseChoice, args: ReportArgs) -> anyhow::Result<ExitCode> {
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
    let day = clock
        .parse_day(&day, Utc::now())
        .map_err(|m| anyhow::anyhow!("--day: {m}"))?;
    let format = output.format("csv", false)?;
    let plans = rules::PlanBook::builtin()?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let written = match kind {
        DayReport::Daily => write_as(
            &output,
            format,
            daily::build(&mut conn, &clock, day),
            Writers {
                csv: daily::to_csv,
                sheet: daily::sheet,
                plans: &plans,
            },
        ),
        DayReport::Shoes => write_as(
            &output,
            format,
            reports::shoes::build(&mut conn, &clock, day, &plans),
            Writers {
                csv: reports::shoes::to_csv,
                sheet: reports::shoes::sheet,
                plans: &plans,
            },
        ),
        DayReport::Fantasy => write_as(
            &output,
            format,
            reports::fantasy::build(&mut conn, &clock, day, &plans),
            Writers {
                csv: reports::fantasy::to_csv,
                sheet: reports::fantasy::sheet,
                plans: &plans,
            },
        ),
        DayReport::TimeCollection => write_as(
            &output,
            format,
            reports::time_audit::build(&mut conn, &clock, day, &plans),
            Writers {
                csv: reports::time_audit::to_csv,
                sheet: reports::time_audit::sheet,
                plans: &plans,
            },
        ),
        DayReport::TableAudit => write_as(
            &output,
            format,
            reports::table_audit::build(&mut conn, &clock, day, &plans),
            Writers {
                csv: reports::table_audit::to_csv,
                sheet: reports::table_audit::sheet,
                plans: &plans,
            },
        ),
    };
    drop(conn);
    db.close()?;
    written??;
    Ok(ExitCode::SUCCESS)
}

/// A report as asked, when it was built; its build's error otherwise (the caller closes the
/// database first either way).
fn write_as<R: serde::Serialize>(
    output: &Output,
    format: super::output::Format,
    built: Result<R, reports::ReportError>,
    writers: Writers<'_, R>,
) -> Result<anyhow::Result<()>, reports::ReportError> {
    built.map(|report| output.write(format, &report, writers))
}
