//! The entry points: a parsed round and its plan in, a verdict or statistics out.

use crate::error::RecordError;
use crate::game::TableSetup;
use crate::plan::Plan;
use crate::record::Round;
use crate::statistics::RoundStatistics;
use crate::verdict::Verdict;

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
