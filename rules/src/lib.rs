//! Pure re-adjudication of live-game rounds against a herní plán.
//!
//! No I/O, no clock, no randomness: a round record and a plan go in, a [`Verdict`] comes out.
//! Plan parameters are data ([`plan`]); game mechanics are code, one module per game.
//!
//! Place in the map (docs/ARCHITECTURE.md): the bottom; it imports no crate of dozor's, and every
//! other crate that judges, deals or reads a record builds on it.

mod adjudication;
pub mod bet_kinds;
pub mod blackjack;
pub mod cards;
pub mod error;
pub mod examined;
pub mod game;
pub mod gaming_day;
pub mod hand_rank;
pub mod messages;
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
pub mod spreadsheet;
pub mod statistics;
pub mod string_limits;
pub mod table_audit;
pub mod table_limits;
#[cfg(test)]
mod test_support;
pub mod tournament;
pub mod uth;
pub mod verdict;
mod version;
pub mod void_hand;

pub use adjudication::{
    adjudicate, adjudicate_at, round_statistics, round_statistics_at, round_totals_at,
};
pub use error::{PlanError, RecordError};
pub use game::{Game, GameRecord, TableSetup};
pub use plan::{Plan, PlanBook};
pub use record::{is_adjudicated, GameCode, RecordHeader, Round, RoundType};
pub use statistics::{KindStatistics, RoundStatistics, UnitMoments};
pub use table_limits::TableLimits;
pub use verdict::{Finding, FindingKind, Verdict};
pub use version::RULES_VERSION;
