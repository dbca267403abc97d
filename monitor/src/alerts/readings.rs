//! Readings the checks, the daily summary and the metrics share: when the checkpoint held was
//! signed, and the months tallies are summed by.

use chrono::{DateTime, Datelike as _, Months, NaiveDate, Utc};

use dozor_log::cosignature::{cosignatures, CosignatureVerifier};

use super::rtp::MonthFigures;
use crate::store::alert_reads::{CasinoRow, Summed};

/// When the checkpoint held was signed, as near as the monitor can tell: the operator's
/// signature carries no time, so the newest cosignature of a configured witness (its
/// timestamp), else when the monitor first verified it. None: no checkpoint held.
pub fn checkpoint_signed_at(
    row: &CasinoRow,
    witnesses: &[CosignatureVerifier],
) -> Option<DateTime<Utc>> {
    let note = row.checkpoint_note.as_deref()?;
    let cosigned = cosignatures(note, witnesses)
        .ok()
        .and_then(|c| c.iter().map(|c| c.timestamp).max())
        .and_then(|t| DateTime::from_timestamp(i64::try_from(t).ok()?, 0));
    cosigned.or(row.checkpoint_at)
}

/// The first and last gaming day of the month `first` begins.
pub fn month_bounds(first: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    let next = first.checked_add_months(Months::new(1))?;
    Some((first, next.pred_opt()?))
}

/// The month a day is in, as `YYYY-MM`.
pub fn month_label(day: NaiveDate) -> String {
    format!("{:04}-{:02}", day.year(), day.month())
}

/// A game's month as the RTP check, the metrics and the regulator's view read it, counted as
/// the casino's month page counts it (docs/REPORTS.md): payouts are what played rounds paid,
/// and the stakes played are every stake less those void rounds handed back.
pub fn month_figures(summed: &Summed) -> MonthFigures {
    MonthFigures {
        rounds: summed.rounds,
        rtp_stakes_h: summed.rtp_stakes_h,
        played_stakes_h: summed.stakes_h.saturating_sub(summed.returned_h),
        paid_h: summed.paid_h,
        expected_payout_mh: summed.expected_payout_mh,
        payout_variance_h2: summed.payout_variance_h2,
        payout_third_moment_h3: summed.payout_third_moment_h3,
        theory_rounds: summed.theory_rounds,
    }
}
