//! Pure re-adjudication of live-game rounds against a herní plán.
//!
//! No I/O, no clock, no randomness: a round record and a plan go in, a [`Verdict`] comes out.
//! Plan parameters are data ([`plan`]); game mechanics are code, one module per game.

pub mod blackjack;
pub mod cards;
pub mod error;
pub mod hand_rank;
pub mod money;
pub mod plan;
pub mod ratio;
pub mod record;
pub mod roulette;
pub mod rtp;
pub mod uth;
pub mod verdict;

pub use error::{PlanError, RecordError};
pub use plan::{Plan, PlanBook};
pub use record::{GameCode, RecordHeader, Round};
pub use verdict::{Finding, FindingKind, RoundStatistics, Verdict};

/// Version of the adjudication rules. Stored with every verdict so that a corrected rule can
/// re-run history and show what changed.
pub const RULES_VERSION: &str = "2026.11.1";

/// Re-adjudicates a parsed round against `plan`.
pub fn adjudicate<'a>(plan: &'a Plan, round: &'a Round) -> Result<Verdict<'a>, RecordError> {
    match round {
        Round::Roulette(r) => roulette::adjudicate(plan.roulette()?, plan, r),
        Round::Blackjack(r) => blackjack::adjudicate(plan.blackjack()?, plan, r),
        Round::UltimateTexasHoldem(r) => uth::adjudicate(plan.ultimate_texas_holdem()?, plan, r),
    }
}

/// Theoretical expectation and variance of what the round pays out, for RTP reports.
pub fn round_statistics(plan: &Plan, round: &Round) -> Result<RoundStatistics, RecordError> {
    match round {
        Round::Roulette(r) => Ok(roulette::round_statistics(plan.roulette()?, r)),
        Round::Blackjack(r) => Ok(blackjack::round_statistics(
            plan.blackjack()?,
            plan.theoretical.blackjack.as_ref(),
            r,
        )),
        Round::UltimateTexasHoldem(r) => Ok(uth::round_statistics(
            plan.theoretical.ultimate_texas_holdem.as_ref(),
            r,
        )),
    }
}
