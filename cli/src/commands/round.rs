//! `dozor round DIR`: one round of an inspection export, as a person reads it, with the proof
//! that it is in the ledger the operator signed.

use std::path::PathBuf;
use std::process::ExitCode;

use dozor_verify::WhichRound;
use reports::inspection::show_round;
use reports::sheet::Language;

#[derive(Debug, clap::Args)]
pub struct RoundArgs {
    /// The inspection export (`dozor export`, or the API's zip unpacked).
    dir: PathBuf,
    /// The table (or station) whose round it is.
    #[arg(long)]
    table: String,
    /// The round's number in its table's sequence.
    #[arg(
        long,
        conflicts_with = "round_id",
        required_unless_present = "round_id"
    )]
    seq_no: Option<u64>,
    /// Or the table's own id of the round.
    #[arg(long)]
    round_id: Option<String>,
    /// The operator's verifier key as the regulator holds it (`name+id+key`, or a file);
    /// repeat for keys before and after a rotation.
    #[arg(long = "operator-key", required = true)]
    operator_keys: Vec<String>,
    /// `cs` (default) or `en`.
    #[arg(long, default_value = "cs")]
    lang: String,
    /// JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: RoundArgs) -> anyhow::Result<ExitCode> {
    let language = Language::parse(&args.lang)
        .ok_or_else(|| anyhow::anyhow!("--lang is cs or en, not `{}`", args.lang))?;
    let keys = super::verify::verifier_keys(&args.operator_keys)?;
    let which = match (args.seq_no, args.round_id) {
        (Some(n), _) => WhichRound::SeqNo(n),
        (None, Some(id)) => WhichRound::RoundId(id),
        (None, None) => anyhow::bail!("give --seq-no or --round-id"),
    };
    let shown = show_round(&args.dir, &keys, &args.table, &which, language)
        .map_err(|e| anyhow::anyhow!("{}: {}", e.item, e.message))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(ExitCode::SUCCESS);
    }
    let w = |cs: &'static str, en: &'static str| language.pick(cs, en);
    println!(
        "{} {} #{} — {} {}, {} {}",
        w("Záznam stolu", "Record of table"),
        shown.round.table_id,
        shown.round.seq_no,
        w("index v knize", "ledger index"),
        shown.round.index,
        w("přijat", "received"),
        shown.round.received_at.to_rfc3339()
    );
    println!(
        "{} {} {} {} {}; {}",
        w("v kontrolním bodu o velikosti", "in checkpoint of size"),
        shown.round.checkpoint_size,
        w("podepsaném klíčem", "signed by"),
        shown.round.signed_by,
        format_args!("(root {})", shown.round.checkpoint_root),
        w(
            "důkaz zahrnutí ověřen offline",
            "inclusion proof verified offline"
        )
    );
    println!(
        "{} {}, {} {}",
        w("podepsán klíčem stolu", "signed by table key"),
        shown.round.key_id,
        w("hash záznamu", "entry hash"),
        shown.round.entry_hash
    );
    println!();
    print!("{}", shown.layout.to_text());
    let findings = shown.round.verdict["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    println!();
    if findings.is_empty() {
        println!("{}", w("Bez nálezů.", "No findings."));
    } else {
        println!("{}", w("Nálezy:", "Findings:"));
        for (i, f) in findings.iter().enumerate() {
            println!(
                "  {}.{i} {} {}: {}",
                shown.round.index,
                f["kind"].as_str().unwrap_or_default(),
                rules::money::format_czk(f["amount_h"].as_i64().unwrap_or(0)),
                f["message"].as_str().unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
