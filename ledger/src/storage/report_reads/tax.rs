//! The gambling tax's figures: every adjudicated record of a span, summed per game.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamptz};

use super::round_sums::{
    played_within, round_totals, RoundCounts, TournamentSums, TOURNAMENT_SUMS,
};
use crate::storage::read_cut::LedgerCut;
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

/// Every adjudicated record the ledger holds that was played in `[start, end)`, summed per game
/// (the kept figures of archived days are added by [`super::with_archived::game_totals`]).
pub fn game_totals_live(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<GameTotals>, LedgerError> {
    Ok(diesel::sql_query(format!(
        "SELECT a.game, {}, \
                coalesce(sum(a.stakes_h - a.paid_h) FILTER (WHERE NOT a.void \
                    AND a.game = 'poker_cash' AND a.time_collection), 0)::bigint \
                    AS time_collection_h, \
                {TOURNAMENT_SUMS} \
         FROM adjudications a \
         WHERE {} \
         GROUP BY a.game",
        round_totals("wins_h"),
        played_within(3),
    ))
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
