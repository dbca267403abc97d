//! The period audit's reads: the stations' operation records, and the rounds played in and
//! outside their tables' operating periods.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Binary, Text, Timestamptz};

use super::round_sums::{PlayedSpan, PLAYED_WITHIN};
use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// An operation record's entry as stored.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct OperationEntry {
    #[diesel(sql_type = BigInt)]
    pub idx: i64,
    #[diesel(sql_type = Text)]
    pub record_type: String,
    #[diesel(sql_type = Binary)]
    pub entry: Vec<u8>,
}

/// Every operation record's entry (`rules::operations::OPERATION_TYPES`), in each station's
/// sequence order.
pub fn operation_entries(
    conn: &mut PgConnection,
    cut: LedgerCut,
) -> Result<Vec<OperationEntry>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT idx, record_type, entry FROM ledger_entries WHERE record_type = ANY($1) \
           AND idx < $2 \
         ORDER BY table_id, seq_no",
    )
    .bind::<Array<Text>, _>(rules::operations::OPERATION_TYPES.to_vec())
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}

/// Table periods, each its table and the time it covers (an open one reaches on).
#[derive(Debug, Clone, Copy)]
pub struct PeriodSpans<'a> {
    pub table_ids: &'a [String],
    pub from: &'a [DateTime<Utc>],
    /// Inclusive.
    pub to: &'a [DateTime<Utc>],
}

/// The rounds of one period.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct PeriodRounds {
    /// The period's position in the spans, from 1.
    #[diesel(sql_type = BigInt)]
    pub i: i64,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    /// Those played in the window asked for.
    #[diesel(sql_type = BigInt)]
    pub in_window: i64,
    #[diesel(sql_type = BigInt)]
    pub stakes_h: i64,
    #[diesel(sql_type = BigInt)]
    pub returned_h: i64,
    #[diesel(sql_type = BigInt)]
    pub payouts_h: i64,
    /// The most one played round paid.
    #[diesel(sql_type = BigInt)]
    pub max_payout_h: i64,
}

/// The rounds of each period of `spans` played from `lowest` on (no period starts earlier),
/// with how many of them were played in `[start, end)`; periods without rounds are absent.
pub fn period_rounds(
    conn: &mut PgConnection,
    cut: LedgerCut,
    spans: PeriodSpans<'_>,
    lowest: DateTime<Utc>,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<PeriodRounds>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT p.i, count(*)::bigint AS rounds, \
                count(*) FILTER (WHERE a.played_at >= $5 AND a.played_at < $6)::bigint AS in_window, \
                coalesce(sum(a.stakes_h), 0)::bigint AS stakes_h, \
                coalesce(sum(a.paid_h) FILTER (WHERE a.void), 0)::bigint AS returned_h, \
                coalesce(sum(a.paid_h) FILTER (WHERE NOT a.void), 0)::bigint AS payouts_h, \
                coalesce(max(a.paid_h) FILTER (WHERE NOT a.void), 0)::bigint AS max_payout_h \
         FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS p(table_id, f, t, i) \
         JOIN adjudications a ON a.table_id = p.table_id AND a.played_at >= p.f AND a.played_at <= p.t \
         WHERE a.played_at >= $4 AND a.ledger_index < $7 \
         GROUP BY p.i",
    )
    .bind::<Array<Text>, _>(spans.table_ids)
    .bind::<Array<Timestamptz>, _>(spans.from)
    .bind::<Array<Timestamptz>, _>(spans.to)
    .bind::<Timestamptz, _>(lowest)
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}

/// How many rounds a table played.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct TableRounds {
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
}

/// The rounds each table played in `[start, end)`, by table id; tournaments, which are their
/// own periods, are not counted.
pub fn rounds_per_table(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<TableRounds>, LedgerError> {
    let sql = format!(
        "SELECT a.table_id, count(*)::bigint AS rounds FROM adjudications a \
         WHERE {PLAYED_WITHIN} AND a.game <> 'poker_tournament' \
         GROUP BY a.table_id ORDER BY a.table_id"
    );
    Ok(PlayedSpan { cut, start, end }.query(sql).load(conn)?)
}

/// A round and when it was played.
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct RoundAt {
    #[diesel(sql_type = BigInt)]
    pub ledger_index: i64,
    #[diesel(sql_type = Timestamptz)]
    pub played_at: DateTime<Utc>,
}

/// The first `limit` rounds `table_id` played in `[start, end)` outside every one of its
/// periods (`from`, `to` inclusive), oldest first.
pub fn first_rounds_outside(
    conn: &mut PgConnection,
    cut: LedgerCut,
    table_id: &str,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    (from, to): (&[DateTime<Utc>], &[DateTime<Utc>]),
    limit: i64,
) -> Result<Vec<RoundAt>, LedgerError> {
    let sql = format!(
        "SELECT a.ledger_index, a.played_at FROM adjudications a \
         WHERE {PLAYED_WITHIN} AND a.table_id = $4 \
           AND NOT EXISTS (SELECT 1 FROM unnest($5::timestamptz[], $6::timestamptz[]) AS p(f, t) \
                           WHERE a.played_at >= p.f AND a.played_at <= p.t) \
         ORDER BY a.played_at, a.ledger_index LIMIT $7"
    );
    Ok(PlayedSpan { cut, start, end }
        .query(sql)
        .bind::<Text, _>(table_id)
        .bind::<Array<Timestamptz>, _>(from)
        .bind::<Array<Timestamptz>, _>(to)
        .bind::<BigInt, _>(limit)
        .load(conn)?)
}
