//! `bench adjudicate`: adjudication alone, on one core.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use chrono::Utc;
use serde_json::json;

use crate::outcome::plan;

/// Rounds of `game` (roulette spins with the simulator's error share; blackjack and UTH dealt
/// from shuffled cards, clean), parsed once, then adjudicated on one thread for at least 3 s.
pub fn adjudicate(rounds: usize, game: &str) -> anyhow::Result<ExitCode> {
    let plan = plan()?;
    // Roulette with its usual share of dealer errors; the other games clean.
    let error_share = if game == "roulette" { 0.05 } else { 0.0 };
    // Poker tables keep their players all night: hands come from 16 tables in turn, two of each
    // size from 2 to 9 players (5.5 a hand), so the benchmark is of a pit, not of one table.
    let poker = matches!(game, "poker_cash" | "poker_omaha");
    let tables: u64 = if poker { 16 } else { 1 };
    let mut simulators = (1..=tables)
        .map(
            |seed| -> anyhow::Result<Box<dyn simulator::games::table::TableSimulator + Send>> {
                if poker {
                    let players = 2 + (seed % 8) as u8;
                    let omaha = game == "poker_omaha";
                    Ok(Box::new(
                        simulator::games::poker::PokerSimulator::with_players(
                            seed,
                            plan.clone(),
                            omaha,
                            players,
                        ),
                    ))
                } else {
                    simulator::games::table_of(game, seed, plan.clone(), 0.0)
                }
            },
        )
        .collect::<anyhow::Result<Vec<_>>>()?;
    let parsed: Vec<rules::Round> = (0..rounds as u64)
        .map(|i| {
            let t = i % tables;
            let table_id = format!("{}{:02}", game.to_uppercase(), t + 1);
            let slot = simulator::games::table::Slot {
                table_id: &table_id,
                seq_no: i / tables,
                played_at: Utc::now(),
            };
            let simulator = simulators
                .get_mut(t as usize)
                .ok_or_else(|| anyhow!("no simulated table {t}"))?;
            let (record, _) = simulator.next_record(slot, error_share)?;
            rules::Round::parse(&record).map_err(|e| anyhow!("{e}"))
        })
        .collect::<Result<_, _>>()?;
    let bets: usize = parsed
        .iter()
        .map(|r| match r {
            rules::Round::Roulette(s) => s.bets.len(),
            rules::Round::Blackjack(b) => b.boxes.iter().map(|x| x.bets.len()).sum(),
            rules::Round::UltimateTexasHoldem(u) => u.spots.iter().map(|s| s.bets.len()).sum(),
            rules::Round::MoneyWheel(w) => w.bets.len(),
            rules::Round::PokerCash(h) => h.seats.len(),
            rules::Round::TimeCollection(t) => t.players.len(),
            rules::Round::OpenFaceChinese(h) => h.players.len(),
            rules::Round::Tournament(t) => t.entries.len(),
        })
        .sum();
    let started = Instant::now();
    let mut done = 0u64;
    let mut findings = 0usize;
    while started.elapsed() < Duration::from_secs(3) {
        for round in &parsed {
            let verdict = rules::adjudicate(&plan, round).map_err(|e| anyhow!("{e}"))?;
            findings += verdict.findings.len();
            done += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "benchmark": format!("{game} adjudication, one thread"),
            "distinct_rounds": rounds,
            "bets_per_round": (bets as f64 / rounds as f64 * 100.0).round() / 100.0,
            "rounds_adjudicated": done,
            "findings": findings,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "rounds_per_second": (done as f64 / seconds).round(),
        }))?
    );
    Ok(ExitCode::SUCCESS)
}
