//! The `bench` command: which benchmark, with what, and how its end is told.

use std::process::ExitCode;

use anyhow::anyhow;
use ledger::storage::database::DatabaseChoice;

use crate::adjudicate::adjudicate;
use crate::ingest::{ingest, IngestArgs};
use crate::mf::MonthArgs;
use crate::outcome::ended;
use crate::proofs::proofs;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    kind: BenchKind,
}

#[derive(Debug, clap::Subcommand)]
enum BenchKind {
    /// Adjudication alone, on one core: roulette, blackjack, ultimate_texas_holdem, poker_cash
    /// (Hold'em), poker_omaha, open_face_chinese or poker_tournament (a whole tournament each).
    Adjudicate {
        /// Distinct rounds generated (then adjudicated repeatedly for at least 3 s).
        #[arg(long, default_value_t = 100_000)]
        rounds: usize,
        #[arg(long, default_value = "roulette")]
        game: String,
    },
    /// Sustained ingest of signed spins over HTTP into a durable ledger (fsync on).
    Ingest(IngestArgs),
    /// `dozor verify` of a large inspection export (filled once, kept), against bare batch
    /// verification of the same signatures, and `dozor verify` of the same ledger in the
    /// database.
    Verify {
        /// Signed spins in the ledger and the export.
        #[arg(long, default_value_t = 1_000_000)]
        entries: u64,
        /// Check signatures one by one with `verify_strict` instead of in batches.
        #[arg(long)]
        strict_signatures: bool,
    },
    /// Ingest (batches of 500, 4 in flight) while the full walk runs in the background within
    /// its budget, against ingest alone, in pairs; the walk goes over the `bench verify` fill.
    Walk(crate::walk::WalkArgs),
    /// The nightly check (`verify --since-last`) of one day's rounds (300 tables × 60 rounds ×
    /// 20 hours) on a ledger of ten million entries (filled once and checked whole once, kept).
    Nightly(crate::nightly::NightlyArgs),
    /// The Ministry's monthly package over a month of rounds, periods and cage days (filled
    /// once, kept): period audit, files and ZIP.
    Mf {
        #[command(flatten)]
        month: MonthArgs,
        /// Also deliver it each run — validate, encrypt, seal (not kept) — with the keys the
        /// `[delivery]` section of this configuration file names.
        #[arg(long)]
        delivery_config: Option<std::path::PathBuf>,
    },
    /// The monthly payout/RTP report and its HTML page over a month of roulette, blackjack,
    /// UTH and money wheel rounds (filled once, kept), the five games in turn at the tables.
    Rtp {
        #[command(flatten)]
        month: MonthArgs,
    },
    /// The server's peak memory (a `dozor serve` of its own) under 120 batch bodies of 15 MiB
    /// at once, then 8 XLSX downloads of 100 000 findings at once, `/healthz` asked throughout.
    Memory(crate::memory::MemoryArgs),
    /// The regulator's monitor following casinos' tiles (`catch-up`, `casinos`), and the cost
    /// of publishing them (`ingest`).
    #[command(subcommand)]
    Monitor(crate::monitor::MonitorBench),
    /// Inclusion-proof latency on a large tree (synthetic entries generated in SQL, kept between runs).
    Proofs {
        /// Entries in the tree.
        #[arg(long, default_value_t = 10_000_000)]
        entries: u64,
        /// Proofs to time.
        #[arg(long, default_value_t = 10_000)]
        samples: usize,
    },
}

/// Runs a benchmark. One that did not measure what it claims prints no figure, names why in one
/// line on standard error and exits 1; one that could not run returns the error (exit 2).
pub fn run(global: &DatabaseChoice, args: BenchArgs) -> anyhow::Result<ExitCode> {
    ended(run_kind(global, args.kind))
}

fn run_kind(global: &DatabaseChoice, kind: BenchKind) -> anyhow::Result<ExitCode> {
    match kind {
        BenchKind::Adjudicate { rounds, game } => match game.as_str() {
            "roulette" | "blackjack" | "ultimate_texas_holdem" | "poker_cash" | "poker_omaha"
            | "open_face_chinese" | "poker_tournament" => adjudicate(rounds, &game),
            other => Err(anyhow!(
                "unknown game `{other}` (roulette, blackjack, ultimate_texas_holdem, poker_cash, poker_omaha, open_face_chinese, poker_tournament)"
            )),
        },
        BenchKind::Proofs { entries, samples } => proofs(global, entries, samples),
        BenchKind::Mf {
            month,
            delivery_config,
        } => crate::mf::mf(global, &month, delivery_config.as_deref()),
        BenchKind::Rtp { month } => crate::rtp::rtp(global, &month),
        BenchKind::Verify {
            entries,
            strict_signatures,
        } => crate::verify::verify(global, entries, strict_signatures),
        BenchKind::Ingest(args) => ingest(global, &args),
        BenchKind::Walk(args) => crate::walk::walk(global, &args),
        BenchKind::Nightly(args) => crate::nightly::nightly(global, &args),
        BenchKind::Memory(args) => crate::memory::memory(global, &args),
        BenchKind::Monitor(bench) => crate::monitor::run(global, bench),
    }
}
