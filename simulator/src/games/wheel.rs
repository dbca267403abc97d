//! Money wheel spins (Šťastné kolo I and II): a seeded physical segment order per table, bets
//! on the boxes, an evenly landing pointer (or, for an inspector's demonstration, one that
//! favours a segment), and a configurable share of deliberate dealer errors.

use crate::games::table::{Simulated, Slot, TableSimulator};
use anyhow::anyhow;
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::money_wheel::WheelLayout;
use rules::{GameCode, Plan, Round, TableSetup};
use serde_json::{json, Value};

/// Errors the simulator can inject.
pub const INJECTED_WHEEL_ERRORS: [&str; 5] = [
    "overpaid",
    "wrong_colour_paid",
    "void_stake_kept",
    "too_few_turns_paid",
    "stake_above_maximum",
];

/// Chip values on a wheel table, in Kč.
const CHIPS_KC: [i64; 6] = [10, 20, 50, 100, 500, 1_000];

pub struct WheelSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
    game: GameCode,
    setup: TableSetup,
    /// Chance that the pointer lands on segment 0 whatever the spin (0 for a fair wheel).
    bias: f64,
}

impl WheelSimulator {
    /// A table of `game` whose segments are laid out in an order drawn from `seed`.
    pub fn new(seed: u64, plan: Plan, game: GameCode, bias: f64) -> anyhow::Result<Self> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let wheel = plan.wheel(game)?;
        let mut labels: Vec<String> = wheel
            .boxes
            .iter()
            .flat_map(|b| std::iter::repeat_n(b.id.clone(), b.segments as usize))
            .collect();
        labels.shuffle(&mut rng);
        let layout = WheelLayout::new(wheel, labels)?;
        Ok(WheelSimulator {
            rng,
            plan,
            game,
            setup: TableSetup {
                wheel_layout: Some(layout),
                limits: None,
            },
            bias: bias.clamp(0.0, 1.0),
        })
    }

    /// The segment order to register the table with.
    pub fn layout(&self) -> &[String] {
        self.setup
            .wheel_layout
            .as_ref()
            .map_or(&[], |l| l.segments())
    }

    /// Fills in what a correct table pays.
    fn pay(&self, record: &mut Value) -> anyhow::Result<()> {
        let round = Round::parse(record).map_err(|e| anyhow!("{e}"))?;
        let verdict =
            rules::adjudicate_at(&self.plan, &self.setup, &round).map_err(|e| anyhow!("{e}"))?;
        if let Some(bets) = record["bets"].as_array_mut() {
            for (b, v) in bets.iter_mut().zip(&verdict.bets) {
                b["paid_h"] = json!(v.expected_paid_h);
            }
        }
        Ok(())
    }
}

impl TableSimulator for WheelSimulator {
    fn wheel_layout(&self) -> Option<&[String]> {
        Some(self.layout())
    }

    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let (table_id, seq_no, played_at) = (slot.table_id, slot.seq_no, slot.played_at);
        let wheel = self.plan.wheel(self.game)?.clone();
        let segments = self.layout().len().max(1) as u16;
        let mut bets = Vec::new();
        for p in 1..=self.rng.gen_range(1..=6) {
            // What the player has on each box so far: the limits are per player and box.
            let mut on_box = vec![0i64; wheel.boxes.len()];
            for _ in 0..self.rng.gen_range(1..=3) {
                let b = self.rng.gen_range(0..wheel.boxes.len());
                let chips = self.rng.gen_range(1..=5);
                let chip = CHIPS_KC[self.rng.gen_range(0..CHIPS_KC.len())] * 100;
                let stake_h = (chips * chip).min(wheel.max_bet_h - on_box[b]);
                if on_box[b] + stake_h < wheel.min_bet_h || stake_h <= 0 {
                    continue;
                }
                on_box[b] += stake_h;
                bets.push(json!({
                    "bet_id": format!("b{}", bets.len() + 1), "player": format!("seat-{p}"),
                    "box": wheel.boxes[b].id, "stake_h": stake_h, "paid_h": 0
                }));
            }
        }
        let injected = self
            .rng
            .gen_bool(error_share.clamp(0.0, 1.0))
            .then(|| INJECTED_WHEEL_ERRORS[self.rng.gen_range(0..INJECTED_WHEEL_ERRORS.len())]);
        let segment = if self.rng.gen_bool(self.bias) {
            0
        } else {
            self.rng.gen_range(0..segments)
        };
        let outcome = match injected {
            Some("void_stake_kept") => {
                json!({"result": "void", "reason": "pointer_between_segments"})
            }
            Some("too_few_turns_paid") => {
                json!({"result": "segment", "segment": segment, "turns": 2})
            }
            _ if self.rng.gen_bool(0.01) => {
                json!({"result": "void", "reason": "pointer_between_segments"})
            }
            _ => json!({"result": "segment", "segment": segment,
                        "turns": self.rng.gen_range(wheel.min_turns..wheel.min_turns + 5)}),
        };
        if injected == Some("stake_above_maximum") {
            bets.push(json!({
                "bet_id": format!("b{}", bets.len() + 1), "player": "seat-8",
                "box": wheel.boxes[0].id, "stake_h": wheel.max_bet_h + 100_000, "paid_h": 0
            }));
        }
        let mut record = json!({
            "type": "round", "game": self.game.as_str(), "table_id": table_id, "seq_no": seq_no,
            "plan_id": self.plan.plan_id, "round_id": format!("{table_id}-{seq_no}"),
            "played_at": played_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "outcome": outcome, "bets": bets,
        });
        self.pay(&mut record)?;
        let label = self
            .setup
            .wheel_layout
            .as_ref()
            .and_then(|l| l.label(segment))
            .unwrap_or_default()
            .to_owned();
        if let Some(bets) = record["bets"].as_array_mut() {
            let stake = |b: &Value| b["stake_h"].as_i64().unwrap_or(0);
            match injected {
                Some("overpaid") => {
                    let i = self.rng.gen_range(0..bets.len());
                    bets[i]["paid_h"] = json!(bets[i]["paid_h"].as_i64().unwrap_or(0) + 10_000);
                }
                Some("wrong_colour_paid") => {
                    // A bet on another box (the other 25× colour, say) paid as if it had won.
                    if let Some(other) = wheel.boxes.iter().rev().find(|b| b.id != label) {
                        let stake_h = 10_000.min(wheel.max_bet_h);
                        bets.push(json!({
                            "bet_id": format!("b{}", bets.len() + 1), "player": "seat-9",
                            "box": other.id, "stake_h": stake_h,
                            "paid_h": stake_h * (i64::from(other.pays) + 1)
                        }));
                    }
                }
                Some("void_stake_kept") => bets[0]["paid_h"] = json!(0),
                Some("too_few_turns_paid") => {
                    // Paid as a normal spin: winners get their win, losers nothing.
                    for b in bets.iter_mut() {
                        let pays = wheel
                            .box_of(b["box"].as_str().unwrap_or_default())
                            .map_or(0, |x| i64::from(x.pays));
                        b["paid_h"] = json!(if b["box"] == label.as_str() {
                            stake(b) * (pays + 1)
                        } else {
                            0
                        });
                    }
                }
                _ => {}
            }
        }
        Ok((record, injected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::games::table::test_plan as plan;

    fn judge(sim: &WheelSimulator, record: &Value) -> Vec<rules::FindingKind> {
        let round = Round::parse(record).unwrap();
        let verdict = rules::adjudicate_at(&sim.plan, &sim.setup, &round).unwrap();
        verdict.findings.iter().map(|f| f.kind).collect()
    }

    #[test]
    fn correct_spins_are_clean_and_every_injected_error_is_found() {
        for game in [GameCode::MoneyWheel1, GameCode::MoneyWheel2] {
            let mut sim = WheelSimulator::new(7, plan(), game, 0.0).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for seq_no in 1..=2_000 {
                let (record, injected) = crate::games::table::next_now(&mut sim, "W1", seq_no, 0.2);
                let findings = judge(&sim, &record);
                match injected {
                    None => assert!(findings.is_empty(), "{record} {findings:?}"),
                    Some(e) => {
                        assert!(!findings.is_empty(), "{e} not found in {record}");
                        seen.insert(e);
                    }
                }
            }
            assert_eq!(seen.len(), INJECTED_WHEEL_ERRORS.len(), "{seen:?}");
        }
    }
}
