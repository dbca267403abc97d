//! `dozor verify --since-last`: the nightly check of what the night added, recorded in the
//! ledger as a verification mark (docs/VERIFY.md).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::Utc;
use dozor_log::registry_event::VerificationScope;
use dozor_log::registry_history::cli_actor;
use ed25519_dalek::VerifyingKey;
use ledger::storage::database::{Database, DatabaseChoice};
use ledger::storage::verification_marks::{self, MarkToRecord};
use ledger::storage::verify::{verify_ledger_witnessed, VerifyReport};
use ledger::storage::verify_since::{
    check_since_last, checks_of, IncrementalReport, KeptMark, SinceLast,
};
use ledger::storage::{connect, PgConnection};
use serde_json::json;

/// What `dozor verify --since-last` was given.
pub(super) struct SinceLastArgs {
    /// The checkpoint witness file, if one is kept.
    pub witness: Option<PathBuf>,
    /// Where the last mark is kept outside the database (default: in the data directory).
    pub mark_file: Option<PathBuf>,
    pub signatures: dozor_log::entry_check::SignatureCheck,
}

/// Where the last mark is kept outside the database: `--mark-file`, else in the data directory.
fn mark_file(global: &DatabaseChoice, args: &SinceLastArgs) -> PathBuf {
    args.mark_file
        .clone()
        .unwrap_or_else(|| global.data_dir.join("verification-mark.json"))
}

pub(super) fn run(global: &DatabaseChoice, args: &SinceLastArgs) -> anyhow::Result<ExitCode> {
    let operator = super::serve::existing_operator_key(
        global,
        std::env::var_os("DOZOR_OPERATOR_KEY").map(PathBuf::from),
    )?;
    let db = Database::open_for_reading(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let verifiers = ledger::storage::rotation::operator_chain(&mut conn, &operator.verifier())?;
    let operators: HashMap<String, VerifyingKey> = verifiers
        .iter()
        .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
        .collect();
    let witnessed = match &args.witness {
        Some(path) => ledger::witness::Witness::new(path).read(&verifiers)?,
        None => Vec::new(),
    };
    let kept_at = mark_file(global, args);
    let kept = KeptMark::read(&kept_at)?;
    let started = Utc::now();
    let bar = simulator::progress_bar(0, "entries");
    let outcome = check_since_last(
        &mut conn,
        &operators,
        args.signatures,
        (witnessed.clone(), kept.as_ref()),
        |walked| bar.set_position(walked),
    )?;
    bar.finish_and_clear();
    let checked = match outcome {
        SinceLast::NothingNew {
            verified_to,
            since_mark,
        } => {
            println!(
                "{}",
                json!({"scope": "incremental", "nothing_new": true, "verified_to": verified_to, "since_mark": since_mark})
            );
            eprintln!("ledger OK: no checkpoint signed since the last check (entries 0..{verified_to} verified, the mark at index {since_mark}); nothing recorded");
            return Ok(ExitCode::SUCCESS);
        }
        SinceLast::RegistryBroken(f) => {
            eprintln!(
                "ledger BROKEN at index {}: {} (nothing recorded: the registry does not read)",
                f.index, f.reason
            );
            return Ok(ExitCode::from(1));
        }
        SinceLast::NoPassingCheck => {
            Checked::Full(full_walk(&mut conn, &operators, args, witnessed)?)
        }
        SinceLast::Checked(report) => Checked::Incremental(report),
    };
    let mark = checked.mark(started)?;
    let recorded = verification_marks::record(&mut conn, &operator, &operators, &mark, Utc::now());
    drop(conn);
    db.close()?;
    match recorded {
        Ok(receipt) => {
            KeptMark::recorded(&receipt, &mark).write(&kept_at)?;
            checked.print(&mark, Some(receipt.index))
        }
        Err(e) => {
            checked.print(&mark, None)?;
            eprintln!("the check was NOT recorded: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// The whole ledger walked, when no check has passed yet.
fn full_walk(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    args: &SinceLastArgs,
    witnessed: Vec<ledger::storage::issued::IssuedCheckpoint>,
) -> anyhow::Result<(VerifyReport, Option<dozor_log::merkle::Frontier>)> {
    eprintln!("no passing check recorded yet: walking the whole ledger first");
    let bar = simulator::progress_bar(0, "entries");
    let report = verify_ledger_witnessed(conn, operators, args.signatures, witnessed, |n| {
        bar.set_position(n)
    })?;
    bar.finish_and_clear();
    // The stored tree at the size walked, which the walk has just found to be the entries'.
    let frontier = match report.failure {
        None => Some(ledger::storage::tree::frontier(
            conn,
            report.entries_checked,
        )?),
        Some(_) => None,
    };
    Ok((report, frontier))
}

/// The check made.
enum Checked {
    Full((VerifyReport, Option<dozor_log::merkle::Frontier>)),
    Incremental(IncrementalReport),
}

impl Checked {
    /// The mark that records it.
    fn mark(&self, started_at: chrono::DateTime<Utc>) -> anyhow::Result<MarkToRecord> {
        let finished_at = Utc::now();
        let actor = cli_actor();
        Ok(match self {
            Checked::Incremental(report) => MarkToRecord {
                scope: VerificationScope::Incremental,
                from: report.from,
                to: report.to,
                checks: checks_of(VerificationScope::Incremental),
                end: report.end.clone(),
                failure: report.failure.clone(),
                started_at,
                finished_at,
                actor,
            },
            Checked::Full((report, frontier)) => {
                let from = report.archived_ranges.last().map_or(0, |r| r.to);
                let end = match (frontier, &report.head_hash) {
                    (Some(f), Some(head)) => Some((f.clone(), hash_of(head)?)),
                    _ => None,
                };
                let to = match &report.failure {
                    None => report.entries_checked,
                    Some(f) => f.index.max(from) + 1,
                };
                MarkToRecord {
                    scope: VerificationScope::Full,
                    from,
                    to,
                    checks: checks_of(VerificationScope::Full),
                    end,
                    failure: report.failure.clone(),
                    started_at,
                    finished_at,
                    actor,
                }
            }
        })
    }

    /// The report on standard output, the result in one line on standard error; exit 1 when
    /// the check failed.
    fn print(&self, mark: &MarkToRecord, mark_index: Option<u64>) -> anyhow::Result<ExitCode> {
        let mut printed = match self {
            Checked::Incremental(report) => {
                let mut v = serde_json::to_value(report)?;
                v["root"] = report.root().into();
                v
            }
            Checked::Full((report, _)) => serde_json::to_value(report)?,
        };
        printed["scope"] = mark.scope.as_str().into();
        printed["mark_index"] = mark_index.into();
        let recorded = mark_index.map_or("not recorded".to_owned(), |i| {
            format!("recorded as the mark at index {i}")
        });
        println!("{}", serde_json::to_string_pretty(&printed)?);
        let seconds = (mark.finished_at - mark.started_at).num_milliseconds() as f64 / 1000.0;
        match &mark.failure {
            None => {
                eprintln!(
                    "ledger OK: entries {}..{} checked ({}), in {seconds:.2} s; {recorded}",
                    mark.from,
                    mark.to,
                    mark.scope.as_str()
                );
                if let Checked::Incremental(report) = self {
                    for rollback in &report.accepted_rollbacks {
                        eprintln!("{}", rollback.describe());
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            Some(f) => {
                eprintln!(
                    "ledger BROKEN at index {}: {} ({recorded})",
                    f.index, f.reason
                );
                Ok(ExitCode::from(1))
            }
        }
    }
}

fn hash_of(text: &str) -> anyhow::Result<[u8; 32]> {
    hex::decode(text)?
        .try_into()
        .map_err(|_| anyhow::anyhow!("a hash of another length than 32 bytes"))
}
