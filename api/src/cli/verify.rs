use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

use api::database::Database;
use ledger::storage::{connect, reads, verify::verify_ledger};

use super::Global;

pub fn run(global: &Global) -> anyhow::Result<ExitCode> {
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let total = reads::size(&mut conn)?;
    let tty = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let report = verify_ledger(&mut conn, |checked| {
        if tty && total > 0 {
            let width = 40;
            let done = (checked * width / total) as usize;
            eprint!(
                "\r[{}{}] {checked}/{total}",
                "#".repeat(done),
                " ".repeat(width as usize - done)
            );
            let _ = std::io::stderr().flush();
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
                "ledger OK: {} entries, every hash, link and signature checked in {seconds:.2} s",
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
