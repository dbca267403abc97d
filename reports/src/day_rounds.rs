//! The rounds of one game around a gaming day, parsed from their ledger entries: for audits that
//! follow a table across rounds (a blackjack shoe, an OFC table's fantasy land), which a round's
//! own verdict cannot.

use chrono::NaiveDate;
use diesel::sql_types::{Binary, Bool, Text, Timestamptz};
use diesel::{PgConnection, QueryableByName, RunQueryDsl as _};
use rules::{GameCode, Round};

use crate::{GamingDayClock, ReportError};

#[derive(QueryableByName)]
struct EntryBytes {
    #[diesel(sql_type = Binary)]
    entry: Vec<u8>,
    #[diesel(sql_type = Bool)]
    in_day: bool,
}

/// Every `game` round played from the start of the gaming day before `day` to the end of `day`,
/// each with whether it was played in `day` itself.
pub(crate) fn rounds_with_lookback(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    game: GameCode,
) -> Result<Vec<(Round, bool)>, ReportError> {
    let (start, end) = clock.bounds(day);
    let lookback = clock.bounds(day.pred_opt().unwrap_or(day)).0;
    let entries: Vec<EntryBytes> = diesel::sql_query(
        "SELECT e.entry, a.played_at >= $2 AS in_day \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE a.game = $4 AND a.played_at >= $1 AND a.played_at < $3",
    )
    .bind::<Timestamptz, _>(lookback)
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Text, _>(game.as_str())
    .load(conn)?;
    // Every round here was accepted by ingest, so it parses; anything else is skipped.
    Ok(entries
        .iter()
        .filter_map(|e| {
            let entry = serde_json::from_slice::<serde_json::Value>(&e.entry).ok()?;
            let round = Round::parse(&entry["envelope"]["record"]).ok()?;
            Some((round, e.in_day))
        })
        .collect())
}
