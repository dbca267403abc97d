//! How far actual payouts are from theory, in standard deviations, and whether that figure can
//! be trusted yet.
//!
//! The rounds' payouts are independent, so their sum has the summed mean, variance and third
//! central moment of the rounds (cumulants add). z = (paid − expected) / √variance is compared
//! with ±3. A 3σ flag assumes the sum is nearly normal; a long shot (a 35:1 straight-up, UTH's
//! 500:1 royal flush) makes it skewed, and false flags come far more often than the normal
//! 0.27 %. The skewness of the sum, μ₃ / σ³, falls as 1/√n; once it is at most
//! [`SKEWNESS_LIMIT`] the two-sided false-flag rate at 3σ is within about 1.4 × the normal
//! figure (Cornish–Fisher: the 3σ quantile moves by (3² − 1) × skewness / 6 ≈ 0.27σ).

use serde::Serialize;
use utoipa::ToSchema;

/// |z| above this is flagged.
pub const FLAG_SD: f64 = 3.0;
/// The skewness of the sum at or below which a flag means something.
pub const SKEWNESS_LIMIT: f64 = 0.2;

/// The theoretical side of a set of rounds (or of the bets of one kind in them).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    /// Rounds summed (for a bet kind: rounds in which it was bet).
    pub rounds: i64,
    /// Stakes that count for RTP.
    pub rtp_stakes_h: i64,
    /// Expected payout, in milli-haléře.
    pub expected_payout_mh: i128,
    pub variance_h2: f64,
    pub third_moment_h3: f64,
}

impl Moments {
    pub fn absorb(&mut self, o: &Moments) {
        self.rounds = self.rounds.saturating_add(o.rounds);
        self.rtp_stakes_h = self.rtp_stakes_h.saturating_add(o.rtp_stakes_h);
        self.expected_payout_mh += o.expected_payout_mh;
        self.variance_h2 += o.variance_h2;
        self.third_moment_h3 += o.third_moment_h3;
    }

    /// Theoretical RTP of the stakes, in percent.
    pub fn theoretical_rtp_pct(&self) -> Option<f64> {
        (self.rtp_stakes_h > 0)
            .then(|| pct(self.expected_payout_mh as f64 / 1000.0 / self.rtp_stakes_h as f64))
    }

    /// Where `paid_h` stands against these moments; none without variance.
    pub fn deviation(&self, paid_h: i64) -> Option<Deviation> {
        if self.variance_h2 <= 0.0 || self.rtp_stakes_h <= 0 {
            return None;
        }
        let sd = self.variance_h2.sqrt();
        let z = (paid_h as f64 - self.expected_payout_mh as f64 / 1000.0) / sd;
        let skewness = self.third_moment_h3 / (sd * sd * sd);
        // skewness(n) = skewness(1)/√n: n must grow by (skewness / limit)².
        let needed = (self.rounds as f64 * (skewness / SKEWNESS_LIMIT).powi(2)).ceil();
        let rounds_needed = if needed.is_finite() && needed < i64::MAX as f64 {
            (needed as i64).max(1)
        } else {
            i64::MAX
        };
        Some(Deviation {
            deviation_sd: (z * 100.0).round() / 100.0,
            band_3sd_pct: pct(FLAG_SD * sd / self.rtp_stakes_h as f64),
            skewness: (skewness * 10_000.0).round() / 10_000.0,
            rounds_needed,
            flagged: z.abs() > FLAG_SD,
            flag_meaningful: self.rounds >= rounds_needed,
        })
    }
}

/// A fraction as a percentage rounded to four decimals.
pub fn pct(x: f64) -> f64 {
    (x * 1_000_000.0).round() / 10_000.0
}

/// Actual payouts against theory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct Deviation {
    /// (paid − expected) / standard deviation.
    pub deviation_sd: f64,
    /// Half-width of the ±3σ band around the theoretical RTP, in percentage points.
    pub band_3sd_pct: f64,
    /// Skewness of the sum of payouts (μ₃ / σ³).
    pub skewness: f64,
    /// Rounds needed before a 3σ flag can be trusted (skewness of the sum ≤ 0.2).
    pub rounds_needed: i64,
    /// |deviation_sd| > 3.
    pub flagged: bool,
    /// Enough rounds for the flag (or its absence) to mean something.
    pub flag_meaningful: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_up_needs_hundreds_of_spins_before_a_flag_means_anything() {
        // One 100 h straight-up per spin: payout 3 600 h with p = 1/37. Per spin: variance
        // 3 600² × p(1 − p) = 12 960 000 × 36/1 369 = 340 803.5 h²; third moment
        // 3 600³ × p(1 − p)(1 − 2p) = 46 656 000 000 × 36 × 35 / 37³ = 1 160 574 102 h³;
        // skewness (1 − 2p)/√(p(1 − p)) = (35/37)/(6/37) = 35/6 = 5.8333.
        // Rounds needed: (5.8333 / 0.2)² = 850.7 → 851 (rounded up).
        let p = 1.0 / 37.0;
        let per_spin_third = 3_600f64.powi(3) * p * (1.0 - p) * (1.0 - 2.0 * p);
        let spins = 100;
        let m = Moments {
            rounds: spins,
            rtp_stakes_h: 100 * spins,
            expected_payout_mh: 97_297 * i128::from(spins),
            variance_h2: 340_803.5 * spins as f64,
            third_moment_h3: per_spin_third * spins as f64,
        };
        let d = m.deviation(0).unwrap();
        assert_eq!(d.rounds_needed, 851);
        assert!(!d.flag_meaningful);
        // Paid nothing in 100 spins: (0 − 9 729.7) / √34 080 350 = −9 729.7 / 5 837.8 = −1.67.
        assert_eq!(d.deviation_sd, -1.67);
        assert!(!d.flagged);
        // Band: 3 × 5 837.84 / 10 000 = 1.751 35 = 175.135 % of the stakes either way.
        assert!((d.band_3sd_pct - 175.1351).abs() < 0.0002, "{d:?}");
    }

    #[test]
    fn no_variance_no_deviation() {
        assert_eq!(Moments::default().deviation(100), None);
    }
}
