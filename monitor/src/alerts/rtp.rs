//! A game's month against theory, as the casino's RTP report computes it (docs/RTP.md): the
//! rounds' payouts are independent, so their sum has the summed mean and variance; z =
//! (paid − expected) / √variance, flagged past ±3. A 3σ flag assumes the sum is nearly normal;
//! a long shot (a 35:1 straight-up) makes it skewed, and the skewness of the sum, μ₃ / σ³, falls
//! as 1/√n: the flag is trusted once it is at most [`SKEWNESS_LIMIT`], as in the reports.

use serde::Serialize;

/// |z| above this is flagged, as the reports flag it.
pub const FLAG_SD: f64 = 3.0;
/// The skewness of the sum at or below which a flag means something, as the reports take it.
pub const SKEWNESS_LIMIT: f64 = 0.2;

/// A casino's game over a month, summed from the monitor's tallies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonthFigures {
    pub rounds: i64,
    pub rtp_stakes_h: i64,
    /// Every stake less those void rounds handed back: what actual RTP is over.
    pub played_stakes_h: i64,
    /// What played rounds paid (not the stakes void rounds handed back).
    pub paid_h: i64,
    /// Expected payout of the RTP stakes, milli-haléře.
    pub expected_payout_mh: i64,
    pub payout_variance_h2: f64,
    pub payout_third_moment_h3: f64,
    /// Rounds the theory covers (judged, not void).
    pub theory_rounds: i64,
}

/// Where a month's payouts stand against theory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Deviation {
    /// (paid − expected) / σ.
    pub z: f64,
    /// σ of the month's payouts, haléře.
    pub sd_h: f64,
    /// paid / played stakes, percent (as the casino's month page).
    pub actual_rtp_pct: f64,
    /// expected / RTP stakes, percent.
    pub theoretical_rtp_pct: f64,
    /// Half-width of the ±3σ band around the theoretical RTP, percentage points.
    pub band_3sd_pct: f64,
    /// μ₃ / σ³ of the month's payouts.
    pub skewness: f64,
    /// Rounds needed before a flag can be trusted (skewness at most [`SKEWNESS_LIMIT`]).
    pub rounds_needed: i64,
}

impl MonthFigures {
    /// Its deviation; none without stakes or variance.
    pub fn deviation(&self) -> Option<Deviation> {
        if self.payout_variance_h2 <= 0.0 || self.rtp_stakes_h <= 0 || self.played_stakes_h <= 0 {
            return None;
        }
        let sd = self.payout_variance_h2.sqrt();
        let expected_h = self.expected_payout_mh as f64 / 1000.0;
        let stakes = self.rtp_stakes_h as f64;
        let skewness = self.payout_third_moment_h3 / (sd * sd * sd);
        // skewness(n) = skewness(1)/√n: n must grow by (skewness / limit)².
        let needed = (self.theory_rounds as f64 * (skewness / SKEWNESS_LIMIT).powi(2)).ceil();
        let rounds_needed = if needed.is_finite() && needed < i64::MAX as f64 {
            (needed as i64).max(1)
        } else {
            i64::MAX
        };
        Some(Deviation {
            z: (self.paid_h as f64 - expected_h) / sd,
            sd_h: sd,
            actual_rtp_pct: 100.0 * self.paid_h as f64 / self.played_stakes_h as f64,
            theoretical_rtp_pct: 100.0 * expected_h / stakes,
            band_3sd_pct: 100.0 * FLAG_SD * sd / stakes,
            skewness,
            rounds_needed,
        })
    }
}

impl Deviation {
    /// |z| past 3.
    pub fn flagged(&self) -> bool {
        self.z.abs() > FLAG_SD
    }

    /// Whether `rounds` are enough for the flag (or its absence) to mean something.
    pub fn meaningful(&self, rounds: i64) -> bool {
        rounds >= self.rounds_needed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_is_the_payout_past_theory_in_standard_deviations() {
        // 1 000 straight-ups of 100 h: RTP stakes 100 000 h, expected 100 000 × 36/37 =
        // 97 297.297 h (97 297 297 mh); variance per spin 3 600² × (1/37)(36/37) = 340 803.5 h²,
        // × 1 000 = 340 803 506 h², σ = 18 460.8 h. Paid 180 000 h (50 wins):
        // z = (180 000 − 97 297.297) / 18 460.8 = 4.48.
        let month = MonthFigures {
            rounds: 1_000,
            rtp_stakes_h: 100_000,
            played_stakes_h: 100_000,
            paid_h: 180_000,
            expected_payout_mh: 97_297_297,
            payout_variance_h2: 340_803_506.0,
            // Per spin 3 600³ × p(1 − p)(1 − 2p) = 46 656 000 000 × 36 × 35 / 37³
            // = 1 160 574 102 h³.
            payout_third_moment_h3: 1_160_574_102.0 * 1_000.0,
            theory_rounds: 1_000,
        };
        let d = month.deviation().unwrap();
        // Skewness (35/6)/√1 000 = 0.1845; rounds needed 1 000 × (0.1845 / 0.2)² = 850.7 → 851,
        // as the reports count them for a straight-up.
        assert!((d.skewness - 0.1845).abs() < 0.0001, "{d:?}");
        assert_eq!(d.rounds_needed, 851);
        assert!(d.meaningful(851) && !d.meaningful(850));
        assert!((d.z - 4.48).abs() < 0.005, "{d:?}");
        assert!(d.flagged());
        assert!((d.actual_rtp_pct - 180.0).abs() < 1e-9);
        assert!((d.theoretical_rtp_pct - 97.297_297).abs() < 1e-6);
        // 3 × 18 460.8 / 100 000 = 55.38 percentage points.
        assert!((d.band_3sd_pct - 55.38).abs() < 0.01, "{d:?}");
        // Paid 110 000 h: z = (110 000 − 97 297.297) / 18 460.8 = 0.69: not flagged.
        let calm = MonthFigures {
            paid_h: 110_000,
            ..month.clone()
        };
        assert!(!calm.deviation().unwrap().flagged());
        let none = MonthFigures {
            payout_variance_h2: 0.0,
            ..month
        };
        assert_eq!(none.deviation(), None);
    }
}
