//! Black Jack main bet under basic strategy.
//!
//! The strategy is computed, not typed in: for an infinite shoe every card value has a fixed
//! probability, so each decision's expected value follows exactly from the dealer's final-total
//! distribution (no hole card: the dealer's blackjack is only known after the player acts, and
//! it takes what the plan says). That gives the optimal total-dependent strategy and an exact
//! infinite-shoe figure. The plan's shoe (six decks) is then dealt off the top, round after
//! round from a full shoe, with that strategy: a seeded simulation whose size and 95 %
//! confidence interval are reported with its figure.

use serde::{Deserialize, Serialize};
use smallvec::{smallvec, SmallVec};

use crate::plan::odds::Odds;
use crate::plan::table_games::{BlackjackPlan, DealerBlackjackTakes};

/// The rules that decide the main bet's return (the plan's other numbers are limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlackjackRules {
    pub decks: u8,
    pub blackjack_odds: Odds,
    pub dealer_stands_soft_17: bool,
    pub max_splits: u8,
    pub double_after_split: bool,
    pub dealer_blackjack_takes: DealerBlackjackTakes,
}

impl BlackjackRules {
    pub fn of(plan: &BlackjackPlan) -> BlackjackRules {
        BlackjackRules {
            decks: plan.decks,
            blackjack_odds: plan.blackjack_odds,
            dealer_stands_soft_17: plan.dealer_stands_soft_17,
            max_splits: plan.max_splits,
            double_after_split: plan.double_after_split,
            dealer_blackjack_takes: plan.dealer_blackjack_takes,
        }
    }

    /// Hands a box may end with after splitting a pair of `value` (aces are split once).
    fn most_hands(&self, value: usize) -> u8 {
        if value == ACE {
            2
        } else {
            self.max_splits.saturating_add(1)
        }
    }

    fn blackjack_pays(&self) -> f64 {
        f64::from(self.blackjack_odds.num) / f64::from(self.blackjack_odds.den.max(1))
    }
}

/// Card values: 1 is the ace, 10 every ten-valued card.
const ACE: usize = 1;
const TEN: usize = 10;
/// Index 0 … 31 for a hard sum; sums above 21 are busts.
const SUMS: usize = 32;

/// A decision on a hand's first two cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Stand,
    Hit,
    Double,
}

/// The optimal total-dependent strategy, by the dealer's up card (index = value 1 … 10).
#[derive(Debug, Clone)]
pub struct BasicStrategy {
    /// First two cards (not a pair being split): `[after_split][soft][total][up]`.
    first_two: Box<[[[[Action; 11]; 22]; 2]; 2]>,
    /// Three or more cards: hit? `[soft][total][up]`.
    hit_more: Box<[[[bool; 11]; 22]; 2]>,
    /// Split a pair of `[value][up]`?
    split: [[bool; 11]; 11],
}

impl BasicStrategy {
    pub fn first_two(&self, after_split: bool, soft: bool, total: u32, up: usize) -> Action {
        self.first_two[usize::from(after_split)][usize::from(soft)][(total as usize).min(21)]
            [up.min(TEN)]
    }

    pub fn hits(&self, soft: bool, total: u32, up: usize) -> bool {
        self.hit_more[usize::from(soft)][(total as usize).min(21)][up.min(TEN)]
    }

    pub fn splits(&self, value: usize, up: usize) -> bool {
        self.split[value.min(TEN)][up.min(TEN)]
    }
}

/// A hand's best total (an ace counts 11 when that does not bust) and whether it is soft.
fn total(hard: u32, ace: bool) -> (u32, bool) {
    if ace && hard + 10 <= 21 {
        (hard + 10, true)
    } else {
        (hard, false)
    }
}

fn infinite_probability(value: usize) -> f64 {
    if value == TEN {
        4.0 / 13.0
    } else {
        1.0 / 13.0
    }
}

/// The dealer's outcome for an up card: the chance of a blackjack and, without one, of ending
/// on 17 … 21 or busting (index 5).
struct DealerOutcome {
    blackjack: f64,
    ends: [f64; 6],
}

fn dealer_from(hard: u32, ace: bool, stands_soft_17: bool) -> [f64; 6] {
    let (t, soft) = total(hard, ace);
    let mut ends = [0.0; 6];
    if t > 21 {
        ends[5] = 1.0;
    } else if t >= 18 || (t == 17 && (!soft || stands_soft_17)) {
        ends[(t - 17) as usize] = 1.0;
    } else {
        for v in 1..=TEN {
            let next = dealer_from(hard + v as u32, ace || v == ACE, stands_soft_17);
            for (e, n) in ends.iter_mut().zip(next) {
                *e += infinite_probability(v) * n;
            }
        }
    }
    ends
}

fn dealer_outcome(up: usize, stands_soft_17: bool) -> DealerOutcome {
    let blackjack_card = match up {
        ACE => Some(TEN),
        TEN => Some(ACE),
        _ => None,
    };
    let blackjack = blackjack_card.map_or(0.0, infinite_probability);
    let mut ends = [0.0; 6];
    for v in 1..=TEN {
        if Some(v) == blackjack_card {
            continue;
        }
        let weight = infinite_probability(v) / (1.0 - blackjack);
        let next = dealer_from((up + v) as u32, up == ACE || v == ACE, stands_soft_17);
        for (e, n) in ends.iter_mut().zip(next) {
            *e += weight * n;
        }
    }
    DealerOutcome { blackjack, ends }
}

/// Expected values of the player's choices against one up card, infinite shoe.
struct Against<'a> {
    rules: &'a BlackjackRules,
    dealer: DealerOutcome,
    /// Best of stand / hit from a hard sum and ace flag: `[after_split][ace][hard]`.
    play_on: [[[f64; SUMS]; 2]; 2],
}

impl<'a> Against<'a> {
    fn new(rules: &'a BlackjackRules, up: usize) -> Against<'a> {
        let mut a = Against {
            rules,
            dealer: dealer_outcome(up, rules.dealer_stands_soft_17),
            play_on: [[[0.0; SUMS]; 2]; 2],
        };
        for after_split in [false, true] {
            // Soft sums first: drawing an ace moves a hard sum to a soft one, never back.
            for ace in [true, false] {
                for hard in (2..SUMS).rev() {
                    a.play_on[usize::from(after_split)][usize::from(ace)][hard] =
                        a.best_of_stand_hit(hard as u32, ace, after_split).0;
                }
            }
        }
        a
    }

    /// A standing total against the dealer, who has no blackjack.
    fn stand_without_blackjack(&self, t: u32) -> f64 {
        let ends = &self.dealer.ends;
        let mut e = ends[5];
        for (i, &p) in ends[..5].iter().enumerate() {
            let dealer = 17 + i as u32;
            if dealer < t {
                e += p;
            } else if dealer > t {
                e -= p;
            }
        }
        e
    }

    /// A finished hand of `bet` units. A bust loses at once; otherwise a dealer blackjack takes
    /// the bet (all of it, or only the box's original unit, counted once per box).
    fn settle(&self, t: u32, bet: f64, after_split: bool) -> f64 {
        if t > 21 {
            return -bet;
        }
        let lost_to_blackjack = match (self.rules.dealer_blackjack_takes, after_split) {
            (DealerBlackjackTakes::All, _) => bet,
            (DealerBlackjackTakes::OriginalBetOnly, false) => 1.0,
            (DealerBlackjackTakes::OriginalBetOnly, true) => 0.0,
        };
        let b = self.dealer.blackjack;
        (1.0 - b) * bet * self.stand_without_blackjack(t) - b * lost_to_blackjack
    }

    fn after_card(&self, hard: u32, ace: bool, after_split: bool) -> f64 {
        if hard as usize >= SUMS || total(hard, ace).0 > 21 {
            return -1.0;
        }
        self.play_on[usize::from(after_split)][usize::from(ace)][hard as usize]
    }

    /// (best value, hits?) — `play_on` must already hold every larger sum.
    fn best_of_stand_hit(&self, hard: u32, ace: bool, after_split: bool) -> (f64, bool) {
        let (t, _) = total(hard, ace);
        if t > 21 {
            return (-1.0, false);
        }
        let stand = self.settle(t, 1.0, after_split);
        let hit: f64 = (1..=TEN)
            .map(|v| {
                infinite_probability(v)
                    * self.after_card(hard + v as u32, ace || v == ACE, after_split)
            })
            .sum();
        if hit > stand {
            (hit, true)
        } else {
            (stand, false)
        }
    }

    fn double(&self, hard: u32, ace: bool, after_split: bool) -> f64 {
        (1..=TEN)
            .map(|v| {
                let (t, _) = total(hard + v as u32, ace || v == ACE);
                infinite_probability(v) * self.settle(t, 2.0, after_split)
            })
            .sum()
    }

    /// Best first-two-card play without splitting.
    fn first_two(&self, hard: u32, ace: bool, after_split: bool) -> (f64, Action) {
        let (stand_or_hit, hits) = self.best_of_stand_hit(hard, ace, after_split);
        let mut best = (stand_or_hit, if hits { Action::Hit } else { Action::Stand });
        if !after_split || self.rules.double_after_split {
            let double = self.double(hard, ace, after_split);
            if double > best.0 {
                best = (double, Action::Double);
            }
        }
        best
    }

    /// One split hand that started with `value` and drew `second`.
    fn split_hand(&self, value: usize, second: usize) -> f64 {
        let hard = (value + second) as u32;
        let ace = value == ACE || second == ACE;
        if value == ACE {
            // Split aces take one card each.
            self.settle(total(hard, ace).0, 1.0, true)
        } else {
            self.first_two(hard, ace, true).0
        }
    }

    /// Splitting a pair of `value`, re-splitting whenever another card of the value comes and
    /// the box may still split. `expected(h, n)`: the value of `n` one-card hands still to play
    /// when the box has `h` hands.
    fn split(&self, value: usize) -> f64 {
        let q = infinite_probability(value);
        let other: f64 = (1..=TEN)
            .filter(|&v| v != value)
            .map(|v| infinite_probability(v) * self.split_hand(value, v))
            .sum();
        let pair = self.split_hand(value, value);
        let most = self.rules.most_hands(value);
        fn expected(h: u8, n: u8, most: u8, q: f64, other: f64, pair: f64) -> f64 {
            if n == 0 {
                return 0.0;
            }
            let rest = expected(h, n - 1, most, q, other, pair);
            let same = if h < most {
                expected(h + 1, n + 1, most, q, other, pair)
            } else {
                pair + rest
            };
            other + (1.0 - q) * rest + q * same
        }
        let box_loss = match self.rules.dealer_blackjack_takes {
            DealerBlackjackTakes::All => 0.0,
            DealerBlackjackTakes::OriginalBetOnly => self.dealer.blackjack,
        };
        expected(2, 2, most, q, other, pair) - box_loss
    }
}

/// Basic strategy and the player's exact expected result per initial bet for an infinite shoe.
pub fn infinite_shoe(rules: &BlackjackRules) -> (BasicStrategy, f64) {
    let mut strategy = BasicStrategy {
        first_two: Box::new([[[[Action::Stand; 11]; 22]; 2]; 2]),
        hit_more: Box::new([[[false; 11]; 22]; 2]),
        split: [[false; 11]; 11],
    };
    let mut player = 0.0;
    for up in 1..=TEN {
        let against = Against::new(rules, up);
        for hard in 2..=21u32 {
            for ace in [false, true] {
                let (t, soft) = total(hard, ace);
                strategy.hit_more[usize::from(soft)][t as usize][up] =
                    against.best_of_stand_hit(hard, ace, false).1;
                for after_split in [false, true] {
                    strategy.first_two[usize::from(after_split)][usize::from(soft)][t as usize]
                        [up] = against.first_two(hard, ace, after_split).1;
                }
            }
        }
        let mut up_value = 0.0;
        for first in 1..=TEN {
            for second in 1..=TEN {
                let p = infinite_probability(first) * infinite_probability(second);
                let natural = (first == ACE && second == TEN) || (first == TEN && second == ACE);
                let value = if natural {
                    (1.0 - against.dealer.blackjack) * rules.blackjack_pays()
                } else {
                    let hard = (first + second) as u32;
                    let (play, _) = against.first_two(hard, first == ACE || second == ACE, false);
                    if first == second {
                        let split = against.split(first);
                        strategy.split[first][up] = split > play;
                        play.max(split)
                    } else {
                        play
                    }
                };
                up_value += p * value;
            }
        }
        player += infinite_probability(up) * up_value;
    }
    (strategy, player)
}

/// A simulated figure with its sampling error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulatedEdge {
    pub rounds: u64,
    pub seed: u64,
    /// The player's average result per initial bet (negative: the house wins).
    pub player_mean: f64,
    /// Standard deviation of one round's result, in initial bets.
    pub standard_deviation: f64,
    /// Third central moment of one round's result, in initial bets cubed.
    pub third_moment: f64,
    /// Half-width of the 95 % confidence interval of `player_mean`.
    pub ci95: f64,
}

impl SimulatedEdge {
    pub fn house_edge(&self) -> f64 {
        -self.player_mean
    }
}

/// xoshiro256++ seeded through splitmix64: reproducible, fast, good enough for dealing.
struct Rng([u64; 4]);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng([next(), next(), next(), next()])
    }

    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0 .. n` (multiply-shift; the bias is below 2⁻⁵⁰ for a shoe).
    fn below(&mut self, n: u32) -> u32 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u32
    }
}

/// A shoe's card values, drawn without replacement (or, to check the infinite-shoe analysis,
/// with replacement).
struct Shoe {
    counts: [u32; 11],
    left: u32,
    replace: bool,
}

impl Shoe {
    fn full(decks: u8, replace: bool) -> Shoe {
        let d = u32::from(decks.max(1));
        let mut counts = [4 * d; 11];
        counts[0] = 0;
        counts[TEN] = 16 * d;
        Shoe {
            counts,
            left: 52 * d,
            replace,
        }
    }

    fn draw(&mut self, rng: &mut Rng) -> usize {
        let mut r = rng.below(self.left);
        for v in 1..=TEN {
            if r < self.counts[v] {
                if !self.replace {
                    self.counts[v] -= 1;
                    self.left -= 1;
                }
                return v;
            }
            r -= self.counts[v];
        }
        TEN
    }
}

/// One hand of a box being played.
#[derive(Clone, Copy)]
struct Hand {
    hard: u32,
    ace: bool,
    cards: u8,
    bet: i64,
    first: usize,
}

impl Hand {
    fn total(&self) -> (u32, bool) {
        total(self.hard, self.ace)
    }

    fn add(&mut self, v: usize) {
        self.hard += v as u32;
        self.ace |= v == ACE;
        self.cards += 1;
    }
}

fn natural(a: usize, b: usize) -> bool {
    (a == ACE && b == TEN) || (a == TEN && b == ACE)
}

/// One round off the top of a full shoe, in units of 1/den of the initial bet.
fn play_round(
    rules: &BlackjackRules,
    strategy: &BasicStrategy,
    rng: &mut Rng,
    replace: bool,
) -> i64 {
    let unit = i64::from(rules.blackjack_odds.den.max(1));
    let mut shoe = Shoe::full(rules.decks, replace);
    let first = shoe.draw(rng);
    let up = shoe.draw(rng);
    let second = shoe.draw(rng);
    if natural(first, second) {
        let hole = shoe.draw(rng);
        return if natural(up, hole) {
            0
        } else {
            i64::from(rules.blackjack_odds.num)
        };
    }
    let mut pending: SmallVec<[Hand; 4]> = smallvec![Hand {
        hard: (first + second) as u32,
        ace: first == ACE || second == ACE,
        cards: 2,
        bet: unit,
        first,
    }];
    let mut hands = 1u8;
    let mut split_box = false;
    // A pair dealt to the box first.
    if first == second && strategy.splits(first, up) {
        pending = smallvec![
            Hand {
                hard: first as u32,
                ace: first == ACE,
                cards: 1,
                bet: unit,
                first,
            };
            2
        ];
        hands = 2;
        split_box = true;
    }
    let mut finished: SmallVec<[Hand; 4]> = SmallVec::new();
    while let Some(mut hand) = pending.pop() {
        if hand.cards == 1 {
            let v = shoe.draw(rng);
            if v == hand.first && hands < rules.most_hands(v) && strategy.splits(v, up) {
                hands += 1;
                let one = Hand { cards: 1, ..hand };
                pending.push(one);
                pending.push(one);
                continue;
            }
            hand.add(v);
            if hand.first == ACE {
                finished.push(hand);
                continue;
            }
        }
        play_hand(&mut hand, split_box, up, rules, strategy, &mut shoe, rng);
        finished.push(hand);
    }
    settle_round(&finished, split_box, up, unit, rules, &mut shoe, rng)
}

/// A hand of two cards (or a split hand with its second card) played by the strategy.
#[inline]
fn play_hand(
    hand: &mut Hand,
    split_box: bool,
    up: usize,
    rules: &BlackjackRules,
    strategy: &BasicStrategy,
    shoe: &mut Shoe,
    rng: &mut Rng,
) {
    let (t, soft) = hand.total();
    let double_allowed = !split_box || rules.double_after_split;
    match strategy.first_two(split_box, soft, t, up) {
        Action::Double if double_allowed => {
            hand.bet *= 2;
            hand.add(shoe.draw(rng));
        }
        Action::Stand => {}
        Action::Hit | Action::Double => {
            hand.add(shoe.draw(rng));
            loop {
                let (t, soft) = hand.total();
                if t >= 21 || !strategy.hits(soft, t, up) {
                    break;
                }
                hand.add(shoe.draw(rng));
            }
        }
    }
}

/// The dealer's hand drawn (when a hand still stands) and the box's result against it.
#[inline]
fn settle_round(
    finished: &[Hand],
    split_box: bool,
    up: usize,
    unit: i64,
    rules: &BlackjackRules,
    shoe: &mut Shoe,
    rng: &mut Rng,
) -> i64 {
    let hole = shoe.draw(rng);
    let busted: i64 = finished
        .iter()
        .filter(|h| h.total().0 > 21)
        .map(|h| h.bet)
        .sum();
    if natural(up, hole) {
        let standing: i64 = finished
            .iter()
            .filter(|h| h.total().0 <= 21)
            .map(|h| h.bet)
            .sum();
        return -busted
            - match rules.dealer_blackjack_takes {
                DealerBlackjackTakes::All => standing,
                DealerBlackjackTakes::OriginalBetOnly if split_box => unit,
                DealerBlackjackTakes::OriginalBetOnly => standing.min(unit),
            };
    }
    let mut dealer = Hand {
        hard: (up + hole) as u32,
        ace: up == ACE || hole == ACE,
        cards: 2,
        bet: 0,
        first: up,
    };
    if busted < finished.iter().map(|h| h.bet).sum::<i64>() {
        loop {
            let (t, soft) = dealer.total();
            if t >= 18 || (t == 17 && (!soft || rules.dealer_stands_soft_17)) {
                break;
            }
            dealer.add(shoe.draw(rng));
        }
    }
    let d = dealer.total().0;
    finished
        .iter()
        .map(|h| {
            let t = h.total().0;
            if t > 21 {
                -h.bet
            } else if d > 21 || t > d {
                h.bet
            } else if t < d {
                -h.bet
            } else {
                0
            }
        })
        .sum()
}

/// Rounds per independently seeded block: the figure is the same whatever the thread count.
const BLOCK: u64 = 1 << 20;

/// Deals `rounds` rounds off the top of the plan's shoe with `strategy`, on `threads` threads.
pub fn simulate(
    rules: &BlackjackRules,
    strategy: &BasicStrategy,
    rounds: u64,
    seed: u64,
    threads: usize,
) -> SimulatedEdge {
    simulate_shoe(rules, strategy, rounds, seed, threads, false)
}

fn simulate_shoe(
    rules: &BlackjackRules,
    strategy: &BasicStrategy,
    rounds: u64,
    seed: u64,
    threads: usize,
    replace: bool,
) -> SimulatedEdge {
    let blocks = rounds.div_ceil(BLOCK);
    let threads = threads.max(1) as u64;
    let sums: Vec<(i128, i128, i128)> = super::threads::on_threads(threads as usize, |first| {
        let first = first as u64;
        let (mut sum, mut squares, mut cubes) = (0i128, 0i128, 0i128);
        let mut block = first;
        while block < blocks {
            let mut rng = Rng::new(seed ^ block.wrapping_mul(0xa076_1d64_78bd_642f));
            let n = BLOCK.min(rounds - block * BLOCK);
            for _ in 0..n {
                let r = i128::from(play_round(rules, strategy, &mut rng, replace));
                sum += r;
                squares += r * r;
                cubes += r * r * r;
            }
            block += threads;
        }
        (sum, squares, cubes)
    });
    let (sum, squares, cubes) = sums
        .iter()
        .fold((0i128, 0i128, 0i128), |(s, q, c), (a, b, d)| {
            (s + a, q + b, c + d)
        });
    let unit = f64::from(rules.blackjack_odds.den.max(1));
    let n = rounds.max(1) as f64;
    let mean = sum as f64 / n / unit;
    let variance = (squares as f64 / n / (unit * unit) - mean * mean).max(0.0);
    let sd = variance.sqrt();
    // E[(X − μ)³] = E[X³] − 3μ·E[X²] + 2μ³.
    let cube = cubes as f64 / n / (unit * unit * unit);
    let square = squares as f64 / n / (unit * unit);
    let third_moment = cube - 3.0 * mean * square + 2.0 * mean.powi(3);
    SimulatedEdge {
        rounds,
        seed,
        player_mean: mean,
        standard_deviation: sd,
        third_moment,
        ci95: 1.96 * sd / n.sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulating_an_infinite_shoe_reproduces_the_exact_analysis() {
        let book = crate::plan::book::PlanBook::builtin().unwrap();
        let plan = book.get("69games-ziva-hra").unwrap();
        let rules = BlackjackRules::of(plan.blackjack.as_ref().unwrap());
        let (strategy, exact) = infinite_shoe(&rules);
        let sim = simulate_shoe(&rules, &strategy, 4_000_000, 7, 2, true);
        assert!(
            (sim.player_mean - exact).abs() < sim.ci95 * 1.5,
            "simulated {} ± {}, exact {exact}",
            sim.player_mean,
            sim.ci95
        );
    }
}
