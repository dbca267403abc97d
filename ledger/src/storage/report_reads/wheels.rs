//! The wheel statistics' figures: how often each pocket or segment of each wheel came up.

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};

use super::round_sums::{PlayedSpan, PLAYED_WITHIN};
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

/// Every roulette wheel's and money wheel's spins the ledger holds of `span` that stopped on a
/// pocket or segment, counted per table and segment, in that order (the kept figures of archived
/// days are added by [`super::with_archived::segment_counts`]).
pub fn segment_counts_live(
    conn: &mut PgConnection,
    span: PlayedSpan,
) -> Result<Vec<SegmentCount>, LedgerError> {
    let sql = format!(
        "SELECT a.table_id, a.game, t.wheel_layout, a.wheel_result AS segment, \
                count(*) AS spins \
         FROM adjudications a JOIN gaming_tables t ON t.table_id = a.table_id \
         WHERE a.game IN ('roulette', 'money_wheel_1', 'money_wheel_2') \
           AND {PLAYED_WITHIN} AND a.wheel_result IS NOT NULL \
         GROUP BY a.table_id, a.game, t.wheel_layout, segment \
         ORDER BY a.table_id, segment",
    );
    Ok(span.query(sql).load(conn)?)
}
