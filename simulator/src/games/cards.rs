//! Blackjack and Ultimate Texas Hold'em rounds dealt from real shuffled cards, played with a
//! sensible strategy; payouts are what the plan requires (the rules compute them), so a round
//! comes out clean unless it is damaged afterwards.

use crate::games::table::{Simulated, Slot, TableSimulator};
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rules::blackjack::points::{card_points, Total};
use rules::cards::{Card, Rank};
use rules::hand_rank::{evaluate, Category};
use rules::{Plan, Round};
use serde_json::{json, Value};

/// Chip values on a live table, in haléře (50 Kč … 5 000 Kč).
const STAKES_H: [i64; 6] = [5_000, 10_000, 20_000, 50_000, 100_000, 500_000];

/// Sets every bet's `paid_h` to what the plan requires.
fn pay_as_required(plan: &Plan, record: &mut Value) -> anyhow::Result<()> {
    let round = Round::parse(record).map_err(|e| anyhow::anyhow!("simulated round: {e}"))?;
    let verdict = rules::adjudicate(plan, &round).map_err(|e| anyhow::anyhow!("{e}"))?;
    let expected: std::collections::HashMap<String, i64> = verdict
        .bets
        .iter()
        .map(|b| (b.bet_id.to_owned(), b.expected_paid_h))
        .collect();
    let groups = ["boxes", "spots"];
    for group in groups {
        let holders = record.get_mut(group).and_then(Value::as_array_mut);
        for holder in holders.into_iter().flatten() {
            for bet in holder["bets"].as_array_mut().into_iter().flatten() {
                let id = bet["bet_id"].as_str().unwrap_or_default().to_owned();
                bet["paid_h"] = json!(expected.get(&id).copied().unwrap_or(0));
            }
        }
    }
    Ok(())
}

/// A six-deck shoe dealt round after round, reshuffled at the cut card.
pub struct BlackjackSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
    shoe: Vec<Card>,
    next: usize,
    shoes: u32,
}

struct LiveHand {
    cards: Vec<Card>,
    from_split: bool,
}

impl BlackjackSimulator {
    pub fn new(seed: u64, plan: Plan) -> BlackjackSimulator {
        BlackjackSimulator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            plan,
            shoe: Vec::new(),
            next: usize::MAX,
            shoes: 0,
        }
    }

    fn draw(&mut self, deal: &mut Vec<Card>) -> Card {
        let card = self.shoe[self.next];
        self.next += 1;
        deal.push(card);
        card
    }

    /// One round of `table_id`.
    pub fn round(&mut self, slot: Slot<'_>) -> anyhow::Result<Value> {
        let bp = self
            .plan
            .blackjack
            .clone()
            .ok_or_else(|| anyhow::anyhow!("the plan has no blackjack"))?;
        // Cut card at three quarters of the shoe: a new shoe, three cards burned.
        let shuffled = self.next.saturating_add(60) > self.shoe.len() * 3 / 4;
        let mut burned = Vec::new();
        if shuffled {
            self.shoe = (0..bp.decks).flat_map(|_| Card::deck()).collect();
            self.shoe.shuffle(&mut self.rng);
            self.shoes += 1;
            self.next = 0;
            for _ in 0..bp.burn_after_shuffle {
                burned.push(self.shoe[self.next]);
                self.next += 1;
            }
        }
        let mut box_numbers: Vec<u8> = (1..=7).collect();
        box_numbers.shuffle(&mut self.rng);
        let boxes_in_play = self.rng.gen_range(1..=5);
        let mut box_numbers = box_numbers[..boxes_in_play].to_vec();
        box_numbers.sort_unstable();

        let mut deal = Vec::new();
        let firsts: Vec<Card> = box_numbers.iter().map(|_| self.draw(&mut deal)).collect();
        let up = self.draw(&mut deal);
        let seconds: Vec<Card> = box_numbers.iter().map(|_| self.draw(&mut deal)).collect();
        let mut boxes = Vec::new();
        let mut all_bust = true;
        let mut blackjack = false;
        let mut insurance = false;
        for (i, number) in box_numbers.iter().enumerate() {
            let (hands, bust, natural) = self.play_box([firsts[i], seconds[i]], &bp, &mut deal);
            // A blackjack is settled like a bust hand: nothing left to play against.
            all_bust &= bust || natural;
            blackjack |= natural;
            let mut bets = Vec::new();
            let players = self.rng.gen_range(1..=2);
            for p in 0..players {
                let player = format!("box{number}-p{p}");
                let stake = STAKES_H[self.rng.gen_range(0..STAKES_H.len() - 1)];
                bets.push(json!({"bet_id": format!("m{number}-{p}"), "player": player,
                                 "kind": "main", "stake_h": stake, "paid_h": 0}));
                if self.rng.gen_bool(0.2) {
                    bets.push(
                        json!({"bet_id": format!("pp{number}-{p}"), "player": player,
                                     "kind": "perfect_pairs", "stake_h": 2_500, "paid_h": 0}),
                    );
                }
                if up.rank() == Rank::ACE && self.rng.gen_bool(0.1) {
                    insurance = true;
                    bets.push(json!({"bet_id": format!("i{number}-{p}"), "player": player,
                                     "kind": "insurance", "stake_h": stake / 2, "paid_h": 0}));
                }
            }
            boxes.push(json!({"box": number, "hands": hands, "bets": bets}));
        }
        // The dealer completes the hand unless everything is settled already.
        let up_can_blackjack = matches!(card_points(up), 1 | 10);
        if !all_bust || insurance || (blackjack && up_can_blackjack) {
            let mut dealer = vec![up];
            while Total::of(&dealer).value() < 17 {
                let card = self.draw(&mut deal);
                dealer.push(card);
            }
        }
        let mut record = json!({
            "type": "round", "game": "blackjack", "table_id": slot.table_id,
            "seq_no": slot.seq_no, "plan_id": self.plan.plan_id,
            "played_at": slot.played_at.to_rfc3339(),
            "shoe_id": format!("{}-shoe-{}", slot.table_id, self.shoes), "shuffled": shuffled,
            "burned": burned.iter().map(Card::to_string).collect::<Vec<_>>(),
            "deal": deal.iter().map(Card::to_string).collect::<Vec<_>>(),
            "boxes": boxes,
        });
        pay_as_required(&self.plan, &mut record)?;
        Ok(record)
    }

    /// Plays a box: split aces and eights, double on 10 and 11, hit to 17. Returns the
    /// decisions of each hand, whether every hand is bust, and whether it is a blackjack.
    fn play_box(
        &mut self,
        first_two: [Card; 2],
        bp: &rules::plan::BlackjackPlan,
        deal: &mut Vec<Card>,
    ) -> (Vec<Vec<&'static str>>, bool, bool) {
        let natural = Total::of(&first_two).value() == 21;
        let mut pending = std::collections::VecDeque::from([LiveHand {
            cards: first_two.to_vec(),
            from_split: false,
        }]);
        let mut recorded = Vec::new();
        let mut splits = 0;
        let mut all_bust = true;
        while let Some(mut hand) = pending.pop_front() {
            if hand.cards.len() == 1 {
                let card = self.draw(deal);
                hand.cards.push(card);
            }
            let mut decisions = Vec::new();
            let split_aces = hand.from_split && hand.cards[0].rank() == Rank::ACE;
            let pair = card_points(hand.cards[0]) == card_points(hand.cards[1]);
            let total = Total::of(&hand.cards);
            if split_aces || total.value() >= 21 {
                // Nothing to decide.
            } else if pair && splits < bp.max_splits && matches!(card_points(hand.cards[0]), 1 | 8)
            {
                splits += 1;
                decisions.push("split");
                recorded.push(decisions);
                pending.push_front(LiveHand {
                    cards: vec![hand.cards[1]],
                    from_split: true,
                });
                pending.push_front(LiveHand {
                    cards: vec![hand.cards[0]],
                    from_split: true,
                });
                continue;
            } else if matches!(total.value(), 10 | 11)
                && (!hand.from_split || bp.double_after_split)
            {
                decisions.push("double");
                let card = self.draw(deal);
                hand.cards.push(card);
            } else {
                while Total::of(&hand.cards).value() < 17 {
                    decisions.push("hit");
                    let card = self.draw(deal);
                    hand.cards.push(card);
                }
                if Total::of(&hand.cards).value() < 21 {
                    decisions.push("stand");
                }
            }
            all_bust &= Total::of(&hand.cards).is_bust();
            recorded.push(decisions);
        }
        (recorded, all_bust, natural && splits == 0)
    }
}

/// Ultimate Texas Hold'em: a fresh deck every round.
pub struct UthSimulator {
    rng: ChaCha8Rng,
    plan: Plan,
}

impl UthSimulator {
    pub fn new(seed: u64, plan: Plan) -> UthSimulator {
        UthSimulator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            plan,
        }
    }

    pub fn round(&mut self, slot: Slot<'_>) -> anyhow::Result<Value> {
        let mut deck: Vec<Card> = Card::deck().collect();
        deck.shuffle(&mut self.rng);
        let mut cards = deck.into_iter();
        let mut next = || {
            cards
                .next()
                .ok_or_else(|| anyhow::anyhow!("deck exhausted"))
        };
        let spots_in_play = self.rng.gen_range(1..=6);
        let mut holes = Vec::new();
        for _ in 0..spots_in_play {
            holes.push([next()?, next()?]);
        }
        let dealer = [next()?, next()?];
        let burned = [next()?, next()?];
        let board = [next()?, next()?, next()?, next()?, next()?];
        let text = |cs: &[Card]| cs.iter().map(Card::to_string).collect::<Vec<_>>();
        let mut spots = Vec::new();
        for (i, hole) in holes.iter().enumerate() {
            let n = i + 1;
            let ante = STAKES_H[self.rng.gen_range(0..4)] / 5;
            let mut bets = vec![
                json!({"bet_id": format!("a{n}"), "kind": "ante", "stake_h": ante, "paid_h": 0}),
                json!({"bet_id": format!("b{n}"), "kind": "blind", "stake_h": ante, "paid_h": 0}),
            ];
            if self.rng.gen_bool(0.5) {
                bets.push(json!({"bet_id": format!("t{n}"), "kind": "trips", "stake_h": ante, "paid_h": 0}));
            }
            // Raise 4× with a pair, an ace or two high cards; 2× with a pair on the flop;
            // 1× with a pair or a queen high at the river; else fold.
            let high = |c: &Card| c.rank() >= Rank::TEN;
            let hand_with =
                |extra: &[Card]| evaluate(extra.iter().chain(hole).copied().collect()).category();
            let street = if hole[0].rank() == hole[1].rank()
                || hole.iter().any(|c| c.rank() == Rank::ACE)
                || hole.iter().all(high)
            {
                Some(("preflop", 4))
            } else if hand_with(&board[..3]) >= Category::Pair {
                Some(("flop", 2))
            } else if hand_with(&board) >= Category::Pair
                || hole.iter().any(|c| c.rank() >= Rank::QUEEN)
            {
                Some(("river", 1))
            } else {
                None
            };
            let mut spot = json!({"spot": n, "player": format!("seat-{n}"), "cards": text(hole)});
            if let Some((name, multiple)) = street {
                spot["play_street"] = json!(name);
                bets.push(json!({"bet_id": format!("p{n}"), "kind": "play",
                                 "stake_h": ante * multiple, "paid_h": 0}));
            }
            spot["bets"] = json!(bets);
            spots.push(spot);
        }
        let mut record = json!({
            "type": "round", "game": "ultimate_texas_holdem", "table_id": slot.table_id,
            "seq_no": slot.seq_no, "plan_id": self.plan.plan_id,
            "played_at": slot.played_at.to_rfc3339(),
            "burned": text(&burned), "dealer": text(&dealer), "board": text(&board),
            "spots": spots,
        });
        pay_as_required(&self.plan, &mut record)?;
        Ok(record)
    }
}

/// The boxes (blackjack) or spots (UTH) of a dealt record.
#[cfg(test)]
fn positions(record: &mut Value) -> std::slice::IterMut<'_, Value> {
    let key = if record.get("boxes").is_some() {
        "boxes"
    } else {
        "spots"
    };
    record
        .get_mut(key)
        .and_then(Value::as_array_mut)
        .map(|list| list.iter_mut())
        .unwrap_or_default()
}

/// Round `seq_no` of `table_id`, played now.
#[cfg(test)]
fn slot(table_id: &str, seq_no: u64) -> Slot<'_> {
    Slot {
        table_id,
        seq_no,
        played_at: chrono::Utc::now(),
    }
}

/// The bundled plan and a blackjack and a UTH table seeded with `seed`, for the tests.
#[cfg(test)]
fn card_tables(seed: u64) -> (Plan, BlackjackSimulator, UthSimulator) {
    let plan = crate::games::table::test_plan();
    let blackjack = BlackjackSimulator::new(seed, plan.clone());
    let uth = UthSimulator::new(seed, plan.clone());
    (plan, blackjack, uth)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dealt rounds are complete and clean: the simulator and the adjudicator agree on which
    /// card went where, over many shoes.
    #[test]
    fn simulated_rounds_adjudicate_clean() {
        let (plan, mut blackjack, mut uth) = card_tables(5);
        for seq in 1..=2_000 {
            for record in [
                blackjack.round(slot("BJ1", seq)).unwrap(),
                uth.round(slot("U1", seq)).unwrap(),
            ] {
                let round = Round::parse(&record).unwrap();
                let verdict = rules::adjudicate(&plan, &round).unwrap();
                assert!(verdict.is_clean(), "{record}\n{:?}", verdict.findings);
            }
        }
        assert!(blackjack.shoes > 10);
    }
}

/// Errors the card-game simulators can inject, as a dealer or a table system might make them.
pub const INJECTED_CARD_ERRORS: [&str; 5] = [
    "overpaid",
    "underpaid",
    "dealer_extra_card",
    "payout_withheld",
    "illegal_play",
];

/// Damages a clean round the way a dealer might get it wrong; which error, if any.
fn damage(rng: &mut ChaCha8Rng, record: &mut Value, error_share: f64) -> Option<&'static str> {
    if !rng.gen_bool(error_share.clamp(0.0, 1.0)) {
        return None;
    }
    let blackjack = record["game"] == "blackjack";
    let group = if blackjack { "boxes" } else { "spots" };
    let holders = record.get_mut(group)?.as_array_mut()?;
    let holder = rng.gen_range(0..holders.len());
    let bets = holders[holder].get_mut("bets")?.as_array_mut()?;
    let bet = rng.gen_range(0..bets.len());
    match rng.gen_range(0..4) {
        0 => {
            let paid = bets[bet]["paid_h"].as_i64()?;
            bets[bet]["paid_h"] = json!(paid + 1_000);
            Some("overpaid")
        }
        1 => {
            let paid = bets[bet]["paid_h"].as_i64()?;
            bets[bet]["paid_h"] = json!((paid - 1_000).max(0));
            (paid > 0).then_some("underpaid")
        }
        2 if blackjack => {
            // The dealer takes one card too many: the next card of a fresh deck will do.
            let deal = record.get_mut("deal")?.as_array_mut()?;
            deal.push(json!("5c"));
            Some("dealer_extra_card")
        }
        2 => {
            // A Play bet of a multiple the street does not allow.
            let play = bets.iter_mut().find(|b| b["kind"] == "play")?;
            let stake = play["stake_h"].as_i64()?;
            play["stake_h"] = json!(stake + stake / 2);
            Some("illegal_play")
        }
        _ if blackjack => {
            let main = bets.iter_mut().find(|b| b["kind"] == "main")?;
            let stake = main["stake_h"].as_i64()?;
            if main["paid_h"].as_i64()? <= stake {
                return None;
            }
            main["withheld"] = json!(true);
            main["paid_h"] = json!(stake);
            Some("payout_withheld")
        }
        _ => None,
    }
}

impl TableSimulator for BlackjackSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let record = self.round(slot);
        damaged(record, &mut self.rng, error_share)
    }
}

impl TableSimulator for UthSimulator {
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated {
        let record = self.round(slot);
        damaged(record, &mut self.rng, error_share)
    }
}

/// A clean dealt round, damaged with probability `error_share` (the error named).
fn damaged(record: anyhow::Result<Value>, rng: &mut ChaCha8Rng, error_share: f64) -> Simulated {
    let mut record = record?;
    let error = damage(rng, &mut record, error_share);
    Ok((record, error))
}

#[cfg(test)]
mod damage_tests {
    use super::*;

    /// Every injected error is found by the adjudicator as the finding it imitates.
    #[test]
    fn injected_errors_are_found() {
        let (plan, mut blackjack, mut uth) = card_tables(9);
        let mut seen = std::collections::BTreeSet::new();
        for seq in 1..=1_000 {
            for (record, error) in [
                crate::games::table::next_now(&mut blackjack, "BJ1", seq, 0.5),
                crate::games::table::next_now(&mut uth, "U1", seq, 0.5),
            ] {
                let round = Round::parse(&record).unwrap();
                let verdict = rules::adjudicate(&plan, &round).unwrap();
                let kinds: Vec<&str> = verdict.findings.iter().map(|f| f.kind.as_str()).collect();
                let expected = match error {
                    None => {
                        assert!(kinds.is_empty(), "{record}: {kinds:?}");
                        continue;
                    }
                    Some("dealer_extra_card") => "dealer_drawing_wrong",
                    Some("illegal_play") => "illegal_decision",
                    Some(other) => other,
                };
                assert!(kinds.contains(&expected), "{error:?} → {kinds:?}\n{record}");
                seen.insert(expected);
            }
        }
        assert_eq!(seen.len(), 5, "{seen:?}");
    }
}

#[cfg(test)]
mod robustness_tests {
    use super::*;

    fn random_card(rng: &mut ChaCha8Rng) -> Value {
        let deck: Vec<Card> = Card::deck().collect();
        json!(deck[rng.gen_range(0..deck.len())].to_string())
    }

    /// Damages a record at random: cards swapped, dropped or added, decisions changed, amounts
    /// and numbers replaced. Whatever comes out is a 4xx-style error or a verdict, never a panic.
    fn mutate(rng: &mut ChaCha8Rng, record: &mut Value) {
        let decisions = ["hit", "stand", "double", "split", "surrender"];
        for _ in 0..rng.gen_range(1..4) {
            match rng.gen_range(0..8) {
                0 => {
                    if let Some(deal) = record.get_mut("deal").and_then(Value::as_array_mut) {
                        deal.shuffle(rng);
                    }
                }
                1 => {
                    if let Some(deal) = record.get_mut("deal").and_then(Value::as_array_mut) {
                        let keep = rng.gen_range(0..=deal.len());
                        deal.truncate(keep);
                    }
                }
                2 => {
                    let card = random_card(rng);
                    for key in ["deal", "burned", "board", "dealer"] {
                        if let Some(list) = record.get_mut(key).and_then(Value::as_array_mut) {
                            if !list.is_empty() {
                                let at = rng.gen_range(0..list.len());
                                list[at] = card.clone();
                            }
                        }
                    }
                }
                3 => {
                    for h in positions(record) {
                        if let Some(hands) = h.get_mut("hands").and_then(Value::as_array_mut) {
                            for hand in hands.iter_mut() {
                                if let Some(ds) = hand.as_array_mut() {
                                    ds.push(json!(decisions[rng.gen_range(0..decisions.len())]));
                                }
                            }
                        }
                    }
                }
                4 => {
                    for h in positions(record) {
                        for bet in h["bets"].as_array_mut().into_iter().flatten() {
                            let amount =
                                [0i64, 1, -5, i64::MAX, 100_000_000_000_000][rng.gen_range(0..5)];
                            bet["stake_h"] = json!(amount);
                        }
                    }
                }
                5 => record["seq_no"] = json!(rng.gen::<u64>()),
                6 => {
                    if let Some(deal) = record.get_mut("deal").and_then(Value::as_array_mut) {
                        for _ in 0..rng.gen_range(0..40) {
                            deal.push(json!("As"));
                        }
                    }
                }
                _ => {
                    for holder in ["boxes", "spots"] {
                        if let Some(list) = record.get_mut(holder).and_then(Value::as_array_mut) {
                            list.reverse();
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn damaged_card_rounds_never_panic() {
        let (plan, mut blackjack, mut uth) = card_tables(4);
        let mut rng = ChaCha8Rng::seed_from_u64(404);
        let (mut refused, mut judged) = (0, 0);
        for seq in 1..=3_000 {
            for mut record in [
                blackjack.round(slot("BJ1", seq)).unwrap(),
                uth.round(slot("U1", seq)).unwrap(),
            ] {
                mutate(&mut rng, &mut record);
                match Round::parse(&record) {
                    Err(_) => refused += 1,
                    Ok(round) => match rules::adjudicate(&plan, &round) {
                        Ok(_) => judged += 1,
                        Err(_) => refused += 1,
                    },
                }
            }
        }
        // Both outcomes happen: the damage is neither always fatal nor always harmless.
        assert!(
            refused > 100 && judged > 100,
            "refused {refused}, judged {judged}"
        );
    }
}
