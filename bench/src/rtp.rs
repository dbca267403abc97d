//! `dozor bench rtp`: the monthly payout/RTP report over a month of signed rounds of every game
//! played against the house (filled once straight into the ledger, kept between runs), and the
//! HTML page of the same month, each timed from the database to the finished document.

use std::process::ExitCode;
use std::time::Instant;

use ledger::storage::database::DatabaseChoice as Global;
use reports::month_page;
use reports::monthly::{self, RtpRequest};

use crate::mf::{filled_month, MonthArgs, MonthDatabase};
use simulator::month::Station;

const SEED: u64 = 29;
const MONTH: MonthDatabase = MonthDatabase::new("dozor_bench_rtp", SEED, 0x5f, stations, describe);
/// The games whose RTP the report compares with theory, one table of each in turn.
const GAMES: [&str; 5] = [
    "roulette",
    "blackjack",
    "ultimate_texas_holdem",
    "money_wheel_1",
    "money_wheel_2",
];

fn describe(tables: usize, days: u32) -> String {
    format!("at {tables} tables ({}) over {days} days", GAMES.join(", "))
}

fn stations(plan: &rules::Plan, tables: usize) -> anyhow::Result<Vec<Station>> {
    (0..tables)
        .map(|t| {
            let game = GAMES[t % GAMES.len()];
            Station::table(format!("RTP-{t:02}"), game, SEED + t as u64, plan)
        })
        .collect()
}

fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds.get(seconds.len() / 2).copied().unwrap_or(0.0)
}

fn rounded(seconds: &[f64]) -> Vec<f64> {
    seconds
        .iter()
        .map(|s| (s * 100.0).round() / 100.0)
        .collect()
}

pub fn rtp(global: &Global, args: &MonthArgs) -> anyhow::Result<ExitCode> {
    let (tables, runs) = (args.tables, args.runs);
    let (settings, database, mut conn) = filled_month(global, args, &MONTH)?;
    let (month, clock) = (settings.month, settings.clock);
    let expected_rounds = settings.total_rounds(tables);
    let request = RtpRequest {
        month,
        through: None,
        game: None,
        table_id: None,
    };
    let plans = rules::PlanBook::builtin()?;
    let mut report_seconds = Vec::new();
    let mut page_seconds = Vec::new();
    let mut shape = serde_json::Value::Null;
    for run in 1..=runs.max(1) {
        // The report as the API answers it: built from the ledger, then as JSON and as CSV.
        let started = Instant::now();
        let report = monthly::build(&mut conn, &clock, &request)?;
        let json = serde_json::to_vec(&report)?;
        let csv = monthly::to_csv(&report)?;
        let took = started.elapsed().as_secs_f64();
        crate::outcome::expect_result(report.rounds() == expected_rounds as i64, || {
            format!(
                "the report counts {} rounds of the {expected_rounds} in the month",
                report.rounds()
            )
        })?;
        // The page: built from the ledger again, then rendered.
        let started = Instant::now();
        let page = month_page::render(&monthly::build(&mut conn, &clock, &request)?, &plans);
        let page_took = started.elapsed().as_secs_f64();
        let flagged = report
            .rows
            .iter()
            .filter(|r| r.deviation.as_ref().is_some_and(|d| d.flagged))
            .count();
        eprintln!(
            "run {run}: report {took:.2} s ({} rounds, {} rows, {} bet-kind rows, {flagged} flagged; JSON {} bytes, CSV {} bytes), page {page_took:.2} s ({} bytes)",
            report.rounds(),
            report.rows.len(),
            report.kinds.len(),
            json.len(),
            csv.len(),
            page.len(),
        );
        shape = serde_json::json!({
            "rows": report.rows.len(),
            "bet_kind_rows": report.kinds.len(),
            "page_bytes": page.len(),
        });
        report_seconds.push(took);
        page_seconds.push(page_took);
    }
    drop(conn);
    database.stop()?;
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({
            "benchmark": "rtp",
            "month": month.to_string(),
            "games": GAMES,
            "tables": tables,
            "rounds": expected_rounds,
            "runs": report_seconds.len(),
            "shape": shape,
            "report_median_seconds": (median(report_seconds.clone()) * 100.0).round() / 100.0,
            "report_seconds": rounded(&report_seconds),
            "page_median_seconds": (median(page_seconds.clone()) * 100.0).round() / 100.0,
            "page_seconds": rounded(&page_seconds),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
