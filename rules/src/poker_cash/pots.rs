//! The pots a hand's chips make (a side pot at each all-in), and who wins each.

use std::collections::BTreeMap;

use super::betting::Played;
use super::record::{PokerHand, Variant};
use crate::cards::{Card, CardSet};
use crate::hand_rank::{evaluate, HandRank};
use crate::money::format_czk;
use crate::plan::poker::PokerCashPlan;
use crate::verdict::{Finding, FindingKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pot {
    pub amount_h: i64,
    /// Seats still in the hand that put in enough to win it.
    pub eligible: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pots {
    /// The main pot first.
    pub pots: Vec<Pot>,
    /// A bet nobody called goes back to its seat, outside the pots.
    pub returned: Option<(u8, i64)>,
}

/// Builds the pots from what each seat put in.
pub fn build(played: &Played) -> Pots {
    let mut put_in: Vec<(u8, i64, bool)> = played
        .order
        .iter()
        .zip(&played.put_in)
        .zip(&played.folded)
        .map(|((&seat, &amount), &folded)| (seat, amount, folded))
        .collect();
    // The largest contribution beyond the second largest was not called.
    let mut amounts: Vec<i64> = put_in.iter().map(|p| p.1).collect();
    amounts.sort_unstable_by(|a, b| b.cmp(a));
    let mut returned = None;
    if let (Some(&top), Some(&second)) = (amounts.first(), amounts.get(1)) {
        if top > second {
            if let Some(p) = put_in.iter_mut().find(|p| p.1 == top) {
                p.1 = second;
                returned = Some((p.0, top - second));
            }
        }
    }
    let mut levels: Vec<i64> = put_in
        .iter()
        .filter(|p| !p.2 && p.1 > 0)
        .map(|p| p.1)
        .collect();
    levels.sort_unstable();
    levels.dedup();
    let mut pots: Vec<Pot> = Vec::new();
    let mut previous = 0i64;
    for (k, &level) in levels.iter().enumerate() {
        let last = k + 1 == levels.len();
        let amount_h: i64 = put_in
            .iter()
            .map(|p| {
                // The last pot also takes any folded chips above the top level.
                let upper = if last { p.1 } else { p.1.min(level) };
                upper - p.1.min(previous)
            })
            .sum();
        let eligible: Vec<u8> = put_in
            .iter()
            .filter(|p| !p.2 && p.1 >= level)
            .map(|p| p.0)
            .collect();
        previous = level;
        match pots.last_mut() {
            Some(pot) if pot.eligible == eligible => pot.amount_h += amount_h,
            _ if amount_h > 0 => pots.push(Pot { amount_h, eligible }),
            _ => {}
        }
    }
    Pots { pots, returned }
}

/// What each seat should be handed: each pot (less the rake, taken from the main pot first) to
/// the best hand shown among its eligible seats, split evenly with odd chips to the first winner
/// left of the button; a lone eligible seat wins without showing.
pub fn award(
    pp: &PokerCashPlan,
    hand: &PokerHand,
    pots: &Pots,
    rake_h: i64,
    findings: &mut Vec<Finding>,
) -> BTreeMap<u8, i64> {
    let mut awards: BTreeMap<u8, i64> = BTreeMap::new();
    if let Some((seat, amount)) = pots.returned {
        *awards.entry(seat).or_default() += amount;
    }
    let clockwise = hand.left_of_button();
    let unit = pp.chip_unit_h.max(1);
    let mut rake_left = rake_h;
    for (n, pot) in pots.pots.iter().enumerate() {
        let taken = rake_left.min(pot.amount_h);
        rake_left -= taken;
        let amount = pot.amount_h - taken;
        let winners: Vec<u8> = if pot.eligible.len() == 1 {
            pot.eligible.clone()
        } else {
            let shown: Vec<(u8, crate::hand_rank::HandRank)> = pot
                .eligible
                .iter()
                .filter_map(|&seat| {
                    let cards = hand.seat(seat)?.shown.as_ref()?;
                    Some((seat, best_hand(hand.variant, cards, &hand.board)?))
                })
                .collect();
            let Some(best) = shown.iter().map(|(_, r)| *r).max() else {
                findings.push(Finding {
                    kind: FindingKind::CardsInconsistent,
                    bet_ids: None,
                    expected_h: None,
                    actual_h: None,
                    amount_h: amount,
                    message: format!(
                        "pot {} of {}: none of its players showed a complete hand, so none can win it",
                        n + 1,
                        format_czk(amount)
                    ),
                });
                continue;
            };
            shown
                .iter()
                .filter(|(_, r)| *r == best)
                .map(|(s, _)| *s)
                .collect()
        };
        // Winners from the first seat left of the button.
        let ordered: Vec<u8> = clockwise
            .iter()
            .copied()
            .filter(|s| winners.contains(s))
            .collect();
        let count = ordered.len().max(1) as i64;
        let share = amount / unit / count * unit;
        let mut odd = amount - share * count;
        for seat in &ordered {
            let extra = odd.min(unit);
            odd -= extra;
            *awards.entry(*seat).or_default() += share + extra;
        }
        // Anything still left (less than a chip) also goes to the first winner.
        if let Some(first) = ordered.first() {
            *awards.entry(*first).or_default() += odd;
        }
    }
    awards
}

/// The best five-card hand of a seat's shown cards with the board, by the variant's rule.
pub(super) fn best_hand(variant: Variant, hole: &[Card], board: &[Card]) -> Option<HandRank> {
    match variant {
        Variant::Holdem => {
            let cards: Vec<Card> = hole.iter().chain(board).copied().collect();
            (cards.len() >= 5).then(|| evaluate(CardSet::of(&cards).unwrap_or_default()))
        }
        Variant::Omaha => {
            let mut best = None;
            for (i, a) in hole.iter().enumerate() {
                for b in &hole[i + 1..] {
                    for (x, c) in board.iter().enumerate() {
                        for (y, d) in board.iter().enumerate().skip(x + 1) {
                            for e in &board[y + 1..] {
                                let set = CardSet::of(&[*a, *b, *c, *d, *e]).unwrap_or_default();
                                let rank = evaluate(set);
                                if best.is_none_or(|b| rank > b) {
                                    best = Some(rank);
                                }
                            }
                        }
                    }
                }
            }
            best
        }
    }
}
