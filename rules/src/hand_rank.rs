//! Poker hand strength of the best five of 5 to 7 cards, as one integer: a larger value is a
//! better hand, equal values tie (a total order).
//!
//! Bit tricks on the four 13-bit suit masks of a [`CardSet`] and two small tables built at
//! compile time (top five ranks and highest straight of every rank mask): no allocation, no
//! loop over cards. With at most seven cards a flush rules out quads and a full house (five of
//! the seven share a suit), so a flush is decided first.

use serde::{Deserialize, Serialize};

use crate::cards::{CardSet, Rank};

/// Hand categories, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    HighCard,
    Pair,
    TwoPair,
    Trips,
    Straight,
    Flush,
    FullHouse,
    Quads,
    StraightFlush,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::Pair,
        Category::TwoPair,
        Category::Trips,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::Quads,
        Category::StraightFlush,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::HighCard => "high_card",
            Category::Pair => "pair",
            Category::TwoPair => "two_pair",
            Category::Trips => "trips",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full_house",
            Category::Quads => "quads",
            Category::StraightFlush => "straight_flush",
        }
    }
}

/// Category in bits 20–23, then up to five deciding ranks, four bits each, most significant
/// first (e.g. a pair: its rank, then three kickers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandRank(u32);

impl HandRank {
    pub fn category(self) -> Category {
        Category::ALL[(self.0 >> 20) as usize]
    }

    /// A straight flush to the ace.
    pub fn is_royal_flush(self) -> bool {
        self.category() == Category::StraightFlush && self.top_rank() == Rank::ACE
    }

    /// The most significant deciding rank (the straight's top card, the pair's rank, …).
    pub fn top_rank(self) -> Rank {
        Rank::new(((self.0 >> 16) & 15) as u8).unwrap_or(Rank::TWO)
    }

    /// The raw value: comparable across hands of 5 to 7 cards.
    pub fn value(self) -> u32 {
        self.0
    }

    /// Back from [`HandRank::value`] (analyses keep plain values in sort keys).
    pub(crate) fn from_value(value: u32) -> HandRank {
        HandRank(value)
    }
}

/// The strength of the best five cards of `cards` (meaningful for 5 to 7 cards).
pub fn evaluate(cards: CardSet) -> HandRank {
    let m = cards.0;
    let suit = |s: u32| ((m >> (16 * s)) & 0x1fff) as u32;
    let (c, d, h, s) = (suit(0), suit(1), suit(2), suit(3));
    if let Some(flush) = flush_suit(m) {
        let ranks = suit(flush);
        let straight = STRAIGHT_TOP[ranks as usize];
        return HandRank(if straight != 0 {
            category(Category::StraightFlush) | u32::from(straight - 1) << 16
        } else {
            category(Category::Flush) | TOP_FIVE[ranks as usize]
        });
    }
    let all = c | d | h | s;
    let quads = c & d & h & s;
    if quads != 0 {
        let q = top_bit(quads);
        let kicker = (TOP_FIVE[(all & !(1 << q)) as usize] >> 4) & 0xf000;
        return HandRank(category(Category::Quads) | q << 16 | kicker);
    }
    // Ranks held at least twice / three times: two of one colour pair {c, d} or {h, s}, or one
    // of each; three = two of one pair and one of the other (four was handled above).
    let (cd, hs) = (c & d, h & s);
    let pairs = cd | hs | ((c | d) & (h | s));
    let trips = (cd & (h | s)) | (hs & (c | d));
    if trips != 0 {
        let t = top_bit(trips);
        let rest = pairs & !(1 << t);
        if rest != 0 {
            return HandRank(category(Category::FullHouse) | t << 16 | top_bit(rest) << 12);
        }
    }
    let straight = STRAIGHT_TOP[all as usize];
    if straight != 0 {
        return HandRank(category(Category::Straight) | u32::from(straight - 1) << 16);
    }
    if trips != 0 {
        let t = top_bit(trips);
        let kickers = (TOP_FIVE[(all & !(1 << t)) as usize] >> 4) & 0xff00;
        return HandRank(category(Category::Trips) | t << 16 | kickers);
    }
    if pairs != 0 {
        let high = top_bit(pairs);
        let lower = pairs & !(1 << high);
        if lower != 0 {
            let low = top_bit(lower);
            let kicker = (TOP_FIVE[(all & !(1 << high) & !(1 << low)) as usize] >> 8) & 0xf00;
            return HandRank(category(Category::TwoPair) | high << 16 | low << 12 | kicker);
        }
        let kickers = (TOP_FIVE[(all & !(1 << high)) as usize] >> 4) & 0xfff0;
        return HandRank(category(Category::Pair) | high << 16 | kickers);
    }
    HandRank(category(Category::HighCard) | TOP_FIVE[all as usize])
}

fn category(c: Category) -> u32 {
    (c as u32) << 20
}

fn top_bit(x: u32) -> u32 {
    31 - x.leading_zeros()
}

/// The suit holding five or more of the cards, if any: the four suit counts at once, one per
/// 16-bit lane (a flag set in lane s when count + 251 carries past the lane's low byte).
fn flush_suit(m: u64) -> Option<u32> {
    let x = m - ((m >> 1) & 0x5555_5555_5555_5555);
    let x = (x & 0x3333_3333_3333_3333) + ((x >> 2) & 0x3333_3333_3333_3333);
    let x = (x + (x >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    let counts = (x + (x >> 8)) & 0x00ff_00ff_00ff_00ff;
    let five_or_more = (counts + 0x00fb_00fb_00fb_00fb) & 0x0100_0100_0100_0100;
    (five_or_more != 0).then(|| five_or_more.trailing_zeros() / 16)
}

/// For every 13-bit rank mask: its five highest ranks, four bits each, highest in bits 16–19.
static TOP_FIVE: [u32; 8192] = top_five_table();

/// For every 13-bit rank mask: 1 + the top rank of its highest straight (the wheel A-2-3-4-5
/// counts, its top card the five), or 0 without a straight.
static STRAIGHT_TOP: [u8; 8192] = straight_table();

const fn top_five_table() -> [u32; 8192] {
    let mut table = [0u32; 8192];
    let mut mask = 0;
    while mask < 8192 {
        let (mut value, mut taken, mut rank) = (0u32, 0, 13);
        while rank > 0 && taken < 5 {
            rank -= 1;
            if mask & (1 << rank) != 0 {
                value |= (rank as u32) << (16 - 4 * taken);
                taken += 1;
            }
        }
        table[mask] = value;
        mask += 1;
    }
    table
}

const fn straight_table() -> [u8; 8192] {
    let mut table = [0u8; 8192];
    let mut mask: u32 = 0;
    while mask < 8192 {
        // Bit 0 is the ace played low, bit r + 1 is rank r.
        let x = (mask << 1) | ((mask >> 12) & 1);
        let runs = x & (x >> 1) & (x >> 2) & (x >> 3) & (x >> 4);
        if runs != 0 {
            // A run starting at bit j ends at bit j + 4, which is rank j + 3.
            table[mask as usize] = (31 - runs.leading_zeros()) as u8 + 3 + 1;
        }
        mask += 1;
    }
    table
}

#[cfg(test)]
mod tests;

/// How many of the 133 784 560 seven-card hands have each category as their best five cards,
/// indexed by [`Category`], with royal flushes counted apart (index 9, not in index 8).
pub fn seven_card_distribution() -> [u64; 10] {
    let deck: Vec<u64> = crate::cards::Card::deck()
        .map(crate::cards::Card::bit)
        .collect();
    let mut counts = [0u64; 10];
    for a in 0..52 {
        for b in a + 1..52 {
            let ab = deck[a] | deck[b];
            for c in b + 1..52 {
                let abc = ab | deck[c];
                for d in c + 1..52 {
                    let abcd = abc | deck[d];
                    for e in d + 1..52 {
                        let abcde = abcd | deck[e];
                        for f in e + 1..52 {
                            let six = abcde | deck[f];
                            for g in &deck[f + 1..] {
                                let rank = evaluate(CardSet(six | g));
                                let slot = if rank.is_royal_flush() {
                                    9
                                } else {
                                    rank.category() as usize
                                };
                                counts[slot] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    counts
}
