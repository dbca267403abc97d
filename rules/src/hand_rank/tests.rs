//! The evaluator against the published five-card counts (every hand) and against a plain
//! best-of-21 reference written independently (random seven-card hands).

use rand::{seq::SliceRandom as _, SeedableRng as _};

use super::*;
use crate::cards::{Card, CardSet};

fn set(cards: &str) -> CardSet {
    let cards: Vec<Card> = cards
        .split_whitespace()
        .map(|c| Card::parse(c).unwrap())
        .collect();
    CardSet::of(&cards).unwrap()
}

fn rank_of(cards: &str) -> HandRank {
    evaluate(set(cards))
}

/// All 2 598 960 five-card hands fall into the textbook counts (e.g. Wikipedia, "Poker
/// probability"): 40 straight flushes (4 royal), 624 quads, 3 744 full houses, 5 108 flushes,
/// 10 200 straights, 54 912 trips, 123 552 two pairs, 1 098 240 pairs, 1 302 540 high cards;
/// and 7 462 distinct values (hands that tie are one value).
#[test]
fn every_five_card_hand_falls_into_the_known_counts() {
    let deck: Vec<u64> = Card::deck().map(Card::bit).collect();
    let mut counts = [0u32; 9];
    let mut royals = 0;
    let mut seen = std::collections::HashSet::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    let four = deck[a] | deck[b] | deck[c] | deck[d];
                    for e in &deck[d + 1..] {
                        let rank = evaluate(CardSet(four | e));
                        counts[rank.category() as usize] += 1;
                        royals += u32::from(rank.is_royal_flush());
                        seen.insert(rank.value());
                    }
                }
            }
        }
    }
    assert_eq!(
        counts,
        [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
    );
    assert_eq!(royals, 4);
    assert_eq!(seen.len(), 7_462);
}

#[test]
fn hand_picked_hands() {
    // The wheel is a five-high straight, below a six-high one.
    let wheel = rank_of("As 2d 3c 4h 5s");
    assert_eq!(wheel.category(), Category::Straight);
    assert_eq!(wheel.top_rank(), Rank::new(3).unwrap());
    assert!(wheel < rank_of("2d 3c 4h 5s 6d"));
    // Royal flush among seven cards; a steel wheel is the lowest straight flush.
    assert!(rank_of("Ah Kh Qh Jh Th 2c 2d").is_royal_flush());
    let steel_wheel = rank_of("Ad 2d 3d 4d 5d Kc Ks");
    assert_eq!(steel_wheel.category(), Category::StraightFlush);
    assert!(!steel_wheel.is_royal_flush());
    assert!(steel_wheel < rank_of("2d 3d 4d 5d 6d"));
    // A flush beats the straight in the same seven cards.
    assert_eq!(rank_of("2h 5h 7h 9h Jh Tc 8d").category(), Category::Flush);
    // Two trips make a full house of the higher over the lower.
    let boat = rank_of("9s 9d 9c 4h 4s 4d Ac");
    assert_eq!(boat.category(), Category::FullHouse);
    assert!(boat > rank_of("9s 9d 9c 3h 3s Ac Kd"));
    assert!(boat < rank_of("Ts Td Tc 2h 2s 3c 4d"));
    // Three pairs: the best two and the best remaining card (the third pair's rank counts).
    assert_eq!(
        rank_of("Ks Kd 7c 7h 5s 5d 2c"),
        rank_of("Ks Kd 7c 7h 5s 3d 2c")
    );
    assert!(rank_of("Ks Kd 7c 7h 6s 6d 2c") > rank_of("Ks Kd 7c 7h 5s 5d 2c"));
    // Quads with a pair: the kicker is the best other card.
    assert_eq!(
        rank_of("8s 8d 8c 8h As Ad 2c"),
        rank_of("8s 8d 8c 8h As 3d 2c")
    );
    // Kickers decide, and only five cards play.
    assert!(rank_of("As Ad Kc 9h 7s 3d 2c") > rank_of("Ah Ac Qc Jh 9s 3c 2d"));
    assert_eq!(
        rank_of("As Ad Kc 9h 7s 3d 2c"),
        rank_of("Ah Ac Kd 9s 7d 5c 4h")
    );
}

/// A plain five-card ranking: category, then the ranks that break ties.
fn reference_five(cards: &[Card]) -> (Category, Vec<u8>) {
    let mut counts = [0u8; 13];
    for c in cards {
        counts[usize::from(c.rank().index())] += 1;
    }
    // Ranks by (count, rank), highest first.
    let mut groups: Vec<(u8, u8)> = (0..13u8)
        .filter(|&r| counts[usize::from(r)] > 0)
        .map(|r| (counts[usize::from(r)], r))
        .collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
    let order: Vec<u8> = groups.iter().map(|g| g.1).collect();
    let flush = cards.iter().all(|c| c.suit() == cards[0].suit());
    let straight_top = if shape.len() == 5 {
        if order[0] - order[4] == 4 {
            Some(order[0])
        } else if order == [12, 3, 2, 1, 0] {
            Some(3)
        } else {
            None
        }
    } else {
        None
    };
    match (straight_top, flush, shape.as_slice()) {
        (Some(top), true, _) => (Category::StraightFlush, vec![top]),
        (_, _, [4, 1]) => (Category::Quads, order),
        (_, _, [3, 2]) => (Category::FullHouse, order),
        (None, true, _) => (Category::Flush, order),
        (Some(top), false, _) => (Category::Straight, vec![top]),
        (_, _, [3, 1, 1]) => (Category::Trips, order),
        (_, _, [2, 2, 1]) => (Category::TwoPair, order),
        (_, _, [2, 1, 1, 1]) => (Category::Pair, order),
        _ => (Category::HighCard, order),
    }
}

fn reference_best(cards: &[Card]) -> (Category, Vec<u8>) {
    let n = cards.len();
    (0u32..1 << n)
        .filter(|pick| pick.count_ones() == 5)
        .map(|pick| {
            let five: Vec<Card> = (0..n)
                .filter(|i| pick & (1 << i) != 0)
                .map(|i| cards[i])
                .collect();
            reference_five(&five)
        })
        .max()
        .unwrap()
}

#[test]
fn random_seven_and_six_card_hands_agree_with_the_reference() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7462);
    let mut deck: Vec<Card> = Card::deck().collect();
    let mut hands = Vec::new();
    for i in 0..6_000 {
        deck.shuffle(&mut rng);
        let n = if i % 3 == 0 { 6 } else { 7 };
        let cards = deck[..n].to_vec();
        let ours = evaluate(CardSet::of(&cards).unwrap());
        let reference = reference_best(&cards);
        assert_eq!(ours.category(), reference.0, "{cards:?}");
        hands.push((ours, reference));
    }
    // The same order between any two hands (neighbours after sorting by the reference).
    hands.sort_by(|a, b| a.1.cmp(&b.1));
    for pair in hands.windows(2) {
        assert_eq!(pair[0].0.cmp(&pair[1].0), pair[0].1.cmp(&pair[1].1));
    }
}

/// All 133 784 560 seven-card hands give the published best-hand distribution (Wikipedia,
/// "Poker probability", 7-card poker hands): royal flush 4 324, other straight flushes 37 260,
/// quads 224 848, full house 3 473 184, flush 4 047 644, straight 6 180 020, trips 6 461 620,
/// two pair 31 433 400, pair 58 627 800, high card 23 294 460.
#[test]
fn every_seven_card_hand_gives_the_known_distribution() {
    let counts = seven_card_distribution();
    assert_eq!(
        counts,
        [
            23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
            224_848, 37_260, 4_324
        ]
    );
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
}
