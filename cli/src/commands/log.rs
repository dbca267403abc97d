//! `dozor log rotate|keys|accept-rollback`: the log's operator key (and origin) handed over by a
//! recorded rotation, the keys that held it, and a restore to an earlier point accepted on the
//! record.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use chrono::Utc;
use ledger::checkpoint::NoteSigner;
use ledger::storage::connect;
use ledger::storage::database::Database;
use serde_json::json;

use super::Global;

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    #[command(subcommand)]
    command: LogCommand,
    /// The operator key that holds the log (as for `serve`); default
    /// `<data dir>/operator.key`.
    #[arg(long, env = "DOZOR_OPERATOR_KEY", global = true)]
    operator_key: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum LogCommand {
    /// Hand the log to another operator key (from `dozor keygen --operator`, under the same or
    /// a new origin): a `log_rotated` ledger entry signed by the key that holds the log, and
    /// the checkpoint ending with it, signed by that key and naming the new one for the
    /// witnesses. Stop the server first; start it again with the new key.
    Rotate {
        /// The new operator key's file.
        #[arg(long)]
        new_key: PathBuf,
        /// Why, for the record.
        #[arg(long)]
        reason: String,
    },
    /// The operator keys that held the log, oldest first, with the size each held it from:
    /// what `dozor verify --operator-key` is given for an export across a rotation.
    Keys,
    /// Accept that the ledger was restored to an earlier point (a backup, a point-in-time
    /// recovery): the witnessed checkpoints it no longer reaches are recorded as lost in a
    /// `rollback_accepted` ledger entry signed by the operator key, with the reason; `serve` then
    /// starts on it and `verify` reports the loss. Run with the server stopped.
    AcceptRollback {
        /// The checkpoint witness file the server keeps (`serve --checkpoint-witness`).
        #[arg(long, env = "DOZOR_CHECKPOINT_WITNESS")]
        witness: PathBuf,
        /// Why, for the record (e.g. the incident and the backup restored).
        #[arg(long)]
        reason: String,
    },
}

pub fn run(global: &Global, args: LogArgs) -> anyhow::Result<ExitCode> {
    let operator = ledger::operator_key::load_existing(&global.data_dir, args.operator_key)?;
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let result = run_on(&db.url, &operator, args.command);
    db.close()?;
    result
}

fn run_on(url: &str, operator: &NoteSigner, command: LogCommand) -> anyhow::Result<ExitCode> {
    let mut conn = connect(url)?;
    match command {
        LogCommand::Rotate { new_key, reason } => {
            let text = std::fs::read_to_string(&new_key)
                .with_context(|| format!("reading {}", new_key.display()))?;
            let next = NoteSigner::from_private_key(&text)
                .with_context(|| format!("{} is not an operator key", new_key.display()))?
                .verifier();
            let actor = ledger::registry_history::cli_actor();
            let receipt = ledger::storage::rotation::rotate(
                &mut conn,
                operator,
                &next,
                &reason,
                &actor,
                Utc::now(),
            )?;
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "ledger_index": receipt.index,
                    "checkpoint_size": receipt.checkpoint.size,
                    "from_key": operator.verifier().to_string(),
                    "to_key": next.to_string(),
                    "origin": next.name,
                }))?
            );
            eprintln!(
                "the log is now {}'s: start the server with --operator-key {} (and ledger.origin `{}`); witnesses learn of the rotation from the checkpoint of size {}",
                next,
                new_key.display(),
                next.name,
                receipt.checkpoint.size
            );
            Ok(ExitCode::SUCCESS)
        }
        LogCommand::AcceptRollback { witness, reason } => {
            let operators =
                ledger::storage::rotation::operator_chain(&mut conn, &operator.verifier())?;
            let witnessed = ledger::witness::Witness::new(&witness).read(&operators)?;
            // What is kept must verify before its loss is signed for: every entry, and every
            // witnessed checkpoint it still covers.
            let size = ledger::storage::reads::size(&mut conn)?;
            let previous = ledger::storage::rollbacks::accepted(&mut conn, &operators)?;
            let kept: Vec<_> = ledger::storage::rollbacks::binding(witnessed.clone(), &previous)
                .into_iter()
                .filter(|c| c.size <= size)
                .collect();
            let keys: std::collections::HashMap<_, _> = operators
                .iter()
                .map(|v| (ledger::keys::key_id(&v.key), v.key))
                .collect();
            let report = ledger::storage::verify::verify_ledger_witnessed(
                &mut conn,
                &keys,
                ledger::entry_check::SignatureCheck::Batch,
                kept,
                |_| {},
            )?;
            if let Some(failure) = report.failure {
                anyhow::bail!(
                    "the restored ledger does not verify at index {}: {}; nothing was accepted",
                    failure.index,
                    failure.reason
                );
            }
            let receipt = ledger::storage::rollbacks::accept(
                &mut conn,
                operator,
                witnessed,
                &reason,
                &ledger::registry_history::cli_actor(),
                Utc::now(),
            )?;
            let lost_size = receipt.lost.last().map_or(receipt.index, |c| c.size);
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "ledger_index": receipt.index,
                    "restored_size": receipt.index,
                    "lost_size": lost_size,
                    "lost_checkpoints": receipt.lost,
                    "received_at": receipt.received_at,
                }))?
            );
            eprintln!(
                "rollback accepted and recorded at index {}: entries {}..{} are lost; the server starts on this ledger again, and verifiers report the loss",
                receipt.index, receipt.index, lost_size
            );
            Ok(ExitCode::SUCCESS)
        }
        LogCommand::Keys => {
            let rotations = ledger::storage::rotation::rotations(&mut conn)?;
            let mut keys = Vec::new();
            if let Some(first) = rotations.first() {
                keys.push(json!({"verifier_key": first.from_key.to_string(), "from_size": 0}));
            }
            for rotation in &rotations {
                keys.push(json!({
                    "verifier_key": rotation.to_key.to_string(),
                    "from_size": rotation.index + 1,
                    "rotation_index": rotation.index,
                }));
            }
            if keys.is_empty() {
                keys.push(json!({"verifier_key": operator.verifier().to_string(), "from_size": 0}));
            }
            println!("{}", serde_json::to_string_pretty(&keys)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}
