//! The gaming tables reports list, from their registration rows.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, Nullable, Text, Timestamptz};

use crate::LedgerError;

/// A gaming table and its game.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct TableGame {
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub game: String,
}

/// Tables (cages are not) registered before `before`, narrowed to `game` and `table_id` when
/// given: a report has a row for each, played or not.
pub fn registered_before(
    conn: &mut PgConnection,
    before: DateTime<Utc>,
    game: Option<&str>,
    table_id: Option<&str>,
) -> Result<Vec<TableGame>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT game, table_id FROM gaming_tables \
         WHERE registered_at < $1 AND game <> 'cage' \
           AND ($2::text IS NULL OR game = $2) AND ($3::text IS NULL OR table_id = $3)",
    )
    .bind::<Timestamptz, _>(before)
    .bind::<Nullable<Text>, _>(game)
    .bind::<Nullable<Text>, _>(table_id)
    .load(conn)?)
}

/// Every registered station (tables and cages) with its game.
pub fn all(conn: &mut PgConnection) -> Result<Vec<TableGame>, LedgerError> {
    Ok(diesel::sql_query("SELECT table_id, game FROM gaming_tables").load(conn)?)
}

/// A station with its game and plan.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct Station {
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub plan_id: String,
}

/// The registered stations among `table_ids`, by table id.
pub fn stations(
    conn: &mut PgConnection,
    table_ids: &[String],
) -> Result<Vec<Station>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT table_id, game, plan_id FROM gaming_tables WHERE table_id = ANY($1) ORDER BY table_id",
    )
    .bind::<Array<Text>, _>(table_ids)
    .load(conn)?)
}
