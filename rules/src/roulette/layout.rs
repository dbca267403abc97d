//! The single-zero layout and wheel: which number sets are bettable positions.

use crate::plan::table_games::RouletteOdds;

/// French wheel order, clockwise from zero (Ruleta, 4. RULETOVÉ KOLO).
pub const WHEEL_ORDER: [u8; 37] = [
    0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20,
    14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26,
];

/// Red numbers of the standard layout.
pub const RED: [u8; 18] = [
    1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36,
];

/// Pockets on the wheel.
pub const POCKETS: u8 = 37;

/// Pay-table class of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PositionClass {
    Straight,
    Split,
    Street,
    Corner,
    SixLine,
    Dozen,
    Column,
    EvenChance,
}

/// A place on the layout where chips lie: a set of covered numbers (bit n = number n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub class: PositionClass,
    pub mask: u64,
}

const fn bit(n: u8) -> u64 {
    1u64 << n
}

/// The set of numbers 1..=36 for which `$pred` holds, computed at compile time.
macro_rules! mask_where {
    (|$n:ident| $pred:expr) => {{
        let mut mask = 0u64;
        let mut $n = 1u8;
        while $n <= 36 {
            if $pred {
                mask |= bit($n);
            }
            $n += 1;
        }
        mask
    }};
}

const fn is_red_const(n: u8) -> bool {
    let mut i = 0;
    while i < RED.len() {
        if RED[i] == n {
            return true;
        }
        i += 1;
    }
    false
}

pub const RED_MASK: u64 = mask_where!(|n| is_red_const(n));
pub const BLACK_MASK: u64 = mask_where!(|n| !is_red_const(n));
pub const ODD_MASK: u64 = mask_where!(|n| n % 2 == 1);
pub const EVEN_MASK: u64 = mask_where!(|n| n.is_multiple_of(2));
pub const LOW_MASK: u64 = mask_where!(|n| n <= 18);
pub const HIGH_MASK: u64 = mask_where!(|n| n >= 19);
pub const DOZEN_MASKS: [u64; 3] = [
    mask_where!(|n| n <= 12),
    mask_where!(|n| n >= 13 && n <= 24),
    mask_where!(|n| n >= 25),
];
pub const COLUMN_MASKS: [u64; 3] = [
    mask_where!(|n| n % 3 == 1),
    mask_where!(|n| n % 3 == 2),
    mask_where!(|n| n.is_multiple_of(3)),
];

impl Position {
    pub const fn new(class: PositionClass, mask: u64) -> Position {
        Position { class, mask }
    }

    pub const fn straight(n: u8) -> Position {
        Position::new(PositionClass::Straight, bit(n))
    }

    pub const fn split(a: u8, b: u8) -> Position {
        Position::new(PositionClass::Split, bit(a) | bit(b))
    }

    pub const fn street(a: u8, b: u8, c: u8) -> Position {
        Position::new(PositionClass::Street, bit(a) | bit(b) | bit(c))
    }

    pub const fn corner(a: u8, b: u8, c: u8, d: u8) -> Position {
        Position::new(PositionClass::Corner, bit(a) | bit(b) | bit(c) | bit(d))
    }

    #[inline]
    pub fn covers(self, number: u8) -> bool {
        number < 64 && self.mask & bit(number) != 0
    }

    /// The pockets covered, ascending, without allocating.
    pub fn covered(self) -> impl Iterator<Item = u8> {
        let mut left = self.mask & (bit(POCKETS) - 1);
        std::iter::from_fn(move || {
            let number = left.trailing_zeros();
            (left != 0).then(|| {
                left &= left - 1;
                number as u8
            })
        })
    }

    pub fn count(self) -> u32 {
        self.mask.count_ones()
    }

    /// N of the N:1 pay-table line for this position.
    #[inline]
    pub fn odds(self, odds: &RouletteOdds) -> u32 {
        match self.class {
            PositionClass::Straight => odds.straight,
            PositionClass::Split => odds.split,
            PositionClass::Street => odds.street,
            PositionClass::Corner => odds.corner,
            PositionClass::SixLine => odds.six_line,
            PositionClass::Dozen => odds.dozen,
            PositionClass::Column => odds.column,
            PositionClass::EvenChance => odds.even_chance,
        }
    }

    /// The numbers covered, ascending.
    pub fn numbers(self) -> Vec<u8> {
        (0..POCKETS).filter(|n| self.covers(*n)).collect()
    }

    /// Builds an inside position from the numbers a bet names, if they form one on the layout.
    pub fn inside(class: PositionClass, numbers: &[u8]) -> Option<Position> {
        let mut mask = 0u64;
        for &n in numbers {
            if n >= POCKETS || mask & bit(n) != 0 {
                return None;
            }
            mask |= bit(n);
        }
        let position = Position::new(class, mask);
        // Ascending numbers without allocating: at most six matter (a six line).
        if mask.count_ones() > 6 {
            return None;
        }
        let mut buffer = [0u8; 6];
        let mut len = 0;
        let mut rest = mask;
        while rest != 0 {
            buffer[len] = rest.trailing_zeros() as u8;
            len += 1;
            rest &= rest - 1;
        }
        let sorted = &buffer[..len];
        let valid = match (class, sorted) {
            (PositionClass::Straight, [_]) => true,
            (PositionClass::Split, &[a, b]) => is_split(a, b),
            (PositionClass::Street, &[a, b, c]) => {
                matches!((a, b, c), (0, 1, 2) | (0, 2, 3))
                    || (a >= 1 && a % 3 == 1 && b == a + 1 && c == a + 2)
            }
            (PositionClass::Corner, &[a, b, c, d]) => {
                (a, b, c, d) == (0, 1, 2, 3)
                    || (a >= 1 && a % 3 != 0 && b == a + 1 && c == a + 3 && d == a + 4)
            }
            (PositionClass::SixLine, &[a, ..]) if sorted.len() == 6 => {
                a >= 1 && a % 3 == 1 && a <= 31 && sorted.iter().zip(a..).all(|(n, m)| *n == m)
            }
            _ => false,
        };
        valid.then_some(position)
    }
}

/// Two numbers share an edge on the layout (0 touches 1, 2 and 3).
fn is_split(a: u8, b: u8) -> bool {
    match (a, b) {
        (0, 1..=3) => true,
        (1.., _) if b == a + 3 => b <= 36,
        (1.., _) if b == a + 1 => !a.is_multiple_of(3),
        _ => false,
    }
}

/// Index of a number on the wheel.
pub fn wheel_index(number: u8) -> Option<usize> {
    WHEEL_ORDER.iter().position(|n| *n == number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_ranges_partition_the_numbers() {
        assert_eq!(RED_MASK.count_ones(), 18);
        assert_eq!(BLACK_MASK.count_ones(), 18);
        assert_eq!(RED_MASK & BLACK_MASK, 0);
        assert_eq!(RED_MASK & 1, 0, "zero is neither red nor black");
        assert_eq!(DOZEN_MASKS.iter().map(|m| m.count_ones()).sum::<u32>(), 36);
        assert_eq!(
            COLUMN_MASKS[0] & bit(34),
            bit(34),
            "34 is in the first column (1-34)"
        );
        assert_eq!(COLUMN_MASKS[2] & bit(36), bit(36));
    }

    #[test]
    fn the_wheel_holds_each_number_once() {
        let mut seen = 0u64;
        for n in WHEEL_ORDER {
            seen |= bit(n);
        }
        assert_eq!(seen.count_ones(), 37);
    }

    #[test]
    fn accepts_real_positions_and_rejects_others() {
        use PositionClass::*;
        assert!(Position::inside(Split, &[2, 3]).is_some());
        assert!(Position::inside(Split, &[5, 2]).is_some());
        assert!(Position::inside(Split, &[0, 3]).is_some());
        assert!(
            Position::inside(Split, &[3, 4]).is_none(),
            "3 and 4 are in different rows"
        );
        assert!(Position::inside(Split, &[1, 5]).is_none());
        assert!(
            Position::inside(Street, &[0, 2, 3]).is_some(),
            "plan's own example"
        );
        assert!(Position::inside(Street, &[25, 26, 27]).is_some());
        assert!(Position::inside(Street, &[2, 3, 4]).is_none());
        assert!(
            Position::inside(Corner, &[0, 1, 2, 3]).is_some(),
            "plan's own example"
        );
        assert!(
            Position::inside(Corner, &[7, 8, 10, 11]).is_some(),
            "plan's own example"
        );
        assert!(Position::inside(Corner, &[8, 9, 11, 12]).is_some());
        assert!(Position::inside(Corner, &[9, 10, 12, 13]).is_none());
        assert!(Position::inside(SixLine, &[16, 17, 18, 19, 20, 21]).is_some());
        assert!(Position::inside(SixLine, &[31, 32, 33, 34, 35, 36]).is_some());
        assert!(Position::inside(SixLine, &[17, 18, 19, 20, 21, 22]).is_none());
        assert!(Position::inside(Straight, &[37]).is_none());
        assert!(Position::inside(Straight, &[4, 4]).is_none());
    }
}
