use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use ledger::storage::database::Database;
use std::collections::HashMap;

use dozor_log::checkpoint::{NoteSigner, NoteVerifier};
use dozor_log::entry_check::SignatureCheck;
use dozor_verify::VerifyOptions;
use ed25519_dalek::VerifyingKey;
use ledger::storage::cosignatures::CosignedCheckpoint;
use ledger::storage::verify::{verify_ledger_witnessed, VerifyReport};
use ledger::storage::{connect, reads, PgConnection};
use reports::nightly::{ChangedReport, NightlyError};

use ledger::storage::database::DatabaseChoice;

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// An inspection export to verify offline: its folder, the folder its ZIP was unpacked
    /// into, or the ZIP as downloaded; without it, the ledger in the database.
    dir: Option<PathBuf>,
    /// A signed checkpoint kept from an earlier visit (`checkpoint-latest.txt` of an earlier
    /// export, or one the server served or a witness kept): the export's ledger (or the
    /// database's) must extend it.
    #[arg(long, value_name = "CHECKPOINT_FILE")]
    pin: Option<PathBuf>,
    /// Operator verifier key (`name+id+key`, or a file holding it) that must have signed the
    /// checkpoints and registry events; repeat for keys before and after a rotation. The
    /// database check defaults to the key `dozor serve` uses (`DOZOR_OPERATOR_KEY`, else
    /// `<data dir>/operator.key`).
    #[arg(long = "operator-key")]
    operator_keys: Vec<String>,
    /// Verify every signature on its own with `verify_strict`, exactly as ingest does, instead
    /// of in batches (several times slower).
    #[arg(long)]
    strict_signatures: bool,
    /// Export only: check integrity (entries, signatures, tree, proofs, manifest) and that every
    /// round has its verdict, without re-adjudicating the rounds (nor auditing a table across
    /// its rounds).
    #[arg(long)]
    skip_readjudication: bool,
    /// Database only: a checkpoint witness file (`serve --checkpoint-witness`): each checkpoint
    /// in it must be met with its root, and none may be larger than the ledger.
    #[arg(long)]
    witness: Option<PathBuf>,
    /// A witness's cosignature verifier key (`name+id+key`, or a file holding it); repeat for
    /// each witness whose cosignatures count.
    #[arg(long = "witness-key")]
    witness_keys: Vec<String>,
    /// How many of the witness keys must have cosigned: the export's latest checkpoint (which
    /// is proven to extend the one its entries are cut at), or, for the database, a checkpoint
    /// the walk meets with its root. Default: all the keys given.
    #[arg(long)]
    quorum: Option<usize>,
    /// Database only: check what was appended since the last passing check, up to the latest
    /// signed checkpoint, and record the result in the ledger as an operator-signed
    /// verification mark (the first one walks the whole ledger); what the nightly job runs
    /// (docs/VERIFY.md).
    #[arg(long, conflicts_with_all = ["dir", "pin", "witness_keys", "quorum"])]
    since_last: bool,
    /// With `--since-last` or `--full-walk`: where the last mark recorded is kept outside the
    /// database, so that a restore of the database to before it is named (default:
    /// `verification-mark.json` in the data directory).
    #[arg(long)]
    mark_file: Option<PathBuf>,
    /// Database only: walk the whole ledger up to the largest checkpoint signed, in the
    /// background: resumable after a stop or a crash, within a budget of processor time and
    /// reads, its result recorded as a full verification mark; what the nightly job runs once
    /// a week (docs/VERIFY.md).
    #[arg(long, conflicts_with_all = ["dir", "pin", "witness_keys", "quorum", "since_last"])]
    full_walk: bool,
    #[command(flatten)]
    full_walk_options: super::verify_full_walk::FullWalkOptions,
}

impl VerifyArgs {
    fn witness_policy(&self) -> anyhow::Result<dozor_verify::WitnessPolicy> {
        let keys = self
            .witness_keys
            .iter()
            .map(|k| {
                let text = std::fs::read_to_string(k).unwrap_or_else(|_| k.clone());
                dozor_log::cosignature::CosignatureVerifier::parse(&text)
                    .with_context(|| format!("witness key `{k}`"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let quorum = self.quorum.unwrap_or(keys.len());
        if quorum > keys.len() {
            anyhow::bail!(
                "--quorum {quorum} is more than the {} witness keys given",
                keys.len()
            );
        }
        Ok(dozor_verify::WitnessPolicy { keys, quorum })
    }

    fn signature_check(&self) -> SignatureCheck {
        if self.strict_signatures {
            SignatureCheck::Strict
        } else {
            SignatureCheck::Batch
        }
    }
}

/// Verifier keys from the command line: the key itself, or a file holding it (or holding the
/// operator's private key, whose verifier key is then used).
pub(super) fn verifier_keys(keys: &[String]) -> anyhow::Result<Vec<NoteVerifier>> {
    keys.iter()
        .map(|k| {
            let text = match std::fs::read_to_string(k) {
                Ok(file) => file,
                Err(_) => k.clone(),
            };
            if text.trim_start().starts_with("PRIVATE+KEY+") {
                return Ok(NoteSigner::from_private_key(&text)
                    .with_context(|| format!("operator key `{k}`"))?
                    .verifier());
            }
            NoteVerifier::parse(&text).with_context(|| format!("operator key `{k}`"))
        })
        .collect()
}

pub fn run(global: &DatabaseChoice, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    match &args.dir {
        Some(dir) => offline(dir, &args),
        None if args.since_last => super::verify_since::run(
            global,
            &super::verify_since::SinceLastArgs {
                witness: args.witness.clone(),
                mark_file: args.mark_file.clone(),
                signatures: args.signature_check(),
            },
        ),
        None if args.full_walk => super::verify_full_walk::run(
            global,
            &super::verify_full_walk::FullWalkArgs {
                witness: args.witness.clone(),
                mark_file: args.mark_file.clone(),
                signatures: args.signature_check(),
                options: &args.full_walk_options,
            },
        ),
        None => database(global, &args),
    }
}

/// The pinned checkpoint's file, read (a usage error when it cannot be).
fn pinned(path: &std::path::Path) -> anyhow::Result<dozor_verify::PinnedCheckpoint> {
    let note = std::fs::read_to_string(path)
        .with_context(|| format!("--pin {}: cannot be read", path.display()))?;
    Ok(dozor_verify::PinnedCheckpoint {
        name: path.display().to_string(),
        note,
    })
}

fn offline(given: &std::path::Path, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    if args.operator_keys.is_empty() {
        anyhow::bail!("give the operator's verifier key with --operator-key (it is what makes the export trustworthy)");
    }
    let verifiers = verifier_keys(&args.operator_keys)?;
    let options = VerifyOptions {
        signatures: args.signature_check(),
        readjudicate: !args.skip_readjudication,
        witnesses: args.witness_policy()?,
        pin: args.pin.as_deref().map(pinned).transpose()?,
        ..VerifyOptions::default()
    };
    // A path that is no export is the command's mistake (exit 2), not a broken export.
    let source = dozor_verify::locate_export(given)?;
    let started = std::time::Instant::now();
    let bar = simulator::progress_bar(0, "entries");
    let result = dozor_verify::verify_export(source.dir(), &verifiers, options, |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    drop(source);
    match result {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report)?);
            eprintln!(
                "export OK: {} in {:.2} s",
                report.summary(),
                started.elapsed().as_secs_f64()
            );
            for rollback in &report.accepted_rollbacks {
                eprintln!("{}", rollback.describe());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("export BROKEN: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn database(global: &DatabaseChoice, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut verifiers = verifier_keys(&args.operator_keys)?;
    if verifiers.is_empty() {
        verifiers.push(server_verifier(global)?);
    }
    let policy = args.witness_policy()?;
    let db = Database::open_for_reading(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let checked = check_database(&mut conn, global, args, verifiers, &policy)?;
    drop(conn);
    db.close()?;
    print_database_check(checked, &policy)
}

/// The key the server signs with: DOZOR_OPERATOR_KEY as for `serve`, or its default.
fn server_verifier(global: &DatabaseChoice) -> anyhow::Result<NoteVerifier> {
    let path = std::env::var_os("DOZOR_OPERATOR_KEY")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| global.data_dir.join("operator.key"));
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "no --operator-key given and {} cannot be read",
            path.display()
        )
    })?;
    Ok(NoteSigner::from_private_key(&text)?.verifier())
}

/// What the walk of the database found, and the nightly reports' check.
struct DatabaseCheck {
    report: VerifyReport,
    /// The latest checkpoint with the witnesses' quorum; none when no witness key was given.
    witnessed_checkpoint: Option<Option<CosignedCheckpoint>>,
    /// The nightly reports matching their seals, and those changed.
    sealed: Result<(u64, Vec<ChangedReport>), NightlyError>,
    /// The pinned checkpoint (`--pin`): what it covers, or why the ledger is not its.
    pin: Option<Result<String, String>>,
    started: std::time::Instant,
}

/// Walks the whole ledger (every entry, signature, tree node and checkpoint, every round
/// re-judged) and checks the nightly reports under the data directory.
fn check_database(
    conn: &mut PgConnection,
    global: &DatabaseChoice,
    args: &VerifyArgs,
    mut verifiers: Vec<NoteVerifier>,
    policy: &dozor_verify::WitnessPolicy,
) -> anyhow::Result<DatabaseCheck> {
    let pin_file = args.pin.as_deref().map(pinned).transpose()?;
    if let (true, [own]) = (args.operator_keys.is_empty(), verifiers.as_slice()) {
        // The server's own key, and the keys that held the log before it (the registry
        // replay below checks each signed only where the rotations give it the log).
        let own = own.clone();
        verifiers = ledger::storage::rotation::operator_chain(conn, &own)?;
    }
    let operators: HashMap<String, VerifyingKey> = verifiers
        .iter()
        .map(|v| (dozor_log::keys::key_id(&v.key), v.key))
        .collect();
    let total = reads::size(conn)?;
    // The walk below meets every stored checkpoint with its root; the witnessed one among them.
    let witnessed_checkpoint = if policy.keys.is_empty() {
        None
    } else {
        Some(ledger::storage::cosignatures::latest_with_quorum(
            conn,
            &policy.keys,
            policy.quorum,
        )?)
    };
    let bar = simulator::progress_bar(total, "entries");
    let started = std::time::Instant::now();
    let witnessed = match &args.witness {
        Some(path) => ledger::witness::Witness::new(path).read(&verifiers)?,
        None => Vec::new(),
    };
    let report = verify_ledger_witnessed(
        conn,
        &operators,
        args.signature_check(),
        witnessed,
        |checked| bar.set_position(checked),
    )?;
    bar.finish_and_clear();
    // The nightly reports under the data directory must still be what was sealed.
    let sealed = reports::nightly::check_files(conn, &global.data_dir);
    let pin = match &pin_file {
        Some(pin) => Some(pin_in_database(conn, pin, &verifiers)?),
        None => None,
    };
    Ok(DatabaseCheck {
        report,
        witnessed_checkpoint,
        sealed,
        pin,
        started,
    })
}

/// The pinned checkpoint against the ledger in the database (whose tree the walk has just
/// checked): signed by one of `verifiers`, no larger than the ledger, and with the ledger's root
/// at its size. What it covers, or why the ledger is not the one pinned.
fn pin_in_database(
    conn: &mut PgConnection,
    pin: &dozor_verify::PinnedCheckpoint,
    verifiers: &[NoteVerifier],
) -> anyhow::Result<Result<String, String>> {
    let kept = match pin.open(verifiers) {
        Ok((kept, _)) => kept,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let size = reads::size(conn)?;
    let checked =
        pin.check_against_ledger(&kept, size, |m| ledger::storage::tree::root(conn, m))?;
    Ok(checked
        .map(|()| {
            format!(
                "{} ({} entries) is a prefix of the ledger",
                pin.item(),
                kept.size
            )
        })
        .map_err(|e| e.to_string()))
}

/// The report on standard output, the verdict in one line on standard error, and the exit
/// code: 1 when the ledger is broken, not witnessed as asked, or a sealed report changed.
fn print_database_check(
    checked: DatabaseCheck,
    policy: &dozor_verify::WitnessPolicy,
) -> anyhow::Result<ExitCode> {
    let DatabaseCheck {
        report,
        witnessed_checkpoint,
        sealed,
        pin,
        started,
    } = checked;
    let (reports_matching, changed_reports) = sealed?;
    let seconds = started.elapsed().as_secs_f64();
    let mut printed = serde_json::to_value(&report)?;
    printed["nightly_reports_matching"] = reports_matching.into();
    printed["nightly_reports_changed"] = serde_json::to_value(&changed_reports)?;
    if let Some(pinned) = &pin {
        printed["pin"] = match pinned {
            Ok(said) => serde_json::json!({"prefix": true, "said": said}),
            Err(said) => serde_json::json!({"prefix": false, "said": said}),
        };
    }
    if let Some(Some(w)) = &witnessed_checkpoint {
        printed["witnessed_size"] = w.checkpoint.size.into();
        printed["cosigned_by"] = w
            .cosignatures
            .iter()
            .map(|c| serde_json::json!({"witness": c.witness, "timestamp": c.timestamp}))
            .collect::<Vec<_>>()
            .into();
    }
    println!("{}", serde_json::to_string_pretty(&printed)?);
    if report.failure.is_none() {
        if let Some(Err(why)) = &pin {
            eprintln!("ledger NOT PINNED: {why}");
            return Ok(ExitCode::from(1));
        }
        if let Some(None) = witnessed_checkpoint {
            eprintln!(
                "ledger NOT WITNESSED: no checkpoint carries {} cosignatures of the {} witness keys given",
                policy.quorum,
                policy.keys.len()
            );
            return Ok(ExitCode::from(1));
        }
    }
    match (&report.failure, changed_reports.first()) {
        (None, None) => {
            eprintln!(
                "ledger OK: {} entries, every hash, link, signature, tree node and signed checkpoint checked, {} rounds re-adjudicated against their stored verdicts and findings, {reports_matching} nightly reports matching their seals, in {seconds:.2} s",
                report.entries_checked, report.rounds_readjudicated
            );
            if let Some(Ok(pinned)) = &pin {
                eprintln!("{pinned}");
            }
            for rollback in &report.accepted_rollbacks {
                eprintln!("{}", rollback.describe());
            }
            for range in &report.archived_ranges {
                eprintln!(
                    "entries {}..{} ARCHIVED at index {} ({}): in the inspection export of {} to {} whose MANIFEST has SHA-256 {}; their leaves, tree and {} registry events checked here",
                    range.from,
                    range.to,
                    range.index,
                    range.reason,
                    range.export_first_day,
                    range.export_last_day,
                    range.export_manifest_sha256,
                    range.registry_events
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        (Some(f), _) => {
            eprintln!("ledger BROKEN at index {}: {}", f.index, f.reason);
            Ok(ExitCode::from(1))
        }
        (None, Some(_)) => {
            super::verify_since::say_changed(&changed_reports);
            Ok(ExitCode::from(1))
        }
    }
}
