//! Exact rationals for theoretical RTP (computed, never typed in).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratio {
    pub num: u64,
    pub den: u64,
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    /// A reduced ratio; `den` must not be zero (a zero denominator yields 0/1).
    pub fn new(num: u64, den: u64) -> Ratio {
        Ratio::reduced(u128::from(num), u128::from(den))
    }

    /// A ratio of wide integers, reduced first (a term still beyond 64 bits saturates).
    pub fn reduced(num: u128, den: u128) -> Ratio {
        if den == 0 {
            return Ratio { num: 0, den: 1 };
        }
        let g = gcd(num, den).max(1);
        Ratio {
            num: u64::try_from(num / g).unwrap_or(u64::MAX),
            den: u64::try_from(den / g).unwrap_or(u64::MAX),
        }
    }

    /// `amount_h × self` in milli-haléře, rounded down (theoretical payouts).
    pub fn of_amount_mh(self, amount_h: i64) -> i128 {
        i128::from(amount_h) * 1000 * i128::from(self.num) / i128::from(self.den.max(1))
    }

    /// For display and statistics only; money never goes through this.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}
