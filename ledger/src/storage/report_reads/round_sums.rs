//! The query pieces the payout reads (daily, monthly, tax) share: the sums each makes of a
//! group of adjudicated rounds (`adjudications` aliased `a`), the span they were played in,
//! and the counts every one of them reads back.

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamptz};

use crate::storage::read_cut::LedgerCut;

/// What [`round_totals`] counts of a group of rounds, besides what played rounds paid.
#[derive(
    QueryableByName,
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct RoundCounts {
    #[diesel(sql_type = BigInt)]
    pub rounds: i64,
    #[diesel(sql_type = BigInt)]
    pub void_rounds: i64,
    /// Every stake, void rounds included.
    #[diesel(sql_type = BigInt)]
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    #[diesel(sql_type = BigInt)]
    pub returned_h: i64,
}

impl RoundCounts {
    /// Adds the counts of other rounds of the same group (its archived rounds, say), each
    /// count by `sum` (which refuses an overflow in its caller's terms).
    pub fn absorb_with<E>(
        &mut self,
        o: &RoundCounts,
        sum: impl Fn(i64, i64) -> Result<i64, E>,
    ) -> Result<(), E> {
        self.rounds = sum(self.rounds, o.rounds)?;
        self.void_rounds = sum(self.void_rounds, o.void_rounds)?;
        self.stakes_h = sum(self.stakes_h, o.stakes_h)?;
        self.returned_h = sum(self.returned_h, o.returned_h)?;
        Ok(())
    }
}

/// What [`RTP_MOMENTS`] sums of a group of rounds.
#[derive(
    QueryableByName, Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize,
)]
pub struct RtpMoments {
    #[diesel(sql_type = BigInt)]
    pub rtp_stakes_h: i64,
    #[diesel(sql_type = BigInt)]
    pub expected_payout_mh: i64,
    #[diesel(sql_type = Double)]
    #[serde(with = "crate::storage::report_reads::exact_f64")]
    pub variance_h2: f64,
}

impl RtpMoments {
    /// Adds the moments of other rounds of the same group, the integers by `sum`.
    pub fn absorb_with<E>(
        &mut self,
        o: &RtpMoments,
        sum: impl Fn(i64, i64) -> Result<i64, E>,
    ) -> Result<(), E> {
        self.rtp_stakes_h = sum(self.rtp_stakes_h, o.rtp_stakes_h)?;
        self.expected_payout_mh = sum(self.expected_payout_mh, o.expected_payout_mh)?;
        self.variance_h2 += o.variance_h2;
        Ok(())
    }
}

/// What [`TOURNAMENT_SUMS`] sums of a group of rounds.
#[derive(
    QueryableByName,
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct TournamentSums {
    #[diesel(sql_type = BigInt)]
    pub fees_h: i64,
    #[diesel(sql_type = BigInt)]
    pub overlay_h: i64,
}

impl TournamentSums {
    /// Adds the sums of other rounds of the same group, each by `sum`.
    pub fn absorb_with<E>(
        &mut self,
        o: &TournamentSums,
        sum: impl Fn(i64, i64) -> Result<i64, E>,
    ) -> Result<(), E> {
        self.fees_h = sum(self.fees_h, o.fees_h)?;
        self.overlay_h = sum(self.overlay_h, o.overlay_h)?;
        Ok(())
    }
}

/// Rounds, void rounds, every stake, the stakes handed back on void rounds, and what played
/// rounds paid (as `paid_as`).
pub(super) fn round_totals(paid_as: &str) -> String {
    format!(
        "count(*)::bigint AS rounds, \
         count(*) FILTER (WHERE a.void)::bigint AS void_rounds, \
         coalesce(sum(a.stakes_h), 0)::bigint AS stakes_h, \
         coalesce(sum(a.paid_h) FILTER (WHERE a.void), 0)::bigint AS returned_h, \
         coalesce(sum(a.paid_h) FILTER (WHERE NOT a.void), 0)::bigint AS {paid_as}"
    )
}

/// The stakes a theory covers and the moments of their payout.
pub(super) const RTP_MOMENTS: &str = "coalesce(sum(a.rtp_stakes_h), 0)::bigint AS rtp_stakes_h, \
     coalesce(sum(a.expected_payout_mh), 0)::bigint AS expected_payout_mh, \
     coalesce(sum(a.payout_variance_h2), 0)::float8 AS variance_h2";

/// Tournaments played (not void): their fees and the operator's overlay.
pub(super) const TOURNAMENT_SUMS: &str = "coalesce(sum(a.tournament_fee_h) \
         FILTER (WHERE NOT a.void AND a.game = 'poker_tournament'), 0)::bigint AS fees_h, \
     coalesce(sum(a.tournament_overlay_h) \
         FILTER (WHERE NOT a.void AND a.game = 'poker_tournament'), 0)::bigint AS overlay_h";

/// Rounds played in `[$1, $2)` below the cut bound `$3`: the parameters [`PlayedSpan::query`]
/// binds.
pub(super) const PLAYED_WITHIN: &str =
    "a.played_at >= $1 AND a.played_at < $2 AND a.ledger_index < $3";

/// The rounds a read sums: those played in `[start, end)` among the entries below `cut`.
#[derive(Debug, Clone, Copy)]
pub struct PlayedSpan {
    pub cut: LedgerCut,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl PlayedSpan {
    /// `sql` with the span bound as its first parameters: `$1` the start, `$2` the end and `$3`
    /// the cut's bound (as [`PLAYED_WITHIN`] reads them).
    pub(super) fn query<'f>(&self, sql: String) -> BoxedSqlQuery<'f, Pg, SqlQuery> {
        diesel::sql_query(sql)
            .into_boxed()
            .bind::<Timestamptz, _>(self.start)
            .bind::<Timestamptz, _>(self.end)
            .bind::<BigInt, _>(self.cut.bound())
    }
}

/// A report's narrowing to one game and one table, each when given.
#[derive(Debug, Clone, Copy, Default)]
pub struct Narrowing<'a> {
    pub game: Option<&'a str>,
    pub table_id: Option<&'a str>,
}

impl<'a> Narrowing<'a> {
    /// The narrowing of rows aliased `a`, as parameters `$4` (game) and `$5` (table), which
    /// [`Narrowing::bind`] binds after a [`PlayedSpan`]'s.
    pub(super) const SQL: &'static str =
        "($4::text IS NULL OR a.game = $4) AND ($5::text IS NULL OR a.table_id = $5)";

    /// `query` (a [`PlayedSpan::query`]) with the game and table bound as `$4` and `$5`.
    pub(super) fn bind(
        &self,
        query: BoxedSqlQuery<'a, Pg, SqlQuery>,
    ) -> BoxedSqlQuery<'a, Pg, SqlQuery> {
        query
            .bind::<Nullable<Text>, _>(self.game)
            .bind::<Nullable<Text>, _>(self.table_id)
    }

    /// Whether a row of `game` and `table_id` is among those wanted.
    pub(super) fn admits(&self, game: &str, table_id: &str) -> bool {
        self.game.is_none_or(|g| g == game) && self.table_id.is_none_or(|t| t == table_id)
    }
}
