//! Roulette adjudication throughput on one core: `cargo bench -p dozor-rules`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// The allocator the `dozor` binary uses, so the figures match the server's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::{PlanBook, Round};
use serde_json::json;

/// Spins with a realistic mix: 1-6 players, 1-4 bets each, inside, outside and call bets.
fn spins(plan: &rules::Plan, n: usize) -> Vec<Round> {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let kinds = ["red", "black", "odd", "dozen_2", "column_1", "high"];
    (0..n)
        .map(|i| {
            let mut bets = Vec::new();
            for p in 0..rng.gen_range(1..=6) {
                for _ in 0..rng.gen_range(1..=4) {
                    let id = format!("b{}", bets.len());
                    let player = format!("seat-{p}");
                    bets.push(match rng.gen_range(0..4) {
                        0 => json!({"bet_id": id, "player": player, "kind": "straight",
                                    "numbers": [rng.gen_range(0..=36)], "stake_h": 10_000, "paid_h": 0}),
                        1 => json!({"bet_id": id, "player": player, "kind": "split",
                                    "numbers": [14, 17], "stake_h": 5_000, "paid_h": 0}),
                        2 => json!({"bet_id": id, "player": player, "kind": "voisins",
                                    "chip_h": 1_000, "paid_h": 0}),
                        _ => json!({"bet_id": id, "player": player,
                                    "kind": kinds[rng.gen_range(0..kinds.len())], "stake_h": 20_000, "paid_h": 0}),
                    });
                }
            }
            let mut record = json!({"type": "round", "game": "roulette", "table_id": "B", "seq_no": i,
                                "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T18:00:00Z",
                                "outcome": {"result": "number", "number": rng.gen_range(0..=36)},
                                "bets": bets});
            // Pay as a correct table would, so findings stay as rare as on a real table.
            let paid: Vec<i64> = {
                let round = Round::parse(&record).unwrap();
                let verdict = rules::adjudicate(plan, &round).unwrap();
                verdict.bets.iter().map(|b| b.expected_paid_h).collect()
            };
            for (bet, paid_h) in record["bets"].as_array_mut().unwrap().iter_mut().zip(paid) {
                bet["paid_h"] = json!(paid_h);
            }
            Round::parse(&record).unwrap()
        })
        .collect()
}

fn adjudication(c: &mut Criterion) {
    let book = PlanBook::builtin().unwrap();
    let plan = book.get("69games-ziva-hra").unwrap();
    let rounds = spins(plan, 10_000);
    // What an offline verifier does with each exported round: parse the signed record's text,
    // adjudicate it, serialize the verdict to compare with the exported one.
    // The verifier reads the header while checking the entry's form, before the round.
    let texts: Vec<(rules::RecordHeader, String)> = rounds
        .iter()
        .map(|round| {
            let text = serde_json::to_string(round).unwrap();
            (rules::RecordHeader::read_json(&text).unwrap(), text)
        })
        .collect();
    let mut group = c.benchmark_group("roulette");
    group.throughput(Throughput::Elements(rounds.len() as u64));
    group.bench_function("adjudicate_10k_spins", |b| {
        b.iter(|| {
            sum_over(&rounds, |round| {
                rules::adjudicate(plan, round).unwrap().findings.len()
            })
        })
    });
    // What ingest stores and `dozor verify` re-derives beside each verdict: the spin's expected
    // payout, variance and third moment over the 37 pockets, per bet kind and in total.
    group.bench_function("statistics_10k_spins", |b| {
        b.iter(|| {
            sum_over(&rounds, |round| {
                rules::round_statistics(plan, round).unwrap().by_kind.len()
            })
        })
    });
    group.bench_function("parse_10k_spins", |b| {
        b.iter(|| {
            let mut bets = 0;
            for (header, text) in &texts {
                if let Round::Roulette(round) = Round::parse_json_with_header(header, text).unwrap()
                {
                    bets += round.bets.len();
                }
            }
            bets
        })
    });
    group.bench_function("readjudicate_10k_spins", |b| {
        let mut verdict_text = Vec::with_capacity(4096);
        b.iter(|| {
            let mut bytes = 0;
            for (header, text) in &texts {
                let round = Round::parse_json_with_header(header, text).unwrap();
                let verdict = rules::adjudicate(plan, &round).unwrap();
                verdict_text.clear();
                serde_json::to_writer(&mut verdict_text, &verdict).unwrap();
                bytes += verdict_text.len();
            }
            bytes
        })
    });
    group.finish();
}

/// `count` of every item, summed: what a timed loop returns, so that its work is kept.
fn sum_over<T>(items: &[T], count: impl Fn(&T) -> usize) -> usize {
    let mut total = 0;
    for item in items {
        total += count(item);
    }
    total
}

criterion_group!(benches, adjudication);
criterion_main!(benches);
