//! The daily payout/RTP report's figures: one gaming day's rounds summed per game and table.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Nullable, Text, Timestamptz};

use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// One table's rounds of the day.
#[derive(QueryableByName, Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TableDay {
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
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
    /// What was paid on played rounds.
    #[diesel(sql_type = BigInt)]
    pub payouts_h: i64,
    #[diesel(sql_type = BigInt)]
    pub expected_payouts_h: i64,
    #[diesel(sql_type = BigInt)]
    pub rtp_stakes_h: i64,
    #[diesel(sql_type = BigInt)]
    pub expected_payout_mh: i64,
    #[diesel(sql_type = Double)]
    #[serde(with = "crate::storage::archived_days::exact_f64")]
    pub variance_h2: f64,
    /// Tournaments played (not void): their fees and the operator's overlay.
    #[diesel(sql_type = BigInt)]
    pub fees_h: i64,
    #[diesel(sql_type = BigInt)]
    pub overlay_h: i64,
    /// Rounds received more than `late_after` after they were played, and when the last came.
    #[diesel(sql_type = BigInt)]
    pub late_rounds: i64,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    pub last_late_received_at: Option<DateTime<Utc>>,
}

/// The rounds played in `[start, end)`, summed per game and table; a round received more than
/// `late_after` after it was played counts as late. The kept figures of archived days inside
/// the span are added to what the ledger still holds of them.
pub fn tables_of_day(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    late_after: Duration,
) -> Result<Vec<TableDay>, LedgerError> {
    let mut rows = tables_of_day_live(conn, cut, start, end, late_after)?;
    for kept in crate::storage::archived_days::within(conn, cut, start, end)? {
        for k in kept.figures.tables {
            match rows
                .iter_mut()
                .find(|r| r.game == k.game && r.table_id == k.table_id)
            {
                Some(row) => row.absorb(&k)?,
                None => rows.push(k),
            }
        }
    }
    Ok(rows)
}

impl TableDay {
    /// Adds another part of the same table's day (its archived rounds, say).
    fn absorb(&mut self, o: &TableDay) -> Result<(), LedgerError> {
        let sum = super::checked_sum;
        self.rounds = sum(self.rounds, o.rounds)?;
        self.void_rounds = sum(self.void_rounds, o.void_rounds)?;
        self.stakes_h = sum(self.stakes_h, o.stakes_h)?;
        self.returned_h = sum(self.returned_h, o.returned_h)?;
        self.payouts_h = sum(self.payouts_h, o.payouts_h)?;
        self.expected_payouts_h = sum(self.expected_payouts_h, o.expected_payouts_h)?;
        self.rtp_stakes_h = sum(self.rtp_stakes_h, o.rtp_stakes_h)?;
        self.expected_payout_mh = sum(self.expected_payout_mh, o.expected_payout_mh)?;
        self.variance_h2 += o.variance_h2;
        self.fees_h = sum(self.fees_h, o.fees_h)?;
        self.overlay_h = sum(self.overlay_h, o.overlay_h)?;
        self.late_rounds = sum(self.late_rounds, o.late_rounds)?;
        self.last_late_received_at = self.last_late_received_at.max(o.last_late_received_at);
        Ok(())
    }
}

/// [`tables_of_day`] of the rounds the ledger holds (no kept figures).
pub fn tables_of_day_live(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    late_after: Duration,
) -> Result<Vec<TableDay>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT a.game AS game, a.table_id AS table_id, count(*)::bigint AS rounds, \
                count(*) FILTER (WHERE void)::bigint AS void_rounds, \
                coalesce(sum(stakes_h), 0)::bigint AS stakes_h, \
                coalesce(sum(paid_h) FILTER (WHERE void), 0)::bigint AS returned_h, \
                coalesce(sum(paid_h) FILTER (WHERE NOT void), 0)::bigint AS payouts_h, \
                coalesce(sum(expected_paid_h) FILTER (WHERE NOT void), 0)::bigint AS expected_payouts_h, \
                coalesce(sum(rtp_stakes_h), 0)::bigint AS rtp_stakes_h, \
                coalesce(sum(expected_payout_mh), 0)::bigint AS expected_payout_mh, \
                coalesce(sum(payout_variance_h2), 0)::float8 AS variance_h2, \
                coalesce(sum(tournament_fee_h) FILTER (WHERE NOT void AND game = 'poker_tournament'), 0)::bigint AS fees_h, \
                coalesce(sum(tournament_overlay_h) FILTER (WHERE NOT void AND game = 'poker_tournament'), 0)::bigint AS overlay_h, \
                count(*) FILTER (WHERE e.received_at - a.played_at > $3 * interval '1 second')::bigint AS late_rounds, \
                max(e.received_at) FILTER (WHERE e.received_at - a.played_at > $3 * interval '1 second') AS last_late_received_at \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE a.played_at >= $1 AND a.played_at < $2 AND a.ledger_index < $4 \
         GROUP BY a.game, a.table_id",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Double, _>(late_after.num_seconds() as f64)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
