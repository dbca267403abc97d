//! Pineapple Open Face Chinese hands at one table: the same 2 or 3 players hand after hand, a
//! shuffled deck, each player keeping two of every three cards and setting the strongest rows
//! it can (now and then fouling), fantasy land dealt to whoever earned it in the previous hand,
//! point values agreed per pair, results settled as the plan requires; then possibly one
//! deliberate error in the money, the rake or the fantasy-land deal.

use crate::games::table::{Simulated, Slot, TableSimulator};
use std::collections::HashMap;

use anyhow::anyhow;
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::cards::{Card, Rank};
use rules::hand_rank::evaluate;
use rules::ofc::{expected_nets, fantasy_next, row_strength, score_rows};
use rules::{Plan, Round};
use serde_json::json;

/// Errors the simulator can inject; `fantasy_skipped` is found by the fantasy audit (the next
/// hand's deal), the others by the hand's own verdict.
pub const INJECTED_OFC_ERRORS: [&str; 3] = ["net_wrong", "rake_too_high", "fantasy_skipped"];

/// Point values players agree, in haléře.
const POINT_VALUES_H: [i64; 4] = [1_000, 2_500, 5_000, 10_000];

pub struct OfcSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
    players: Vec<String>,
    /// Cards each player is to be dealt at once in the next hand (fantasy land).
    entitled: HashMap<String, u8>,
}

/// The best `k` of `cards` by hand strength, and the rest.
fn best_of(cards: &[Card], k: usize) -> (Vec<Card>, Vec<Card>) {
    let n = cards.len();
    let mut best: Option<(rules::hand_rank::HandRank, u32)> = None;
    // Every k-subset as a bit mask over the n cards (n ≤ 17).
    for mask in 0u32..(1 << n) {
        if mask.count_ones() as usize != k {
            continue;
        }
        let rank = evaluate(
            (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| cards[i])
                .collect(),
        );
        if best.is_none_or(|(b, _)| rank > b) {
            best = Some((rank, mask));
        }
    }
    let mask = best.map_or(0, |(_, m)| m);
    let (mut chosen, mut rest) = (Vec::new(), Vec::new());
    for (i, &c) in cards.iter().enumerate() {
        if mask & (1 << i) != 0 {
            chosen.push(c);
        } else {
            rest.push(c);
        }
    }
    (chosen, rest)
}

/// Rows from 13 or more cards: the strongest five in back, the strongest five of the rest in
/// the middle, the strongest three left in front unless that would foul (then the weakest).
fn set_rows(cards: &[Card]) -> ([Vec<Card>; 3], Vec<Card>) {
    let (back, rest) = best_of(cards, 5);
    let (middle, rest) = best_of(&rest, 5);
    let (front, mut discards) = best_of(&rest, 3);
    if row_strength(&front) > row_strength(&middle) {
        // Keep the front under the middle: the three lowest cards instead.
        let mut all: Vec<Card> = front.iter().chain(&discards).copied().collect();
        all.sort_by_key(|c| c.rank());
        let front: Vec<Card> = all.drain(..3).collect();
        return ([front, middle, back], all);
    }
    discards.sort_by_key(|c| c.rank());
    ([front, middle, back], discards)
}

/// Rows with a pair of queens or better in front (for fantasy land), when the cards allow it
/// without fouling.
fn aim_for_fantasy(cards: &[Card]) -> Option<([Vec<Card>; 3], Vec<Card>)> {
    for rank in [Rank::ACE, Rank::KING, Rank::QUEEN] {
        let pair: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|c| c.rank() == rank)
            .take(2)
            .collect();
        if pair.len() < 2 {
            continue;
        }
        let mut rest: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|c| !pair.contains(c))
            .collect();
        rest.sort_by_key(|c| c.rank());
        let kicker = rest.remove(0);
        let (back, rest) = best_of(&rest, 5);
        let (middle, discards) = best_of(&rest, 5);
        let front = vec![pair[0], pair[1], kicker];
        if row_strength(&back) >= row_strength(&middle)
            && row_strength(&middle) >= row_strength(&front)
        {
            return Some(([front, middle, back], discards));
        }
    }
    None
}

impl OfcSimulator {
    pub fn new(seed: u64, plan: Plan) -> OfcSimulator {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let count = rng.gen_range(2..=3);
        let players = ["anna", "bert", "cyril"][..count]
            .iter()
            .map(|p| (*p).to_owned())
            .collect();
        OfcSimulator {
            rng,
            plan,
            players,
            entitled: HashMap::new(),
        }
    }
}

impl TableSimulator for OfcSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let (table_id, seq_no, played_at) = (slot.table_id, slot.seq_no, slot.played_at);
        let ofc = self.plan.open_face_chinese()?.clone();
        let injected = self
            .rng
            .gen_bool(error_share.clamp(0.0, 1.0))
            .then(|| INJECTED_OFC_ERRORS[self.rng.gen_range(0..INJECTED_OFC_ERRORS.len())]);
        let skip_fantasy = injected == Some("fantasy_skipped") && !self.entitled.is_empty();
        let mut deck: Vec<Card> = Card::deck().collect();
        deck.shuffle(&mut self.rng);
        let mut players = Vec::new();
        for name in self.players.clone() {
            let fantasy = if skip_fantasy {
                None
            } else {
                self.entitled.get(&name).copied()
            };
            let (deal, rows, discards): (Vec<Vec<Card>>, [Vec<Card>; 3], Vec<Card>) = match fantasy
            {
                Some(n) => {
                    let cards = deck.split_off(deck.len() - usize::from(n));
                    let (rows, discards) = set_rows(&cards);
                    (vec![cards], rows, discards)
                }
                None => {
                    // Five, then four times three, keeping the two highest of each three.
                    let mut deal = vec![deck.split_off(deck.len() - 5)];
                    let mut kept = deal[0].clone();
                    let mut discards = Vec::new();
                    for _ in 0..4 {
                        let three = deck.split_off(deck.len() - 3);
                        let lowest = three.iter().copied().min_by_key(|c| c.rank());
                        let mut dropped = false;
                        for &c in &three {
                            if Some(c) == lowest && !dropped {
                                discards.push(c);
                                dropped = true;
                            } else {
                                kept.push(c);
                            }
                        }
                        deal.push(three);
                    }
                    // A player with queens or better often builds for fantasy land.
                    let aimed = self
                        .rng
                        .gen_bool(0.5)
                        .then(|| aim_for_fantasy(&kept))
                        .flatten();
                    let (rows, _) = aimed.unwrap_or_else(|| set_rows(&kept));
                    (deal, rows, discards)
                }
            };
            let [mut front, mut middle, mut back] = rows;
            // Now and then a player misjudges and fouls: back and middle swapped.
            if self.rng.gen_bool(0.04) {
                std::mem::swap(&mut middle, &mut back);
            }
            front.sort_by_key(|c| std::cmp::Reverse(c.rank()));
            players.push(json!({
                "player": name, "fantasy": fantasy.is_some(), "deal": deal,
                "front": front, "middle": middle, "back": back, "discards": discards,
                "net_h": 0, "rake_h": ofc.rake_per_player_h
            }));
        }
        let mut point_values = Vec::new();
        for a in 0..self.players.len() {
            for b in a + 1..self.players.len() {
                let value = POINT_VALUES_H[self.rng.gen_range(0..POINT_VALUES_H.len())];
                point_values.push(json!({"players": [self.players[a], self.players[b]],
                                         "point_h": value}));
            }
        }
        let mut record = json!({
            "type": "round", "game": "open_face_chinese", "table_id": table_id, "seq_no": seq_no,
            "plan_id": self.plan.plan_id, "round_id": format!("{table_id}-{seq_no}"),
            "played_at": played_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "players": players, "point_values": point_values
        });
        let Round::OpenFaceChinese(hand) = Round::parse(&record).map_err(|e| anyhow!("{e}"))?
        else {
            return Err(anyhow!("not an OFC hand"));
        };
        let rows: Vec<_> = hand
            .players
            .iter()
            .map(|p| score_rows(&ofc, &p.front, &p.middle, &p.back))
            .collect();
        let nets = expected_nets(&ofc, &hand, &rows);
        for (i, net) in nets.iter().enumerate() {
            record["players"][i]["net_h"] = json!(net);
        }
        self.entitled = hand
            .players
            .iter()
            .zip(&rows)
            .filter_map(|(p, r)| fantasy_next(&ofc, r, p.fantasy).map(|n| (p.player.clone(), n)))
            .collect();
        let injected = match injected {
            Some("fantasy_skipped") if skip_fantasy => injected,
            Some("rake_too_high") => {
                record["players"][0]["rake_h"] = json!(ofc.rake_per_player_h * 2);
                injected
            }
            Some(_) => {
                // 100 Kč moved from the last player to the first.
                let last = self.players.len() - 1;
                record["players"][0]["net_h"] = json!(nets[0] + 10_000);
                record["players"][last]["net_h"] = json!(nets[last] - 10_000);
                Some("net_wrong")
            }
            None => None,
        };
        Ok((record, injected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::games::table::test_plan as plan;

    #[test]
    fn simulated_hands_are_legal_and_every_injected_error_is_found() {
        let plan = plan();
        let ofc = plan.open_face_chinese().unwrap().clone();
        let mut all_skipped = 0;
        for seed in [1, 2] {
            let mut sim = OfcSimulator::new(seed, plan.clone());
            let mut hands = Vec::new();
            let (mut fouls, mut fantasy_deals, mut skipped) = (0, 0, 0);
            for seq_no in 1..=600 {
                let (record, injected) =
                    crate::games::table::next_now(&mut sim, "OFC1", seq_no, 0.1);
                let round = Round::parse(&record).unwrap();
                let verdict = rules::adjudicate(&plan, &round).unwrap();
                match injected {
                    None | Some("fantasy_skipped") => {
                        assert!(verdict.is_clean(), "{record} {:?}", verdict.findings)
                    }
                    Some(e) => assert!(!verdict.is_clean(), "{e} not found in {record}"),
                }
                let Round::OpenFaceChinese(hand) = round else {
                    unreachable!()
                };
                fouls += hand
                    .players
                    .iter()
                    .filter(|p| score_rows(&ofc, &p.front, &p.middle, &p.back).fouled)
                    .count();
                fantasy_deals += hand.players.iter().filter(|p| p.fantasy).count();
                if injected == Some("fantasy_skipped") {
                    skipped += 1;
                    // The audit names this hand: someone earned fantasy land and was not dealt it.
                    let previous = hands.last().cloned().unwrap();
                    let audit =
                        rules::ofc::audit_fantasy_sequence(&[previous, hand.clone()], |_| {
                            Some(&ofc)
                        });
                    assert!(
                        !audit.is_empty(),
                        "skipped fantasy land not found in {record}"
                    );
                }
                hands.push(hand);
            }
            // Over the whole sequence, the only mismatches are the injected ones.
            let audit = rules::ofc::audit_fantasy_sequence(&hands, |_| Some(&ofc));
            let flagged: std::collections::BTreeSet<u64> = audit.iter().map(|m| m.seq_no).collect();
            assert_eq!(flagged.len(), skipped, "{audit:#?}");
            all_skipped += skipped;
            assert!(
                fouls > 10 && fantasy_deals > 30,
                "{fouls} fouls, {fantasy_deals} fantasy deals"
            );
        }
        assert!(all_skipped > 0);
    }
}
