//! The monitor's own figures: per gaming day and game, the rounds it judged and their money,
//! with the theoretical figures RTP is computed from. Money in haléře, added with overflow
//! checked.

use std::collections::BTreeMap;

use chrono::NaiveDate;

/// The figures of one gaming day and game (or of a bundle's part of them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub rounds: i64,
    /// Rounds the monitor could not judge (a plan it does not hold, a record the rules do not
    /// read); their money is not in the sums below.
    pub unjudged_rounds: i64,
    pub void_rounds: i64,
    pub stakes_h: i64,
    pub paid_h: i64,
    /// What void rounds paid back (part of `paid_h`): not a payout for RTP.
    pub returned_h: i64,
    pub expected_paid_h: i64,
    /// Stakes that count for RTP, and their expected payout in milli-haléře.
    pub rtp_stakes_h: i64,
    pub expected_payout_mh: i64,
    /// The payout's variance in h² (a statistic, not money).
    pub payout_variance_h2: f64,
    /// The payout's third central moment in h³ (a statistic).
    pub payout_third_moment_h3: f64,
    /// The monitor's own findings, and the sum of their amounts.
    pub findings: i64,
    pub findings_amount_h: i64,
}

/// A judged round's part of a tally.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RoundFigures {
    pub void: bool,
    pub stakes_h: i64,
    pub paid_h: i64,
    pub expected_paid_h: i64,
    pub rtp_stakes_h: i64,
    pub expected_payout_mh: i64,
    pub payout_variance_h2: f64,
    pub payout_third_moment_h3: f64,
    pub findings: i64,
    pub findings_amount_h: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the sums of {game} on {day} overflow")]
pub struct Overflow {
    pub day: NaiveDate,
    pub game: String,
}

fn add(total: &mut i64, amount: i64) -> Option<()> {
    *total = total.checked_add(amount)?;
    Some(())
}

impl Tally {
    /// Adds another tally of the same day and game.
    fn absorb(&mut self, other: &Tally) -> Option<()> {
        add(&mut self.rounds, other.rounds)?;
        add(&mut self.unjudged_rounds, other.unjudged_rounds)?;
        add(&mut self.void_rounds, other.void_rounds)?;
        add(&mut self.stakes_h, other.stakes_h)?;
        add(&mut self.paid_h, other.paid_h)?;
        add(&mut self.returned_h, other.returned_h)?;
        add(&mut self.expected_paid_h, other.expected_paid_h)?;
        add(&mut self.rtp_stakes_h, other.rtp_stakes_h)?;
        add(&mut self.expected_payout_mh, other.expected_payout_mh)?;
        self.payout_variance_h2 += other.payout_variance_h2;
        self.payout_third_moment_h3 += other.payout_third_moment_h3;
        add(&mut self.findings, other.findings)?;
        add(&mut self.findings_amount_h, other.findings_amount_h)
    }

    /// Adds a judged round (`Some`) or one the monitor could not judge (`None`).
    fn add_round(&mut self, figures: Option<&RoundFigures>) -> Option<()> {
        add(&mut self.rounds, 1)?;
        let Some(f) = figures else {
            return add(&mut self.unjudged_rounds, 1);
        };
        add(&mut self.void_rounds, i64::from(f.void))?;
        add(&mut self.stakes_h, f.stakes_h)?;
        add(&mut self.paid_h, f.paid_h)?;
        if f.void {
            add(&mut self.returned_h, f.paid_h)?;
        }
        add(&mut self.expected_paid_h, f.expected_paid_h)?;
        add(&mut self.rtp_stakes_h, f.rtp_stakes_h)?;
        add(&mut self.expected_payout_mh, f.expected_payout_mh)?;
        self.payout_variance_h2 += f.payout_variance_h2;
        self.payout_third_moment_h3 += f.payout_third_moment_h3;
        add(&mut self.findings, f.findings)?;
        add(&mut self.findings_amount_h, f.findings_amount_h)
    }
}

/// Tallies by (gaming day, game code).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tallies(pub BTreeMap<(NaiveDate, String), Tally>);

impl Tallies {
    pub fn add(
        &mut self,
        day: NaiveDate,
        game: &str,
        figures: Option<&RoundFigures>,
    ) -> Result<(), Overflow> {
        self.0
            .entry((day, game.to_owned()))
            .or_default()
            .add_round(figures)
            .ok_or_else(|| Overflow {
                day,
                game: game.to_owned(),
            })
    }

    /// Adds the tallies of later rounds.
    pub fn absorb(&mut self, later: Tallies) -> Result<(), Overflow> {
        for ((day, game), tally) in later.0 {
            let held = self.0.entry((day, game.clone())).or_default();
            held.absorb(&tally).ok_or(Overflow { day, game })?;
        }
        Ok(())
    }

    pub fn rounds(&self) -> i64 {
        self.0.values().map(|t| t.rounds).sum()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rounds_add_up_by_day_and_game_and_an_overflow_is_refused() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let spin = RoundFigures {
            stakes_h: 10_000,
            paid_h: 360_000,
            expected_paid_h: 360_000,
            rtp_stakes_h: 10_000,
            expected_payout_mh: 9_729_730,
            ..RoundFigures::default()
        };
        let mut tallies = Tallies::default();
        tallies.add(day, "roulette", Some(&spin)).unwrap();
        tallies.add(day, "roulette", Some(&spin)).unwrap();
        tallies.add(day, "roulette", None).unwrap();
        tallies.add(day, "blackjack", None).unwrap();
        let roulette = &tallies.0[&(day, "roulette".to_owned())];
        // Two judged spins of 10 000 h each: 20 000 h staked, 2 × 360 000 h paid; one unjudged.
        assert_eq!((roulette.rounds, roulette.unjudged_rounds), (3, 1));
        assert_eq!((roulette.stakes_h, roulette.paid_h), (20_000, 720_000));
        assert_eq!(roulette.expected_payout_mh, 19_459_460);
        assert_eq!(tallies.rounds(), 4);
        let huge = RoundFigures {
            stakes_h: i64::MAX,
            ..RoundFigures::default()
        };
        assert!(tallies.add(day, "roulette", Some(&huge)).is_err());
    }

    #[test]
    fn what_a_void_round_returns_is_kept_apart_from_payouts() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let void = RoundFigures {
            void: true,
            stakes_h: 10_000,
            paid_h: 10_000,
            ..RoundFigures::default()
        };
        let win = RoundFigures {
            stakes_h: 10_000,
            paid_h: 360_000,
            ..RoundFigures::default()
        };
        let mut tallies = Tallies::default();
        tallies.add(day, "roulette", Some(&void)).unwrap();
        tallies.add(day, "roulette", Some(&win)).unwrap();
        let t = &tallies.0[&(day, "roulette".to_owned())];
        // Paid 10 000 (the void round's stake back) + 360 000; of that, 10 000 returned.
        assert_eq!(
            (t.paid_h, t.returned_h, t.void_rounds),
            (370_000, 10_000, 1)
        );
    }

    #[test]
    fn tallies_added_up_bundle_by_bundle_are_the_tallies_of_all_their_rounds() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let next_day = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let spin = RoundFigures {
            stakes_h: 10_000,
            paid_h: 360_000,
            findings: 1,
            findings_amount_h: 10_000,
            payout_variance_h2: 2.5,
            ..RoundFigures::default()
        };
        let (mut first, mut second, mut all) =
            (Tallies::default(), Tallies::default(), Tallies::default());
        first.add(day, "roulette", Some(&spin)).unwrap();
        second.add(day, "roulette", Some(&spin)).unwrap();
        second.add(next_day, "roulette", Some(&spin)).unwrap();
        for day in [day, day, next_day] {
            all.add(day, "roulette", Some(&spin)).unwrap();
        }
        first.absorb(second).unwrap();
        assert_eq!(first, all);
        // Two spins on the first day: 2 × 360 000 = 720 000 paid, variance 2 × 2.5 = 5.
        let t = &first.0[&(day, "roulette".to_owned())];
        assert_eq!((t.rounds, t.paid_h, t.findings), (2, 720_000, 2));
        assert_eq!(t.payout_variance_h2, 5.0);
        // A sum past i64::MAX is refused.
        let mut huge = Tallies::default();
        let big = RoundFigures {
            stakes_h: i64::MAX,
            ..RoundFigures::default()
        };
        huge.add(day, "roulette", Some(&big)).unwrap();
        let mut more = Tallies::default();
        more.add(day, "roulette", Some(&spin)).unwrap();
        assert!(huge.absorb(more).is_err());
    }
}
