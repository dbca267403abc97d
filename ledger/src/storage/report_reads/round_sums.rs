//! The query pieces the payout reads (daily, monthly, tax) share: the sums each makes of a
//! group of adjudicated rounds (`adjudications` aliased `a`) and the span they were played in.

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

/// Rounds played in `[$1, $2)` below the cut bound as parameter `cut`.
pub(super) fn played_within(cut: u8) -> String {
    format!("a.played_at >= $1 AND a.played_at < $2 AND a.ledger_index < ${cut}")
}
