//! `dozor round DIR`: one round of an inspection export, as a person reads it, with the proof
//! that it is in the ledger the operator signed.

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use dozor_verify::WhichRound;
use reports::inspection::{show_round, ShownRound};
use reports::sheet::Language;

#[derive(Debug, clap::Args)]
pub struct RoundArgs {
    /// The inspection export: its folder (`dozor export`), or the API's ZIP as downloaded or
    /// unpacked.
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
    let which = match (args.seq_no, &args.round_id) {
        (Some(n), _) => WhichRound::SeqNo(n),
        (None, Some(id)) => WhichRound::RoundId(id.clone()),
        (None, None) => anyhow::bail!("give --seq-no or --round-id"),
    };
    let source = dozor_verify::locate_export(&args.dir)?;
    let shown = show_round(source.dir(), &keys, &args.table, &which, language)
        .map_err(|e| anyhow::anyhow!("{}: {}", e.item, e.message))?;
    drop(source);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(ExitCode::SUCCESS);
    }
    print_round(&shown, language);
    print_findings(&shown, language);
    print_offline_check(&args, &shown, language);
    Ok(ExitCode::SUCCESS)
}

/// A moment in Prague time, as `language` writes it: `1. 10. 2026 14:05:03` (Czech),
/// `2026-10-01 14:05:03` (English).
fn prague_time(t: DateTime<Utc>, language: Language) -> String {
    let format = language.pick("%-d. %-m. %Y %H:%M:%S", "%Y-%m-%d %H:%M:%S");
    t.with_timezone(&chrono_tz::Europe::Prague)
        .format(format)
        .to_string()
}

/// The round: when it was played and received (Prague time), where it stands in the ledger
/// and how that was proven, then its layout.
fn print_round(shown: &ShownRound, language: Language) {
    let w = |cs: &'static str, en: &'static str| language.pick(cs, en);
    let round = &shown.round;
    let played = round.record["played_at"]
        .as_str()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map_or_else(|| "—".to_owned(), |t| prague_time(t.to_utc(), language));
    println!(
        "{} {} #{} — {} {}",
        w("Záznam stolu", "Record of table"),
        round.table_id,
        round.seq_no,
        w("index v knize", "ledger index"),
        round.index,
    );
    println!(
        "{} {played}, {} {} ({})",
        w("odehráno", "played"),
        w("přijato", "received"),
        prague_time(round.received_at, language),
        w("čas v Praze", "Prague time")
    );
    println!(
        "{} {} {} {} {}; {}",
        w("v kontrolním bodu o velikosti", "in checkpoint of size"),
        round.checkpoint_size,
        w("podepsaném klíčem", "signed by"),
        round.signed_by,
        format_args!("(root {})", round.checkpoint_root),
        w(
            "důkaz zahrnutí ověřen offline",
            "inclusion proof verified offline"
        )
    );
    println!(
        "{} {}, {} {}",
        w("podepsán klíčem stolu", "signed by table key"),
        round.key_id,
        w("hash záznamu", "entry hash"),
        round.entry_hash
    );
    println!();
    print!("{}", shown.layout.to_text());
}

/// The findings re-adjudication gives, each with its kind in words, its amount and what it
/// says.
fn print_findings(shown: &ShownRound, language: Language) {
    let w = |cs: &'static str, en: &'static str| language.pick(cs, en);
    let findings = shown.round.verdict["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    println!();
    if findings.is_empty() {
        println!("{}", w("Bez nálezů.", "No findings."));
        return;
    }
    println!("{}", w("Nálezy:", "Findings:"));
    for (i, f) in findings.iter().enumerate() {
        println!(
            "  {}.{i} {} {}",
            shown.round.index,
            reports::words::finding_kind_code(f["kind"].as_str().unwrap_or_default(), language),
            rules::money::format_czk(f["amount_h"].as_i64().unwrap_or(0)),
        );
        println!(
            "      {}: {}",
            w("popis", "description"),
            finding_description(f, language)
        );
    }
}

/// A finding's description in `language`: the verdict's message is the rules' English (the
/// ledger's evidence); Czech reads it by the rules' catalogue of messages.
fn finding_description(finding: &serde_json::Value, language: Language) -> String {
    reports::words::finding_message(finding["message"].as_str().unwrap_or_default(), language)
}

/// The commands that check this round, and the whole export, offline: what an inspector runs.
fn print_offline_check(args: &RoundArgs, shown: &ShownRound, language: Language) {
    let w = |cs: &'static str, en: &'static str| language.pick(cs, en);
    let export = shell_word(&args.dir.display().to_string());
    let key = shell_word(&shown.round.signed_by);
    let which = match (&args.seq_no, &args.round_id) {
        (Some(n), _) => format!("--seq-no {n}"),
        (None, id) => format!(
            "--round-id {}",
            shell_word(id.as_deref().unwrap_or_default())
        ),
    };
    println!();
    println!(
        "{}",
        w(
            "Ověření offline (bez databáze a sítě, jen s ověřovacím klíčem provozovatele):",
            "To check offline (no database, no network; only the operator's verifier key):"
        )
    );
    println!(
        "  dozor round {export} --table {} {which} --operator-key {key}",
        shell_word(&shown.round.table_id)
    );
    println!("  dozor verify {export} --operator-key {key}");
}

/// `text` as one word for a POSIX shell.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=+@,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
