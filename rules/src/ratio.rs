//! Exact rationals for theoretical RTP (computed, never typed in).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratio {
    pub num: u64,
    pub den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    /// A reduced ratio; `den` must not be zero (a zero denominator yields 0/1).
    pub fn new(num: u64, den: u64) -> Ratio {
        if den == 0 {
            return Ratio { num: 0, den: 1 };
        }
        let g = gcd(num, den).max(1);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    /// For display and statistics only; money never goes through this.
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}
