//! `dozor bench monitor …`: what following casinos' tiles costs the regulator's monitor, and what
//! publishing them costs a casino. `catch-up` times one monitor following a large ledger from
//! nothing beside `dozor verify` of the same ledger's export; `casinos` measures the delay from a
//! checkpoint's publication to the monitor having committed it, and the monitor's memory, while
//! many casinos grow; `ingest` alternates `bench ingest` with and without `--tiles`.
//!
//! Every monitor is `dozor monitor` as the regulator runs it (a child process of this binary,
//! with its state in a throwaway PostgreSQL cluster), following folders served by Debian's nginx.

mod casinos;
mod catch_up;
mod ingest_ab;
mod nginx;
mod process;
mod shared;

use std::process::ExitCode;

use ledger::storage::database::DatabaseChoice as Global;

pub use casinos::CasinosArgs;
pub use catch_up::CatchUpArgs;
pub use ingest_ab::IngestAbArgs;

#[derive(Debug, clap::Subcommand)]
pub enum MonitorBench {
    /// One monitor following a ledger (filled once, kept; that of `bench verify`) from nothing,
    /// served by nginx as tiles, against `dozor verify` of its inspection export: entries/s of
    /// each and their ratio.
    CatchUp(CatchUpArgs),
    /// Many casinos, each its own ledger published to its own folder, growing while one monitor
    /// follows them all: the delay from a checkpoint's publication to the monitor having
    /// committed it, and the monitor's peak memory.
    Casinos(CasinosArgs),
    /// `bench ingest` without and with `--tiles`, alternated: the cost of publishing tiles.
    Ingest(IngestAbArgs),
}

pub fn run(global: &Global, bench: MonitorBench) -> anyhow::Result<ExitCode> {
    match bench {
        MonitorBench::CatchUp(args) => catch_up::catch_up(global, &args),
        MonitorBench::Casinos(args) => casinos::casinos(&args),
        MonitorBench::Ingest(args) => ingest_ab::ingest_ab(&args),
    }
}
