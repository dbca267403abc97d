use ledger::storage::database::DatabaseChoice;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use dozor_log::keys::{generate, SecretKeyFile};
use dozor_log::Envelope;

#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    /// Secret key file to write (JSON; keep it on the table's signing device only).
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
    /// Make the operator's checkpoint key instead of a table key (Go sumdb/note format).
    #[arg(long)]
    operator: bool,
    /// Name (log origin) of an operator key, e.g. `ledger.casino.example/praha`; default, one of
    /// its own (`dozor.local/<key hash>`).
    #[arg(long)]
    name: Option<String>,
}

pub fn keygen(args: KeygenArgs) -> anyhow::Result<ExitCode> {
    if args.out.exists() && !args.force {
        bail!("{} exists; use --force to overwrite", args.out.display());
    }
    if args.operator {
        let key = generate();
        let name = args
            .name
            .clone()
            .unwrap_or_else(|| ledger::operator_key::default_origin(&key.verifying_key()));
        let signer = dozor_log::checkpoint::NoteSigner::new(&name, key)?;
        ledger::operator_key::write_private(&args.out, &signer.private_key())?;
        println!(
            "{}",
            serde_json::json!({"verifier_key": signer.verifier().to_string(), "secret_key_file": args.out})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let file = SecretKeyFile::new(&generate());
    let text = serde_json::to_string_pretty(&file)?;
    ledger::operator_key::write_private(&args.out, &text)?;
    println!(
        "{}",
        serde_json::json!({"key_id": file.key_id, "public_key": file.public_key, "secret_key_file": args.out})
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct SignArgs {
    /// Secret key file from `dozor keygen`.
    #[arg(long)]
    key: PathBuf,
    /// The record (JSON); `-` for standard input.
    record: PathBuf,
    /// Write the envelope here instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn sign(args: SignArgs) -> anyhow::Result<ExitCode> {
    let key = SecretKeyFile::read(&args.key)?;
    let text = super::adjudicate::read_input(&args.record)?;
    let record: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", args.record.display()))?;
    let envelope = Envelope::sign(record, &key)?;
    let out = serde_json::to_string_pretty(&envelope)?;
    match args.out {
        Some(path) => std::fs::write(&path, out + "\n")
            .with_context(|| format!("writing {}", path.display()))?,
        None => println!("{out}"),
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct OperatorKeyArgs {
    /// The operator's private key file (default: the one `serve` uses, DOZOR_OPERATOR_KEY or
    /// `<data dir>/operator.key`); only its public half is printed.
    #[arg(long, env = "DOZOR_OPERATOR_KEY", conflicts_with = "verifier")]
    operator_key: Option<PathBuf>,
    /// Instead, a verifier key as someone gave it (`name+id+key`): checked and fingerprinted,
    /// as an inspector does on a machine of their own.
    #[arg(long)]
    verifier: Option<String>,
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Prints the operator's verifier key and its fingerprint.
pub fn operator_key(global: &DatabaseChoice, args: OperatorKeyArgs) -> anyhow::Result<ExitCode> {
    let verifier = match args.verifier {
        Some(text) => dozor_log::checkpoint::NoteVerifier::parse(&text)
            .with_context(|| format!("`{text}` is not a verifier key"))?,
        None => super::serve::existing_operator_key(global, args.operator_key)?.verifier(),
    };
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "verifier_key": verifier.to_string(),
                "origin": verifier.name,
                "key_id": format!("{:08x}", verifier.id),
                "fingerprint": verifier.fingerprint(),
            })
        );
    } else {
        println!("verifier key: {verifier}");
        println!("origin:       {}", verifier.name);
        println!("fingerprint:  {}", verifier.fingerprint());
        println!("(the fingerprint is SHA-256 of the verifier key as written on the first line)");
    }
    Ok(ExitCode::SUCCESS)
}
