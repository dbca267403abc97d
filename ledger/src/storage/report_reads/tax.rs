//! The gambling tax's figures: every adjudicated record of a span, summed per game.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamptz};

use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// One game's records of a span.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameTotals {
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub void_rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    #[diesel(sql_type = BigInt)]
    pub returned_h: i64,
    /// What was paid on played rounds.
    #[diesel(sql_type = BigInt)]
    pub wins_h: i64,
    /// Poker cash games: what the time collections took.
    #[diesel(sql_type = BigInt)]
    pub time_collection_h: i64,
    /// Tournaments: their fees and the operator's overlay.
    #[diesel(sql_type = BigInt)]
    pub fees_h: i64,
    #[diesel(sql_type = BigInt)]
    pub overlay_h: i64,
}

/// Every adjudicated record played in `[start, end)`, summed per game; the kept figures of
/// archived days inside the span are added to what the ledger still holds of them.
pub fn game_totals(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<GameTotals>, LedgerError> {
    let mut rows = game_totals_live(conn, cut, start, end)?;
    for kept in crate::storage::archived_days::within(conn, cut, start, end)? {
        for k in kept.figures.taxes {
            match rows.iter_mut().find(|r| r.game == k.game) {
                Some(row) => row.absorb(&k)?,
                None => rows.push(k),
            }
        }
    }
    Ok(rows)
}

impl GameTotals {
    fn absorb(&mut self, o: &GameTotals) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.rounds = sum(self.rounds, o.rounds)?;
        self.void_rounds = sum(self.void_rounds, o.void_rounds)?;
        self.stakes_h = sum(self.stakes_h, o.stakes_h)?;
        self.returned_h = sum(self.returned_h, o.returned_h)?;
        self.wins_h = sum(self.wins_h, o.wins_h)?;
        self.time_collection_h = sum(self.time_collection_h, o.time_collection_h)?;
        self.fees_h = sum(self.fees_h, o.fees_h)?;
        self.overlay_h = sum(self.overlay_h, o.overlay_h)?;
        Ok(())
    }
}

/// [`game_totals`] of the rounds the ledger holds (no kept figures).
pub fn game_totals_live(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<GameTotals>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT game, count(*)::bigint AS rounds, \
                count(*) FILTER (WHERE void)::bigint AS void_rounds, \
                coalesce(sum(stakes_h), 0)::bigint AS stakes_h, \
                coalesce(sum(paid_h) FILTER (WHERE void), 0)::bigint AS returned_h, \
                coalesce(sum(paid_h) FILTER (WHERE NOT void), 0)::bigint AS wins_h, \
                coalesce(sum(stakes_h - paid_h) FILTER (WHERE NOT void AND game = 'poker_cash' \
                    AND time_collection), 0)::bigint AS time_collection_h, \
                coalesce(sum(tournament_fee_h) \
                    FILTER (WHERE NOT void AND game = 'poker_tournament'), 0)::bigint AS fees_h, \
                coalesce(sum(tournament_overlay_h) \
                    FILTER (WHERE NOT void AND game = 'poker_tournament'), 0)::bigint AS overlay_h \
         FROM adjudications \
         WHERE played_at >= $1 AND played_at < $2 AND ledger_index < $3 \
         GROUP BY game",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
