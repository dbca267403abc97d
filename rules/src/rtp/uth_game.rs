//! Ultimate Texas Hold'em Ante + Blind + Play under the player's best strategy, exactly: every
//! deal of the player's two cards, the flop, the turn and river, and the dealer's two cards
//! (1 326 × 19 600 × 1 081 × 990 = 27 813 810 024 000 deals).
//!
//! Backward induction. On the river the player bets 1× or folds, whichever returns more over the
//! dealer's 990 possible hands; on the flop 2× or checks (then the river's best, over the 1 081
//! turn-and-river pairs); before the flop one of the plan's multiples or checks (then the flop's
//! best, over the 19 600 flops). For one board the dealer's and the player's hands are both two
//! of the 47 cards left, so one sort of those 1 081 hands by strength tells every player hand at
//! once how many dealer hands it beats, ties and loses to (less those sharing one of its cards).
//! Flops that differ only by a renaming of suits have the same values up to that renaming, so
//! 1 755 flops are worked out and mapped onto all 22 100. Integer sums throughout: the result is
//! an exact fraction and does not depend on the number of threads.

use std::collections::BTreeMap;

use crate::cards::{Card, CardSet};
use crate::hand_rank::{evaluate, Category, HandRank};
use crate::plan::table_games::UltimateTexasHoldemPlan;
use crate::ratio::{gcd, Ratio};

const CARDS: usize = 52;
const PAIRS: usize = CARDS * (CARDS - 1) / 2;
/// Cards left after a five-card board, and two-card hands of them.
const REST: usize = CARDS - 5;
const REST_PAIRS: usize = REST * (REST - 1) / 2;
/// Dealer hands left once the player's two cards are out too: C(45, 2).
const DEALER_HANDS: i64 = 990;
/// Turn-and-river pairs after a flop and the player's cards: C(47, 2).
const TURN_RIVERS: i64 = 1081;
/// Flops after the player's two cards: C(50, 3).
const FLOPS: i64 = 19_600;

/// The exact outcome of the base game (Ante, Blind, Play; Trips is priced on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UthBaseGame {
    /// Number of deals, each counted once.
    pub deals: u128,
    /// The Ante in the units below (the common denominator of the Blind table).
    pub ante_units: i128,
    /// Σ of the player's result (Ante + Blind + Play) over every deal, in units.
    pub player_result: i128,
    /// Σ of the squared result over every deal, in units².
    pub result_squares: i128,
    /// Σ of the cubed result over every deal, in units³.
    pub result_cubes: i128,
    /// Σ of the Play bet over every deal, in Antes.
    pub play_antes: u128,
    /// Starting hands (of 1 326) raised before the flop.
    pub preflop_raises: u32,
}

impl UthBaseGame {
    /// The house edge per Ante: the player's average loss divided by the Ante.
    pub fn house_edge(&self) -> Ratio {
        Ratio::reduced(
            self.player_result.unsigned_abs(),
            self.deals * self.ante_units.unsigned_abs(),
        )
    }

    /// The player's average loss per unit wagered (Ante + Blind + Play), the "element of risk".
    pub fn element_of_risk(&self) -> Ratio {
        let wagered_antes = 2 * self.deals + self.play_antes;
        Ratio::reduced(
            self.player_result.unsigned_abs(),
            wagered_antes * self.ante_units.unsigned_abs(),
        )
    }

    /// Returned ÷ wagered over Ante + Blind + Play: what an RTP report compares against.
    pub fn rtp(&self) -> Ratio {
        let wagered = (2 * self.deals + self.play_antes) * self.ante_units.unsigned_abs();
        let lost = self.player_result.unsigned_abs();
        if self.player_result <= 0 {
            Ratio::reduced(wagered.saturating_sub(lost), wagered)
        } else {
            Ratio::reduced(wagered + lost, wagered)
        }
    }

    /// Average Play bet, in Antes.
    pub fn average_play(&self) -> f64 {
        self.play_antes as f64 / self.deals as f64
    }

    /// Standard deviation of one hand's result, in Antes (statistics only).
    pub fn standard_deviation(&self) -> f64 {
        let n = self.deals as f64;
        let u = self.ante_units as f64;
        let mean = self.player_result as f64 / n / u;
        let square = self.result_squares as f64 / n / (u * u);
        (square - mean * mean).max(0.0).sqrt()
    }

    /// Third central moment of one hand's result, in Antes cubed (statistics only):
    /// E[X³] − 3μ·E[X²] + 2μ³.
    pub fn third_moment(&self) -> f64 {
        let n = self.deals as f64;
        let u = self.ante_units as f64;
        let mean = self.player_result as f64 / n / u;
        let square = self.result_squares as f64 / n / (u * u);
        let cube = self.result_cubes as f64 / n / (u * u * u);
        cube - 3.0 * mean * square + 2.0 * mean.powi(3)
    }
}

/// The Blind's win per hand category in units (0 = push), and the unit.
struct BlindTable {
    units_per_ante: i64,
    win: [i64; 10],
}

impl BlindTable {
    fn new(plan: &UltimateTexasHoldemPlan) -> BlindTable {
        let t = &plan.blind;
        let odds = [
            t.royal_flush,
            t.straight_flush,
            t.quads,
            t.full_house,
            t.flush,
            t.straight,
        ];
        let unit = odds.iter().fold(1u128, |l, o| {
            let den = u128::from(o.den.max(1));
            l / gcd(l, den) * den
        });
        let unit = i64::try_from(unit).unwrap_or(i64::MAX);
        let pay = |o: crate::plan::odds::Odds| i64::from(o.num) * (unit / i64::from(o.den.max(1)));
        let mut win = [0i64; 10];
        win[Category::Straight as usize] = pay(t.straight);
        win[Category::Flush as usize] = pay(t.flush);
        win[Category::FullHouse as usize] = pay(t.full_house);
        win[Category::Quads as usize] = pay(t.quads);
        win[Category::StraightFlush as usize] = pay(t.straight_flush);
        win[9] = pay(t.royal_flush);
        if let Some(trips) = t.trips {
            win[Category::Trips as usize] = pay(trips);
        }
        BlindTable {
            units_per_ante: unit,
            win,
        }
    }

    fn win_for(&self, value: u32) -> i64 {
        let hand = HandRank::from_value(value);
        if hand.is_royal_flush() {
            self.win[9]
        } else {
            self.win[hand.category() as usize]
        }
    }
}

/// Sums for one player hand over the deals that follow a decision point. Ante + Blind is the
/// "base" of a deal's result, Play per Ante bet is "play"; any Play multiple m then gives
/// Σ(base + m·play), Σ(base + m·play)² and Σ(base + m·play)³ from these.
#[derive(Debug, Clone, Copy, Default)]
struct Sums<T = i64> {
    base: T,
    play: T,
    base_sq: T,
    base_play: T,
    play_sq: T,
    base_cu: T,
    base_sq_play: T,
    base_play_sq: T,
    play_cu: T,
    /// The best continuation (check now, decide later): result, squares, cubes, Play bet in
    /// Antes.
    best: T,
    best_sq: T,
    best_cu: T,
    best_play: T,
}

impl Sums {
    /// Σ result, Σ result² and Σ result³ when the player raises m times the Ante.
    fn raise(&self, m: i64) -> (i64, i64, i64) {
        (
            self.base + m * self.play,
            self.base_sq + 2 * m * self.base_play + m * m * self.play_sq,
            self.base_cu
                + 3 * m * self.base_sq_play
                + 3 * m * m * self.base_play_sq
                + m * m * m * self.play_cu,
        )
    }
}

/// The same sums across flops: wide, they add up over 19 600 flops.
type WideSums = Sums<i128>;

impl<T: Copy + std::ops::AddAssign> Sums<T> {
    /// Adds each of `other`'s sums to this one's, widened.
    #[inline]
    fn add<U: Copy + Into<T>>(&mut self, other: &Sums<U>) {
        self.base += other.base.into();
        self.play += other.play.into();
        self.base_sq += other.base_sq.into();
        self.base_play += other.base_play.into();
        self.play_sq += other.play_sq.into();
        self.base_cu += other.base_cu.into();
        self.base_sq_play += other.base_sq_play.into();
        self.base_play_sq += other.base_play_sq.into();
        self.play_cu += other.play_cu.into();
        self.best += other.best.into();
        self.best_sq += other.best_sq.into();
        self.best_cu += other.best_cu.into();
        self.best_play += other.best_play.into();
    }
}

/// Card tables shared by every worker.
struct Tables {
    bit: [u64; CARDS],
    pair_index: Vec<[u16; CARDS]>,
    /// For each of the 24 suit renamings, where each two-card hand goes.
    pair_renamed: Vec<Vec<u16>>,
    local_pairs: Vec<(u8, u8)>,
}

fn suit_renamings() -> Vec<[usize; 4]> {
    let mut all = Vec::with_capacity(24);
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    if (0..4).all(|s| p.contains(&s)) {
                        all.push(p);
                    }
                }
            }
        }
    }
    all
}

fn rename(card: usize, renaming: &[usize; 4]) -> usize {
    renaming[card / 13] * 13 + card % 13
}

impl Tables {
    fn new(renamings: &[[usize; 4]]) -> Tables {
        let mut bit = [0u64; CARDS];
        for (ordinal, card) in Card::deck().enumerate() {
            bit[ordinal] = card.bit();
        }
        let pairs: Vec<(usize, usize)> = (0..CARDS)
            .flat_map(|b| (0..b).map(move |a| (a, b)))
            .collect();
        let mut pair_index = vec![[0u16; CARDS]; CARDS];
        for (index, &(a, b)) in pairs.iter().enumerate() {
            pair_index[a][b] = index as u16;
            pair_index[b][a] = index as u16;
        }
        let pair_renamed = renamings
            .iter()
            .map(|r| {
                pairs
                    .iter()
                    .map(|&(a, b)| pair_index[rename(a, r)][rename(b, r)])
                    .collect()
            })
            .collect();
        let mut local_pairs = Vec::with_capacity(REST_PAIRS);
        for i in 0..REST as u8 {
            for j in i + 1..REST as u8 {
                local_pairs.push((i, j));
            }
        }
        Tables {
            bit,
            pair_index,
            pair_renamed,
            local_pairs,
        }
    }
}

/// A flop worked out, and the renamings that carry it onto each flop of its class.
struct FlopClass {
    cards: [usize; 3],
    /// For each flop of the class, the renaming that maps that flop onto `cards`.
    members: Vec<usize>,
}

fn flop_classes(renamings: &[[usize; 4]]) -> Vec<FlopClass> {
    let mut classes: BTreeMap<u64, FlopClass> = BTreeMap::new();
    for a in 0..CARDS {
        for b in a + 1..CARDS {
            for c in b + 1..CARDS {
                let (renaming, mask) = renamings
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let mask = [a, b, c]
                            .iter()
                            .fold(0u64, |m, &card| m | 1 << rename(card, r));
                        (i, mask)
                    })
                    .min_by_key(|&(_, mask)| mask)
                    .unwrap_or((0, 0));
                classes
                    .entry(mask)
                    .or_insert_with(|| {
                        let mut cards = [0usize; 3];
                        let mut m = mask;
                        for slot in &mut cards {
                            *slot = m.trailing_zeros() as usize;
                            m &= m - 1;
                        }
                        FlopClass {
                            cards,
                            members: Vec::new(),
                        }
                    })
                    .members
                    .push(renaming);
            }
        }
    }
    classes.into_values().collect()
}

/// Per board: for each of the 1 081 two-card hands of the 47 cards left, how many dealer hands
/// (not sharing a card with it) it beats and ties, and how many of those do not qualify.
struct BoardScratch {
    keys: Vec<u64>,
    value: Vec<u32>,
    below: Vec<i64>,
    equal: Vec<i64>,
}

impl BoardScratch {
    fn new() -> BoardScratch {
        BoardScratch {
            keys: vec![0; REST_PAIRS],
            value: vec![0; REST_PAIRS],
            below: vec![0; REST_PAIRS],
            equal: vec![0; REST_PAIRS],
        }
    }
}

/// A pair or better: the dealer qualifies.
fn qualifies(value: u32) -> bool {
    HandRank::from_value(value).category() >= Category::Pair
}

/// Dealer hands that do not qualify (high card) on a board: all of them, and those holding
/// each card left.
struct HighCards {
    total: i64,
    with: [i64; REST],
}

/// Every two-card hand of the cards left, valued on `board` and keyed by strength.
#[inline]
fn rank_hands(
    t: &Tables,
    s: &mut BoardScratch,
    board: u64,
    rest: &[usize; REST],
    high_cards: &mut HighCards,
) {
    for (k, &(i, j)) in t.local_pairs.iter().enumerate() {
        let cards = board | t.bit[rest[usize::from(i)]] | t.bit[rest[usize::from(j)]];
        let value = evaluate(CardSet(cards)).value();
        s.value[k] = value;
        s.keys[k] = u64::from(value) << 11 | k as u64;
        if !qualifies(value) {
            high_cards.total += 1;
            high_cards.with[usize::from(i)] += 1;
            high_cards.with[usize::from(j)] += 1;
        }
    }
}

/// For each hand, how many dealer hands not sharing a card with it it beats and ties.
#[inline]
fn count_beaten_and_tied(t: &Tables, s: &mut BoardScratch) {
    s.keys.sort_unstable();
    // Sweep groups of equal strength, weakest first.
    let mut below_total = 0i64;
    let mut below_with = [0i64; REST];
    let mut in_group = [0i64; REST];
    let mut start = 0;
    while start < REST_PAIRS {
        let value = (s.keys[start] >> 11) as u32;
        let mut end = start;
        while end < REST_PAIRS && (s.keys[end] >> 11) as u32 == value {
            let (i, j) = t.local_pairs[(s.keys[end] & 0x7ff) as usize];
            in_group[usize::from(i)] += 1;
            in_group[usize::from(j)] += 1;
            end += 1;
        }
        let size = (end - start) as i64;
        for &key in &s.keys[start..end] {
            let k = (key & 0x7ff) as usize;
            let (i, j) = t.local_pairs[k];
            let (i, j) = (usize::from(i), usize::from(j));
            s.below[k] = below_total - below_with[i] - below_with[j];
            // Hands of the group sharing neither card (the hand itself was taken off twice).
            s.equal[k] = size - in_group[i] - in_group[j] + 1;
        }
        for &key in &s.keys[start..end] {
            let (i, j) = t.local_pairs[(key & 0x7ff) as usize];
            let (i, j) = (usize::from(i), usize::from(j));
            in_group[i] = 0;
            in_group[j] = 0;
            below_with[i] += 1;
            below_with[j] += 1;
        }
        below_total += size;
        start = end;
    }
}

struct Worker<'a> {
    tables: &'a Tables,
    blind: &'a BlindTable,
    river_play: i64,
    flop_play: i64,
    scratch: BoardScratch,
    flop: Vec<Sums>,
}

impl Worker<'_> {
    /// Adds the river decision of every player hand on `board` to the flop sums.
    fn board(&mut self, board: u64) {
        let t = self.tables;
        let mut rest = [0usize; REST];
        let mut n = 0;
        for (card, &b) in t.bit.iter().enumerate() {
            if board & b == 0 && n < REST {
                rest[n] = card;
                n += 1;
            }
        }
        let mut high_cards = HighCards {
            total: 0,
            with: [0i64; REST],
        };
        rank_hands(t, &mut self.scratch, board, &rest, &mut high_cards);
        count_beaten_and_tied(t, &mut self.scratch);
        self.add_river_decisions(&rest, &high_cards);
    }

    /// Each player hand's river decision (bet 1× or fold) and its sums, added to its flop
    /// entry.
    #[inline]
    fn add_river_decisions(&mut self, rest: &[usize; REST], high_cards: &HighCards) {
        let t = self.tables;
        let s = &self.scratch;
        let (high_card_total, high_card_with) = (high_cards.total, &high_cards.with);
        let u = self.blind.units_per_ante;
        for (k, &(i, j)) in t.local_pairs.iter().enumerate() {
            let (i, j) = (usize::from(i), usize::from(j));
            let value = s.value[k];
            let wins = s.below[k];
            let ties = s.equal[k];
            let losses = DEALER_HANDS - wins - ties;
            let player_qualifies = qualifies(value);
            let high_cards = high_card_total - high_card_with[i] - high_card_with[j]
                + i64::from(!player_qualifies);
            // Wins against a qualifying dealer: none with high card (all beaten hands are
            // high cards too); losses to one: all of them from a pair up.
            let (wins_q, losses_q) = if player_qualifies {
                (wins - high_cards, losses)
            } else {
                (0, DEALER_HANDS - high_cards)
            };
            let (wins_nq, losses_nq) = (wins - wins_q, losses - losses_q);
            let blind = self.blind.win_for(value);
            // Per dealer hand: base = Ante + Blind, play = Play per Ante bet.
            let base = wins_q * (u + blind) + wins_nq * blind - losses_q * 2 * u - losses_nq * u;
            let play = (wins - losses) * u;
            let base_sq = wins_q * (u + blind) * (u + blind)
                + wins_nq * blind * blind
                + losses_q * 4 * u * u
                + losses_nq * u * u;
            let base_play = wins_q * (u + blind) * u
                + wins_nq * blind * u
                + losses_q * 2 * u * u
                + losses_nq * u * u;
            let play_sq = (wins + losses) * u * u;
            // Cubes: a win is +u on Play, a loss −u, so play² is u² either way and play³ ±u³.
            let won = u + blind;
            let base_cu = wins_q * won * won * won + wins_nq * blind * blind * blind
                - losses_q * 8 * u * u * u
                - losses_nq * u * u * u;
            let base_sq_play = wins_q * won * won * u + wins_nq * blind * blind * u
                - losses_q * 4 * u * u * u
                - losses_nq * u * u * u;
            let base_play_sq = wins_q * won * u * u + wins_nq * blind * u * u
                - losses_q * 2 * u * u * u
                - losses_nq * u * u * u;
            let play_cu = (wins - losses) * u * u * u;
            let m = self.river_play;
            let bet = base + m * play;
            let fold = -2 * u * DEALER_HANDS;
            let entry = &mut self.flop[usize::from(t.pair_index[rest[i]][rest[j]])];
            entry.base += base;
            entry.play += play;
            entry.base_sq += base_sq;
            entry.base_play += base_play;
            entry.play_sq += play_sq;
            entry.base_cu += base_cu;
            entry.base_sq_play += base_sq_play;
            entry.base_play_sq += base_play_sq;
            entry.play_cu += play_cu;
            // On equal value the player bets (it changes the variance, not the return).
            if bet >= fold {
                entry.best += bet;
                entry.best_sq += base_sq + 2 * m * base_play + m * m * play_sq;
                entry.best_cu +=
                    base_cu + 3 * m * base_sq_play + 3 * m * m * base_play_sq + m * m * m * play_cu;
                entry.best_play += m * DEALER_HANDS;
            } else {
                entry.best += fold;
                entry.best_sq += 4 * u * u * DEALER_HANDS;
                entry.best_cu -= 8 * u * u * u * DEALER_HANDS;
            }
        }
    }

    /// Every turn and river after `flop`; then each player hand's flop decision.
    fn flop(&mut self, flop: [usize; 3]) -> Vec<Sums> {
        let t = self.tables;
        self.flop.iter_mut().for_each(|s| *s = Sums::default());
        let flop_bits = flop.iter().fold(0u64, |m, &c| m | t.bit[c]);
        for turn in 0..CARDS {
            if flop_bits & t.bit[turn] != 0 {
                continue;
            }
            for river in turn + 1..CARDS {
                if flop_bits & t.bit[river] != 0 {
                    continue;
                }
                self.board(flop_bits | t.bit[turn] | t.bit[river]);
            }
        }
        let m = self.flop_play;
        self.flop
            .iter()
            .map(|s| {
                let (bet, bet_sq, bet_cu) = s.raise(m);
                if bet >= s.best {
                    Sums {
                        best: bet,
                        best_sq: bet_sq,
                        best_cu: bet_cu,
                        best_play: m * DEALER_HANDS * TURN_RIVERS,
                        ..*s
                    }
                } else {
                    *s
                }
            })
            .collect()
    }
}

/// The exact base-game outcome under the plan's Blind table and Play multiples, on `threads`
/// threads (about a minute of work on one core).
pub fn analyse(plan: &UltimateTexasHoldemPlan, threads: usize) -> UthBaseGame {
    let renamings = suit_renamings();
    let tables = Tables::new(&renamings);
    let blind = BlindTable::new(plan);
    let classes = flop_classes(&renamings);
    let threads = threads.max(1);
    let partials: Vec<Vec<WideSums>> = super::threads::on_threads(threads, |first| {
        let (tables, blind, classes) = (&tables, &blind, &classes);
        let mut worker = Worker {
            tables,
            blind,
            river_play: i64::from(plan.play_river),
            flop_play: i64::from(plan.play_flop),
            scratch: BoardScratch::new(),
            flop: vec![Sums::default(); PAIRS],
        };
        let mut total = vec![WideSums::default(); PAIRS];
        for class in classes.iter().skip(first).step_by(threads) {
            let values = worker.flop(class.cards);
            for &renaming in &class.members {
                let renamed = &tables.pair_renamed[renaming];
                for (hand, sum) in total.iter_mut().enumerate() {
                    let v = &values[usize::from(renamed[hand])];
                    sum.add(v);
                }
            }
        }
        total
    });
    let mut result = UthBaseGame {
        deals: (PAIRS as u128) * (FLOPS * TURN_RIVERS * DEALER_HANDS) as u128,
        ante_units: i128::from(blind.units_per_ante),
        player_result: 0,
        result_squares: 0,
        result_cubes: 0,
        play_antes: 0,
        preflop_raises: 0,
    };
    for hand in 0..PAIRS {
        let mut s = WideSums::default();
        for partial in &partials {
            let p = partial.get(hand).copied().unwrap_or_default();
            s.add(&p);
        }
        let mut choice = (s.best, s.best_sq, s.best_cu, s.best_play, false);
        for &m in &plan.play_preflop {
            let m = i128::from(m);
            let bet = s.base + m * s.play;
            if bet > choice.0 {
                let per_hand = i128::from(FLOPS * TURN_RIVERS * DEALER_HANDS);
                choice = (
                    bet,
                    s.base_sq + 2 * m * s.base_play + m * m * s.play_sq,
                    s.base_cu
                        + 3 * m * s.base_sq_play
                        + 3 * m * m * s.base_play_sq
                        + m * m * m * s.play_cu,
                    m * per_hand,
                    true,
                );
            }
        }
        result.player_result += choice.0;
        result.result_squares += choice.1;
        result.result_cubes += choice.2;
        result.play_antes += choice.3.unsigned_abs();
        result.preflop_raises += u32::from(choice.4);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::book::PlanBook;

    /// Every player hand on `board`, against every dealer hand, settled one by one.
    fn brute_force(up: &UltimateTexasHoldemPlan, blind: &BlindTable, board: &[&str]) -> Vec<Sums> {
        let u = blind.units_per_ante;
        let cards: Vec<Card> = board.iter().map(|c| Card::parse(c).unwrap()).collect();
        let board_set = cards.iter().fold(0u64, |m, c| m | c.bit());
        let rest: Vec<Card> = Card::deck().filter(|c| board_set & c.bit() == 0).collect();
        let mut sums = vec![Sums::default(); PAIRS];
        let index = |a: Card, b: Card| {
            let (x, y) = (a.ordinal().min(b.ordinal()), a.ordinal().max(b.ordinal()));
            y * (y - 1) / 2 + x
        };
        for (i, &p1) in rest.iter().enumerate() {
            for &p2 in &rest[i + 1..] {
                let player = evaluate(CardSet(board_set | p1.bit() | p2.bit()));
                let mut s = Sums::<i64>::default();
                let dealers: Vec<Card> = rest
                    .iter()
                    .copied()
                    .filter(|&c| c != p1 && c != p2)
                    .collect();
                for (j, &d1) in dealers.iter().enumerate() {
                    for &d2 in &dealers[j + 1..] {
                        let dealer = evaluate(CardSet(board_set | d1.bit() | d2.bit()));
                        let qualifies = dealer.category() >= Category::Pair;
                        let (ante, blind_result, play) = match player.cmp(&dealer) {
                            std::cmp::Ordering::Greater => (
                                if qualifies { u } else { 0 },
                                up.blind
                                    .odds_for(player)
                                    .map_or(0, |o| i64::from(o.num) * u / i64::from(o.den)),
                                u,
                            ),
                            std::cmp::Ordering::Equal => (0, 0, 0),
                            std::cmp::Ordering::Less => (if qualifies { -u } else { 0 }, -u, -u),
                        };
                        let base = ante + blind_result;
                        s.base += base;
                        s.play += play;
                        s.base_sq += base * base;
                        s.base_play += base * play;
                        s.play_sq += play * play;
                    }
                }
                let bet = s.base + s.play;
                let fold = -2 * u * DEALER_HANDS;
                s.best = bet.max(fold);
                sums[index(p1, p2)] = s;
            }
        }
        sums
    }

    #[test]
    fn one_board_by_the_sweep_equals_every_dealer_hand_settled_one_by_one() {
        let book = PlanBook::builtin().unwrap();
        let up = book
            .get("69games-ziva-hra")
            .unwrap()
            .ultimate_texas_holdem
            .as_ref()
            .unwrap();
        let renamings = suit_renamings();
        let tables = Tables::new(&renamings);
        let blind = BlindTable::new(up);
        // A paired board with three hearts (flushes, full houses, quads, high cards all occur)
        // and a straight-rich unpaired one.
        for board in [
            ["Kh", "Kd", "7h", "4s", "2h"],
            ["9c", "Td", "Jh", "3s", "5c"],
        ] {
            let mut worker = Worker {
                tables: &tables,
                blind: &blind,
                river_play: 1,
                flop_play: 2,
                scratch: BoardScratch::new(),
                flop: vec![Sums::default(); PAIRS],
            };
            let mask = board
                .iter()
                .fold(0u64, |m, c| m | Card::parse(c).unwrap().bit());
            worker.board(mask);
            let expected = brute_force(up, &blind, &board);
            for (hand, (got, want)) in worker.flop.iter().zip(&expected).enumerate() {
                assert_eq!(
                    (
                        got.base,
                        got.play,
                        got.base_sq,
                        got.base_play,
                        got.play_sq,
                        got.best
                    ),
                    (
                        want.base,
                        want.play,
                        want.base_sq,
                        want.base_play,
                        want.play_sq,
                        want.best
                    ),
                    "board {board:?}, hand {hand}"
                );
            }
        }
    }
}
