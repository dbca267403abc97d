//! The checks made beside following, each pass at a time `now` given by the caller (the loop's
//! clock, a test's): a checkpoint held too long (and a notice when it moves again), findings of
//! the monitor's own without a resolution in the log after the set gaming days, a game's month
//! past ±3σ of theory, and the daily summary. Each alert is raised once per casino and key.

use chrono::{DateTime, Days, NaiveDate, Utc};
use diesel::PgConnection;
use serde_json::json;

use dozor_log::access::FindingState;

use super::config::AlertsConfig;
use super::readings::{checkpoint_signed_at, month_bounds, month_figures, month_label};
use super::summary::daily_summary;
use crate::config::{CasinoConfig, MonitorConfig};
use crate::error::MonitorError;
use crate::store::alert_reads;
use crate::store::alerts::{raise, NewAlert};
use crate::store::state;

/// Runs every check for every casino of `config` at `now` (nothing without `[alerts]`); the
/// alerts raised. A casino whose checks fail is logged and the others are checked.
pub fn periodic_checks(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    now: DateTime<Utc>,
) -> Result<usize, MonitorError> {
    let Some(alerts) = &config.alerts else {
        return Ok(0);
    };
    let mut raised = 0;
    for casino in &config.casinos {
        match check_casino(conn, casino, alerts, now) {
            Ok(n) => raised += n,
            Err(e @ MonitorError::Connection(_)) => return Err(e),
            Err(e) => tracing::warn!(casino = %casino.name, "the periodic checks: {e}"),
        }
    }
    Ok(raised)
}

fn check_casino(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    alerts: &AlertsConfig,
    now: DateTime<Utc>,
) -> Result<usize, MonitorError> {
    state::ensure(conn, &casino.name)?;
    let mut raised = stale(conn, casino, alerts, now)?;
    raised += findings_open(conn, casino, alerts, now)?;
    raised += rtp(conn, casino, alerts, now)?;
    if alerts.daily_summary {
        raised += usize::from(daily_summary(conn, casino, alerts, now)?);
    }
    Ok(raised)
}

/// A checkpoint held longer than `stale_after` is one alert per size it stalled at; when a
/// larger one is held after such an alert, one notice that it moves again.
fn stale(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    alerts: &AlertsConfig,
    now: DateTime<Utc>,
) -> Result<usize, MonitorError> {
    let name = casino.name.as_str();
    let Some(row) = alert_reads::casino_row(conn, name)? else {
        return Ok(0);
    };
    let (Some(size), Some(signed_at)) = (
        row.checkpoint_size,
        checkpoint_signed_at(&row, &casino.witnesses),
    ) else {
        return Ok(0);
    };
    let mut raised = 0;
    if let Some(last) = alert_reads::latest_alert(conn, name, "checkpoint_stale")? {
        let stalled = last.evidence["size"].as_i64().unwrap_or(i64::MAX);
        if stalled < size {
            let alert = NewAlert {
                kind: "checkpoint_recovered",
                key: format!("recovered:{stalled}"),
                message: format!(
                    "the checkpoint moves again: {size} entries, after it stalled at {stalled}"
                ),
                evidence: json!({
                    "stalled_size": stalled,
                    "stale_alert_id": last.id,
                    "stale_since": last.raised_at,
                    "size": size,
                    "signed_at": signed_at,
                }),
            };
            raised += usize::from(raise(conn, name, &alert, now)?);
        }
    }
    let age = now.signed_duration_since(signed_at).num_seconds();
    let limit = i64::try_from(alerts.stale_after.as_secs()).unwrap_or(i64::MAX);
    if row.halted.is_none() && age > limit {
        let alert = NewAlert {
            kind: "checkpoint_stale",
            key: format!("stale:{size}"),
            message: format!(
                "the checkpoint held ({size} entries) was signed {age} s ago, more than [alerts] stale_after_seconds = {limit}"
            ),
            evidence: json!({
                "size": size,
                "signed_at": signed_at,
                "first_verified_at": row.checkpoint_at,
                "age_seconds": age,
                "stale_after_seconds": limit,
                "note": row.checkpoint_note,
            }),
        };
        raised += usize::from(raise(conn, name, &alert, now)?);
    }
    Ok(raised)
}

/// The gaming day the casino's log has reached: its latest round's or registry event's,
/// never past `now`'s. Findings age in the log's time, so that a log followed from far behind
/// is not taken to have left open what it resolves further on.
fn log_day(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    now: DateTime<Utc>,
) -> Result<Option<NaiveDate>, MonitorError> {
    let (round_day, event_at) = alert_reads::log_reached(conn, &casino.name)?;
    let event_day = event_at.map(|t| casino.clock.day_of(t));
    Ok(round_day
        .max(event_day)
        .map(|d| d.min(casino.clock.day_of(now))))
}

/// Each of the monitor's findings that the log records no resolution of `findings_open_days`
/// gaming days after its round was played: one alert per finding.
fn findings_open(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    alerts: &AlertsConfig,
    now: DateTime<Utc>,
) -> Result<usize, MonitorError> {
    let name = casino.name.as_str();
    let Some(reached) = log_day(conn, casino, now)? else {
        return Ok(0);
    };
    let days = u64::from(alerts.findings_open_days);
    // Played on a gaming day at most `reached − days`: before the start of the day after it.
    let Some(first_in_time) = reached.checked_sub_days(Days::new(days.saturating_sub(1))) else {
        return Ok(0);
    };
    let before = casino.clock.start_of(first_in_time);
    let raised_before = alert_reads::alert_keys(conn, name, "findings_open")?;
    let key =
        |f: &alert_reads::PlayedFinding| format!("finding_open:{}.{}", f.ledger_index, f.position);
    let overdue: Vec<_> = alert_reads::findings_played_before(conn, name, Some(before))?
        .into_iter()
        .filter(|f| !raised_before.contains(&key(f)))
        .collect();
    if overdue.is_empty() {
        return Ok(0);
    }
    let held = state::load(conn, name, &casino.operator_keys)?;
    let resolutions = held.followed.history.resolutions();
    let mut raised = 0;
    for finding in overdue {
        let (Ok(round), Ok(position), Some(played_at)) = (
            u64::try_from(finding.ledger_index),
            u32::try_from(finding.position),
            finding.played_at,
        ) else {
            continue;
        };
        if resolutions.state_of((round, position)) != FindingState::Open {
            continue;
        }
        let played_day = casino.clock.day_of(played_at);
        let open_days = reached.signed_duration_since(played_day).num_days();
        let alert = NewAlert {
            kind: "findings_open",
            key: key(&finding),
            message: format!(
                "finding {round}.{position} ({}, {} h, table {} round {}) has no resolution in the log {open_days} gaming days after it was played on {played_day}",
                finding.kind, finding.amount_h, finding.table_id, finding.seq_no
            ),
            evidence: json!({
                "round_index": round,
                "finding": position,
                "table_id": finding.table_id,
                "seq_no": finding.seq_no,
                "kind": finding.kind,
                "amount_h": finding.amount_h,
                "message": finding.message,
                "played_at": played_at,
                "gaming_day": played_day,
                "log_reached_day": reached,
                "open_days": open_days,
                "findings_open_days": alerts.findings_open_days,
            }),
        };
        raised += usize::from(raise(conn, name, &alert, now)?);
    }
    Ok(raised)
}

/// Each game's month whose payouts are past ±3σ of theory, once it has `rtp_min_rounds`
/// rounds and as many as the payouts' skewness asks for the flag to be trusted: one alert per
/// casino, game and month.
fn rtp(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    alerts: &AlertsConfig,
    now: DateTime<Utc>,
) -> Result<usize, MonitorError> {
    let name = casino.name.as_str();
    let raised_before = alert_reads::alert_keys(conn, name, "rtp_deviation")?;
    let mut raised = 0;
    for first in alert_reads::tallied_months(conn, name)? {
        let Some((from, to)) = month_bounds(first) else {
            continue;
        };
        let month = month_label(first);
        for (game, summed) in alert_reads::summed_by_game(conn, name, from, to)? {
            let key = format!("rtp:{game}:{month}");
            if summed.rounds < alerts.rtp_min_rounds || raised_before.contains(&key) {
                continue;
            }
            let figures = month_figures(&summed);
            let Some(deviation) = figures
                .deviation()
                .filter(|d| d.flagged() && d.meaningful(figures.theory_rounds))
            else {
                continue;
            };
            let alert = NewAlert {
                kind: "rtp_deviation",
                key,
                message: format!(
                    "{game} in {month}: RTP {:.4} % against {:.4} % in theory, {:+.2} σ over {} rounds (flagged past ±3 σ; {} rounds needed for the flag)",
                    deviation.actual_rtp_pct, deviation.theoretical_rtp_pct, deviation.z, figures.rounds, deviation.rounds_needed
                ),
                evidence: json!({"game": game, "month": month, "figures": figures, "deviation": deviation}),
            };
            raised += usize::from(raise(conn, name, &alert, now)?);
        }
    }
    Ok(raised)
}
