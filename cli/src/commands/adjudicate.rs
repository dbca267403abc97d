use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Context as _};
use rules::{Plan, PlanBook, Round};

#[derive(Debug, clap::Args)]
pub struct AdjudicateArgs {
    /// A record or an envelope {record, key_id, signature} (JSON); `-` for standard input.
    file: PathBuf,
    /// Plan file (TOML) to adjudicate against instead of the bundled plan the record names.
    #[arg(long)]
    plan: Option<PathBuf>,
    /// The table's configuration, as registered: a JSON object such as
    /// `{"wheel_layout": ["1", "2", "1", "5", ...]}` (a money wheel's segments in physical order)
    /// and `"limits": {"min_bet_h": 10000, ...}` (the limits the table posted for the round).
    #[arg(long, conflicts_with = "wheel_layout")]
    table_config: Option<PathBuf>,
    /// A money wheel's segment labels in physical order, comma separated (`1,2,1,5,...`).
    #[arg(long, value_delimiter = ',')]
    wheel_layout: Option<Vec<String>>,
    /// Exit with status 1 when the verdict has findings.
    #[arg(long)]
    fail_on_findings: bool,
}

pub fn read_input(path: &Path) -> anyhow::Result<String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    }
}

/// What adjudication needs from a table's registration besides the plan.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TableConfig {
    wheel_layout: Option<Vec<String>>,
    limits: Option<rules::TableLimits>,
}

fn table_config(path: &Path) -> anyhow::Result<TableConfig> {
    serde_json::from_str(&read_input(path)?)
        .with_context(|| format!("{} is not a table configuration", path.display()))
}

pub fn run(args: AdjudicateArgs) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.file)?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", args.file.display()))?;
    // An envelope is adjudicated by its record; the signature is the server's business.
    let record = match value.get("record") {
        Some(r) if value.get("signature").is_some() => r.clone(),
        _ => value,
    };
    let round = Round::parse(&record).map_err(|e| anyhow!("{e}"))?;
    let plan: Plan = match &args.plan {
        Some(path) => Plan::from_toml_str(&read_input(path)?)?,
        None => PlanBook::builtin()?
            .get(round.plan_id())
            .cloned()
            .ok_or_else(|| anyhow!("unknown plan `{}` (use --plan FILE)", round.plan_id()))?,
    };
    let (layout, limits) = match (&args.table_config, args.wheel_layout) {
        (Some(path), _) => {
            let config = table_config(path)?;
            (config.wheel_layout, config.limits)
        }
        (None, layout) => (layout, None),
    };
    let setup =
        rules::TableSetup::for_table(&plan, round.game(), layout.as_deref(), limits.as_ref())
            .map_err(|e| anyhow!("table configuration: {e}"))?;
    // The one judge ingest and the verifiers use; a record checked by hand is no ledger entry,
    // and its table is the setup given here whatever the index.
    let (printed, clean) = dozor_log::judge::judge(
        &round,
        0,
        |_| Some(&plan),
        &setup,
        |judged| {
            serde_json::to_string_pretty(&judged.verdict)
                .map(|text| (text, judged.verdict.is_clean()))
        },
    )
    .map_err(|e| anyhow!("{e}"))??;
    println!("{printed}");
    if args.fail_on_findings && !clean {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
