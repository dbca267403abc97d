//! `dozor rtp`: the theoretical RTP of every bet kind of a plan, computed from its pay tables and
//! the cards. The long figures (UTH over every deal, Trips over every seven-card hand, the
//! blackjack shoe simulation) come from the plan's `.rtp.toml` file when it was computed for the
//! plan's current rules, else they are computed here; `--write` stores them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Context as _};
use rules::rtp::{self, BetRtp, TheoreticalFigures};
use rules::{Plan, PlanBook};

#[derive(Debug, clap::Args)]
pub struct RtpArgs {
    /// Plan file (TOML); its figures are read from the `.rtp.toml` file beside it, if any.
    /// Without it, the bundled plan `--plan-id` names.
    #[arg(long)]
    plan: Option<PathBuf>,
    #[arg(long, default_value = rules::plan::DEFAULT_PLAN)]
    plan_id: String,
    /// Compute every figure again, even those stored for the plan's rules.
    #[arg(long)]
    compute: bool,
    /// Write the computed figures to this file (the plan's `.rtp.toml`).
    #[arg(long)]
    write: Option<PathBuf>,
    /// Threads for the long computations.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

fn figures_beside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    Some(path.with_file_name(format!("{}.rtp.toml", name.strip_suffix(".toml")?)))
}

fn load_plan(args: &RtpArgs) -> anyhow::Result<Plan> {
    let Some(path) = &args.plan else {
        return PlanBook::builtin()?
            .get(&args.plan_id)
            .cloned()
            .ok_or_else(|| anyhow!("no bundled plan `{}`", args.plan_id));
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut plan = Plan::from_toml_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if let Some(beside) = figures_beside(path).filter(|p| p.exists()) {
        let text = std::fs::read_to_string(&beside)
            .with_context(|| format!("reading {}", beside.display()))?;
        plan.theoretical = TheoreticalFigures::from_toml_str(&text)
            .map_err(|e| anyhow!("{}: {e}", beside.display()))?
            .matching(&plan);
    }
    Ok(plan)
}

fn figures_missing(plan: &Plan) -> bool {
    (plan.blackjack.is_some() && plan.theoretical.blackjack.is_none())
        || (plan.ultimate_texas_holdem.is_some()
            && plan.theoretical.ultimate_texas_holdem.is_none())
}

pub fn run(args: RtpArgs) -> anyhow::Result<ExitCode> {
    let mut plan = load_plan(&args)?;
    if args.compute || args.write.is_some() || figures_missing(&plan) {
        eprintln!(
            "computing the figures of plan {} on {} threads (about a minute on two cores)…",
            plan.plan_id, args.threads
        );
        let started = Instant::now();
        plan.theoretical = TheoreticalFigures::compute(&plan, args.threads);
        eprintln!("computed in {:.1} s", started.elapsed().as_secs_f64());
    }
    if let Some(path) = &args.write {
        std::fs::write(path, plan.theoretical.to_toml_string()?)
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    print_table(&plan);
    Ok(ExitCode::SUCCESS)
}

fn print_table(plan: &Plan) {
    let mut lines: Vec<BetRtp> = Vec::new();
    if let Some(roulette) = &plan.roulette {
        lines.extend(rtp::roulette(roulette));
    }
    for (game, wheel) in [
        ("money_wheel_1", &plan.money_wheel_1),
        ("money_wheel_2", &plan.money_wheel_2),
    ] {
        if let Some(wheel) = wheel {
            lines.extend(rtp::wheel(game, wheel));
        }
    }
    if let Some(bp) = &plan.blackjack {
        lines.push(rtp::insurance(bp.decks, bp.insurance_odds));
        lines.push(rtp::perfect_pairs(bp.decks, &bp.perfect_pairs));
    }
    println!("Theoretical RTP of plan {} ({})", plan.plan_id, plan.name);
    println!(
        "{:<24} {:<18} {:>10}  {:<34} method",
        "game", "bet", "RTP", "exact"
    );
    for line in &lines {
        row(line.game, &line.bet, &line.rtp, line.method);
    }
    if let Some(f) = &plan.theoretical.blackjack {
        println!(
            "{:<24} {:<18} {:>9.4}%  {:<34} simulation: {} rounds off the top of a {}-deck shoe, \
             basic strategy",
            "blackjack",
            "main",
            (1.0 - f.shoe.house_edge()) * 100.0,
            format!("± {:.4} % (95 % confidence)", f.shoe.ci95 * 100.0),
            f.shoe.rounds,
            f.rules.decks
        );
    }
    if let Some(f) = &plan.theoretical.ultimate_texas_holdem {
        let method = format!("exact: all {} deals, best strategy", f.deals);
        row("ultimate_texas_holdem", "ante_blind_play", &f.rtp, &method);
        let method = "exact: all 133 784 560 seven-card hands";
        row("ultimate_texas_holdem", "trips", &f.trips_rtp, method);
    }
    if let Some(f) = &plan.theoretical.blackjack {
        println!();
        println!(
            "Black Jack main bet: house edge {:.4} % ± {:.4} % of the initial bet on the {}-deck \
             shoe (seed {}; standard deviation {:.4} per round); {:.4} % exactly for an infinite \
             shoe, whose exact analysis gives the strategy.",
            f.shoe.house_edge() * 100.0,
            f.shoe.ci95 * 100.0,
            f.rules.decks,
            f.shoe.seed,
            f.shoe.standard_deviation,
            f.infinite_shoe_house_edge * 100.0
        );
    }
    if let Some(f) = &plan.theoretical.ultimate_texas_holdem {
        println!(
            "UTH Ante + Blind + Play: house edge {:.4} % of the Ante ({}/{}), element of risk \
             {:.4} % of all wagered; average Play {:.4} Antes; {} of 1 326 starting hands raised \
             before the flop; standard deviation {:.4} Antes.",
            f.house_edge.to_f64() * 100.0,
            f.house_edge.num,
            f.house_edge.den,
            f.element_of_risk.to_f64() * 100.0,
            f.average_play,
            f.preflop_raises,
            f.standard_deviation
        );
    }
}

/// One row of the table: an exact RTP as a percentage and as a fraction.
fn row(game: &str, bet: &str, rtp: &rules::ratio::Ratio, method: &str) {
    println!(
        "{game:<24} {bet:<18} {:>9.4}%  {:<34} {method}",
        rtp.to_f64() * 100.0,
        format!("{}/{}", rtp.num, rtp.den),
    );
}
