//! Theoretical figures of a round for RTP reports: what its bets are expected to pay back, how
//! far the payout may swing (variance) and how lopsided that swing is (third central moment),
//! for the whole round and for each bet kind. Statistics only, never money: the reports compare
//! actual payouts against them in standard deviations.

use serde::{Deserialize, Serialize};

use crate::round_header::GameCode;
use crate::verdict::Verdict;

/// A round's theoretical figures. Void rounds contribute nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundStatistics {
    /// Stakes of the bets that count for RTP (valid bets of a non-void round).
    pub rtp_stakes_h: i64,
    /// Expected payout of those bets, in milli-haléře (1/1000 h), exact to that precision.
    pub expected_payout_mh: i64,
    /// Variance of the round's payout, in h².
    pub payout_variance_h2: f64,
    /// Third central moment of the round's payout, in h³: its skewness tells how many rounds
    /// a deviation needs before the normal approximation (and so a 3σ flag) can be trusted.
    pub payout_third_moment_h3: f64,
    /// The same figures per bet kind, ordered by kind.
    pub by_kind: Vec<KindStatistics>,
}

/// The figures of one bet kind in a round, and what the table actually paid on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KindStatistics {
    /// The bet kind as RTP tables name it (`straight`, `main`, `ante_blind_play`, `trips`, …):
    /// short names, kept inline (every round of every check makes them again).
    pub kind: compact_str::CompactString,
    /// Bets of the kind in the round.
    pub bets: i64,
    pub stakes_h: i64,
    /// What the table reported paying on those bets (wins with their stakes).
    pub paid_h: i64,
    pub expected_payout_mh: i64,
    pub variance_h2: f64,
    pub third_moment_h3: f64,
}

impl KindStatistics {
    /// A kind's theoretical figures from its payouts per equally likely outcome (what the
    /// table did is added by [`RoundStatistics::with_actual`]).
    fn over_equally_likely<T: Copy + Into<i128>>(
        kind: &str,
        stakes_h: i64,
        payouts: &[T],
    ) -> KindStatistics {
        let (expected_payout_mh, variance_h2, third_moment_h3) = equally_likely_moments(payouts);
        KindStatistics {
            kind: kind.into(),
            bets: 0,
            stakes_h,
            paid_h: 0,
            expected_payout_mh,
            variance_h2,
            third_moment_h3,
        }
    }
}

/// The moments of a bet's payout per unit staked: a bet of stake s has variance s²·σ² and
/// third central moment s³·μ₃.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UnitMoments {
    pub standard_deviation: f64,
    pub third_moment: f64,
}

impl UnitMoments {
    /// Standard deviation and third central moment of a payout taking value `x` with
    /// probability `p` for each `(p, x)` (probabilities summing to one).
    pub fn of_distribution(outcomes: impl Iterator<Item = (f64, f64)> + Clone) -> UnitMoments {
        let mean: f64 = outcomes.clone().map(|(p, x)| p * x).sum();
        let (mut second, mut third) = (0.0, 0.0);
        for (p, x) in outcomes {
            let d = x - mean;
            second += p * d * d;
            third += p * d * d * d;
        }
        UnitMoments {
            standard_deviation: second.max(0.0).sqrt(),
            third_moment: third,
        }
    }
}

/// A round's figures summed bet by bet, the bets independent of each other.
#[derive(Debug, Default)]
pub struct StatisticsSum {
    total: KindStatistics,
    expected_payout_mh: i128,
    kinds: Vec<(KindStatistics, i128)>,
}

impl StatisticsSum {
    /// A bet of kind `kind` and stake `stake_h` whose expected payout is `expected_mh` and
    /// whose payout per unit staked has `moments`.
    pub fn add(&mut self, kind: &str, stake_h: i64, expected_mh: i128, moments: UnitMoments) {
        let s = stake_h as f64;
        let variance = (moments.standard_deviation * s).powi(2);
        let third = moments.third_moment * s * s * s;
        let index = match self.kinds.iter().position(|(k, _)| k.kind == kind) {
            Some(i) => i,
            None => {
                self.kinds.push((
                    KindStatistics {
                        kind: kind.into(),
                        ..KindStatistics::default()
                    },
                    0,
                ));
                self.kinds.len() - 1
            }
        };
        let (kind_figures, kind_expected) = &mut self.kinds[index];
        for (figures, expected) in [
            (&mut self.total, &mut self.expected_payout_mh),
            (kind_figures, kind_expected),
        ] {
            figures.stakes_h = figures.stakes_h.saturating_add(stake_h);
            figures.variance_h2 += variance;
            figures.third_moment_h3 += third;
            *expected += expected_mh;
        }
    }

    pub fn finish(self) -> RoundStatistics {
        let mut by_kind: Vec<KindStatistics> = self
            .kinds
            .into_iter()
            .map(|(k, expected)| KindStatistics {
                expected_payout_mh: clamp(expected),
                ..k
            })
            .collect();
        by_kind.sort_by(|a, b| a.kind.cmp(&b.kind));
        RoundStatistics {
            rtp_stakes_h: self.total.stakes_h,
            expected_payout_mh: clamp(self.expected_payout_mh),
            payout_variance_h2: self.total.variance_h2,
            payout_third_moment_h3: self.total.third_moment_h3,
            by_kind,
        }
    }
}

fn clamp(mh: i128) -> i64 {
    i64::try_from(mh).unwrap_or(if mh < 0 { i64::MIN } else { i64::MAX })
}

/// Mean (in mh), variance and third central moment of payouts over equally likely outcomes.
/// The same function of the payouts' values whether they come as 64- or 128-bit integers.
fn equally_likely_moments<T: Copy + Into<i128>>(payouts: &[T]) -> (i64, f64, f64) {
    let n = payouts.len() as i128;
    if n == 0 {
        return (0, 0.0, 0.0);
    }
    let (sum, sum_sq) = payouts.iter().fold((0i128, 0i128), |(s, q), &x| {
        let x: i128 = x.into();
        (s + x, q + x * x)
    });
    // The variance exactly from integer sums; the third moment about the mean in floating point.
    let variance = to_f64(n * sum_sq - sum * sum) / to_f64(n * n);
    let mean = to_f64(sum) / to_f64(n);
    let cubes: f64 = payouts
        .iter()
        .map(|&x| (to_f64(x.into()) - mean).powi(3))
        .sum();
    let third = cubes / to_f64(n);
    (mean_mh(sum, n), variance, third)
}

/// An integer as the nearest float: from 64 bits where it fits (all real figures), the same
/// value without the software conversion 128 bits take.
fn to_f64(x: i128) -> f64 {
    match i64::try_from(x) {
        Ok(x) => x as f64,
        Err(_) => x as f64,
    }
}

/// `sum / n` in milli-units, truncated: in 64 bits where they fit, the same quotient.
fn mean_mh(sum: i128, n: i128) -> i64 {
    match (
        i64::try_from(sum).ok().and_then(|s| s.checked_mul(1000)),
        i64::try_from(n),
    ) {
        (Some(sum_mh), Ok(n)) if n > 0 => sum_mh / n,
        _ => clamp(sum * 1000 / n),
    }
}

/// The largest payout per outcome, and the most outcomes, whose moments 64-bit sums give
/// exactly: with |x| ≤ 2⁵³ and n ≤ 2¹⁰, n·Σx² ≤ 2¹²⁶ and (Σx)² ≤ 2¹²⁶ stay within 128 bits.
const MAX_EXACT_PAYOUT: u64 = 1 << 53;
const MAX_EXACT_OUTCOMES: usize = 1 << 10;

/// The same bet kind: kinds are mostly the same static names, compared by address first.
fn same_kind(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl RoundStatistics {
    /// For a round whose `outcomes` (pockets, wheel segments) are equally likely: `bets` are the
    /// priced bets as (kind, stake), and `add_payouts(bet, payouts)` adds what bet `bet` pays on
    /// each outcome to `payouts` (one element per outcome). Bets of one kind in one round are not
    /// independent (a straight-up on 5 and one on 7 cannot both win), so each kind's moments come
    /// from its own payouts per outcome.
    pub fn over_equally_likely(
        outcomes: usize,
        bets: &[(&str, i64)],
        add_payouts: impl Fn(usize, &mut [i128]),
    ) -> RoundStatistics {
        if outcomes == 0 || bets.is_empty() {
            return RoundStatistics::default();
        }
        let mut kinds: Vec<&str> = bets.iter().map(|(k, _)| *k).collect();
        kinds.sort_unstable();
        kinds.dedup();
        // Each kind's payouts per outcome, one kind after another.
        let mut per_kind = vec![0i128; kinds.len() * outcomes];
        let mut stakes = vec![0i64; kinds.len()];
        for (b, (kind, stake)) in bets.iter().enumerate() {
            let k = kinds.binary_search(kind).unwrap_or(0);
            stakes[k] = stakes[k].saturating_add(*stake);
            if let Some(payouts) = per_kind.chunks_exact_mut(outcomes).nth(k) {
                add_payouts(b, payouts);
            }
        }
        let mut total = vec![0i128; outcomes];
        for payouts in per_kind.chunks_exact(outcomes) {
            for (sum, p) in total.iter_mut().zip(payouts) {
                *sum += p;
            }
        }
        let by_kind = kinds
            .iter()
            .zip(per_kind.chunks_exact(outcomes))
            .zip(&stakes)
            .map(|((kind, payouts), stakes_h)| {
                KindStatistics::over_equally_likely(kind, *stakes_h, payouts)
            })
            .collect();
        let (expected_payout_mh, payout_variance_h2, payout_third_moment_h3) =
            equally_likely_moments(&total);
        RoundStatistics {
            rtp_stakes_h: stakes.iter().fold(0i64, |a, s| a.saturating_add(*s)),
            expected_payout_mh,
            payout_variance_h2,
            payout_third_moment_h3,
            by_kind,
        }
    }

    /// [`Self::over_equally_likely`]'s figures with every payout summed in 64 bits:
    /// `add_exact(bet, payouts)` adds what bet `bet` pays on each outcome to its kind's
    /// `payouts`, `None` when a sum would leave 64 bits. `None` when any does or a payout is
    /// beyond [`MAX_EXACT_PAYOUT`] (the caller then sums in 128 bits); otherwise the same
    /// figures bit for bit, since every sum is then exact either way, without a payout array
    /// per bet or 128-bit products. Only for bets paying no negative amount: a bet's own sums
    /// are then no larger than its kind's.
    pub fn over_equally_likely_exact(
        outcomes: usize,
        bets: &[(&str, i64)],
        add_exact: impl Fn(usize, &mut [i64]) -> Option<()>,
    ) -> Option<RoundStatistics> {
        if outcomes == 0 || bets.is_empty() {
            return Some(RoundStatistics::default());
        }
        if outcomes > MAX_EXACT_OUTCOMES {
            return None;
        }
        // The kinds in order of appearance with their stakes; their payouts per outcome, one
        // kind after another.
        let mut kinds: Vec<(&str, i64)> = Vec::with_capacity(8);
        let mut per_kind: Vec<i64> = Vec::with_capacity(8 * outcomes);
        for (b, (kind, stake)) in bets.iter().enumerate() {
            let k = match kinds.iter().position(|(known, _)| same_kind(known, kind)) {
                Some(k) => k,
                None => {
                    kinds.push((kind, 0));
                    per_kind.resize(kinds.len() * outcomes, 0);
                    kinds.len() - 1
                }
            };
            let (_, stakes) = kinds.get_mut(k)?;
            *stakes = stakes.saturating_add(*stake);
            add_exact(b, per_kind.get_mut(k * outcomes..(k + 1) * outcomes)?)?;
        }
        let mut total = vec![0i64; outcomes];
        for payouts in per_kind.chunks_exact(outcomes) {
            for (sum, p) in total.iter_mut().zip(payouts) {
                *sum = sum.checked_add(*p)?;
            }
        }
        if per_kind
            .iter()
            .chain(&total)
            .any(|x| x.unsigned_abs() > MAX_EXACT_PAYOUT)
        {
            return None;
        }
        let mut order: Vec<usize> = (0..kinds.len()).collect();
        order.sort_unstable_by_key(|&k| kinds[k].0);
        let by_kind = order
            .iter()
            .map(|&k| {
                let (kind, stakes_h) = kinds[k];
                let payouts = &per_kind[k * outcomes..(k + 1) * outcomes];
                KindStatistics::over_equally_likely(kind, stakes_h, payouts)
            })
            .collect();
        let (expected_payout_mh, payout_variance_h2, payout_third_moment_h3) =
            equally_likely_moments(&total);
        Some(RoundStatistics {
            rtp_stakes_h: order
                .iter()
                .fold(0i64, |a, &k| a.saturating_add(kinds[k].1)),
            expected_payout_mh,
            payout_variance_h2,
            payout_third_moment_h3,
            by_kind,
        })
    }

    /// [`Self::over_equally_likely`]'s round figures without those per kind (`by_kind` empty):
    /// the same values, at a fraction of the cost, for whoever needs only the round's (the
    /// monitor's RTP per game). The payouts per outcome are summed in one array, as the figures
    /// per kind are summed into the round's; stakes are not negative, so their saturating sum
    /// is the same whichever way it is grouped.
    pub fn totals_over_equally_likely(
        outcomes: usize,
        bets: &[(&str, i64)],
        add_payouts: impl Fn(usize, &mut [i128]),
    ) -> RoundStatistics {
        if outcomes == 0 || bets.is_empty() {
            return RoundStatistics::default();
        }
        let mut total = vec![0i128; outcomes];
        let mut stakes = 0i64;
        for (b, (_, stake)) in bets.iter().enumerate() {
            stakes = stakes.saturating_add(*stake);
            add_payouts(b, &mut total);
        }
        let (expected_payout_mh, payout_variance_h2, payout_third_moment_h3) =
            equally_likely_moments(&total);
        RoundStatistics {
            rtp_stakes_h: stakes,
            expected_payout_mh,
            payout_variance_h2,
            payout_third_moment_h3,
            by_kind: Vec::new(),
        }
    }

    /// Adds what the table actually did per kind: the number of bets and what it paid, from the
    /// round's verdict. Only kinds with figures are kept; a void round has none.
    pub fn with_actual(mut self, verdict: &Verdict<'_>) -> RoundStatistics {
        if verdict.void {
            return self;
        }
        for bet in &verdict.bets {
            let kind = statistics_kind(verdict.game, bet.kind);
            if let Some(k) = self.by_kind.iter_mut().find(|k| k.kind == kind) {
                k.bets = k.bets.saturating_add(1);
                k.paid_h = k.paid_h.saturating_add(bet.paid_h);
            }
        }
        self
    }
}

/// The kind a judged bet counts under in RTP figures: UTH's Ante, Blind and Play are one hand
/// (the edge is the hand's, per Ante); every other bet is its own kind.
pub fn statistics_kind(game: GameCode, bet_kind: &str) -> &str {
    match (game, bet_kind) {
        (GameCode::UltimateTexasHoldem, "ante" | "blind" | "play") => UTH_HAND,
        _ => bet_kind,
    }
}

/// The kind UTH's Ante, Blind and Play count under together.
pub const UTH_HAND: &str = "ante_blind_play";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_over_equally_likely_outcomes_are_computed_per_kind() {
        // Two outcomes; bet 0 (kind a, stake 10) pays 20 on outcome 0, bet 1 (kind b,
        // stake 10) pays 20 on outcome 1. Each kind: payouts {20, 0}: mean 10, variance 100,
        // third moment ((10³) + (−10)³)/2 = 0. The round pays 20 either way: variance 0.
        let s = RoundStatistics::over_equally_likely(2, &[("a", 10), ("b", 10)], |b, payouts| {
            payouts[b] += 20;
        });
        assert_eq!(s.rtp_stakes_h, 20);
        assert_eq!(s.expected_payout_mh, 20_000);
        assert_eq!(s.payout_variance_h2, 0.0);
        assert_eq!(s.by_kind.len(), 2);
        assert_eq!(s.by_kind[0].kind, "a");
        assert_eq!(s.by_kind[0].expected_payout_mh, 10_000);
        assert_eq!(s.by_kind[0].variance_h2, 100.0);
        assert_eq!(s.by_kind[0].third_moment_h3, 0.0);
    }

    #[test]
    fn a_long_shot_is_skewed() {
        // Three outcomes, one pays 30: mean 10, deviations 20, −10, −10; variance
        // (400 + 100 + 100)/3 = 200; third moment (8000 − 1000 − 1000)/3 = 2000.
        let s = RoundStatistics::over_equally_likely(3, &[("x", 10)], |_, payouts| {
            payouts[0] += 30;
        });
        assert_eq!(s.payout_variance_h2, 200.0);
        assert!((s.payout_third_moment_h3 - 2000.0).abs() < 1e-9);
        let unit = UnitMoments::of_distribution([(1.0 / 3.0, 3.0), (2.0 / 3.0, 0.0)].into_iter());
        // Per unit staked: payout 3 or 0, mean 1; variance (4 + 2·1)/3 = 2; third (8 − 2)/3 = 2.
        assert!((unit.standard_deviation - 2f64.sqrt()).abs() < 1e-12);
        assert!((unit.third_moment - 2.0).abs() < 1e-12);
    }

    #[test]
    fn independent_bets_add_their_moments_per_kind_and_in_total() {
        let unit = UnitMoments {
            standard_deviation: 2.0,
            third_moment: 3.0,
        };
        let mut sum = StatisticsSum::default();
        sum.add("main", 10, 9_900, unit);
        sum.add("main", 20, 19_800, unit);
        sum.add("pairs", 5, 4_500, unit);
        let s = sum.finish();
        // main: variance (2·10)² + (2·20)² = 400 + 1600 = 2000; third 3·10³ + 3·20³ = 27 000.
        assert_eq!(s.by_kind[0].kind, "main");
        assert_eq!(s.by_kind[0].stakes_h, 30);
        assert_eq!(s.by_kind[0].expected_payout_mh, 29_700);
        assert_eq!(s.by_kind[0].variance_h2, 2000.0);
        assert_eq!(s.by_kind[0].third_moment_h3, 27_000.0);
        // Total adds pairs: variance + (2·5)² = 2100; third + 3·125 = 27 375.
        assert_eq!(s.rtp_stakes_h, 35);
        assert_eq!(s.expected_payout_mh, 34_200);
        assert_eq!(s.payout_variance_h2, 2100.0);
        assert_eq!(s.payout_third_moment_h3, 27_375.0);
    }
}
