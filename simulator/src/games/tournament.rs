//! Poker tournaments of a card room: each of the plan's formats, 2–120 players, late
//! registrations, re-entries, rebuys and add-ons where the format allows them, sometimes a
//! guarantee above what the entries bring, sometimes a deal among the last three; settled as the
//! plan requires, then possibly one deliberate error in the fee, a prize, a deal or an entry.

use crate::games::table::{Simulated, Slot, TableSimulator};
use anyhow::anyhow;
use chrono::Duration;
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::tournament::{fee_for, prize_pool, table_prizes};
use rules::{Plan, Round};
use serde_json::{json, Value};

/// Errors the simulator can inject.
pub const INJECTED_TOURNAMENT_ERRORS: [&str; 4] =
    ["fee_wrong", "prize_wrong", "deal_short", "late_entry"];

const FORMATS: [&str; 4] = [
    "freezeout",
    "one_rebuy",
    "re_entry",
    "unlimited_rebuys_add_on",
];

const BUY_INS_KC: [i64; 5] = [500, 1_000, 2_000, 5_000, 10_000];

pub struct TournamentSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
}

impl TournamentSimulator {
    pub fn new(seed: u64, plan: Plan) -> TournamentSimulator {
        TournamentSimulator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            plan,
        }
    }
}

/// A tournament's announcement: what the room offers, drawn before anyone plays.
struct Announced {
    format: &'static str,
    buy_in: i64,
    starting_stack: u64,
    starts_at: chrono::DateTime<chrono::Utc>,
    announced_at: chrono::DateTime<chrono::Utc>,
    fee_percent: u8,
    names: Vec<String>,
}

impl Announced {
    fn draw(
        rng: &mut ChaCha8Rng,
        tp: &rules::plan::TournamentPlan,
        ended_at: chrono::DateTime<chrono::Utc>,
    ) -> Announced {
        let format = FORMATS[rng.gen_range(0..FORMATS.len())];
        let buy_in = BUY_INS_KC[rng.gen_range(0..BUY_INS_KC.len())] * 100;
        let players = rng.gen_range(2..=120usize);
        let starts_at = ended_at - Duration::hours(rng.gen_range(4..=10));
        let announced_at = starts_at - Duration::days(rng.gen_range(7..=30));
        let fee_percent = rng.gen_range(tp.fee_percent_min..=tp.fee_percent_max);
        Announced {
            format,
            buy_in,
            starting_stack: 20_000,
            starts_at,
            announced_at,
            fee_percent,
            names: (1..=players).map(|n| format!("player-{n:03}")).collect(),
        }
    }

    /// `m` minutes after the start.
    fn minute(&self, m: i64) -> chrono::DateTime<chrono::Utc> {
        self.starts_at + Duration::minutes(m)
    }
}

/// Every buy-in, re-entry, rebuy and add-on, in the order they were made, each with its time.
fn entries(rng: &mut ChaCha8Rng, t: &Announced) -> Vec<Value> {
    let (buy_in, starting_stack) = (t.buy_in, t.starting_stack);
    let mut entries: Vec<(i64, Value)> = Vec::new();
    for (i, name) in t.names.iter().enumerate() {
        // Most register before the start, some late (up to the end of registration).
        let at = if rng.gen_bool(0.8) {
            -rng.gen_range(1..=60)
        } else {
            rng.gen_range(0..=110)
        };
        entries.push((
            at,
            json!({"player": name, "kind": "buy_in", "amount_h": buy_in}),
        ));
        let again = |rng: &mut ChaCha8Rng| at.max(0) + rng.gen_range(5..=10i64);
        match t.format {
            "re_entry" if rng.gen_bool(0.25) => {
                let at = again(rng);
                entries.push((
                    at,
                    json!({"player": name, "kind": "re_entry",
                    "amount_h": buy_in, "stack_before": 0}),
                ));
            }
            "one_rebuy" if rng.gen_bool(0.3) => {
                let at = again(rng);
                entries.push((
                    at,
                    json!({"player": name, "kind": "rebuy", "amount_h": buy_in,
                    "stack_before": rng.gen_range(0..=starting_stack)}),
                ));
            }
            "unlimited_rebuys_add_on" => {
                let mut at = at.max(0);
                for _ in 0..rng.gen_range(0..=3) {
                    at += rng.gen_range(1..=3);
                    entries.push((
                        at,
                        json!({"player": name, "kind": "rebuy", "amount_h": buy_in,
                        "stack_before": rng.gen_range(0..=starting_stack)}),
                    ));
                }
                if rng.gen_bool(0.6) || i == 0 {
                    entries.push((
                        120,
                        json!({"player": name, "kind": "add_on",
                        "amount_h": buy_in / 2}),
                    ));
                }
            }
            _ => {}
        }
    }
    entries.sort_by_key(|(at, _)| *at);
    entries
        .into_iter()
        .map(|(at, mut e)| {
            e["at"] = json!(t.minute(at.min(120)).to_rfc3339());
            e
        })
        .collect()
}

/// The money of a tournament: its fee, the guarantee if any, and the prizes by place.
struct Money {
    fee: i64,
    guarantee: Option<i64>,
    prizes: Vec<i64>,
}

fn money(
    rng: &mut ChaCha8Rng,
    tp: &rules::plan::TournamentPlan,
    fee_percent: u8,
    entries: &[Value],
) -> anyhow::Result<Money> {
    let count = entries
        .iter()
        .filter(|e| e["kind"] == "buy_in" || e["kind"] == "re_entry")
        .count() as u32;
    let moneypool: i64 = entries.iter().filter_map(|e| e["amount_h"].as_i64()).sum();
    let fee = fee_for(tp.fee_base, moneypool, fee_percent);
    // A guarantee now and then, sometimes above what the entries bring (an overlay).
    let guarantee = rng.gen_bool(0.3).then(|| {
        let factor = rng.gen_range(80..=130);
        (moneypool - fee) * factor / 100 / 100_000 * 100_000
    });
    let pool = prize_pool(moneypool, fee, guarantee);
    let column = tp
        .payout_column(count)
        .ok_or_else(|| anyhow!("no payout column for {count} entries"))?;
    Ok(Money {
        fee,
        guarantee,
        prizes: table_prizes(column, pool.prize_pool_h),
    })
}

/// The places, and a deal among the last three now and then (after registration closed): the
/// results and the deal.
fn finish(
    rng: &mut ChaCha8Rng,
    names: &[String],
    prizes: &mut [i64],
    ended_at: chrono::DateTime<chrono::Utc>,
) -> (Vec<Value>, Option<Value>) {
    let mut order = names.to_vec();
    order.shuffle(rng);
    let deal_at = ended_at - Duration::minutes(30);
    let deal = (prizes.len() >= 3 && rng.gen_bool(0.2)).then(|| {
        let top: i64 = prizes[..3].iter().sum();
        let even = top / 3 / 100 * 100;
        let shares = [top - 2 * even, even, even];
        prizes[..3].copy_from_slice(&shares);
        json!({"at": deal_at.to_rfc3339(), "shares": (0..3).map(|i|
            json!({"player": order[i], "amount_h": shares[i]})).collect::<Vec<_>>()})
    });
    let results: Vec<Value> = order
        .iter()
        .enumerate()
        .map(|(i, player)| {
            let mut r = json!({"place": i + 1, "player": player,
                               "prize_h": prizes.get(i).copied().unwrap_or(0)});
            if i >= 3 {
                // Out before the deal (an hour before the end, later places earlier).
                r["out_at"] = json!((deal_at - Duration::minutes(30 + i as i64)).to_rfc3339());
            } else if i > 0 {
                r["out_at"] = json!((ended_at - Duration::minutes(10 - i as i64)).to_rfc3339());
            }
            r
        })
        .collect();
    (results, deal)
}

/// One of the tournament errors, with probability `error_share`, made in `record`: its name.
fn inject(
    rng: &mut ChaCha8Rng,
    record: &mut Value,
    error_share: f64,
    t: &Announced,
    fee: i64,
) -> Option<&'static str> {
    let injected = rng
        .gen_bool(error_share.clamp(0.0, 1.0))
        .then(|| INJECTED_TOURNAMENT_ERRORS[rng.gen_range(0..INJECTED_TOURNAMENT_ERRORS.len())]);
    match injected {
        Some("deal_short") if record.get("deal").is_some() => {
            record["deal"]["shares"][0]["amount_h"] = json!(
                record["deal"]["shares"][0]["amount_h"]
                    .as_i64()
                    .unwrap_or(0)
                    - 10_000
            );
            injected
        }
        Some("late_entry") => {
            // A buy-in after registration closed.
            if let Some(entries) = record["entries"].as_array_mut() {
                entries.push(json!({"player": "player-late", "kind": "buy_in",
                                    "amount_h": t.buy_in, "at": t.minute(150).to_rfc3339()}));
            }
            injected
        }
        Some("fee_wrong") => {
            record["fee_h"] = json!(fee + 10_000);
            injected
        }
        Some(_) => {
            record["results"][0]["prize_h"] =
                json!(record["results"][0]["prize_h"].as_i64().unwrap_or(0) + 10_000);
            Some("prize_wrong")
        }
        None => None,
    }
}

impl TableSimulator for TournamentSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let (room_id, seq_no, ended_at) = (slot.table_id, slot.seq_no, slot.played_at);
        let tp = self.plan.poker_tournament()?.clone();
        let rng = &mut self.rng;
        let t = Announced::draw(rng, &tp, ended_at);
        let entries = entries(rng, &t);
        let Money {
            fee,
            guarantee,
            mut prizes,
        } = money(rng, &tp, t.fee_percent, &entries)?;
        let (results, deal) = finish(rng, &t.names, &mut prizes, ended_at);
        let variant = ["holdem", "omaha", "open_face_chinese"][rng.gen_range(0..3)];
        let (format, buy_in) = (t.format, t.buy_in);
        let mut record = json!({
            "type": "round", "game": "poker_tournament", "table_id": room_id, "seq_no": seq_no,
            "plan_id": self.plan.plan_id, "tournament_id": format!("{room_id}-{seq_no}"),
            "played_at": ended_at.to_rfc3339(), "variant": variant,
            "format": format, "announced_at": t.announced_at.to_rfc3339(),
            "starts_at": t.starts_at.to_rfc3339(), "registration_closes_at": t.minute(120).to_rfc3339(),
            "buy_in_h": buy_in, "starting_stack": t.starting_stack, "fee_percent": t.fee_percent,
            "fee_h": fee, "entries": entries, "results": results
        });
        if format == "one_rebuy" || format == "unlimited_rebuys_add_on" {
            record["rebuy_h"] = json!(buy_in);
        }
        if format == "unlimited_rebuys_add_on" {
            record["add_on_h"] = json!(buy_in / 2);
        }
        if let Some(g) = guarantee {
            record["guarantee_h"] = json!(g);
        }
        if let Some(d) = deal {
            record["deal"] = d;
        }
        let injected = inject(rng, &mut record, error_share, &t, fee);
        // The record must stand as a record (refused records are not what this simulates).
        Round::parse(&record).map_err(|e| anyhow!("simulated tournament refused: {e}"))?;
        Ok((record, injected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::games::table::test_plan as plan;

    #[test]
    fn simulated_tournaments_settle_clean_and_every_injected_error_is_found() {
        let plan = plan();
        let mut sim = TournamentSimulator::new(5, plan.clone());
        let (mut overlays, mut deals, mut formats) = (0, 0, std::collections::BTreeSet::new());
        for seq_no in 1..=400 {
            let (record, injected) = crate::games::table::next_now(&mut sim, "ROOM", seq_no, 0.25);
            let round = Round::parse(&record).unwrap();
            let verdict = rules::adjudicate(&plan, &round).unwrap();
            match injected {
                None => assert!(verdict.is_clean(), "{record} {:?}", verdict.findings),
                Some(e) => assert!(!verdict.is_clean(), "{e} not found in {record}"),
            }
            overlays += usize::from(verdict.tournament.is_some_and(|t| t.overlay_h > 0));
            deals += usize::from(record.get("deal").is_some());
            formats.insert(record["format"].as_str().unwrap().to_owned());
        }
        assert!(
            overlays > 10 && deals > 20,
            "{overlays} overlays, {deals} deals"
        );
        assert_eq!(formats.len(), 4);
    }
}
