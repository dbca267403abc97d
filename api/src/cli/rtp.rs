//! `dozor rtp`: the theoretical RTP of every bet kind of a plan, computed from its pay tables.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Context as _};
use rules::rtp::{self, BetRtp, SevenCardHands};
use rules::{Plan, PlanBook};

#[derive(Debug, clap::Args)]
pub struct RtpArgs {
    /// Plan file (TOML); without it, the bundled plan `--plan-id` names.
    #[arg(long)]
    plan: Option<PathBuf>,
    #[arg(long, default_value = api::server::DEFAULT_PLAN)]
    plan_id: String,
}

pub fn run(args: RtpArgs) -> anyhow::Result<ExitCode> {
    let plan = match &args.plan {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Plan::from_toml_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?
        }
        None => PlanBook::builtin()?
            .get(&args.plan_id)
            .cloned()
            .ok_or_else(|| anyhow!("no bundled plan `{}`", args.plan_id))?,
    };
    let mut lines: Vec<BetRtp> = Vec::new();
    if let Some(roulette) = &plan.roulette {
        lines.extend(rtp::roulette(roulette));
    }
    if let Some(blackjack) = &plan.blackjack {
        lines.push(rtp::perfect_pairs(
            blackjack.decks,
            &blackjack.perfect_pairs,
        ));
    }
    let mut enumeration = None;
    if let Some(uth) = &plan.ultimate_texas_holdem {
        let started = Instant::now();
        let hands = SevenCardHands::enumerate();
        enumeration = Some(started.elapsed().as_secs_f64());
        lines.push(rtp::uth_trips(&uth.trips, &hands));
    }
    println!("Theoretical RTP of plan {} ({})", plan.plan_id, plan.name);
    println!(
        "{:<24} {:<16} {:>10}  {:<24} method",
        "game", "bet", "RTP", "exact"
    );
    for line in &lines {
        println!(
            "{:<24} {:<16} {:>9.4}%  {:<24} {}",
            line.game,
            line.bet,
            line.rtp.to_f64() * 100.0,
            format!("{}/{}", line.rtp.num, line.rtp.den),
            line.method
        );
    }
    if let Some(seconds) = enumeration {
        println!("(seven-card hands enumerated in {seconds:.2} s on one core)");
    }
    Ok(ExitCode::SUCCESS)
}
