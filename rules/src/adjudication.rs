//! The entry points: a parsed round and its plan in, a verdict or statistics out.

use crate::error::RecordError;
use crate::game::{Game, TableSetup};
use crate::plan::document::Plan;
use crate::record::Round;
use crate::statistics::RoundStatistics;
use crate::verdict::{Finding, FindingKind, Verdict};

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
    priced(round, |game| game.statistics(plan, setup))
}

/// [`round_statistics_at`] of the round as a whole ([`Game::round_totals`]: `by_kind` may be
/// empty).
pub fn round_totals_at(
    plan: &Plan,
    setup: &TableSetup,
    round: &Round,
) -> Result<RoundStatistics, RecordError> {
    priced(round, |game| game.round_totals(plan, setup))
}

/// The `figures` of a round, none for a round that cannot have happened (it is not priced).
fn priced(
    round: &Round,
    figures: impl FnOnce(&dyn Game) -> Result<RoundStatistics, RecordError>,
) -> Result<RoundStatistics, RecordError> {
    let game = round.as_game();
    match game.check_possible().and_then(|()| figures(game)) {
        Err(RecordError::Impossible { .. }) => Ok(RoundStatistics::default()),
        figures => figures,
    }
}

// Built here, beside its only caller, so that the verdict module needs neither plans nor games.
impl<'a> Verdict<'a> {
    /// The verdict of a round whose record says something that cannot have happened: its money
    /// as reported (no payout is claimed wrong), and one `record_impossible` finding naming it.
    pub fn impossible(
        plan: &'a Plan,
        game: &'a dyn Game,
        field: &str,
        reason: &str,
    ) -> Verdict<'a> {
        let identity = game.identity();
        let (stakes_h, paid_h) = game.reported_totals();
        Verdict {
            stakes_h,
            paid_h,
            expected_paid_h: paid_h,
            findings: vec![Finding::note(
                FindingKind::RecordImpossible,
                format!(
                    "{field}: {reason}. The round cannot have happened as recorded; it is kept as evidence and its settlement is not judged"
                ),
            )],
            ..Verdict::new(&plan.plan_id, identity.game, identity.table_id, identity.seq_no)
        }
    }
}
