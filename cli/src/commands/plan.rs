//! `dozor plan lint`: contradictions in the plan itself, each citing its section.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, Context as _};
use rules::{Plan, PlanBook};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(subcommand)]
    kind: PlanCommand,
}

#[derive(Debug, clap::Subcommand)]
enum PlanCommand {
    /// Check a plan's numbers against each other (maximum wins against limits and pay tables,
    /// wheel segments against boxes, the rake caps); exit 1 when anything is found.
    Lint {
        /// Plan file (TOML); without it, the bundled plan `--plan-id` names.
        #[arg(long)]
        plan: Option<PathBuf>,
        #[arg(long, default_value = rules::plan::DEFAULT_PLAN)]
        plan_id: String,
        /// `text` or `json`.
        #[arg(long, default_value = "text")]
        format: String,
    },
}

pub fn run(args: PlanArgs) -> anyhow::Result<ExitCode> {
    let PlanCommand::Lint {
        plan,
        plan_id,
        format,
    } = args.kind;
    let plan = match &plan {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Plan::from_toml_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?
        }
        None => PlanBook::builtin()?
            .get(&plan_id)
            .cloned()
            .ok_or_else(|| anyhow!("no bundled plan `{plan_id}`"))?,
    };
    let found = rules::plan_lint::lint(&plan);
    match format.as_str() {
        "json" => println!("{}", serde_json::to_string_pretty(&found)?),
        "text" => {
            println!(
                "plan {} ({}): {} finding(s)",
                plan.plan_id,
                plan.name,
                found.len()
            );
            for f in &found {
                println!("- [{}] {}", f.section, f.message);
            }
        }
        other => anyhow::bail!("--format must be text or json, not `{other}`"),
    }
    Ok(if found.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
