//! Call bets ("oznámené sázky", Ruleta 6.): placed by the croupier as chips on inside positions
//! and paid at those positions' odds. Each expands to its chips here.

use super::layout::{wheel_index, Position, WHEEL_ORDER};

/// Chips of one bet: positions with the number of unit chips on each.
#[derive(Debug, Clone, Copy)]
pub enum Chips {
    /// A layout bet: one position.
    Single([(Position, u8); 1]),
    /// A fixed call bet (zero spiel, velká série, malá série, orphelins).
    Fixed(&'static [(Position, u8)]),
    /// Neighbours: five straights around a number.
    Neighbours([(Position, u8); 5]),
}

impl Chips {
    pub fn single(position: Position) -> Chips {
        Chips::Single([(position, 1)])
    }

    pub fn as_slice(&self) -> &[(Position, u8)] {
        match self {
            Chips::Single(one) => one,
            Chips::Fixed(chips) => chips,
            Chips::Neighbours(five) => five,
        }
    }

    /// Number of unit chips in the bet.
    pub fn chip_count(&self) -> i64 {
        self.as_slice().iter().map(|(_, c)| i64::from(*c)).sum()
    }
}

/// Zero spiel (zero hra): splits 0/3, 12/15, 32/35 and straight 26 — 4 chips, 7 numbers.
const ZERO_SPIEL: [(Position, u8); 4] = [
    (Position::split(0, 3), 1),
    (Position::split(12, 15), 1),
    (Position::split(32, 35), 1),
    (Position::straight(26), 1),
];

/// Velká série (voisins du zéro): street 0/2/3 ×2, splits 4/7, 12/15, 18/21, 19/22, 32/35,
/// corner 25/26/28/29 ×2 — 9 chips, 17 numbers.
const VOISINS: [(Position, u8); 7] = [
    (Position::street(0, 2, 3), 2),
    (Position::split(4, 7), 1),
    (Position::split(12, 15), 1),
    (Position::split(18, 21), 1),
    (Position::split(19, 22), 1),
    (Position::corner(25, 26, 28, 29), 2),
    (Position::split(32, 35), 1),
];

/// Malá série (tiers du cylindre): splits 5/8, 10/11, 13/16, 23/24, 27/30, 33/36 — 6 chips.
const TIERS: [(Position, u8); 6] = [
    (Position::split(5, 8), 1),
    (Position::split(10, 11), 1),
    (Position::split(13, 16), 1),
    (Position::split(23, 24), 1),
    (Position::split(27, 30), 1),
    (Position::split(33, 36), 1),
];

/// Orphelins: straight 1, splits 6/9, 14/17, 17/20, 31/34 — 5 chips, 8 numbers.
const ORPHELINS: [(Position, u8); 5] = [
    (Position::straight(1), 1),
    (Position::split(6, 9), 1),
    (Position::split(14, 17), 1),
    (Position::split(17, 20), 1),
    (Position::split(31, 34), 1),
];

pub fn zero_spiel() -> Chips {
    Chips::Fixed(&ZERO_SPIEL)
}

pub fn voisins() -> Chips {
    Chips::Fixed(&VOISINS)
}

pub fn tiers() -> Chips {
    Chips::Fixed(&TIERS)
}

pub fn orphelins() -> Chips {
    Chips::Fixed(&ORPHELINS)
}

/// Neighbours ("sousední sázky"): the number and two wheel neighbours each side, 5 straights.
pub fn neighbours(center: u8) -> Option<Chips> {
    let index = wheel_index(center)?;
    let len = WHEEL_ORDER.len();
    let at = |offset: usize| (Position::straight(WHEEL_ORDER[(index + offset) % len]), 1);
    Some(Chips::Neighbours([
        at(len - 2),
        at(len - 1),
        at(0),
        at(1),
        at(2),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(chips: &Chips) -> Vec<u8> {
        let mask = chips.as_slice().iter().fold(0u64, |m, (p, _)| m | p.mask);
        (0..37).filter(|n| mask & (1 << n) != 0).collect()
    }

    #[test]
    fn call_bets_have_the_chip_and_number_counts_of_the_plan() {
        // Zero spiel: 4 chips, 7 numbers; velká série: 9 chips, 17 numbers;
        // malá série: 6 chips, 12 numbers; orphelins: 5 chips, 8 numbers.
        assert_eq!(
            (zero_spiel().chip_count(), covered(&zero_spiel()).len()),
            (4, 7)
        );
        assert_eq!((voisins().chip_count(), covered(&voisins()).len()), (9, 17));
        assert_eq!((tiers().chip_count(), covered(&tiers()).len()), (6, 12));
        assert_eq!(
            (orphelins().chip_count(), covered(&orphelins()).len()),
            (5, 8)
        );
    }

    #[test]
    fn neighbours_of_five_are_the_plans_example() {
        // Plan: "5 a sousedy: 5, 10, 16, 23 a 24".
        assert_eq!(covered(&neighbours(5).unwrap()), vec![5, 10, 16, 23, 24]);
        // Around zero the wheel wraps: 3 26 [0] 32 15.
        assert_eq!(covered(&neighbours(0).unwrap()), vec![0, 3, 15, 26, 32]);
        assert!(neighbours(37).is_none());
    }

    #[test]
    fn the_sectors_are_contiguous_on_the_wheel() {
        // Velká série covers the 17 pockets from 22 to 25 through zero.
        let start = wheel_index(22).unwrap();
        let expected: Vec<u8> = {
            let mut v: Vec<u8> = (0..17).map(|i| WHEEL_ORDER[(start + i) % 37]).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(covered(&voisins()), expected);
    }
}
