//! The Ministry's package's reads: the stations active in a month, their tournaments and each
//! game's largest payout per gaming day. (Sealing a package is `storage::packages`.)

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Binary, Bool, Date, Integer, Text, Timestamptz};

use crate::LedgerError;

#[derive(QueryableByName)]
struct ActiveStation {
    #[diesel(sql_type = Text)]
    table_id: String,
}

/// The tables with a round played in `[start, end)`.
pub fn tables_that_played(
    conn: &mut PgConnection,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<String>, LedgerError> {
    let played: Vec<ActiveStation> = diesel::sql_query(
        "SELECT DISTINCT table_id FROM adjudications WHERE played_at >= $1 AND played_at < $2",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .load(conn)?;
    Ok(played.into_iter().map(|s| s.table_id).collect())
}

/// A tournament's entry as stored, with its verdict's money.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct TournamentRow {
    #[diesel(sql_type = Binary)]
    pub entry: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    pub seq_no: i64,
    #[diesel(sql_type = BigInt)]
    pub stakes_h: i64,
    #[diesel(sql_type = BigInt)]
    pub paid_h: i64,
    #[diesel(sql_type = Bool)]
    pub void: bool,
}

/// The tournaments of `stations` played in `[start, end)`, in the order they were played.
pub fn tournaments(
    conn: &mut PgConnection,
    stations: &[String],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<TournamentRow>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT e.entry, e.seq_no, a.stakes_h, a.paid_h, a.void \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE a.game = 'poker_tournament' AND a.played_at >= $1 AND a.played_at < $2 \
           AND a.table_id = ANY($3) \
         ORDER BY a.played_at, a.ledger_index",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Array<Text>, _>(stations)
    .load(conn)?)
}

/// A game's largest payout on one gaming day.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct GameDay {
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Date)]
    pub day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    pub max_payout_h: i64,
}

/// Where gaming days are counted: the zone (an IANA name) and the local hour a day starts.
#[derive(Debug, Clone, Copy)]
pub struct DayClock<'a> {
    pub zone: &'a str,
    pub start_hour: u32,
}

/// The largest payout of each game of `stations` on each gaming day of `[start, end)`, by game
/// and day.
pub fn game_days(
    conn: &mut PgConnection,
    stations: &[String],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    clock: DayClock<'_>,
) -> Result<Vec<GameDay>, LedgerError> {
    let start_hour = i32::try_from(clock.start_hour).map_err(|_| LedgerError::OutOfRange {
        what: "gaming day start hour",
        value: i128::from(clock.start_hour),
    })?;
    Ok(diesel::sql_query(
        "SELECT game, ((played_at AT TIME ZONE $4) - make_interval(hours => $5))::date AS day, \
                coalesce(max(paid_h) FILTER (WHERE NOT void), 0)::bigint AS max_payout_h \
         FROM adjudications \
         WHERE played_at >= $1 AND played_at < $2 AND table_id = ANY($3) \
         GROUP BY 1, 2 ORDER BY 1, 2",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Array<Text>, _>(stations)
    .bind::<Text, _>(clock.zone)
    .bind::<Integer, _>(start_hour)
    .load(conn)?)
}
