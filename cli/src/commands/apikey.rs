//! `dozor apikey create|list|revoke`: API keys managed on the database directly, so that the
//! first admin key can be made (and a lost one replaced) without the API.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use chrono::{DateTime, Utc};
use dozor_log::access::{ApiKeySecret, Role};
use ledger::storage::api_keys::{self, ApiKeyRecord, NewApiKey};
use ledger::storage::connect;
use serde_json::json;

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct ApikeyArgs {
    #[command(subcommand)]
    command: ApikeyCommand,
    /// Operator key that signs the ledger entry (as for `serve`); default
    /// `<data dir>/operator.key`, created if missing.
    #[arg(long, env = "DOZOR_OPERATOR_KEY", global = true)]
    operator_key: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum ApikeyCommand {
    /// Create a key and print its token (shown this once; only its hash is stored).
    Create {
        /// 1-64 of letters, digits and `_ - . @`; never reused.
        #[arg(long)]
        name: String,
        /// admin, compliance, regulator or reporter.
        #[arg(long)]
        role: String,
        /// When the key stops working (RFC 3339), e.g. 2027-06-30T00:00:00Z.
        #[arg(long, conflicts_with = "expires_in_days")]
        expires_at: Option<DateTime<Utc>>,
        /// ...or after this many days.
        #[arg(long)]
        expires_in_days: Option<u32>,
    },
    /// Every key ever created, with its role and revocation (never a token).
    List {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key by its id or name; refused from now on.
    Revoke {
        /// The key's id or name.
        key: String,
        /// Why, for the record.
        #[arg(long)]
        reason: String,
    },
}

pub fn run(global: &DatabaseChoice, args: ApikeyArgs) -> anyhow::Result<ExitCode> {
    global.with_database(|url| run_on(global, url, args))
}

fn run_on(global: &DatabaseChoice, url: &str, args: ApikeyArgs) -> anyhow::Result<ExitCode> {
    let mut conn = connect(url)?;
    match args.command {
        ApikeyCommand::Create {
            name,
            role,
            expires_at,
            expires_in_days,
        } => {
            let role = Role::parse(&role).with_context(|| {
                format!("unknown role `{role}` (admin, compliance, regulator, reporter)")
            })?;
            let now = Utc::now();
            let expires_at = match (expires_at, expires_in_days) {
                (Some(at), _) => Some(at),
                (None, Some(0)) => bail!("--expires-in-days must be at least 1"),
                (None, Some(days)) => Some(now + chrono::Duration::days(i64::from(days))),
                (None, None) => None,
            };
            let operator = super::serve::operator_key(global, args.operator_key, None)?;
            let actor = dozor_log::registry_history::cli_actor();
            let new = NewApiKey {
                name: &name,
                role,
                created_by: &actor,
                expires_at,
            };
            let secret = ApiKeySecret::generate();
            let (record, receipt) =
                api_keys::create_api_key(&mut conn, operator.signing_key(), &new, &secret, now)?;
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "token": secret.token(),
                    "key_id": record.key.key_id,
                    "name": record.key.name,
                    "role": record.key.role,
                    "expires_at": record.key.expires_at,
                    "ledger_index": receipt.index,
                }))?
            );
            eprintln!("store the token now: dozor keeps only its hash and cannot show it again");
            Ok(ExitCode::SUCCESS)
        }
        ApikeyCommand::List { json } => {
            let keys = api_keys::list(&mut conn)?;
            if json {
                let items: Vec<serde_json::Value> = keys.iter().map(key_json).collect();
                println!("{}", serde_json::to_string_pretty(&items)?);
            } else {
                println!(
                    "{:<16}  {:<24}  {:<10}  {:<20}  {:<20}  state",
                    "key_id", "name", "role", "created", "expires"
                );
                for k in &keys {
                    println!(
                        "{:<16}  {:<24}  {:<10}  {:<20}  {:<20}  {}",
                        k.key.key_id,
                        k.key.name,
                        k.key.role,
                        k.key.created_at.format("%Y-%m-%d %H:%M:%S"),
                        k.key.expires_at.map_or("-".to_owned(), |e| e
                            .format("%Y-%m-%d %H:%M:%S")
                            .to_string()),
                        state(k, Utc::now())
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ApikeyCommand::Revoke { key, reason } => {
            let operator = super::serve::operator_key(global, args.operator_key, None)?;
            let (record, receipt) = api_keys::revoke_api_key(
                &mut conn,
                operator.signing_key(),
                &key,
                &dozor_log::registry_history::cli_actor(),
                reason.trim(),
                Utc::now(),
            )?;
            let mut out = key_json(&record);
            out["ledger_index"] = json!(receipt.index);
            println!("{}", serde_json::to_string_pretty(&out)?);
            eprintln!(
                "revoked; a running server refuses the key within {} s",
                api::auth::CACHE_FOR.as_secs()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn state(k: &ApiKeyRecord, now: DateTime<Utc>) -> &'static str {
    if k.revocation.is_some() {
        "revoked"
    } else if k.key.expires_at.is_some_and(|e| e <= now) {
        "expired"
    } else {
        "active"
    }
}

fn key_json(k: &ApiKeyRecord) -> serde_json::Value {
    json!({
        "key_id": k.key.key_id,
        "name": k.key.name,
        "role": k.key.role,
        "created_by": k.key.created_by,
        "created_at": k.key.created_at,
        "expires_at": k.key.expires_at,
        "state": state(k, Utc::now()),
        "revoked_at": k.revocation.as_ref().map(|r| r.revoked_at),
        "revoked_by": k.revocation.as_ref().map(|r| &r.revoked_by),
        "revocation_reason": k.revocation.as_ref().map(|r| &r.reason),
    })
}
