//! The monthly payout/RTP report's figures: a month's rounds per gaming day, game and table,
//! its bets per kind, its findings and the tables it lists.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Double, Integer, Text, Timestamptz};

use super::findings::FindingAggregate;
use super::round_sums::{
    round_totals, Narrowing, PlayedSpan, RoundCounts, RtpMoments, PLAYED_WITHIN, RTP_MOMENTS,
};
use super::tables::TableGame;
use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// One table's rounds of one gaming day.
#[derive(QueryableByName, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DayAggregate {
    /// Which day (1-based) of the bounds the rounds were played in.
    #[diesel(sql_type = Integer)]
    pub day_index: i32,
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
    /// Rounds, void rounds, every stake and the stakes handed back on void rounds.
    #[diesel(embed)]
    #[serde(flatten)]
    pub counts: RoundCounts,
    #[diesel(sql_type = BigInt)]
    pub payouts_h: i64,
    /// Rounds with a theory (stakes the RTP figures cover), and their moments.
    #[diesel(sql_type = BigInt)]
    pub theory_rounds: i64,
    /// The stakes a theory covers and the moments of their payout.
    #[diesel(embed)]
    #[serde(flatten)]
    pub moments: RtpMoments,
    #[diesel(sql_type = Double)]
    #[serde(with = "crate::storage::report_reads::exact_f64")]
    pub third_moment_h3: f64,
}

/// One bet kind of one table over the month.
#[derive(QueryableByName, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KindAggregate {
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub bets: i64,
    #[diesel(sql_type = BigInt)]
    pub stakes_h: i64,
    #[diesel(sql_type = BigInt)]
    pub paid_h: i64,
    #[diesel(sql_type = BigInt)]
    pub expected_payout_mh: i64,
    #[diesel(sql_type = Double)]
    #[serde(with = "crate::storage::report_reads::exact_f64")]
    pub variance_h2: f64,
    #[diesel(sql_type = Double)]
    #[serde(with = "crate::storage::report_reads::exact_f64")]
    pub third_moment_h3: f64,
}

/// Everything the monthly report reads, in one transaction.
#[derive(Debug, Clone, Default)]
pub struct MonthFigures {
    pub days: Vec<DayAggregate>,
    pub kinds: Vec<KindAggregate>,
    pub findings: Vec<FindingAggregate>,
    /// The tables registered before the end (a row each, played or not).
    pub tables: Vec<TableGame>,
}

impl DayAggregate {
    /// Adds another part of the same table's day (its archived rounds, say).
    pub(super) fn absorb(&mut self, o: &DayAggregate) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.counts.absorb_with(&o.counts, sum)?;
        self.payouts_h = sum(self.payouts_h, o.payouts_h)?;
        self.theory_rounds = sum(self.theory_rounds, o.theory_rounds)?;
        self.moments.absorb_with(&o.moments, sum)?;
        self.third_moment_h3 += o.third_moment_h3;
        Ok(())
    }
}

impl KindAggregate {
    /// Adds the same kind's figures of other rounds of the table.
    pub(super) fn absorb(&mut self, o: &KindAggregate) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.rounds = sum(self.rounds, o.rounds)?;
        self.bets = sum(self.bets, o.bets)?;
        self.stakes_h = sum(self.stakes_h, o.stakes_h)?;
        self.paid_h = sum(self.paid_h, o.paid_h)?;
        self.expected_payout_mh = sum(self.expected_payout_mh, o.expected_payout_mh)?;
        self.variance_h2 += o.variance_h2;
        self.third_moment_h3 += o.third_moment_h3;
        Ok(())
    }
}

/// The figures of the rounds the ledger holds of the gaming days whose starts are `bounds` (and
/// the last one's end), narrowed by `only` (the kept figures of archived days are added by
/// [`super::with_archived::month`]).
pub fn month_live(
    conn: &mut PgConnection,
    cut: LedgerCut,
    bounds: &[DateTime<Utc>],
    only: Narrowing<'_>,
) -> Result<MonthFigures, LedgerError> {
    let (Some(&start), Some(&end)) = (bounds.first(), bounds.last()) else {
        return Ok(MonthFigures::default());
    };
    let span = PlayedSpan { cut, start, end };
    // The groups are few (tables × days, tables × kinds) but the planner, before statistics
    // catch up with a busy table, may expect millions and sort a month of rows to group them;
    // hashing is right for every size here (it spills to disk if it must).
    conn.transaction(|conn| {
        diesel::sql_query("SET LOCAL enable_sort = off").execute(conn)?;
        // Compiling these queries (JIT) costs more than it saves on a month of rounds.
        diesel::sql_query("SET LOCAL jit = off").execute(conn)?;
        let days = format!(
            "SELECT width_bucket(a.played_at, $6::timestamptz[]) AS day_index, a.game, a.table_id, \
                    {}, \
                    count(*) FILTER (WHERE a.rtp_stakes_h > 0)::bigint AS theory_rounds, \
                    {RTP_MOMENTS}, \
                    coalesce(sum(a.payout_third_moment_h3) FILTER (WHERE a.rtp_stakes_h > 0), 0)::float8 \
                        AS third_moment_h3 \
             FROM adjudications a \
             WHERE {PLAYED_WITHIN} AND {} \
             GROUP BY 1, 2, 3",
            round_totals("payouts_h"),
            Narrowing::SQL,
        );
        let days: Vec<DayAggregate> = only
            .bind(span.query(days))
            .bind::<Array<Timestamptz>, _>(bounds)
            .load(conn)?;
        let kinds = format!(
            // A verdict keeps its kinds' figures as arrays, an element per kind, in the same
            // order: the names are unnested (with their position) and the figures subscripted,
            // the cheapest of the forms measured (docs/PERFORMANCE.md).
            "SELECT a.game, a.table_id, k.kind, count(*)::bigint AS rounds, \
                    sum(a.kind_bets[k.i])::bigint AS bets, \
                    sum(a.kind_stakes_h[k.i])::bigint AS stakes_h, \
                    sum(a.kind_paid_h[k.i])::bigint AS paid_h, \
                    sum(a.kind_expected_payout_mh[k.i])::bigint AS expected_payout_mh, \
                    sum(a.kind_variance_h2[k.i])::float8 AS variance_h2, \
                    sum(a.kind_third_moment_h3[k.i])::float8 AS third_moment_h3 \
             FROM adjudications a \
             CROSS JOIN LATERAL unnest(a.kind_names) WITH ORDINALITY AS k(kind, i) \
             WHERE {PLAYED_WITHIN} AND {} \
             GROUP BY 1, 2, 3",
            Narrowing::SQL,
        );
        let kinds: Vec<KindAggregate> = only.bind(span.query(kinds)).load(conn)?;
        let (game, table_id) = (only.game, only.table_id);
        let findings = super::findings::aggregate(conn, cut, bounds, game, table_id)?;
        let tables = super::tables::registered_before(conn, end, game, table_id)?;
        Ok(MonthFigures {
            days,
            kinds,
            findings,
            tables,
        })
    })
}
