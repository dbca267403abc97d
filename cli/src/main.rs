//! The `dozor` command line: server, database, keys, adjudication, verification, simulation,
//! reports and benchmarks.

mod commands;

/// mimalloc: allocation-heavy paths (JSON, verdicts) run measurably faster than with glibc's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
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
