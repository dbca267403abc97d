use std::process::ExitCode;

use chrono::{NaiveDate, Utc};
use ledger::storage::PgConnection;
use reports::sheet::{Language, Sheet};
use reports::{daily, fantasy, shoes, table_audit, time_audit, ReportError};
use rules::gaming_day::GamingDayClock;

use super::database::with_database;
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
    let (clock, month, format, plans) =
        args.output.month(&args.clock, &args.month, "csv", false)?;
    let statistics = with_database(global, |conn| reports::wheels::build(conn, &clock, month))?;
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
    let written = with_database(global, |conn| {
        let mut out = DayOutput {
            output: &output,
            format,
            plans: &plans,
            conn,
            clock: &clock,
            day,
        };
        match kind {
            DayReport::Daily => out.write(
                |conn, clock, day, _| daily::build(conn, clock, day),
                daily::to_csv,
                daily::sheet,
            ),
            DayReport::Shoes => out.write(shoes::build, shoes::to_csv, shoes::sheet),
            DayReport::Fantasy => out.write(fantasy::build, fantasy::to_csv, fantasy::sheet),
            DayReport::TimeCollection => {
                out.write(time_audit::build, time_audit::to_csv, time_audit::sheet)
            }
            DayReport::TableAudit => {
                out.write(table_audit::build, table_audit::to_csv, table_audit::sheet)
            }
        }
    })?;
    written??;
    Ok(ExitCode::SUCCESS)
}

/// A gaming day's report as asked: where and how it is written, and what it is built from.
struct DayOutput<'a> {
    output: &'a Output,
    format: super::output::Format,
    plans: &'a rules::PlanBook,
    conn: &'a mut PgConnection,
    clock: &'a GamingDayClock,
    day: NaiveDate,
}

/// How a day's report is built.
type DayBuild<R> =
    fn(&mut PgConnection, &GamingDayClock, NaiveDate, &rules::PlanBook) -> Result<R, ReportError>;

impl DayOutput<'_> {
    /// The report `build` makes, written by `csv` or `sheet`, when it was built; its build's
    /// error otherwise (the caller closes the database first either way).
    fn write<R: serde::Serialize>(
        &mut self,
        build: DayBuild<R>,
        csv: fn(&R) -> Result<String, ReportError>,
        sheet: fn(&R, &rules::PlanBook, Language) -> Sheet,
    ) -> Result<anyhow::Result<()>, ReportError> {
        let writers = Writers {
            csv,
            sheet,
            plans: self.plans,
        };
        build(self.conn, self.clock, self.day, self.plans)
            .map(|report| self.output.write(self.format, &report, writers))
    }
}
