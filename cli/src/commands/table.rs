//! `dozor table limits|set-limits`: a table's posted limits on the database directly, as the
//! API's `GET`/`POST /api/v1/tables/{table_id}/limits` give and take them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Context as _};
use chrono::{DateTime, Utc};
use dozor_log::registry_history::RegistryHistory;
use ledger::storage::connect;
use ledger::storage::registry::{self, LimitsChange};
use serde_json::json;

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct TableArgs {
    #[command(subcommand)]
    command: TableCommand,
    /// Operator key that signs the ledger entry (as for `serve`); default
    /// `<data dir>/operator.key`.
    #[arg(long, env = "DOZOR_OPERATOR_KEY", global = true)]
    operator_key: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum TableCommand {
    /// A table's limit history, as the ledger's registry events give it, and the limits in
    /// force now (JSON).
    Limits { table_id: String },
    /// Post new limits for a table (its vývěska changed): an operator-signed registry event.
    SetLimits {
        table_id: String,
        /// The limits as JSON, e.g. `{"min_bet_h":10000,"max_straight_up_h":100000,...}`, or
        /// `@FILE` to read them from a file (docs/RECORDS.md lists each game's).
        #[arg(long)]
        limits: String,
        /// Why they changed, for the record.
        #[arg(long)]
        reason: String,
        /// From when they are in force (RFC 3339); now if omitted, never more than 60 s ago.
        #[arg(long)]
        effective_from: Option<DateTime<Utc>>,
    },
}

pub fn run(global: &DatabaseChoice, args: TableArgs) -> anyhow::Result<ExitCode> {
    global.with_database(|url| run_on(global, url, args))
}

fn run_on(global: &DatabaseChoice, url: &str, args: TableArgs) -> anyhow::Result<ExitCode> {
    let mut conn = connect(url)?;
    let operator = super::serve::operator_key(global, args.operator_key, None)?;
    // Every key that held the log (registry events before a rotation carry the old key's).
    let operators: HashMap<_, _> =
        ledger::storage::rotation::operator_chain(&mut conn, &operator.verifier())?
            .into_iter()
            .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
            .collect();
    let mut history = RegistryHistory::default();
    ledger::storage::registry_log::follow(&mut conn, &mut history, &operators)?.map_err(|f| {
        anyhow!(
            "the ledger's registry event {} does not verify: {}",
            f.index,
            f.reason
        )
    })?;
    let table_id = match &args.command {
        TableCommand::Limits { table_id } | TableCommand::SetLimits { table_id, .. } => table_id,
    };
    let table = history
        .table(table_id)
        .ok_or_else(|| anyhow!("table `{table_id}` is not registered"))?;
    match &args.command {
        TableCommand::Limits { .. } => {
            let postings: Vec<_> = table
                .limits
                .iter()
                .map(|p| {
                    json!({"limits": p.limits, "effective_from": p.effective_from,
                           "reason": p.reason, "actor": p.actor, "ledger_index": p.index})
                })
                .collect();
            let now = table.limits_in_force(u64::MAX, Utc::now());
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &json!({"table_id": table.table_id, "game": table.game,
                    "in_force": now, "postings": postings})
                )?
            );
        }
        TableCommand::SetLimits {
            limits,
            reason,
            effective_from,
            ..
        } => {
            let text = match limits.strip_prefix('@') {
                Some(path) => {
                    std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?
                }
                None => limits.clone(),
            };
            let limits: rules::TableLimits =
                serde_json::from_str(&text).context("--limits is not a table's limits")?;
            let plans = rules::PlanBook::builtin()?;
            dozor_log::registration::check_table_limits(&plans, table, &limits)
                .map_err(|e| anyhow!("--limits: {}", e.message))?;
            let change = LimitsChange {
                table_id,
                limits: &limits,
                effective_from: *effective_from,
                reason: reason.trim(),
            };
            let (effective_from, receipt) = registry::set_limits(
                &mut conn,
                operator.signing_key(),
                change,
                &dozor_log::registry_history::cli_actor(),
                Utc::now(),
            )?;
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({"table_id": table_id, "limits": limits,
                    "effective_from": effective_from, "ledger_index": receipt.index}))?
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
