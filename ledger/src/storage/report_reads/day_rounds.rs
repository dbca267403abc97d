//! The entries of one game's rounds over a span: for audits that follow a table across rounds
//! (a blackjack shoe, an OFC table's fantasy land), which a round's own verdict cannot.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Binary, Bool, Text, Timestamptz};

use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// A round's entry as stored, and whether it was played in the day asked about.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct RoundEntry {
    #[diesel(sql_type = Binary)]
    pub entry: Vec<u8>,
    #[diesel(sql_type = Bool)]
    pub in_day: bool,
}

/// The entries of every `game` round played in `[from, end)`, each with whether it was played
/// at or after `day_start`.
pub fn game_rounds(
    conn: &mut PgConnection,
    cut: LedgerCut,
    game: &str,
    from: DateTime<Utc>,
    day_start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<RoundEntry>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT e.entry, a.played_at >= $2 AS in_day \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE a.game = $4 AND a.played_at >= $1 AND a.played_at < $3 \
           AND a.ledger_index < $5",
    )
    .bind::<Timestamptz, _>(from)
    .bind::<Timestamptz, _>(day_start)
    .bind::<Timestamptz, _>(end)
    .bind::<Text, _>(game)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
