//! A spin's theoretical figures over the 37 equally likely pockets, per bet kind and for the
//! whole spin: what every stored verdict carries and every check of the ledger computes again,
//! so they are summed in 64 bits where that is exact (every real spin) and in 128 bits beyond.

use super::call_bets::Chips;
use super::layout::POCKETS;
use super::pricing::{chips_of, payout_per_pocket, position_win, unit_and_total};
use super::record::{RouletteRound, SpinOutcome};
use crate::plan::table_games::RoulettePlan;
use crate::statistics::RoundStatistics;

/// Expected payout, variance and third moment over the 37 equally likely pockets, per bet kind
/// and for the whole spin.
pub fn round_statistics(rp: &RoulettePlan, round: &RouletteRound) -> RoundStatistics {
    let Some(bets) = PricedBets::of(round) else {
        return RoundStatistics::default();
    };
    bets.exact(rp).unwrap_or_else(|| {
        bets.wide(rp, |n, kinds, add| {
            RoundStatistics::over_equally_likely(n, kinds, add)
        })
    })
}

/// [`round_statistics`] without the figures per kind.
pub fn round_totals(rp: &RoulettePlan, round: &RouletteRound) -> RoundStatistics {
    PricedBets::of(round).map_or_else(RoundStatistics::default, |bets| {
        bets.wide(rp, |n, kinds, add| {
            RoundStatistics::totals_over_equally_likely(n, kinds, add)
        })
    })
}

/// How the figures of a round's priced bets over the pockets are made from 128-bit payouts:
/// per kind and in total, or in total only.
type OverPockets = fn(usize, &[(&str, i64)], &dyn Fn(usize, &mut [i128])) -> RoundStatistics;

/// The bets of a spin that have a price: their chips on the layout and unit stake, and their
/// kind and total stake (a bet that does not read is not priced).
struct PricedBets<'r> {
    chips: Vec<(Chips, i64)>,
    kinds: Vec<(&'r str, i64)>,
}

impl<'r> PricedBets<'r> {
    /// The priced bets of a spin that happened (none for a void one).
    fn of(round: &'r RouletteRound) -> Option<Self> {
        if matches!(round.outcome, SpinOutcome::Void { .. }) {
            return None;
        }
        let mut chips = Vec::with_capacity(round.bets.len());
        let mut kinds = Vec::with_capacity(round.bets.len());
        for bet in &round.bets {
            if let Ok(on_layout) = chips_of(bet) {
                if let Ok((unit, total)) = unit_and_total(bet, Some(&on_layout)) {
                    kinds.push((bet.kind.as_str(), total));
                    chips.push((on_layout, unit));
                }
            }
        }
        Some(PricedBets { chips, kinds })
    }

    /// The figures from each bet's payout per pocket (one that overflows 64 bits pays nothing
    /// there), summed in 128 bits.
    fn wide(&self, rp: &RoulettePlan, over: OverPockets) -> RoundStatistics {
        over(POCKETS as usize, &self.kinds, &|b, payouts| {
            let Some((chips, unit)) = self.chips.get(b) else {
                return;
            };
            for (payout, paid) in payouts.iter_mut().zip(payout_per_pocket(chips, *unit, rp)) {
                *payout += i128::from(paid.unwrap_or(0));
            }
        })
    }

    /// [`Self::wide`]'s figures with each position's win added straight to its kind's pockets
    /// in 64 bits, `None` where a win or a sum would leave them (or a unit is negative: the
    /// sums of a bet alone are then not bounded by its kind's).
    fn exact(&self, rp: &RoulettePlan) -> Option<RoundStatistics> {
        RoundStatistics::over_equally_likely_exact(POCKETS as usize, &self.kinds, |b, payouts| {
            let (chips, unit) = self.chips.get(b)?;
            if *unit < 0 {
                return None;
            }
            for (position, count) in chips.as_slice() {
                let win = position_win(*position, *count, *unit, rp)?;
                for number in position.covered() {
                    let payout = payouts.get_mut(usize::from(number))?;
                    *payout = payout.checked_add(win)?;
                }
            }
            Some(())
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use rand::{Rng as _, SeedableRng as _};
    use rand_chacha::ChaCha8Rng;
    use serde_json::{json, Value};

    use super::*;
    use crate::plan::bundled_plan as plan;
    use crate::record::Round;
    use crate::statistics::KindStatistics;

    /// The figures as their bits: equal only if every float is the same bit for bit.
    fn bits(s: &RoundStatistics) -> Vec<(String, [u64; 5])> {
        let kind = |k: &KindStatistics| {
            (
                k.kind.to_string(),
                [
                    k.stakes_h as u64,
                    k.expected_payout_mh as u64,
                    k.variance_h2.to_bits(),
                    k.third_moment_h3.to_bits(),
                    k.bets as u64,
                ],
            )
        };
        let mut all = vec![(
            "round".to_owned(),
            [
                s.rtp_stakes_h as u64,
                s.expected_payout_mh as u64,
                s.payout_variance_h2.to_bits(),
                s.payout_third_moment_h3.to_bits(),
                0,
            ],
        )];
        all.extend(s.by_kind.iter().map(kind));
        all
    }

    fn spin(bets: Vec<Value>, number: u8) -> RouletteRound {
        let record = json!({
            "type": "round", "game": "roulette", "table_id": "R01", "seq_no": 1,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T18:00:00Z",
            "outcome": {"result": "number", "number": number}, "bets": bets
        });
        match Round::parse(&record).unwrap() {
            Round::Roulette(r) => r,
            other => panic!("not roulette: {other:?}"),
        }
    }

    /// A bet of every shape the layout takes, at stakes from a chip to the largest amount.
    fn random_bet(rng: &mut ChaCha8Rng, n: usize, stake: i64) -> Value {
        let id = format!("b{n}");
        let player = format!("seat-{}", rng.gen_range(1..=7));
        let inside: [(&str, &[u8]); 6] = [
            ("straight", &[17]),
            ("split", &[17, 20]),
            ("street", &[16, 17, 18]),
            ("corner", &[16, 17, 19, 20]),
            ("six_line", &[16, 17, 18, 19, 20, 21]),
            ("straight", &[0]),
        ];
        let outside = [
            "red", "black", "odd", "even", "low", "high", "dozen_2", "column_3",
        ];
        let calls = ["zero_spiel", "voisins", "tiers", "orphelins"];
        match rng.gen_range(0..4) {
            0 => {
                let (kind, numbers) = inside[rng.gen_range(0..inside.len())];
                json!({"bet_id": id, "player": player, "kind": kind, "numbers": numbers,
                       "stake_h": stake, "paid_h": 0})
            }
            1 => json!({"bet_id": id, "player": player,
                        "kind": outside[rng.gen_range(0..outside.len())],
                        "stake_h": stake, "paid_h": 0}),
            2 => json!({"bet_id": id, "player": player, "kind": "neighbours",
                        "numbers": [rng.gen_range(0..=36)], "chip_h": stake, "paid_h": 0}),
            _ => json!({"bet_id": id, "player": player,
                        "kind": calls[rng.gen_range(0..calls.len())],
                        "chip_h": stake, "paid_h": 0}),
        }
    }

    #[test]
    fn the_sums_in_64_bits_give_the_figures_of_the_sums_in_128_bits_bit_for_bit() {
        let plan = plan();
        let rp = plan.roulette().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(55);
        let (mut exact, mut wide) = (0, 0);
        for _ in 0..3_000 {
            let count = rng.gen_range(1..=40);
            // Stakes from one haléř to the largest amount a record may carry, whose sums
            // over 40 bets go past what the 64-bit sums take.
            let scale = [
                10_000,
                1_000_000,
                100_000_000_000,
                crate::money::MAX_AMOUNT_H,
            ][rng.gen_range(0..4)];
            let bets = (0..count)
                .map(|n| {
                    let stake = rng.gen_range(1..=scale);
                    random_bet(&mut rng, n, stake)
                })
                .collect();
            let round = spin(bets, rng.gen_range(0..=36));
            let priced = PricedBets::of(&round).unwrap();
            let reference = priced.wide(rp, |n, kinds, add| {
                RoundStatistics::over_equally_likely(n, kinds, add)
            });
            match priced.exact(rp) {
                Some(figures) => {
                    exact += 1;
                    assert_eq!(bits(&figures), bits(&reference), "{round:?}");
                }
                None => wide += 1,
            }
            assert_eq!(bits(&round_statistics(rp, &round)), bits(&reference));
        }
        // Both ways are taken: the comparison above is not vacuous.
        assert!(exact > 2_000 && wide > 100, "{exact} exact, {wide} wide");
    }

    #[test]
    fn a_spin_past_the_exact_bound_is_summed_in_128_bits() {
        // Three straight-ups on 17 at the largest amount, 10¹⁴ h each: 17 pays 3 × 36 × 10¹⁴
        // = 1.08 × 10¹⁶ h, past 2⁵³ (≈ 9.007 × 10¹⁵). The mean over 37 pockets, in mh:
        // 1.08 × 10¹⁶ × 1000 / 37 = 291 891 891 891 891 891.9… → 291 891 891 891 891 891
        // (the product leaves 64 bits too).
        let plan = plan();
        let rp = plan.roulette().unwrap();
        let straight = |id: &str| {
            json!({"bet_id": id, "player": "p", "kind": "straight", "numbers": [17],
                   "stake_h": crate::money::MAX_AMOUNT_H, "paid_h": 0})
        };
        let round = spin(vec![straight("a"), straight("b"), straight("c")], 17);
        assert!(PricedBets::of(&round).unwrap().exact(rp).is_none());
        let s = round_statistics(rp, &round);
        assert_eq!(s.rtp_stakes_h, 300_000_000_000_000);
        assert_eq!(s.expected_payout_mh, 291_891_891_891_891_891);
        assert_eq!(s.by_kind.len(), 1);
        assert_eq!(s.by_kind[0].expected_payout_mh, 291_891_891_891_891_891);
    }
}
