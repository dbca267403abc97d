//! The `dozor` command line: server, database, keys, adjudication, verification, simulation,
//! reports and benchmarks.
//!
//! Place in the map (docs/ARCHITECTURE.md): the top; it may use every crate, and holds no logic
//! another command or the server would need.

mod commands;
mod config;
mod logging;

/// mimalloc: allocation-heavy paths (JSON, verdicts) run measurably faster than with glibc's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let args = commands::Args::parse();
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            let message = format!("{e:#}").replace('\n', " ");
            eprintln!("dozor: {message}");
            ExitCode::from(2)
        }
    }
}
