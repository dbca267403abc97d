//! Cards across the rounds of a shoe: no card may come out more often than the shoe holds it.
//!
//! A round's verdict sees one round; this sees a table's rounds in dealing order (its sequence
//! numbers), one tally per shoe (a round marked `shuffled` starts a new tally, even under a shoe
//! id seen before).

use std::collections::HashMap;

use super::record::BlackjackRound;
use crate::cards::Card;

/// A card that came out of the shoe more often than `decks` decks hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excess {
    pub card: Card,
    /// How many times it had come out by then.
    pub count: u16,
    /// The round where it went over.
    pub seq_no: u64,
}

/// One shoe of one table, from its first round seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShoeTally {
    pub table_id: String,
    pub shoe_id: String,
    /// Whether its first round seen was the one after the shuffle (the tally is complete).
    pub from_shuffle: bool,
    pub rounds: u32,
    pub first_seq_no: u64,
    pub last_seq_no: u64,
    /// Cards burned and dealt.
    pub cards: u32,
    pub excess: Vec<Excess>,
    counts: Vec<u16>,
}

impl ShoeTally {
    fn start(round: &BlackjackRound) -> ShoeTally {
        ShoeTally {
            table_id: round.table_id.clone(),
            shoe_id: round.shoe_id.clone(),
            from_shuffle: round.shuffled,
            rounds: 0,
            first_seq_no: round.seq_no,
            last_seq_no: round.seq_no,
            cards: 0,
            excess: Vec::new(),
            counts: vec![0; 52],
        }
    }

    fn add(&mut self, round: &BlackjackRound, decks: u8) {
        self.rounds = self.rounds.saturating_add(1);
        self.last_seq_no = round.seq_no;
        for card in round.burned.iter().chain(&round.deal) {
            self.cards = self.cards.saturating_add(1);
            let count = &mut self.counts[card.ordinal()];
            *count = count.saturating_add(1);
            if *count > u16::from(decks) && !self.excess.iter().any(|e| e.card == *card) {
                self.excess.push(Excess {
                    card: *card,
                    count: *count,
                    seq_no: round.seq_no,
                });
            }
        }
    }
}

/// Tallies `rounds`, given in dealing order (each table's sequence order), per table and shoe;
/// `decks` gives the number of decks in a round's shoe (from its plan).
pub fn audit<'a>(
    rounds: impl IntoIterator<Item = &'a BlackjackRound>,
    decks: impl Fn(&BlackjackRound) -> u8,
) -> Vec<ShoeTally> {
    let mut tallies: Vec<ShoeTally> = Vec::new();
    // The open tally of each (table, shoe).
    let mut open: HashMap<(&str, &str), usize> = HashMap::new();
    for round in rounds {
        let key = (round.table_id.as_str(), round.shoe_id.as_str());
        let at = match open.get(&key) {
            Some(&at) if !round.shuffled => at,
            _ => {
                tallies.push(ShoeTally::start(round));
                open.insert(key, tallies.len() - 1);
                tallies.len() - 1
            }
        };
        tallies[at].add(round, decks(round));
    }
    tallies
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round(seq_no: u64, shoe: &str, shuffled: bool, deal: &[&str]) -> BlackjackRound {
        let record = json!({
            "type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": seq_no,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:00:00Z",
            "shoe_id": shoe, "shuffled": shuffled, "deal": deal,
            "boxes": [{"box": 1, "hands": [[]],
                       "bets": [{"bet_id": "b", "player": "p", "kind": "main", "stake_h": 5000, "paid_h": 0}]}]
        });
        serde_json::from_value(record).unwrap()
    }

    #[test]
    fn a_seventh_ace_of_spades_over_several_rounds_is_found_where_it_appears() {
        // Rounds 1–3 deal A♠ 2, 2 and 3 times: the seventh comes out in round 3.
        let rounds = [
            round(1, "S1", true, &["As", "As", "Kd"]),
            round(2, "S1", false, &["As", "As", "Kd"]),
            round(3, "S1", false, &["As", "Qc", "As", "As"]),
        ];
        let tallies = audit(&rounds, |_| 6);
        assert_eq!(tallies.len(), 1);
        let t = &tallies[0];
        assert!(t.from_shuffle);
        assert_eq!(
            (t.rounds, t.first_seq_no, t.last_seq_no, t.cards),
            (3, 1, 3, 10)
        );
        assert_eq!(
            t.excess,
            [Excess {
                card: Card::parse("As").unwrap_or_else(|| unreachable!()),
                count: 7,
                seq_no: 3
            }]
        );
    }

    #[test]
    fn a_shuffle_starts_a_new_tally_and_shoes_are_kept_apart() {
        // Six A♠ in shoe S1, a shuffle (same shoe id), six more: no excess. Another shoe's
        // cards do not count towards S1.
        let rounds = [
            round(1, "S1", true, &["As", "As", "As", "As", "As", "As"]),
            round(2, "S2", true, &["As", "As", "As"]),
            round(3, "S1", true, &["As", "As", "As", "As", "As", "As"]),
        ];
        let tallies = audit(&rounds, |_| 6);
        assert_eq!(tallies.len(), 3);
        assert!(tallies.iter().all(|t| t.excess.is_empty()));
        // Without the shuffle the second S1 round would be the twelfth A♠.
        let rounds = [
            round(1, "S1", true, &["As", "As", "As", "As", "As", "As"]),
            round(3, "S1", false, &["As"]),
        ];
        let tallies = audit(&rounds, |_| 6);
        assert_eq!(tallies[0].excess.len(), 1);
        assert_eq!(tallies[0].excess[0].seq_no, 3);
    }
}
