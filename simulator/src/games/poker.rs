//! No-limit Hold'em and Omaha cash-game hands: several seats with stacks of 30–300 big blinds,
//! a shuffled deck, players who bet by the strength of their cards (with some bluffing), all-ins
//! and side pots, a rotating button; pots settled as a correct table would, then possibly one
//! deliberate error in the rake or the pots.

use crate::games::table::{Simulated, Slot, TableSimulator};
use anyhow::anyhow;
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::cards::{Card, CardSet};
use rules::hand_rank::{evaluate, Category};
use rules::{Plan, Round};
use serde_json::{json, Value};

/// Errors the simulator can inject.
pub const INJECTED_POKER_ERRORS: [&str; 3] = ["rake_too_high", "pot_to_wrong_seat", "chips_kept"];

const BIG_BLIND_H: i64 = 5_000;

pub struct PokerSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
    omaha: bool,
    button: u8,
    /// Players at the table, seats 1 to this; the same players all night, so the button and the
    /// blinds go round them one seat a hand.
    players: u8,
}

#[derive(Clone, Default)]
struct Seat {
    seat: u8,
    left: i64,
    street_in: i64,
    folded: bool,
    all_in: bool,
    needs_action: bool,
    can_raise: bool,
    hole: Vec<Card>,
}

struct Betting {
    seats: Vec<Seat>,
    current_bet: i64,
    last_increment: i64,
    pointer: usize,
    actions: Vec<Value>,
}

impl Betting {
    fn active(&self, i: usize) -> bool {
        !self.seats[i].folded && !self.seats[i].all_in
    }

    fn next(&self) -> Option<usize> {
        let n = self.seats.len();
        (1..=n)
            .map(|k| (self.pointer + k) % n)
            .find(|&i| self.active(i) && self.seats[i].needs_action)
    }

    fn in_hand(&self) -> usize {
        self.seats.iter().filter(|s| !s.folded).count()
    }

    fn pay(&mut self, i: usize, to: i64) {
        let s = &mut self.seats[i];
        let more = (to - s.street_in).clamp(0, s.left);
        s.left -= more;
        s.street_in += more;
        if s.left == 0 {
            s.all_in = true;
        }
    }

    fn record(&mut self, i: usize, street: &str, action: &str, to: Option<i64>) {
        let mut a = json!({"seat": self.seats[i].seat, "street": street, "action": action});
        if let Some(to) = to {
            a["to_h"] = json!(to);
        }
        self.actions.push(a);
    }

    fn start_street(&mut self) {
        self.current_bet = 0;
        self.last_increment = BIG_BLIND_H;
        let playing = (0..self.seats.len()).filter(|&i| self.active(i)).count();
        for s in &mut self.seats {
            s.street_in = 0;
            s.needs_action = !s.folded && !s.all_in && playing > 1;
            s.can_raise = true;
        }
        self.pointer = self.seats.len() - 1;
    }
}

impl PokerSimulator {
    /// A table of 2 to 9 players, as the seed draws.
    pub fn new(seed: u64, plan: Plan, omaha: bool) -> PokerSimulator {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let players = rng.gen_range(2..=9u8);
        PokerSimulator::seated(rng, plan, omaha, players)
    }

    /// A table of `players` players (2 to 9), for a benchmark's fixed mix of table sizes.
    pub fn with_players(seed: u64, plan: Plan, omaha: bool, players: u8) -> PokerSimulator {
        PokerSimulator::seated(
            ChaCha8Rng::seed_from_u64(seed),
            plan,
            omaha,
            players.clamp(2, 9),
        )
    }

    fn seated(rng: ChaCha8Rng, plan: Plan, omaha: bool, players: u8) -> PokerSimulator {
        PokerSimulator {
            rng,
            plan,
            omaha,
            button: 1,
            players,
        }
    }

    /// How much a player likes its cards, 0 … 1, from what it can make with the board so far.
    fn strength(&mut self, hole: &[Card], board: &[Card]) -> f64 {
        let noise = self.rng.gen_range(0.0..0.35);
        if board.is_empty() {
            let high = hole
                .iter()
                .map(|c| f64::from(c.rank().index()))
                .fold(0.0, f64::max);
            let pair = hole
                .iter()
                .enumerate()
                .any(|(i, a)| hole[i + 1..].iter().any(|b| a.rank() == b.rank()));
            return (high / 24.0 + if pair { 0.3 } else { 0.0 } + noise).min(1.0);
        }
        let cards: Vec<Card> = hole.iter().chain(board).copied().collect();
        let category = evaluate(CardSet::of(&cards).unwrap_or_default()).category();
        let base = match category {
            Category::HighCard => 0.1,
            Category::Pair => 0.35,
            Category::TwoPair => 0.55,
            Category::Trips => 0.7,
            _ => 0.85,
        };
        (base + noise).min(1.0)
    }

    /// One betting round on `street` with `board` showing.
    fn bet_street(&mut self, t: &mut Betting, street: &str, board: &[Card]) {
        let pot: i64 = t.seats.iter().map(|s| s.street_in).sum::<i64>() + BIG_BLIND_H * 2;
        while let Some(i) = t.next() {
            let hole = t.seats[i].hole.clone();
            let s = self.strength(&hole, board);
            let to_call = t.current_bet - t.seats[i].street_in;
            let everything = t.seats[i].street_in + t.seats[i].left;
            let min_raise_to = t.current_bet + t.last_increment;
            let wants_raise = s > 0.75 && t.seats[i].can_raise && self.rng.gen_bool(0.6);
            if to_call > 0 && !wants_raise {
                if s < 0.3 && self.rng.gen_bool(0.7) {
                    t.seats[i].folded = true;
                    t.record(i, street, "fold", None);
                } else if to_call >= t.seats[i].left {
                    t.pay(i, everything);
                    t.record(i, street, "all_in", Some(everything));
                } else {
                    t.pay(i, t.current_bet);
                    t.record(i, street, "call", None);
                }
            } else if to_call == 0 && !(s > 0.55 && self.rng.gen_bool(0.5)) {
                t.record(i, street, "check", None);
            } else {
                // Bet or raise: half the pot to the pot, at least the minimum.
                let size = (pot as f64 * self.rng.gen_range(0.5..1.2)) as i64;
                let size = size / 100 * 100;
                let to = (t.current_bet + size).max(min_raise_to);
                if to >= everything || (s > 0.95 && self.rng.gen_bool(0.3)) {
                    let full = everything - t.current_bet >= t.last_increment;
                    t.pay(i, everything);
                    t.record(i, street, "all_in", Some(everything));
                    if everything > t.current_bet {
                        self.reopen(t, i, everything, full);
                    }
                } else {
                    let kind = if t.current_bet == 0 { "bet" } else { "raise" };
                    t.pay(i, to);
                    t.record(i, street, kind, Some(to));
                    self.reopen(t, i, to, true);
                }
            }
            t.seats[i].needs_action = false;
            t.seats[i].can_raise = false;
            t.pointer = i;
            if t.in_hand() <= 1 {
                return;
            }
        }
    }

    fn reopen(&mut self, t: &mut Betting, i: usize, to: i64, full: bool) {
        if full {
            t.last_increment = to - t.current_bet;
        }
        t.current_bet = to;
        for j in 0..t.seats.len() {
            if j != i && t.active(j) {
                t.seats[j].needs_action = true;
                if full {
                    t.seats[j].can_raise = true;
                }
            }
        }
    }
}

impl TableSimulator for PokerSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let (table_id, seq_no, played_at) = (slot.table_id, slot.seq_no, slot.played_at);
        let players = self.players;
        self.button = self.button % players + 1;
        let mut deck: Vec<Card> = Card::deck().collect();
        deck.shuffle(&mut self.rng);
        let hole = if self.omaha { 4 } else { 2 };
        // Seats clockwise from the first left of the button.
        let numbers: Vec<u8> = (1..=players)
            .map(|k| (self.button + k - 1) % players + 1)
            .collect();
        let mut seats: Vec<Seat> = numbers
            .iter()
            .map(|&seat| Seat {
                seat,
                left: self.rng.gen_range(30..=300) * BIG_BLIND_H,
                hole: deck.split_off(deck.len() - hole),
                ..Seat::default()
            })
            .collect();
        let stacks: Vec<(u8, i64)> = seats.iter().map(|s| (s.seat, s.left)).collect();
        for s in &mut seats {
            s.needs_action = true;
            s.can_raise = true;
        }
        let mut t = Betting {
            seats,
            current_bet: 0,
            last_increment: BIG_BLIND_H,
            pointer: 0,
            actions: Vec::new(),
        };
        let (small, big) = if players == 2 { (1, 0) } else { (0, 1) };
        t.pay(small, BIG_BLIND_H / 2);
        t.record(small, "preflop", "small_blind", Some(BIG_BLIND_H / 2));
        t.pay(big, BIG_BLIND_H);
        t.record(big, "preflop", "big_blind", Some(BIG_BLIND_H));
        t.current_bet = BIG_BLIND_H;
        t.pointer = big;
        let mut board: Vec<Card> = Vec::new();
        let mut burned: Vec<Card> = Vec::new();
        self.bet_street(&mut t, "preflop", &board);
        for (street, cards) in [("flop", 3), ("turn", 1), ("river", 1)] {
            if t.in_hand() <= 1 {
                break;
            }
            burned.extend(deck.pop());
            board.extend(deck.split_off(deck.len() - cards));
            t.start_street();
            self.bet_street(&mut t, street, &board);
        }
        let showdown = t.in_hand() > 1;
        let seats_json: Vec<Value> = stacks
            .iter()
            .zip(&t.seats)
            .map(|((seat, stack), s)| {
                let mut v = json!({"seat": seat, "player": format!("player-{seat}"),
                                   "stack_h": stack});
                if showdown && !s.folded {
                    v["shown"] = json!(s.hole);
                }
                v
            })
            .collect();
        let mut seats_json = seats_json;
        seats_json.sort_by_key(|v| v["seat"].as_u64());
        let mut record = json!({
            "type": "round", "game": "poker_cash", "table_id": table_id, "seq_no": seq_no,
            "plan_id": self.plan.plan_id, "round_id": format!("{table_id}-{seq_no}"),
            "played_at": played_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "variant": if self.omaha { "omaha" } else { "holdem" }, "button": self.button,
            "small_blind_h": BIG_BLIND_H / 2, "big_blind_h": BIG_BLIND_H,
            "seats": seats_json, "actions": t.actions, "board": board, "burned": burned,
            "awards": [], "rake_h": 0
        });
        let Round::PokerCash(parsed) = Round::parse(&record).map_err(|e| anyhow!("{e}"))? else {
            return Err(anyhow!("not a poker hand"));
        };
        let (awards, rake) = rules::poker_cash::settle(self.plan.poker_cash()?, &parsed);
        let mut awards: Vec<(u8, i64)> = awards.into_iter().filter(|(_, a)| *a > 0).collect();
        let mut rake = rake;
        let injected = self
            .rng
            .gen_bool(error_share.clamp(0.0, 1.0))
            .then(|| INJECTED_POKER_ERRORS[self.rng.gen_range(0..INJECTED_POKER_ERRORS.len())]);
        match (injected, awards.first_mut()) {
            (Some("rake_too_high"), Some(first)) if first.1 > 10_000 => {
                rake += 10_000;
                first.1 -= 10_000;
            }
            (Some("pot_to_wrong_seat"), Some(first)) => {
                let other = stacks
                    .iter()
                    .map(|s| s.0)
                    .find(|&s| s != first.0)
                    .unwrap_or(1);
                first.0 = other;
            }
            (Some("chips_kept"), Some(first)) if first.1 > 0 => first.1 -= 100.min(first.1),
            (Some(_), _) => rake += 100,
            _ => {}
        }
        record["awards"] = json!(awards
            .iter()
            .map(|(seat, amount)| json!({"seat": seat, "amount_h": amount}))
            .collect::<Vec<_>>());
        record["rake_h"] = json!(rake);
        Ok((record, injected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::games::table::test_plan as plan;

    #[test]
    fn simulated_hands_are_legal_and_every_injected_error_is_found() {
        for omaha in [false, true] {
            let plan = plan();
            let (mut all_ins, mut side_pots, mut showdowns) = (0, 0, 0);
            let mut facts = Vec::new();
            // Four tables of their own sizes, 400 hands each.
            let mut tables: Vec<PokerSimulator> = (3..7)
                .map(|seed| PokerSimulator::new(seed, plan.clone(), omaha))
                .collect();
            let sizes: Vec<u8> = tables.iter().map(|t| t.players).collect();
            for i in 0..1_600u64 {
                let (t, seq_no) = ((i % 4) as usize, i / 4 + 1);
                let table_id = format!("P{t}");
                let (record, injected) =
                    crate::games::table::next_now(&mut tables[t], &table_id, seq_no, 0.2);
                let round = Round::parse(&record).unwrap();
                facts.extend(rules::table_audit::Fact::of(&round));
                let verdict = rules::adjudicate(&plan, &round).unwrap();
                match injected {
                    None => assert!(verdict.is_clean(), "{record} {:?}", verdict.findings),
                    Some(e) => assert!(!verdict.is_clean(), "{e} not found in {record}"),
                }
                let actions = record["actions"].as_array().unwrap();
                let all_in = actions.iter().filter(|a| a["action"] == "all_in").count();
                all_ins += usize::from(all_in > 0);
                side_pots += usize::from(all_in > 1);
                showdowns += usize::from(
                    record["seats"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|s| s.get("shown").is_some()),
                );
            }
            // Realistic: all-ins, several in one hand (side pots), and showdowns all happen.
            assert!(
                all_ins > 100 && side_pots > 20 && showdowns > 300,
                "{all_ins} {side_pots} {showdowns} at tables of {sizes:?}"
            );
            // The button and the blinds go round the table in turn.
            assert_eq!(rules::table_audit::audit(facts), []);
        }
    }
}
