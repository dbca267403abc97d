//! `dozor verify --since-last`: the nightly check of what the night added, recorded in the
//! ledger as a verification mark (docs/VERIFY.md).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use dozor_log::registry_history::cli_actor;
use ed25519_dalek::VerifyingKey;
use ledger::storage::connect;
use ledger::storage::database::{Database, DatabaseChoice};
use ledger::storage::nightly_check::{CheckMade, Made, NightlyCheck, NightlyOutcome};
use ledger::storage::verification_marks::MarkToRecord;
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
    args.mark_file.clone().unwrap_or_else(|| {
        global
            .data_dir
            .join(ledger::storage::nightly_check::MARK_FILE)
    })
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
    let mark_file = mark_file(global, args);
    let check = NightlyCheck {
        operator: &operator,
        operators: &operators,
        signatures: args.signatures,
        witnessed,
        mark_file: &mark_file,
        actor: cli_actor(),
    };
    let bar = simulator::progress_bar(0, "entries");
    let outcome = check.run(&mut conn, |walked| bar.set_position(walked))?;
    bar.finish_and_clear();
    drop(conn);
    db.close()?;
    match outcome {
        NightlyOutcome::NothingNew {
            verified_to,
            since_mark,
        } => {
            println!(
                "{}",
                json!({"scope": "incremental", "nothing_new": true, "verified_to": verified_to, "since_mark": since_mark})
            );
            eprintln!("ledger OK: no checkpoint signed since the last check (entries 0..{verified_to} verified, the mark at index {since_mark}); nothing recorded");
            Ok(ExitCode::SUCCESS)
        }
        NightlyOutcome::RegistryBroken(f) => {
            eprintln!(
                "ledger BROKEN at index {}: {} (nothing recorded: the registry does not read)",
                f.index, f.reason
            );
            Ok(ExitCode::from(1))
        }
        NightlyOutcome::Made(made) => {
            let Made {
                check,
                mark,
                recorded,
            } = *made;
            let index = recorded.as_ref().ok().map(|r| r.index);
            let code = print(&check, &mark, index)?;
            match recorded {
                Ok(_) => Ok(code),
                Err(e) => {
                    eprintln!("the check was NOT recorded: {e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}

/// The report on standard output, the result in one line on standard error; exit 1 when the
/// check failed.
fn print(
    check: &CheckMade,
    mark: &MarkToRecord,
    mark_index: Option<u64>,
) -> anyhow::Result<ExitCode> {
    let mut printed = match check {
        CheckMade::Incremental(report) => {
            let mut v = serde_json::to_value(report)?;
            v["root"] = report.root().into();
            v
        }
        CheckMade::Full(report, _) => serde_json::to_value(report)?,
    };
    printed["scope"] = mark.scope.as_str().into();
    printed["mark_index"] = mark_index.into();
    println!("{}", serde_json::to_string_pretty(&printed)?);
    let recorded = mark_index.map_or("not recorded".to_owned(), |i| {
        format!("recorded as the mark at index {i}")
    });
    let seconds = (mark.finished_at - mark.started_at).num_milliseconds() as f64 / 1000.0;
    let Some(f) = &mark.failure else {
        eprintln!(
            "ledger OK: entries {}..{} checked ({}), in {seconds:.2} s; {recorded}",
            mark.from,
            mark.to,
            mark.scope.as_str()
        );
        if let CheckMade::Incremental(report) = check {
            for rollback in &report.accepted_rollbacks {
                eprintln!("{}", rollback.describe());
            }
        }
        return Ok(ExitCode::SUCCESS);
    };
    eprintln!(
        "ledger BROKEN at index {}: {} ({recorded})",
        f.index, f.reason
    );
    Ok(ExitCode::from(1))
}
