//! Theoretical return to player of each bet kind, computed from the plan's pay tables and the
//! cards — never typed in. Exact fractions where combinatorics give them.

use crate::hand_rank::{seven_card_distribution, Category};
use crate::plan::odds::{HandPayTable, Odds};
use crate::plan::table_games::{PerfectPairsPlan, RoulettePlan, WheelPlan};
use crate::ratio::{gcd, Ratio};
use crate::statistics::UnitMoments;

/// One line of the RTP table.
#[derive(Debug, Clone, PartialEq)]
pub struct BetRtp {
    pub game: &'static str,
    pub bet: String,
    pub rtp: Ratio,
    /// Standard deviation and third central moment of the payout per unit staked (statistics
    /// only).
    pub moments: UnitMoments,
    /// How it was computed.
    pub method: &'static str,
}

/// `Σ weight × (num + den) / den` over `Σ weight`, reduced: the average return per unit staked
/// when outcome i (weight i) pays `odds i` plus the stake back and the rest lose; and the
/// moments of that return.
fn expected_return(outcomes: &[(u128, Odds)], total: u128) -> (Ratio, UnitMoments) {
    let common = outcomes.iter().fold(1u128, |l, (_, o)| {
        l / gcd(l, u128::from(o.den)) * u128::from(o.den)
    });
    let back = |o: &Odds| u128::from(o.num + o.den) * (common / u128::from(o.den));
    let returned: u128 = outcomes.iter().map(|(weight, o)| weight * back(o)).sum();
    let winning: u128 = outcomes.iter().map(|(weight, _)| weight).sum();
    let losing = (total.saturating_sub(winning) as f64, 0.0);
    let distribution = outcomes
        .iter()
        .map(|(weight, o)| (*weight as f64, back(o) as f64 / common as f64))
        .chain(std::iter::once(losing))
        .map(|(weight, x)| (weight / total as f64, x));
    (
        Ratio::reduced(returned, total * common),
        UnitMoments::of_distribution(distribution),
    )
}

fn n_to_1(n: u32) -> Odds {
    Odds { num: n, den: 1 }
}

/// Every roulette bet kind: the numbers it covers out of 37 pockets, at the plan's odds.
pub fn roulette(plan: &RoulettePlan) -> Vec<BetRtp> {
    let o = plan.odds;
    [
        ("straight", 1, o.straight),
        ("split", 2, o.split),
        ("street", 3, o.street),
        ("corner", 4, o.corner),
        ("six_line", 6, o.six_line),
        ("dozen", 12, o.dozen),
        ("column", 12, o.column),
        ("even_chance", 18, o.even_chance),
    ]
    .into_iter()
    .map(|(bet, covered, odds)| {
        let (rtp, moments) = expected_return(&[(covered, n_to_1(odds))], 37);
        BetRtp {
            game: "roulette",
            bet: bet.into(),
            rtp,
            moments,
            method: "exact: numbers covered of 37 pockets",
        }
    })
    .collect()
}

/// Every box of a money wheel: the segments that pay it of all the wheel's segments, at its
/// odds (the wheel's physical order does not matter, every segment is equally likely).
pub fn wheel(game: &'static str, plan: &WheelPlan) -> Vec<BetRtp> {
    let total = u128::from(plan.segments());
    plan.boxes
        .iter()
        .map(|b| {
            let (rtp, moments) =
                expected_return(&[(u128::from(b.segments), n_to_1(b.pays))], total);
            BetRtp {
                game,
                bet: b.id.clone(),
                rtp,
                moments,
                method: "exact: segments of the box among the wheel's",
            }
        })
        .collect()
}

/// Perfect Pairs on the first two cards from `decks` full decks.
///
/// Of the C(52d, 2) two-card starts: a perfect pair (same suit) 13 × 4 × C(d, 2); a coloured
/// pair (other suit of the same colour) 13 × 2 × d²; a mixed pair (other colour) 13 × 4 × d².
pub fn perfect_pairs(decks: u8, plan: &PerfectPairsPlan) -> BetRtp {
    let d = u128::from(decks);
    let cards = 52 * d;
    let outcomes = [
        (13 * 4 * (d * d.saturating_sub(1) / 2), n_to_1(plan.perfect)),
        (13 * 2 * d * d, n_to_1(plan.coloured)),
        (13 * 4 * d * d, n_to_1(plan.mixed)),
    ];
    let (rtp, moments) = expected_return(&outcomes, cards * (cards - 1) / 2);
    BetRtp {
        game: "blackjack",
        bet: "perfect_pairs".into(),
        rtp,
        moments,
        method: "exact: two-card starts from the shoe",
    }
}

/// Insurance taken off the top of the shoe against the dealer's ace: it wins when the next card
/// is one of the 16 × decks ten-valued cards among the 52 × decks − 1 left.
pub fn insurance(decks: u8, odds: Odds) -> BetRtp {
    let d = u128::from(decks.max(1));
    let (rtp, moments) = expected_return(&[(16 * d, odds)], 52 * d - 1);
    BetRtp {
        game: "blackjack",
        bet: "insurance".into(),
        rtp,
        moments,
        method: "exact: off the top, dealer's ace out",
    }
}

/// Counts of best hands over every seven-card hand (see [`seven_card_distribution`]), for the
/// hand pay tables.
pub struct SevenCardHands([u64; 10]);

impl SevenCardHands {
    /// Walks all 133 784 560 seven-card hands (about two seconds).
    pub fn enumerate() -> SevenCardHands {
        SevenCardHands(seven_card_distribution())
    }

    fn count(&self, category: Category) -> u128 {
        u128::from(self.0[category as usize])
    }
}

/// Ultimate Texas Hold'em Trips: paid on the player's seven cards whatever the dealer holds.
pub fn uth_trips(table: &HandPayTable, hands: &SevenCardHands) -> BetRtp {
    let mut outcomes = vec![(u128::from(hands.0[9]), table.royal_flush)];
    for (category, odds) in [
        (Category::StraightFlush, Some(table.straight_flush)),
        (Category::Quads, Some(table.quads)),
        (Category::FullHouse, Some(table.full_house)),
        (Category::Flush, Some(table.flush)),
        (Category::Straight, Some(table.straight)),
        (Category::Trips, table.trips),
    ] {
        if let Some(odds) = odds {
            outcomes.push((hands.count(category), odds));
        }
    }
    let (rtp, moments) = expected_return(&outcomes, hands.0.iter().map(|&c| u128::from(c)).sum());
    BetRtp {
        game: "ultimate_texas_holdem",
        bet: "trips".into(),
        rtp,
        moments,
        method: "exact: all 133 784 560 seven-card hands",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::book::PlanBook;

    #[test]
    fn roulette_returns_36_of_37_on_every_bet() {
        let book = PlanBook::builtin().unwrap();
        let plan = book.get("69games-ziva-hra").unwrap();
        for line in roulette(plan.roulette().unwrap()) {
            // e.g. split: 2 numbers × (17 + 1) = 36 of 37.
            assert_eq!(line.rtp, Ratio::new(36, 37), "{}", line.bet);
        }
    }

    #[test]
    fn perfect_pairs_on_six_decks_is_268_of_311() {
        let book = PlanBook::builtin().unwrap();
        let plan = book.get("69games-ziva-hra").unwrap();
        let pp = &plan.blackjack.as_ref().unwrap().perfect_pairs;
        // C(312, 2) = 48 516 starts: perfect 13·4·15 = 780 at 26, coloured 13·2·36 = 936 at 11,
        // mixed 13·4·36 = 1 872 at 6: (20 280 + 10 296 + 11 232) / 48 516 = 41 808 / 48 516
        // = 268 / 311 = 86.174 %.
        assert_eq!(perfect_pairs(6, pp).rtp, Ratio::new(268, 311));
        // One deck: no perfect pair; coloured 26 at 11, mixed 52 at 6 of 1 326:
        // (286 + 312) / 1 326 = 598 / 1 326 = 23 / 51.
        assert_eq!(perfect_pairs(1, pp).rtp, Ratio::new(23, 51));
    }

    #[test]
    fn uth_trips_50_40_30_8_7_4_3_is_96_502_percent() {
        let book = PlanBook::builtin().unwrap();
        let plan = book.get("69games-ziva-hra").unwrap();
        let table = plan.ultimate_texas_holdem.as_ref().unwrap().trips;
        let line = uth_trips(&table, &SevenCardHands::enumerate());
        // 4 324·51 + 37 260·41 + 224 848·31 + 3 473 184·9 + 4 047 644·8 + 6 180 020·5
        // + 6 461 620·4 = 129 104 860 returned per 133 784 560 staked = 0.965 021…
        assert_eq!(line.rtp, Ratio::new(129_104_860, 133_784_560));
        assert_eq!(format!("{:.5}", line.rtp.to_f64()), "0.96502");
    }
}
