//! `dozor report nightly`: the nightly job once (for a systemd timer when the server's own
//! scheduler is off): every night due and not yet done, or one gaming day's.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::{NaiveDate, NaiveTime, Utc};
use ledger::storage::connect;
use ledger::storage::database::Database;
use reports::nightly::{NightOutcome, NightSealed, NightlyJob};

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct NightlyArgs {
    /// One gaming day, `YYYY-MM-DD`; without it, every night due and not yet done (at most
    /// 62 days back).
    #[arg(long)]
    day: Option<NaiveDate>,
    /// Local time (Europe/Prague) after which a closed gaming day's night is due.
    #[arg(long, env = "DOZOR_NIGHTLY_AT", default_value = "06:30")]
    at: String,
    /// The operator key that seals the reports (default: the data directory's).
    #[arg(long, env = "DOZOR_OPERATOR_KEY")]
    operator_key: Option<PathBuf>,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
}

/// Reads `HH:MM`.
pub fn nightly_time(text: &str) -> anyhow::Result<NaiveTime> {
    crate::config::nightly_time(text)
        .with_context(|| format!("the nightly time must be HH:MM (Europe/Prague), not `{text}`"))
}

pub fn run(global: &DatabaseChoice, args: NightlyArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let at = nightly_time(&args.at)?;
    let today = clock.day_of(Utc::now());
    if let Some(day) = args.day.filter(|d| *d >= today) {
        anyhow::bail!("gaming day {day} has not closed yet (today is {today})");
    }
    let sealer = super::serve::existing_operator_key(global, args.operator_key)?;
    let plans = rules::PlanBook::builtin()?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let actor = dozor_log::registry_history::cli_actor();
    let job = NightlyJob {
        clock: &clock,
        plans: &plans,
        sealer: &sealer,
        actor: &actor,
        data_dir: &global.data_dir,
    };
    let result = (|| -> anyhow::Result<()> {
        let days = match args.day {
            Some(day) => vec![day],
            None => job.pending(&mut conn, at, Utc::now())?,
        };
        if days.is_empty() {
            println!("no night is due");
        }
        for day in days {
            match job.run(&mut conn, day, Utc::now())? {
                NightOutcome::Published(sealed) => print_sealed(&sealed, &global.data_dir),
                NightOutcome::AlreadyDone { day } => {
                    println!("{day}: done before; nothing changed")
                }
            }
        }
        Ok(())
    })();
    drop(conn);
    db.close()?;
    result?;
    Ok(ExitCode::SUCCESS)
}

/// What a night sealed now tells the operator: where its reports are, and what the Ministry
/// has not confirmed yet.
fn print_sealed(sealed: &NightSealed, data_dir: &std::path::Path) {
    let day = sealed.day;
    println!(
        "{day}: sealed {} reports ({} rounds) under {}, checkpoint {}",
        sealed.files,
        sealed.rounds,
        data_dir
            .join(reports::night_names::night_prefix(day))
            .display(),
        sealed.checkpoint_size
    );
    if !sealed.unconfirmed.is_empty() {
        println!(
            "{day}: the Ministry has not confirmed: {}",
            sealed.unconfirmed.join(", ")
        );
    }
}
