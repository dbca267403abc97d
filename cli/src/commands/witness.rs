//! `dozor witness …`: the witness a regulator runs beside the casino's dozor (C2SP
//! `tlog-witness`). `key` makes its key, `serve` runs it, `checkpoints` and `evidence` read what
//! it kept (from a stopped witness's store; a running one answers
//! `GET /<hex SHA-256 of the origin>/checkpoint`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use dozor_log::checkpoint::NoteVerifier;
use dozor_log::cosignature::CosignatureSigner;
use dozor_witness::{Store, Witness};

#[derive(Debug, clap::Args)]
pub struct WitnessArgs {
    #[command(subcommand)]
    command: WitnessCommand,
}

impl WitnessArgs {
    /// `witness serve`: a service, whose log says what it does as `serve`'s does.
    pub fn is_service(&self) -> bool {
        matches!(self.command, WitnessCommand::Serve { .. })
    }
}

#[derive(Debug, clap::Subcommand)]
enum WitnessCommand {
    /// Create the witness's Ed25519 cosignature key (file mode 0600) and print its verifier key,
    /// which the casino configures (`[[witness]] key`) and verifiers take (`--witness-key`).
    Key {
        /// The witness's name, a schema-less URL: `witness.regulator.example/casino-1`.
        #[arg(long)]
        name: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Run the witness: `POST /add-checkpoint` for the logs given with `--log`.
    Serve {
        /// The witness's key file (`dozor witness key`).
        #[arg(long)]
        key: PathBuf,
        /// A log to follow: the operator's verifier key (`dozor operator-key`), whose name is
        /// the log's origin. Repeat for several.
        #[arg(long = "log", required = true)]
        logs: Vec<String>,
        /// The witness's state (created if missing).
        #[arg(long)]
        store: PathBuf,
        #[arg(long, default_value = "127.0.0.1:8090")]
        bind: String,
    },
    /// Every checkpoint the witness cosigned, one JSON object per line.
    Checkpoints {
        #[arg(long)]
        store: PathBuf,
        /// Only this log's.
        #[arg(long)]
        origin: Option<String>,
    },
    /// The checkpoints the witness refused although their log signed them (forks, trees not
    /// shown consistent), one JSON object per line.
    Evidence {
        #[arg(long)]
        store: PathBuf,
    },
}

pub fn run(args: WitnessArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        WitnessCommand::Key { name, out } => {
            let signer = CosignatureSigner::new(&name, dozor_log::keys::generate())?;
            ledger::operator_key::write_private(&out, &signer.private_key())?;
            println!(
                "{}",
                serde_json::json!({"verifier_key": signer.verifier().to_string(), "key_file": out})
            );
            Ok(ExitCode::SUCCESS)
        }
        WitnessCommand::Serve {
            key,
            logs,
            store,
            bind,
        } => serve(&key, &logs, &store, &bind),
        WitnessCommand::Checkpoints { store, origin } => {
            let store = open(&store)?;
            for (origin, size, note) in store.cosigned(origin.as_deref())? {
                println!(
                    "{}",
                    serde_json::json!({"origin": origin, "size": size, "note": note})
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        WitnessCommand::Evidence { store } => {
            let store = open(&store)?;
            let evidence = store.evidence()?;
            for kept in &evidence {
                println!("{}", serde_json::to_string(kept)?);
            }
            let mut origins: Vec<&str> = evidence.iter().map(|e| e.origin.as_str()).collect();
            origins.sort_unstable();
            origins.dedup();
            for origin in origins {
                let not_kept = store.evidence_not_kept(origin)?;
                if not_kept > 0 {
                    eprintln!(
                        "{origin}: {not_kept} more refused checkpoints were counted, not kept (at most {} are kept per log)",
                        dozor_witness::store::MAX_EVIDENCE_PER_LOG
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn open(path: &std::path::Path) -> anyhow::Result<Store> {
    if !path.exists() {
        anyhow::bail!("no witness store at {}", path.display());
    }
    Store::open(path).with_context(|| {
        format!(
            "opening {} (a running witness holds it: ask it with GET /<origin hash>/checkpoint)",
            path.display()
        )
    })
}

fn serve(
    key: &std::path::Path,
    logs: &[String],
    store: &std::path::Path,
    bind: &str,
) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(key)
        .with_context(|| format!("reading the witness key {}", key.display()))?;
    let signer = CosignatureSigner::from_private_key(&text)
        .with_context(|| format!("the witness key {}", key.display()))?;
    let logs = logs
        .iter()
        .map(|l| NoteVerifier::parse(l).with_context(|| format!("--log `{l}`")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let store = Store::open(store)?;
    let verifier = signer.verifier().to_string();
    let witness = Arc::new(Witness::new(signer, &logs, store));
    let listener =
        std::net::TcpListener::bind(bind).with_context(|| format!("listening on {bind}"))?;
    let address = listener.local_addr()?;
    let origins: Vec<&str> = logs.iter().map(|l| l.name.as_str()).collect();
    // One line a supervisor (or a test) can read: where it listens, and who it is.
    println!(
        "{}",
        serde_json::json!({"listening": address.to_string(), "verifier_key": verifier, "logs": origins})
    );
    tracing::info!(%address, verifier_key = %verifier, "witness listening");
    actix_web::rt::System::new()
        .block_on(async move { dozor_witness::server::server(witness, listener)?.await })?;
    Ok(ExitCode::SUCCESS)
}
