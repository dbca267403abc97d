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
    args.mark_file
        .clone()
        .unwrap_or_else(|| default_mark_file(global))
}

/// The last mark's file in the data directory.
pub(super) fn default_mark_file(global: &DatabaseChoice) -> PathBuf {
    global
        .data_dir
        .join(ledger::storage::nightly_check::MARK_FILE)
}

/// What a check that records its mark works with: the operator key (`DOZOR_OPERATOR_KEY`, else
/// the data directory's), the database open for reading, the operator keys its entries may be
/// signed by (the current one and those it rotated from), and the witness file's checkpoints.
pub(super) struct Checking {
    pub operator: dozor_log::checkpoint::NoteSigner,
    pub db: Database,
    pub conn: ledger::storage::PgConnection,
    pub operators: HashMap<String, VerifyingKey>,
    pub witnessed: Vec<ledger::storage::issued::IssuedCheckpoint>,
}

impl Checking {
    pub(super) fn open(
        global: &DatabaseChoice,
        witness: Option<&std::path::Path>,
    ) -> anyhow::Result<Checking> {
        let operator = super::serve::existing_operator_key(
            global,
            std::env::var_os("DOZOR_OPERATOR_KEY").map(PathBuf::from),
        )?;
        let db = Database::open_for_reading(global.database_url.clone(), &global.data_dir)?;
        let mut conn = connect(&db.url)?;
        let verifiers = ledger::storage::rotation::operator_chain(&mut conn, &operator.verifier())?;
        let operators = verifiers
            .iter()
            .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
            .collect();
        let witnessed = match witness {
            Some(path) => ledger::witness::Witness::new(path).read(&verifiers)?,
            None => Vec::new(),
        };
        Ok(Checking {
            operator,
            db,
            conn,
            operators,
            witnessed,
        })
    }
}

pub(super) fn run(global: &DatabaseChoice, args: &SinceLastArgs) -> anyhow::Result<ExitCode> {
    let Checking {
        operator,
        db,
        mut conn,
        operators,
        witnessed,
    } = Checking::open(global, args.witness.as_deref())?;
    let mark_file = mark_file(global, args);
    let check = NightlyCheck {
        operator: &operator,
        operators: &operators,
        signatures: args.signatures,
        witnessed,
        mark_file: &mark_file,
        actor: cli_actor(),
        walk_all_first: true,
    };
    let bar = simulator::progress_bar(0, "entries");
    let outcome = check.run(&mut conn, |walked| bar.set_position(walked))?;
    bar.finish_and_clear();
    // The night's files against their seals, as the full `verify` checks them.
    let (reports_matching, changed_reports) =
        reports::nightly::check_files(&mut conn, &global.data_dir)?;
    drop(conn);
    db.close()?;
    match outcome {
        NightlyOutcome::NothingNew {
            verified_to,
            since_mark,
        } => {
            println!(
                "{}",
                json!({
                    "scope": "incremental",
                    "nothing_new": true,
                    "verified_to": verified_to,
                    "since_mark": since_mark,
                    "nightly_reports_matching": reports_matching,
                    "nightly_reports_changed": changed_reports,
                })
            );
            if say_changed(&changed_reports) {
                return Ok(ExitCode::from(1));
            }
            match since_mark {
                Some(mark) => eprintln!("ledger OK: no checkpoint signed since the last check (entries 0..{verified_to} verified, the mark at index {mark}); nothing recorded"),
                None => eprintln!("ledger OK: empty; nothing recorded"),
            }
            Ok(ExitCode::SUCCESS)
        }
        NightlyOutcome::NoPassingCheck => {
            anyhow::bail!("no check has passed yet and the whole ledger was not walked")
        }
        NightlyOutcome::RolledBack(f) => {
            println!(
                "{}",
                json!({"scope": "incremental", "failure": {"index": f.index, "reason": f.reason}})
            );
            eprintln!(
                "ledger BROKEN at index {}: {} (nothing recorded: nothing was signed since)",
                f.index, f.reason
            );
            Ok(ExitCode::from(1))
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
            let mut printed = printed(&check, &mark, index)?;
            printed["nightly_reports_matching"] = reports_matching.into();
            printed["nightly_reports_changed"] = serde_json::to_value(&changed_reports)?;
            println!("{}", serde_json::to_string_pretty(&printed)?);
            let code = result_line(&check, &mark, index);
            if let Err(e) = recorded {
                eprintln!("the check was NOT recorded: {e}");
                return Ok(ExitCode::from(1));
            }
            if say_changed(&changed_reports) {
                return Ok(ExitCode::from(1));
            }
            Ok(code)
        }
    }
}

/// The report of the check, for standard output.
pub(super) fn printed(
    check: &CheckMade,
    mark: &MarkToRecord,
    mark_index: Option<u64>,
) -> anyhow::Result<serde_json::Value> {
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
    Ok(printed)
}

/// The result in one line on standard error; exit 1 when the check failed.
pub(super) fn result_line(
    check: &CheckMade,
    mark: &MarkToRecord,
    mark_index: Option<u64>,
) -> ExitCode {
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
        return ExitCode::SUCCESS;
    };
    eprintln!(
        "ledger BROKEN at index {}: {} ({recorded})",
        f.index, f.reason
    );
    ExitCode::from(1)
}

/// Says in one line on standard error which nightly report is not the one sealed, if any:
/// whether one is.
pub(super) fn say_changed(changed: &[reports::nightly::ChangedReport]) -> bool {
    let Some(first) = changed.first() else {
        return false;
    };
    eprintln!(
        "reports CHANGED: {} ({}), sealed at index {}; {} in all",
        first.name,
        first.problem,
        first.ledger_index,
        changed.len()
    );
    true
}
