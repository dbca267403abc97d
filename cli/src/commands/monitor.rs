//! `dozor monitor --config FILE`: the regulator's monitor, following every casino of its
//! configuration (docs/MONITOR.md); `--once` makes one pass over each and exits, `--status`
//! shows what it holds of each casino, `--show alerts|tallies|findings|mismatches` lists what it
//! kept.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use dozor_monitor::config::MonitorConfig;
use dozor_monitor::step::Step;
use dozor_monitor::store::connection::{connect, StateDatabase};
use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct MonitorArgs {
    /// The monitor's configuration (`monitor.toml`): the casinos, their keys and witnesses.
    #[arg(long)]
    config: PathBuf,
    /// One pass over every casino, then exit: 0 when each was followed (or had nothing new),
    /// 1 when any failed, waits for its witnesses or is halted.
    #[arg(long, conflicts_with_all = ["status", "show"])]
    once: bool,
    /// Show each casino's state: entries followed, the latest checkpoint's age, rounds,
    /// mismatches with the casino's verdicts, alerts.
    #[arg(long, conflicts_with = "show")]
    status: bool,
    /// List what the monitor kept, one JSON object per line: `alerts`, `tallies` (per casino,
    /// gaming day and game), `findings` (its own, per round) or `mismatches` (with the casino's
    /// verdicts).
    #[arg(long, value_parser = ["alerts", "tallies", "findings", "mismatches"])]
    show: Option<String>,
    /// With --status: JSON lines instead of a table.
    #[arg(long, requires = "status")]
    json: bool,
    /// Write the regulator's view (index.html, view.json, view.csv) into this folder, then exit.
    #[arg(long, conflicts_with_all = ["once", "status", "show"])]
    view_out: Option<PathBuf>,
    /// With --view-out: the month of gaming days (YYYY-MM); this month in Prague by default.
    #[arg(long, requires = "view_out")]
    month: Option<String>,
}

impl MonitorArgs {
    /// Following for ever: a service, whose log says what it does as `serve`'s does.
    pub fn is_service(&self) -> bool {
        !(self.once || self.status || self.show.is_some() || self.view_out.is_some())
    }
}

pub fn run(global: &DatabaseChoice, args: MonitorArgs) -> anyhow::Result<ExitCode> {
    let config = MonitorConfig::load(&args.config)?;
    // DATABASE_URL (or --database-url) when given, else the configuration's, else the monitor's
    // own cluster under its data directory.
    let url = global
        .database_url
        .clone()
        .or_else(|| config.database_url.clone());
    let database =
        StateDatabase::open(url, &config.data_dir).context("opening the monitor's state")?;
    let result = if args.status {
        status(&config, &database.url, args.json)
    } else if let Some(what) = &args.show {
        show(&database.url, what)
    } else if let Some(dir) = &args.view_out {
        view_out(&config, &database.url, dir, args.month.as_deref())
    } else {
        follow(&config, &database.url, args.once)
    };
    database.close()?;
    result
}

fn follow(config: &MonitorConfig, url: &str, once: bool) -> anyhow::Result<ExitCode> {
    if !once {
        // The regulator's view on `[http] listen`, beside following; one line says where.
        if let Some(address) =
            dozor_monitor::http::spawn(config, url).context("listening on [http] listen")?
        {
            println!(
                "{}",
                serde_json::json!({ "view_listening": address.to_string() })
            );
        }
    }
    let passes = dozor_monitor::run::run(config, url, once)?;
    let mut all_well = true;
    for (casino, pass) in passes {
        let line = match pass {
            Ok(Step::UpToDate { size }) => format!("up to date at {size} entries"),
            Ok(Step::Followed { from, to, rounds }) => {
                format!("followed from {from} to {to} entries ({rounds} rounds judged)")
            }
            Ok(Step::Waiting { size, why }) => {
                all_well = false;
                format!("the checkpoint of size {size} waits for its witnesses: {why}")
            }
            Ok(Step::Halted { why }) => {
                all_well = false;
                format!("halted: {why}")
            }
            Err(why) => {
                all_well = false;
                format!("failed: {why}")
            }
        };
        println!("{casino}: {line}");
    }
    Ok(if all_well {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `3 h 20 min`, `45 s`: how long ago `at` was.
fn age(at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    let Some(at) = at else {
        return "—".into();
    };
    let seconds = (now - at).num_seconds().max(0);
    match seconds {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

fn status(config: &MonitorConfig, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let mut conn = connect(url)?;
    // A casino configured but not followed yet is shown too.
    for casino in &config.casinos {
        dozor_monitor::store::state::ensure(&mut conn, &casino.name)?;
    }
    let rows = dozor_monitor::store::status::status(&mut conn)?;
    if json {
        for row in &rows {
            println!("{}", serde_json::to_string(row)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let now = Utc::now();
    println!(
        "{:<20} {:>10} {:>16} {:>10} {:>9} {:>10} {:>6}  state",
        "casino", "entries", "checkpoint age", "rounds", "findings", "mismatches", "alerts"
    );
    for row in &rows {
        let state = match (&row.halted, &row.last_error) {
            (Some(why), _) => format!("halted: {why}"),
            (None, Some(error)) => format!("failing ({}): {error}", row.failures),
            (None, None) if row.last_success_at.is_some() => "following".into(),
            (None, None) => "not yet followed".into(),
        };
        println!(
            "{:<20} {:>10} {:>16} {:>10} {:>9} {:>10} {:>6}  {state}",
            row.casino,
            row.size,
            age(row.checkpoint_at, now),
            row.rounds,
            row.findings,
            row.mismatched_rounds,
            row.alerts
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each row as one JSON object per line.
fn lines<T: serde::Serialize>(rows: &[T]) -> anyhow::Result<()> {
    for row in rows {
        println!("{}", serde_json::to_string(row)?);
    }
    Ok(())
}

/// Writes the view of `month` (this month in Prague by default) into `dir`.
fn view_out(
    config: &MonitorConfig,
    url: &str,
    dir: &std::path::Path,
    month: Option<&str>,
) -> anyhow::Result<ExitCode> {
    use dozor_monitor::view::figures::Month;
    let month = match month {
        Some(text) => Month::parse(text)
            .with_context(|| format!("--month `{text}` is not YYYY-MM, e.g. 2026-11"))?,
        None => Month::of(Utc::now()),
    };
    let mut conn = connect(url)?;
    dozor_monitor::view::write_files(&mut conn, config, month, Utc::now(), dir)?;
    println!("{}", dir.display());
    Ok(ExitCode::SUCCESS)
}

fn show(url: &str, what: &str) -> anyhow::Result<ExitCode> {
    let mut conn = connect(url)?;
    match what {
        "alerts" => lines(&dozor_monitor::store::alerts::alerts(&mut conn, None)?)?,
        "tallies" => lines(&dozor_monitor::store::status::tallies(&mut conn)?)?,
        "findings" => lines(&dozor_monitor::store::status::findings(&mut conn)?)?,
        _ => lines(&dozor_monitor::store::status::mismatches(&mut conn)?)?,
    }
    Ok(ExitCode::SUCCESS)
}
