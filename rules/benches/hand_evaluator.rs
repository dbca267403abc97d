//! Seven-card hand evaluation: dozor's evaluator and the `rs_poker` crate on the same random
//! hands, in one criterion run: `cargo bench -p dozor-rules --bench hand_evaluator`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rand::{seq::SliceRandom as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rs_poker::core::Rankable as _;
use rules::cards::{Card, CardSet};
use rules::hand_rank::evaluate;

const HANDS: usize = 100_000;

fn random_hands() -> Vec<Vec<Card>> {
    let mut rng = ChaCha8Rng::seed_from_u64(52);
    let mut deck: Vec<Card> = Card::deck().collect();
    (0..HANDS)
        .map(|_| {
            deck.shuffle(&mut rng);
            deck[..7].to_vec()
        })
        .collect()
}

fn evaluators(c: &mut Criterion) {
    let hands = random_hands();
    let ours: Vec<CardSet> = hands.iter().map(|h| CardSet::of(h).unwrap()).collect();
    // rs_poker reads the same two-letter notation.
    let text = |h: &Vec<Card>| h.iter().map(Card::to_string).collect::<String>();
    let theirs_set: Vec<rs_poker::core::Hand> = hands
        .iter()
        .map(|h| rs_poker::core::Hand::new_from_str(&text(h)).unwrap())
        .collect();
    let theirs_cards: Vec<Vec<rs_poker::core::Card>> =
        theirs_set.iter().map(|h| h.iter().collect()).collect();
    // Same hands, same categories: the comparison is between equals.
    for (ours, theirs) in ours.iter().zip(&theirs_set) {
        let category = evaluate(*ours).category() as usize;
        let theirs = format!("{:?}", theirs.rank().category());
        let expected = [
            "HighCard",
            "OnePair",
            "TwoPair",
            "ThreeOfAKind",
            "Straight",
            "Flush",
            "FullHouse",
            "FourOfAKind",
            "StraightFlush",
        ][category];
        assert_eq!(theirs, expected);
    }

    let mut group = c.benchmark_group("seven_card_hands");
    group.throughput(Throughput::Elements(HANDS as u64));
    group.bench_function("dozor_evaluate_card_set", |b| {
        b.iter(|| ours.iter().map(|h| evaluate(black_box(*h))).max())
    });
    group.bench_function("rs_poker_hand_rank", |b| {
        b.iter(|| theirs_set.iter().map(|h| black_box(h).rank()).max())
    });
    group.bench_function("rs_poker_card_slice_rank", |b| {
        b.iter(|| {
            theirs_cards
                .iter()
                .map(|h| black_box(h.as_slice()).rank())
                .max()
        })
    });
    group.finish();
}

criterion_group!(benches, evaluators);
criterion_main!(benches);
