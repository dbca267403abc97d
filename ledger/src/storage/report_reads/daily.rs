//! The daily payout/RTP report's figures: one gaming day's rounds summed per game and table.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamptz};

use super::round_sums::{
    round_totals, PlayedSpan, RoundCounts, RtpMoments, TournamentSums, PLAYED_WITHIN, RTP_MOMENTS,
    TOURNAMENT_SUMS,
};
use crate::LedgerError;

/// One table's rounds of the day.
#[derive(QueryableByName, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TableDay {
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
    /// Rounds, void rounds, every stake and the stakes handed back on void rounds.
    #[diesel(embed)]
    #[serde(flatten)]
    pub counts: RoundCounts,
    /// What was paid on played rounds.
    #[diesel(sql_type = BigInt)]
    pub payouts_h: i64,
    #[diesel(sql_type = BigInt)]
    pub expected_payouts_h: i64,
    /// The stakes a theory covers and the moments of their payout.
    #[diesel(embed)]
    #[serde(flatten)]
    pub moments: RtpMoments,
    /// Tournaments played (not void): their fees and the operator's overlay.
    #[diesel(embed)]
    #[serde(flatten)]
    pub tournaments: TournamentSums,
    /// Rounds received more than `late_after` after they were played, and when the last came.
    #[diesel(sql_type = BigInt)]
    pub late_rounds: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_late_received_at: Option<DateTime<Utc>>,
}

impl TableDay {
    /// Adds another part of the same table's day (its archived rounds, say).
    pub(super) fn absorb(&mut self, o: &TableDay) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.counts.absorb_with(&o.counts, sum)?;
        self.payouts_h = sum(self.payouts_h, o.payouts_h)?;
        self.expected_payouts_h = sum(self.expected_payouts_h, o.expected_payouts_h)?;
        self.moments.absorb_with(&o.moments, sum)?;
        self.tournaments.absorb_with(&o.tournaments, sum)?;
        self.late_rounds = sum(self.late_rounds, o.late_rounds)?;
        self.last_late_received_at = self.last_late_received_at.max(o.last_late_received_at);
        Ok(())
    }
}

/// The rounds the ledger holds of `span`, summed per game and table; a round received more than
/// `late_after` after it was played counts as late (the kept figures of archived days are added
/// by [`super::with_archived::tables_of_day`]).
pub fn tables_of_day_live(
    conn: &mut PgConnection,
    span: PlayedSpan,
    late_after: Duration,
) -> Result<Vec<TableDay>, LedgerError> {
    let late = "e.received_at - a.played_at > $4 * interval '1 second'";
    let sql = format!(
        "SELECT a.game AS game, a.table_id AS table_id, {}, \
                coalesce(sum(a.expected_paid_h) FILTER (WHERE NOT a.void), 0)::bigint \
                    AS expected_payouts_h, \
                {RTP_MOMENTS}, {TOURNAMENT_SUMS}, \
                count(*) FILTER (WHERE {late})::bigint AS late_rounds, \
                max(e.received_at) FILTER (WHERE {late}) AS last_late_received_at \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE {PLAYED_WITHIN} \
         GROUP BY a.game, a.table_id",
        round_totals("payouts_h"),
    );
    Ok(span
        .query(sql)
        .bind::<Double, _>(late_after.num_seconds() as f64)
        .load(conn)?)
}
