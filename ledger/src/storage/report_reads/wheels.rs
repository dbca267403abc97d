//! The wheel statistics' figures: how often each pocket or segment of each wheel came up.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamptz};

use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// How many spins of a wheel stopped on one pocket (roulette) or segment (money wheel).
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentCount {
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub game: String,
    /// A money wheel's segment labels in physical order.
    #[diesel(sql_type = Nullable<Array<Text>>)]
    pub wheel_layout: Option<Vec<String>>,
    #[diesel(sql_type = Integer)]
    pub segment: i32,
    #[diesel(sql_type = BigInt)]
    pub spins: i64,
}

/// Every roulette wheel's and money wheel's spins the ledger holds in `[start, end)` that stopped
/// on a pocket or segment, counted per table and segment, in that order (the kept figures of
/// archived days are added by [`super::with_archived::segment_counts`]).
pub fn segment_counts_live(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<SegmentCount>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT a.table_id, a.game, t.wheel_layout, a.wheel_result AS segment, \
                count(*) AS spins \
         FROM adjudications a JOIN gaming_tables t ON t.table_id = a.table_id \
         WHERE a.game IN ('roulette', 'money_wheel_1', 'money_wheel_2') \
           AND a.played_at >= $1 AND a.played_at < $2 \
           AND a.wheel_result IS NOT NULL AND a.ledger_index < $3 \
         GROUP BY a.table_id, a.game, t.wheel_layout, segment \
         ORDER BY a.table_id, segment",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
