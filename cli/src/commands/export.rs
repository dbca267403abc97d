use reports::inspection::ExportRequest;
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{NaiveDate, Utc};
use ledger::storage::connect;
use ledger::storage::database::Database;

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// First gaming day of the period, YYYY-MM-DD.
    #[arg(long)]
    from: NaiveDate,
    /// Last gaming day of the period (inclusive), YYYY-MM-DD.
    #[arg(long)]
    to: NaiveDate,
    /// Directory to write (created; must be empty).
    dir: PathBuf,
    #[command(flatten)]
    clock: super::clock::ClockArgs,
    /// Operator key that seals the export's reports into the ledger and signs the checkpoint
    /// that covers them; default `<data dir>/operator.key`.
    #[arg(long, env = "DOZOR_OPERATOR_KEY")]
    operator_key: Option<PathBuf>,
    /// The configuration file (`[[witness]]`): the export's latest checkpoint carries the
    /// configured witnesses' cosignatures; default `<data dir>/dozor.toml` when it exists.
    #[arg(long, env = "DOZOR_CONFIG")]
    config: Option<PathBuf>,
    /// How long to wait for the witnesses to cosign the checkpoint the export signs (a running
    /// `dozor serve` shows it to them).
    #[arg(long, default_value_t = 30)]
    witness_wait_seconds: u64,
    /// A streaming replica to read the export's entries on, once it has replayed the
    /// checkpoint that covers the export's seals (which are written on the primary).
    #[arg(long, env = "DOZOR_REPLICA_DATABASE_URL", hide_env_values = true)]
    replica_database_url: Option<String>,
}

pub fn run(global: &DatabaseChoice, args: ExportArgs) -> anyhow::Result<ExitCode> {
    let clock = args.clock.clock()?;
    let sealer = super::serve::existing_operator_key(global, args.operator_key.clone())?;
    let source = crate::config::Source::find(args.config.clone(), &global.data_dir);
    let config = crate::config::load(&source, &serde_json::json!({}))?;
    let keys: Vec<_> = config
        .witness_endpoints()?
        .into_iter()
        .map(|w| w.key)
        .collect();
    let witnesses = reports::inspection::ExportWitnesses::all(
        keys,
        std::time::Duration::from_secs(args.witness_wait_seconds),
    );
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let bar = simulator::progress_bar(0, "entries written");
    let mut replica = match args.replica_database_url.as_deref() {
        Some(url) if !url.trim().is_empty() => Some(connect(url)?),
        _ => None,
    };
    let actor = dozor_log::registry_history::cli_actor();
    let request = ExportRequest {
        nightly_from: Some(&global.data_dir),
        witnesses,
        ..ExportRequest::new(
            &clock,
            &sealer,
            &actor,
            (args.from, args.to),
            &args.dir,
            Utc::now(),
        )
    };
    let summary = reports::inspection::write_export_reading(
        &mut connect(&db.url)?,
        replica.as_mut(),
        &request,
        &mut |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        },
    );
    bar.finish_and_clear();
    db.close()?;
    let summary = summary?;
    println!("{}", serde_json::to_string_pretty(&summary)?);
    eprintln!(
        "export written to {}: {} entries received in {}..{} and {} rounds played in it but received later, under checkpoint {} (latest {})",
        summary.dir.display(),
        summary.period_entries,
        args.from,
        args.to,
        summary.late_rounds,
        summary.checkpoint_size,
        summary.latest_size
    );
    if let Some(size) = summary.witnessed_checkpoint_size {
        eprintln!(
            "the witnesses have not cosigned the latest checkpoint (is `dozor serve` running?): the export carries the latest one they did ({size} entries), proven a prefix of it"
        );
    }
    Ok(ExitCode::SUCCESS)
}
