//! Pure re-adjudication of live-game rounds against a herní plán.
//!
//! No I/O, no clock, no randomness: a round record and a plan go in, a [`Verdict`] comes out.
//! Plan parameters are data ([`plan`]); game mechanics are code, one module per game.

pub mod blackjack;
pub mod cards;
pub mod error;
pub mod hand_rank;
pub mod money;
pub mod money_wheel;
pub mod ofc;
pub mod plan;
pub mod plan_lint;
pub mod poker_cash;
pub mod ratio;
pub mod record;
pub mod roulette;
pub mod rtp;
pub mod string_limits;
pub mod tournament;
pub mod uth;
pub mod verdict;

pub use error::{PlanError, RecordError};
pub use plan::{Plan, PlanBook};
pub use record::{is_adjudicated, GameCode, RecordHeader, Round, RoundType};
pub use verdict::{Finding, FindingKind, RoundStatistics, Verdict};

/// Version of the adjudication rules. Stored with every verdict so that a corrected rule can
/// re-run history and show what changed.
pub const RULES_VERSION: &str = "2026.11.1";

/// What adjudication needs from a table's registration besides the plan: a money wheel's
/// segment order (the plan gives only the counts).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSetup {
    pub wheel_layout: Option<money_wheel::WheelLayout>,
}

impl TableSetup {
    /// Nothing beyond the plan: enough for every game but the money wheels.
    pub const NONE: TableSetup = TableSetup { wheel_layout: None };

    /// The setup of a table playing `game` under `plan` from its registration: a money wheel's
    /// layout is checked against the plan again (the plan may have changed since).
    pub fn for_table(
        plan: &Plan,
        game: GameCode,
        wheel_layout: Option<&[String]>,
    ) -> Result<TableSetup, RecordError> {
        let wheel_layout = match (plan.wheel(game), wheel_layout) {
            (Ok(wheel), Some(labels)) => {
                Some(money_wheel::WheelLayout::new(wheel, labels.to_vec())?)
            }
            _ => None,
        };
        Ok(TableSetup { wheel_layout })
    }

    fn wheel_layout(&self) -> Result<&money_wheel::WheelLayout, RecordError> {
        self.wheel_layout.as_ref().ok_or_else(|| {
            RecordError::invalid(
                "table",
                "the wheel's segment layout is not known for this table",
            )
        })
    }
}

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
    match round {
        Round::Roulette(r) => roulette::adjudicate(plan.roulette()?, plan, r),
        Round::Blackjack(r) => blackjack::adjudicate(plan.blackjack()?, plan, r),
        Round::UltimateTexasHoldem(r) => uth::adjudicate(plan.ultimate_texas_holdem()?, plan, r),
        Round::MoneyWheel(r) => {
            money_wheel::adjudicate(plan.wheel(r.game)?, plan, setup.wheel_layout()?, r)
        }
        Round::PokerCash(r) => poker_cash::adjudicate(plan.poker_cash()?, plan, r),
        Round::TimeCollection(r) => {
            poker_cash::time_collection_adjudicate(plan.poker_cash()?, plan, r)
        }
        Round::OpenFaceChinese(r) => ofc::adjudicate(plan.open_face_chinese()?, plan, r),
        Round::Tournament(r) => tournament::adjudicate(plan.poker_tournament()?, plan, r),
    }
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
    match round {
        Round::MoneyWheel(r) => Ok(money_wheel::round_statistics(
            plan.wheel(r.game)?,
            setup.wheel_layout()?,
            r,
        )),
        // Players play each other: there is no return to player, the casino's revenue is the
        // rake (stakes − payouts in the daily report).
        Round::PokerCash(_)
        | Round::TimeCollection(_)
        | Round::OpenFaceChinese(_)
        | Round::Tournament(_) => Ok(RoundStatistics::default()),
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
