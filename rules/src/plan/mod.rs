//! Plan parameters as data: one TOML file per herní plán (see `rules/plans/`).
//!
//! Modules of the crate import from the submodule defining an item; the re-exports below are
//! the public paths (`rules::plan::…`).

pub mod book;
pub mod document;
pub mod odds;
pub mod poker;
mod read;
pub mod table_games;

pub use book::{PlanBook, DEFAULT_PLAN};
pub use document::Plan;
pub use odds::{HandPayTable, Odds, StatedPayTable};
pub use poker::{
    rank_of_letter, EqualRows, FeeBase, OfcPlan, PayoutColumn, PokerCashPlan, RakeCap,
    RakeCapCounts, RoyaltyTable, StatedFeeBase, TimeCollectionPer, TournamentPlan,
};
pub use table_games::{
    BlackjackPlan, DealerBlackjackTakes, PerfectPairsPlan, RouletteOdds, RoulettePlan, TripsOnFold,
    UltimateTexasHoldemPlan, WheelBox, WheelMaxBetPer, WheelPlan,
};

/// The bundled plan, for tests.
#[cfg(test)]
pub(crate) fn bundled_plan() -> Plan {
    PlanBook::builtin()
        .ok()
        .and_then(|book| book.get("69games-ziva-hra").cloned())
        .unwrap_or_else(|| panic!("the bundled plan loads"))
}

#[cfg(test)]
mod tests;
