use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use api::database::Database;
use ledger::checkpoint::NoteVerifier;
use ledger::storage::{connect, reads, verify::verify_ledger};

use super::Global;

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// An inspection export to verify offline; without it, the ledger in the database.
    dir: Option<PathBuf>,
    /// Operator verifier key (`name+id+key`, or a file holding it) that must have signed the
    /// export's checkpoints; repeat for keys before and after a rotation.
    #[arg(long = "operator-key")]
    operator_keys: Vec<String>,
}

fn bar(done: u64, total: u64) {
    if total == 0 {
        return;
    }
    let width = 40;
    let filled = (done * width / total) as usize;
    eprint!(
        "\r[{}{}] {done}/{total}",
        "#".repeat(filled),
        " ".repeat(width as usize - filled)
    );
    let _ = std::io::stderr().flush();
}

pub fn run(global: &Global, args: VerifyArgs) -> anyhow::Result<ExitCode> {
    match args.dir {
        Some(dir) => offline(&dir, &args.operator_keys),
        None => database(global),
    }
}

fn offline(dir: &std::path::Path, keys: &[String]) -> anyhow::Result<ExitCode> {
    if keys.is_empty() {
        anyhow::bail!("give the operator's verifier key with --operator-key (it is what makes the export trustworthy)");
    }
    let verifiers = keys
        .iter()
        .map(|k| {
            let text = match std::fs::read_to_string(k) {
                Ok(file) => file,
                Err(_) => k.clone(),
            };
            NoteVerifier::parse(&text).with_context(|| format!("operator key `{k}`"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let tty = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let result = ledger::inspection::verify_export(dir, &verifiers, |done, total| {
        if tty {
            bar(done, total);
        }
    });
    if tty {
        eprintln!();
    }
    match result {
        Ok(report) => {
            println!("{}", serde_json::to_string_pretty(&report)?);
            eprintln!(
                "export OK: {} entries of {}..{} (plus chain links), {} signatures, {} rounds re-adjudicated, all leaves of checkpoint {} checked in {:.2} s",
                report.period_entries,
                report.period.0,
                report.period.1,
                report.signatures_checked,
                report.rounds_readjudicated,
                report.checkpoint_size,
                started.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("export BROKEN: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn database(global: &Global) -> anyhow::Result<ExitCode> {
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let total = reads::size(&mut conn)?;
    let tty = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let report = verify_ledger(&mut conn, |checked| {
        if tty {
            bar(checked, total);
        }
    })?;
    if tty && total > 0 {
        eprintln!();
    }
    drop(conn);
    db.close()?;
    let seconds = started.elapsed().as_secs_f64();
    println!("{}", serde_json::to_string_pretty(&report)?);
    match &report.failure {
        None => {
            eprintln!(
                "ledger OK: {} entries, every hash, link, signature and tree node checked in {seconds:.2} s",
                report.entries_checked
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(f) => {
            eprintln!("ledger BROKEN at index {}: {}", f.index, f.reason);
            Ok(ExitCode::from(1))
        }
    }
}
