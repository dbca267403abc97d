//! Simulated tables of every game, one module a game, each a `TableSimulator`.

pub mod cards;
pub mod ofc;
pub mod poker;
pub mod roulette;
pub mod table;
pub mod tournament;
pub mod wheel;

use rules::Plan;

use roulette::RouletteSimulator;
use table::TableSimulator;

/// A simulated table of `game` (`poker_omaha`: Omaha hands on a `poker_cash` table), seeded;
/// `wheel_bias` makes a money wheel land on its segment 0 that share of the time.
pub fn table_of(
    game: &str,
    seed: u64,
    plan: Plan,
    wheel_bias: f64,
) -> anyhow::Result<Box<dyn TableSimulator + Send>> {
    Ok(match game {
        "roulette" => Box::new(RouletteSimulator::new(seed, plan, 0.0)),
        "blackjack" => Box::new(cards::BlackjackSimulator::new(seed, plan)),
        "ultimate_texas_holdem" => Box::new(cards::UthSimulator::new(seed, plan)),
        "poker_cash" | "poker_omaha" => Box::new(poker::PokerSimulator::new(
            seed,
            plan,
            game == "poker_omaha",
        )),
        "open_face_chinese" => Box::new(ofc::OfcSimulator::new(seed, plan)),
        "poker_tournament" => Box::new(tournament::TournamentSimulator::new(seed, plan)),
        other => match rules::GameCode::parse(other) {
            Some(code @ (rules::GameCode::MoneyWheel1 | rules::GameCode::MoneyWheel2)) => {
                Box::new(wheel::WheelSimulator::new(seed, plan, code, wheel_bias)?)
            }
            _ => anyhow::bail!("no simulator for game `{other}`"),
        },
    })
}
