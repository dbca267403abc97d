//! Pure re-adjudication of live-game rounds against a herní plán.
//!
//! No I/O, no clock, no randomness: a round record and a plan go in, a [`Verdict`] comes out.
//! Plan parameters are data ([`plan`]); game mechanics are code, one module per game.

pub mod blackjack;
pub mod cards;
pub mod error;
pub mod game;
pub mod gaming_day;
pub mod hand_rank;
pub mod money;
pub mod money_wheel;
pub mod ofc;
pub mod operations;
pub mod plan;
pub mod plan_lint;
pub mod poker_cash;
pub mod ratio;
pub mod record;
pub mod roulette;
pub mod round_header;
pub mod rtp;
pub mod statistics;
pub mod string_limits;
pub mod table_audit;
pub mod table_limits;
#[cfg(test)]
mod test_support;
pub mod tournament;
pub mod uth;
pub mod verdict;
pub mod void_hand;

pub use error::{PlanError, RecordError};
pub use game::{Game, GameRecord, TableSetup};
pub use plan::{Plan, PlanBook};
pub use record::{is_adjudicated, GameCode, RecordHeader, Round, RoundType};
pub use statistics::{KindStatistics, RoundStatistics, UnitMoments};
pub use table_limits::TableLimits;
pub use verdict::{Finding, FindingKind, Verdict};

/// Version of the adjudication rules. Stored with every verdict so that a corrected rule can
/// re-run history and show what changed.
pub const RULES_VERSION: &str = "2026.11.5";

/// Re-adjudicates a parsed round against `plan`.
pub fn adjudicate<'a>(plan: &'a Plan, round: &'a Round) -> Result<Verdict<'a>, RecordError> {
    adjudicate_at(plan, &TableSetup::NONE, round)
}

/// Re-adjudicates a parsed round against `plan` on a table set up as `setup`.
pub fn adjudicate_at<'a>(
    plan: &'a Plan,
    setup: &'a TableSetup,
    round: &'a Round,
) -> Result<Verdict<'a>, RecordError> {
    let game = round.as_game();
    let judged = match game.check_possible() {
        Ok(()) => game.adjudicate(plan, setup),
        Err(e) => Err(e),
    };
    if let Err(RecordError::Impossible { field, reason }) = &judged {
        return Ok(Verdict::impossible(plan, game, field, reason));
    }
    judged
}

/// Theoretical expectation and variance of what the round pays out, for RTP reports.
pub fn round_statistics(plan: &Plan, round: &Round) -> Result<RoundStatistics, RecordError> {
    round_statistics_at(plan, &TableSetup::NONE, round)
}

/// [`round_statistics`] on a table set up as `setup`.
pub fn round_statistics_at(
    plan: &Plan,
    setup: &TableSetup,
    round: &Round,
) -> Result<RoundStatistics, RecordError> {
    let game = round.as_game();
    // A round that cannot have happened is not priced.
    match game
        .check_possible()
        .and_then(|()| game.statistics(plan, setup))
    {
        Err(RecordError::Impossible { .. }) => Ok(RoundStatistics::default()),
        figures => figures,
    }
}
