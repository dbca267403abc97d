//! Subcommands.

mod adjudicate;
mod apikey;
mod clock;
mod database;
mod export;
mod keys;
mod log;
mod mf;
mod monitor;
mod monthly;
mod nightly;
mod output;
mod plan;
mod probe;
mod report;
mod round;
mod rtp;
mod serve;
mod simulate;
mod table;
mod tax;
mod verify;
mod verify_full_walk;
mod verify_since;
mod witness;

use ledger::storage::database::DatabaseChoice;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "dozor",
    version,
    about = "Compliance and audit service for live casino games"
)]
pub struct Args {
    /// PostgreSQL to use. Without it, dozor runs its own cluster under the data directory.
    #[arg(long, env = "DATABASE_URL", global = true)]
    database_url: Option<String>,
    /// Where dozor keeps its own PostgreSQL cluster and other state.
    #[arg(long, env = "DOZOR_DATA_DIR", default_value = "var", global = true)]
    data_dir: PathBuf,
    /// Log what the command does (its `info` lines) on standard error; without it a command
    /// other than `serve` logs only warnings and errors (`DOZOR_LOG_LEVEL` or `RUST_LOG` set
    /// any level).
    #[arg(long, short = 'v', global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// Entries per range of the ledger's partitioned tables (what `dozor log archive` moves
    /// out at a time): a power of two from 16 to 2^30, set while the ledger holds no entry.
    /// Default 2^20; a casino of a few tables that archives by the month takes fewer
    /// (docs/OPERATIONS.md, "Ten years: ranges and archives").
    #[arg(long)]
    partition_span: Option<u64>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP server (applies migrations first).
    Serve(serve::ServeArgs),
    /// Apply database migrations and exit.
    Migrate(MigrateArgs),
    /// API keys for the HTTP API: `apikey create --name N --role R`, `apikey list`,
    /// `apikey revoke KEY --reason R` (on the database directly).
    Apikey(apikey::ApikeyArgs),
    /// A table's posted limits: `table limits T` (the history and those in force),
    /// `table set-limits T --limits JSON --reason R` (on the database directly).
    Table(table::TableArgs),
    /// Create an ed25519 key pair for a gaming table.
    Keygen(keys::KeygenArgs),
    /// Sign a record file with a table key: prints the envelope {record, key_id, signature}.
    Sign(keys::SignArgs),
    /// Re-adjudicate a record (or envelope) file and print the verdict; touches no ledger.
    Adjudicate(adjudicate::AdjudicateArgs),
    /// Re-walk the whole ledger (every hash, link, signature and tree node), or verify an
    /// inspection export offline: `verify DIR --operator-key KEY`.
    Verify(verify::VerifyArgs),
    /// Write an inspection export of a period for offline verification.
    Export(export::ExportArgs),
    /// One round of an inspection export as a person reads it, with its inclusion in a
    /// checkpoint the operator signed checked offline: `round DIR --table R01 --seq-no 17`.
    Round(round::RoundArgs),
    /// Generate signed rounds (roulette, blackjack, UTH, money wheels, poker) for N tables and
    /// submit them to a running server.
    Simulate(simulator::simulate::SimulateArgs),
    /// Print the theoretical RTP of every bet kind of a plan, computed from its pay tables and
    /// the cards (docs/RTP.md).
    Rtp(rtp::RtpArgs),
    /// The plan itself: `plan lint` reports numbers of the plan that contradict each other.
    Plan(plan::PlanArgs),
    /// Reports (the nightly job runs `report daily`).
    Report(report::ReportArgs),
    /// Benchmarks: `bench adjudicate`, `bench ingest`, `bench proofs`, `bench verify`, `bench mf`,
    /// `bench rtp`, `bench memory`, `bench monitor`. One that did not measure what it claims prints no figure, names why in one
    /// line on standard error and exits 1.
    Bench(bench::command::BenchArgs),
    /// Ask the server at a URL (`http://127.0.0.1:8080/readyz`) whether it answers 200: a
    /// container's health check.
    Probe(probe::ProbeArgs),
    /// Print the operator's verifier key (what checkpoints, registry events and exports are
    /// checked with) and its fingerprint, for the regulator to hold apart from the server.
    OperatorKey(keys::OperatorKeyArgs),
    /// The log's operator key: `log rotate --new-key FILE --reason TEXT` hands it over (a
    /// recorded rotation the witnesses are told of); `log keys` lists the keys that held it.
    Log(log::LogArgs),
    /// The witness a regulator runs: `witness key`, `witness serve --key FILE --log VKEY…
    /// --store FILE`, `witness checkpoints`, `witness evidence`.
    Witness(witness::WitnessArgs),
    /// The regulator's monitor: follows every casino of `--config FILE` (their published
    /// tiles), `--once` for one pass, `--status` and `--show …` for what it found.
    Monitor(monitor::MonitorArgs),
    /// Print the role table: which roles may call each route (as docs/ACCESS.md lists it).
    Roles,
    /// Print the OpenAPI document (as checked in at openapi/openapi.json).
    Openapi {
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print instead the registrations (`POST /api/v1/tables` bodies, a JSON array) of the
        /// tables the document's example records are signed for.
        #[arg(long)]
        example_tables: bool,
    },
}

/// The URL of the server this data directory's configuration listens on (`[server] listen`,
/// DOZOR_BIND): where `simulate` sends its records unless told otherwise.
fn configured_server(global: &DatabaseChoice, file: Option<PathBuf>) -> anyhow::Result<String> {
    let source = crate::config::Source::find(file, &global.data_dir);
    let config = crate::config::load(&source, &serde_json::json!({}))?;
    let listen = config.server.listen;
    // A server listening on every address is reached on the loopback one.
    let reachable = match listen.rsplit_once(':') {
        Some(("0.0.0.0", port)) => format!("127.0.0.1:{port}"),
        Some(("[::]", port)) => format!("[::1]:{port}"),
        _ => listen,
    };
    Ok(format!("http://{reachable}"))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let global = DatabaseChoice {
        // An empty DATABASE_URL means none: dozor runs its own cluster.
        database_url: args.database_url.filter(|u| !u.trim().is_empty()),
        data_dir: args.data_dir,
    };
    let command = match args.command {
        Command::Serve(a) => {
            // The configuration first: it says how to log.
            let config = serve::configuration(&global, &a)?;
            crate::logging::init(&config.log);
            return serve::run(&global, &a, config);
        }
        other => other,
    };
    let service = matches!(&command, Command::Witness(a) if a.is_service())
        || matches!(&command, Command::Monitor(a) if a.is_service());
    crate::logging::init(&crate::logging::for_command(args.verbose || service));
    match command {
        Command::Serve(_) => Ok(ExitCode::SUCCESS),
        Command::Migrate(args) => {
            let db = ledger::storage::database::Database::open(
                global.database_url.clone(),
                &global.data_dir,
            )?;
            let set = args.partition_span.map(|span| {
                let mut conn = ledger::storage::connect(&db.url)?;
                if ledger::storage::partitions::span(&mut conn)? != span {
                    ledger::storage::partitions::set_span(&mut conn, span)?;
                }
                Ok::<_, ledger::LedgerError>(span)
            });
            let result = match set {
                Some(Err(e)) => Err(anyhow::anyhow!(
                    "--partition-span: {e} (a power of two from 16 to 2^30, set while the ledger holds no entry)"
                )),
                Some(Ok(span)) => {
                    println!("migrations applied; the ledger's ranges hold {span} entries");
                    Ok(())
                }
                None => {
                    println!("migrations applied; database ready");
                    Ok(())
                }
            };
            db.close()?;
            result?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Apikey(a) => apikey::run(&global, a),
        Command::Table(a) => table::run(&global, a),
        Command::Keygen(a) => keys::keygen(a),
        Command::OperatorKey(a) => keys::operator_key(&global, a),
        Command::Sign(a) => keys::sign(a),
        Command::Adjudicate(a) => adjudicate::run(a),
        Command::Verify(a) => verify::run(&global, a),
        Command::Export(a) => export::run(&global, a),
        Command::Round(a) => round::run(a),
        Command::Simulate(mut a) => {
            if a.server.is_none() {
                a.server = Some(configured_server(&global, a.config.clone())?);
            }
            simulate::run(&global, a)
        }
        Command::Report(a) => report::run(&global, a),
        Command::Rtp(a) => rtp::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Bench(a) => bench::command::run(&global, a),
        Command::Probe(a) => probe::run(a),
        Command::Witness(a) => witness::run(a),
        Command::Monitor(a) => monitor::run(&global, a),
        Command::Log(a) => log::run(&global, a),
        Command::Roles => {
            print!("{}", api::access::markdown());
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi {
            example_tables: true,
            ..
        } => {
            println!(
                "{}",
                serde_json::to_string_pretty(&api::openapi::example_registrations())?
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi { out, .. } => {
            let text = api::openapi::document()?;
            match out {
                Some(path) => std::fs::write(&path, text)?,
                None => print!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
