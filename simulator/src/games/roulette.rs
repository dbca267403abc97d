//! Realistic roulette spins for demonstrations and benchmarks: seeded, signed like a real
//! table, with a configurable share of deliberate dealer errors.

use chrono::{DateTime, Utc};
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::{Plan, Round};
use serde_json::{json, Value};

use super::table::{Simulated, Slot, TableSimulator};

/// A simulated roulette table's posted limits: the evening's, and the night's after the change.
/// Its correct spins stake at most 2 000 Kč a bet, four bets a player: 8 000 Kč on one position.
pub fn roulette_limits(night: bool) -> Value {
    if night {
        json!({"min_bet_h": 1_000, "max_straight_up_h": 800_000,
               "max_inside_h": 1_000_000, "max_outside_h": 1_200_000})
    } else {
        json!({"min_bet_h": 1_000, "max_straight_up_h": 1_000_000,
               "max_inside_h": 1_000_000, "max_outside_h": 1_500_000})
    }
}

/// A straight-up stake above both posted maxima above, inside the plan's 25 000 Kč.
const ABOVE_POSTED_STRAIGHT_H: i64 = 1_100_000;

/// Chip values on a live table, in Kč.
const CHIPS_KC: [i64; 8] = [10, 20, 50, 100, 200, 500, 1_000, 5_000];

/// Errors the simulator can inject, as a dealer or a table system might make them.
pub const INJECTED_ERRORS: [&str; 6] = [
    "overpaid",
    "underpaid",
    "stake_above_maximum",
    "stake_below_minimum",
    "void_stake_kept",
    "invalid_split",
];

/// A simulated roulette table (several tables when its spins name several).
pub struct RouletteSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
    error_share: f64,
    void_share: f64,
    /// Whether the table posts limits (and so may deal a bet outside them).
    posts_limits: bool,
    /// Each table's rotor direction on its last spin (clockwise or not) and whether that spin
    /// was void: the croupier reverses it every spin, except after a no-spin ("Ruletové kolo
    /// následně otočí ve stejném směru").
    rotors: std::collections::HashMap<String, (bool, bool)>,
}

fn bet(id: usize, player: &str, kind: &str, numbers: Vec<u8>, stake_h: i64) -> Value {
    json!({"bet_id": format!("b{id}"), "player": player, "kind": kind, "numbers": numbers,
           "stake_h": stake_h, "paid_h": 0})
}

fn call(id: usize, player: &str, kind: &str, numbers: Vec<u8>, chip_h: i64) -> Value {
    json!({"bet_id": format!("b{id}"), "player": player, "kind": kind, "numbers": numbers,
           "chip_h": chip_h, "paid_h": 0})
}

impl RouletteSimulator {
    pub fn new(seed: u64, plan: Plan, error_share: f64) -> RouletteSimulator {
        RouletteSimulator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            plan,
            error_share: error_share.clamp(0.0, 1.0),
            void_share: 0.01,
            posts_limits: false,
            rotors: std::collections::HashMap::new(),
        }
    }

    /// What the wheel reports of the table's next spin: the rotor the other way than last
    /// time (the same way after a no-spin), the ball against it, 6–14 revolutions (3 on a spin
    /// voided for too few). Drawn without the random stream, so seeded tables deal the same
    /// rounds as before.
    fn spin_evidence(&mut self, table_id: &str, seq_no: u64, void: bool) -> Value {
        let (last, after_no_spin) = self.rotors.get(table_id).copied().unwrap_or((false, false));
        let clockwise = if after_no_spin { last } else { !last };
        self.rotors.insert(table_id.to_owned(), (clockwise, void));
        let (rotor, ball) = if clockwise {
            ("clockwise", "counterclockwise")
        } else {
            ("counterclockwise", "clockwise")
        };
        let revolutions = if void { 3 } else { 6 + seq_no % 9 };
        json!({"rotor": rotor, "ball": ball, "ball_revolutions": revolutions})
    }

    fn stake_h(&mut self) -> i64 {
        let chip = CHIPS_KC[self.rng.gen_range(0..6)];
        chip * self.rng.gen_range(1..=4) * 100
    }

    fn random_bet(&mut self, id: usize, player: &str) -> Value {
        let r = &mut self.rng;
        let roll = r.gen_range(0..100);
        let stake = {
            let chip = CHIPS_KC[r.gen_range(0..5)];
            chip * r.gen_range(1..=4) * 100
        };
        match roll {
            0..=29 => bet(id, player, "straight", vec![r.gen_range(0..=36)], stake),
            30..=39 => {
                let a: u8 = r.gen_range(1..=33);
                let b = if !a.is_multiple_of(3) && r.gen_bool(0.5) {
                    a + 1
                } else {
                    a + 3
                };
                bet(id, player, "split", vec![a, b], stake)
            }
            40..=44 => {
                let first = 3 * r.gen_range(0..12u8) + 1;
                bet(
                    id,
                    player,
                    "street",
                    vec![first, first + 1, first + 2],
                    stake,
                )
            }
            45..=51 => {
                let mut a: u8 = r.gen_range(1..=32);
                if a.is_multiple_of(3) {
                    a -= 1;
                }
                bet(id, player, "corner", vec![a, a + 1, a + 3, a + 4], stake)
            }
            52..=55 => {
                let first = 3 * r.gen_range(0..11u8) + 1;
                bet(id, player, "six_line", (first..first + 6).collect(), stake)
            }
            56..=67 => {
                let kind = [
                    "dozen_1", "dozen_2", "dozen_3", "column_1", "column_2", "column_3",
                ]
                .choose(r)
                .copied()
                .unwrap_or("dozen_1");
                bet(id, player, kind, vec![], self.stake_h())
            }
            68..=89 => {
                let kind = ["red", "black", "odd", "even", "low", "high"]
                    .choose(r)
                    .copied()
                    .unwrap_or("red");
                bet(id, player, kind, vec![], self.stake_h())
            }
            _ => {
                let chip = CHIPS_KC[r.gen_range(0..4)] * 100;
                match r.gen_range(0..5) {
                    0 => call(id, player, "neighbours", vec![r.gen_range(0..=36)], chip),
                    1 => call(id, player, "zero_spiel", vec![], chip),
                    2 => call(id, player, "voisins", vec![], chip),
                    3 => call(id, player, "tiers", vec![], chip),
                    _ => call(id, player, "orphelins", vec![], chip),
                }
            }
        }
    }

    /// One spin with correct payouts, then possibly one injected error (returned by name), at
    /// the simulator's error share.
    pub fn spin(
        &mut self,
        table_id: &str,
        seq_no: u64,
        played_at: DateTime<Utc>,
    ) -> (Value, Option<&'static str>) {
        self.spin_with(table_id, seq_no, played_at, self.error_share)
    }

    fn spin_with(
        &mut self,
        table_id: &str,
        seq_no: u64,
        played_at: DateTime<Utc>,
        error_share: f64,
    ) -> (Value, Option<&'static str>) {
        let players = self.rng.gen_range(1..=6);
        let mut bets = Vec::new();
        for p in 1..=players {
            let player = format!("seat-{p}");
            for _ in 0..self.rng.gen_range(1..=4) {
                let id = bets.len() + 1;
                bets.push(self.random_bet(id, &player));
            }
        }
        let void = self.rng.gen_bool(self.void_share);
        // A table that posts limits may also take a bet over them.
        let kinds = INJECTED_ERRORS.len() + usize::from(self.posts_limits);
        let injected = self.rng.gen_bool(error_share.clamp(0.0, 1.0)).then(|| {
            INJECTED_ERRORS
                .get(self.rng.gen_range(0..kinds))
                .copied()
                .unwrap_or("stake_above_table_maximum")
        });
        let void = void || injected == Some("void_stake_kept");
        let outcome = if void {
            json!({"result": "void", "reason": "too_few_revolutions"})
        } else {
            json!({"result": "number", "number": self.rng.gen_range(0..=36u8)})
        };
        let max_bet = self
            .plan
            .roulette
            .as_ref()
            .map_or(2_500_000, |r| r.max_bet_h);
        match injected {
            Some("stake_above_maximum") => {
                bets[0] = bet(1, "seat-1", "straight", vec![17], max_bet + 500_000)
            }
            // A player of its own: no other chip of theirs on 17 lifts it over the minimum.
            Some("stake_below_minimum") => bets[0] = bet(1, "seat-9", "straight", vec![17], 500),
            Some("invalid_split") => bets[0] = bet(1, "seat-1", "split", vec![1, 5], 10_000),
            Some("stake_above_table_maximum") => {
                bets[0] = bet(1, "seat-1", "straight", vec![17], ABOVE_POSTED_STRAIGHT_H)
            }
            _ => {}
        }
        let mut record = json!({
            "type": "round", "game": "roulette", "table_id": table_id, "seq_no": seq_no,
            "plan_id": self.plan.plan_id, "round_id": format!("{table_id}-{seq_no}"),
            "played_at": played_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "outcome": outcome, "bets": bets,
            "spin": self.spin_evidence(table_id, seq_no, void),
        });
        self.pay(&mut record);
        let bets = record["bets"].as_array_mut();
        if let Some(bets) = bets {
            match injected {
                Some("overpaid") => {
                    let i = self.rng.gen_range(0..bets.len());
                    bets[i]["paid_h"] = json!(bets[i]["paid_h"].as_i64().unwrap_or(0) + 10_000);
                }
                Some("underpaid") => {
                    // A win paid as if the stake were half; with no win, a losing bet gets paid
                    // instead (which is an overpayment, still an error to find).
                    match bets
                        .iter_mut()
                        .find(|b| b["paid_h"].as_i64().unwrap_or(0) > 0)
                    {
                        Some(b) => b["paid_h"] = json!(b["paid_h"].as_i64().unwrap_or(0) / 2),
                        None => bets[0]["paid_h"] = json!(5_000),
                    }
                }
                Some("void_stake_kept") => bets[0]["paid_h"] = json!(0),
                _ => {}
            }
        }
        (record, injected)
    }

    /// Fills in what a correct table pays.
    fn pay(&self, record: &mut Value) {
        let Ok(round) = Round::parse(record) else {
            return;
        };
        let Ok(verdict) = rules::adjudicate(&self.plan, &round) else {
            return;
        };
        if let Some(bets) = record["bets"].as_array_mut() {
            for (b, v) in bets.iter_mut().zip(&verdict.bets) {
                b["paid_h"] = json!(v.expected_paid_h);
            }
        }
    }
}

impl TableSimulator for RouletteSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        Ok(self.spin_with(slot.table_id, slot.seq_no, slot.played_at, error_share))
    }

    fn post_limits(&mut self) -> Option<Value> {
        self.posts_limits = true;
        Some(roulette_limits(false))
    }

    fn night_limits(&self) -> Option<Value> {
        self.posts_limits.then(|| roulette_limits(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::table::test_plan;

    #[test]
    fn correct_spins_adjudicate_clean_and_injected_ones_do_not() {
        let plan = rules::PlanBook::builtin()
            .unwrap()
            .get("69games-ziva-hra")
            .unwrap()
            .clone();
        let mut clean = RouletteSimulator::new(1, plan.clone(), 0.0);
        let mut facts = Vec::new();
        for seq in 0..200 {
            let (record, injected) = clean.spin("T", seq, Utc::now());
            assert!(injected.is_none());
            let round = Round::parse(&record).unwrap();
            let verdict = rules::adjudicate(&plan, &round).unwrap();
            assert!(verdict.is_clean(), "{:?}", verdict.findings);
            let settled = record["outcome"]["result"] == "number";
            assert_eq!(
                record["spin"]["ball_revolutions"].as_u64().unwrap() >= 5,
                settled
            );
            facts.extend(rules::table_audit::Fact::of(&round));
        }
        // The wheel is reversed every spin.
        assert_eq!(facts.len(), 200);
        assert_eq!(rules::table_audit::audit(facts), []);
        let mut faulty = RouletteSimulator::new(2, plan.clone(), 1.0);
        for seq in 0..200 {
            let (record, injected) = faulty.spin("T", seq, Utc::now());
            assert!(injected.is_some());
            let round = Round::parse(&record).unwrap();
            let verdict = rules::adjudicate(&plan, &round).unwrap();
            assert!(!verdict.is_clean(), "{injected:?} went unnoticed");
        }
    }

    #[test]
    fn a_table_posting_limits_deals_inside_both_and_injects_bets_over_them() {
        let plan = test_plan();
        let setup = |night: bool| {
            let limits: rules::TableLimits =
                serde_json::from_value(roulette_limits(night)).unwrap();
            rules::TableSetup::for_table(&plan, rules::GameCode::Roulette, None, Some(&limits))
                .unwrap()
        };
        let (evening, night) = (setup(false), setup(true));
        let mut clean = RouletteSimulator::new(3, plan.clone(), 0.0);
        assert!(clean.post_limits().is_some() && clean.night_limits().is_some());
        for seq in 0..500 {
            let (record, _) = clean.spin("T", seq, Utc::now());
            let round = Round::parse(&record).unwrap();
            for setup in [&evening, &night] {
                let verdict = rules::adjudicate_at(&plan, setup, &round).unwrap();
                assert!(verdict.is_clean(), "{:?}", verdict.findings);
            }
        }
        let mut faulty = RouletteSimulator::new(4, plan.clone(), 1.0);
        faulty.post_limits();
        let mut over = 0;
        for seq in 0..500 {
            let (record, injected) = faulty.spin("T", seq, Utc::now());
            let round = Round::parse(&record).unwrap();
            for setup in [&evening, &night] {
                let verdict = rules::adjudicate_at(&plan, setup, &round).unwrap();
                assert!(!verdict.is_clean(), "{injected:?} went unnoticed");
                if injected == Some("stake_above_table_maximum") {
                    over += 1;
                    assert!(verdict
                        .findings
                        .iter()
                        .any(|f| f.kind == rules::FindingKind::StakeAboveTableMaximum));
                }
            }
        }
        assert!(over > 0, "no bet over the posted limits was dealt");
    }
}
