//! Theoretical return to player of each bet kind, computed from the plan's pay tables and the
//! cards — never typed in. Exact fractions where combinatorics give them.
//!
//! Modules of the crate import from the submodule defining an item; the re-exports below are
//! the public paths (`rules::rtp::…`).

pub(crate) mod bets;
pub(crate) mod blackjack_game;
pub(crate) mod figures;
mod plan_figures;
mod threads;
pub(crate) mod uth_game;

pub use bets::{insurance, perfect_pairs, roulette, uth_trips, wheel, BetRtp, SevenCardHands};
pub use blackjack_game::{
    infinite_shoe as blackjack_infinite_shoe, simulate as blackjack_simulate, BasicStrategy,
    BlackjackRules, SimulatedEdge,
};
pub use figures::{
    BlackjackFigures, TheoreticalFigures, UthFigures, UthRules, BLACKJACK_ROUNDS, BLACKJACK_SEED,
};
pub use uth_game::{analyse as uth_base_game, UthBaseGame};
