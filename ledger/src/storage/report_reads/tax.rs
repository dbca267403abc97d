//! The gambling tax's figures: every adjudicated record of a span, summed per game.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};

use super::round_sums::{
    round_totals, PlayedSpan, RoundCounts, TournamentSums, PLAYED_WITHIN, TOURNAMENT_SUMS,
};
use crate::LedgerError;

/// One game's records of a span.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameTotals {
    #[diesel(sql_type = Text)]
    pub game: String,
    /// Rounds, void rounds, every stake and the stakes handed back on void rounds.
    #[diesel(embed)]
    #[serde(flatten)]
    pub counts: RoundCounts,
    /// What was paid on played rounds.
    #[diesel(sql_type = BigInt)]
    pub wins_h: i64,
    /// Poker cash games: what the time collections took.
    #[diesel(sql_type = BigInt)]
    pub time_collection_h: i64,
    /// Tournaments played (not void): their fees and the operator's overlay.
    #[diesel(embed)]
    #[serde(flatten)]
    pub tournaments: TournamentSums,
}

impl GameTotals {
    /// Adds the same game's figures of other rounds.
    pub(super) fn absorb(&mut self, o: &GameTotals) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.counts.absorb_with(&o.counts, sum)?;
        self.wins_h = sum(self.wins_h, o.wins_h)?;
        self.time_collection_h = sum(self.time_collection_h, o.time_collection_h)?;
        self.tournaments.absorb_with(&o.tournaments, sum)?;
        Ok(())
    }
}

/// Every adjudicated record the ledger holds of `span`, summed per game (the kept figures of
/// archived days are added by [`super::with_archived::game_totals`]).
pub fn game_totals_live(
    conn: &mut PgConnection,
    span: PlayedSpan,
) -> Result<Vec<GameTotals>, LedgerError> {
    let sql = format!(
        "SELECT a.game, {}, \
                coalesce(sum(a.stakes_h - a.paid_h) FILTER (WHERE NOT a.void \
                    AND a.game = 'poker_cash' AND a.time_collection), 0)::bigint \
                    AS time_collection_h, \
                {TOURNAMENT_SUMS} \
         FROM adjudications a \
         WHERE {PLAYED_WITHIN} \
         GROUP BY a.game",
        round_totals("wins_h"),
    );
    Ok(span.query(sql).load(conn)?)
}
