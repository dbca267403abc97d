//! The daily summary: once per casino and gaming day, after the day closes, what the monitor
//! saw of it (rounds followed, findings, mismatches, the checkpoint's age, the witnesses' state
//! and what state following is in), raised even when all is well, so that silence is never
//! taken for health.

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use serde_json::json;

use dozor_log::cosignature::cosignatures;

use super::config::AlertsConfig;
use super::readings::checkpoint_signed_at;
use super::{severity, Severity};
use crate::config::CasinoConfig;
use crate::error::MonitorError;
use crate::store::alert_reads::{self, CasinoRow};
use crate::store::alerts::{raise, NewAlert};

/// What state following is in, as `--status` says it.
fn following(row: Option<&CasinoRow>) -> String {
    match row {
        None => "not followed yet".into(),
        Some(r) => match (&r.halted, r.failures, &r.last_error, r.last_attempt_at) {
            (Some(why), ..) => format!("halted: {why}"),
            (None, n, Some(e), _) if n > 0 => format!("failing ({n}): {e}"),
            (None, _, _, None) => "not followed yet".into(),
            _ => "following".into(),
        },
    }
}

/// The witnesses configured and whether each cosigned the checkpoint held (when).
fn witnesses(casino: &CasinoConfig, row: Option<&CasinoRow>) -> (usize, serde_json::Value) {
    let note = row.and_then(|r| r.checkpoint_note.as_deref());
    let cosigned = note
        .and_then(|n| cosignatures(n, &casino.witnesses).ok())
        .unwrap_or_default();
    let list: Vec<_> = casino
        .witnesses
        .iter()
        .map(|w| {
            let at = cosigned
                .iter()
                .find(|c| c.witness == w.name)
                .and_then(|c| DateTime::from_timestamp(i64::try_from(c.timestamp).ok()?, 0));
            json!({"witness": w.name, "cosigned": at.is_some(), "cosigned_at": at})
        })
        .collect();
    (cosigned.len(), serde_json::Value::Array(list))
}

/// Raises the summary of the gaming day before `now`'s, unless raised already; whether it was.
pub fn daily_summary(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    alerts: &AlertsConfig,
    now: DateTime<Utc>,
) -> Result<bool, MonitorError> {
    let name = casino.name.as_str();
    let Some(day) = casino.clock.day_of(now).pred_opt() else {
        return Ok(false);
    };
    let key = format!("daily:{day}");
    if alert_reads::has_alert(conn, name, &key)? {
        return Ok(false);
    }
    let (start, end) = casino.clock.bounds(day);
    let row = alert_reads::casino_row(conn, name)?;
    let games = alert_reads::summed_by_game(conn, name, day, day)?;
    let (mut rounds, mut findings, mut findings_amount_h) = (0i64, 0i64, 0i64);
    for summed in games.values() {
        rounds = rounds.saturating_add(summed.rounds);
        findings = findings.saturating_add(summed.findings);
        findings_amount_h = findings_amount_h.saturating_add(summed.findings_amount_h);
    }
    let mismatched = alert_reads::mismatched_rounds_found(conn, name, start, end)?;
    let raised = alert_reads::alerts_by_kind(conn, name, Some((start, end)))?;
    let to_see: i64 = raised
        .iter()
        .filter(|(kind, _)| severity(kind) != Severity::Info)
        .map(|(_, n)| n)
        .sum();
    let signed_at = row
        .as_ref()
        .and_then(|r| checkpoint_signed_at(r, &casino.witnesses));
    let age = signed_at.map(|t| now.signed_duration_since(t).num_seconds());
    let stale_after = i64::try_from(alerts.stale_after.as_secs()).unwrap_or(i64::MAX);
    let state = following(row.as_ref());
    let (cosigned, witness_list) = witnesses(casino, row.as_ref());
    let mut concerns = Vec::new();
    if state != "following" {
        concerns.push(state.clone());
    }
    if mismatched > 0 {
        concerns.push(format!("{mismatched} rounds whose verdicts differ"));
    }
    if to_see > 0 {
        concerns.push(format!("{to_see} alerts raised"));
    }
    match age {
        Some(a) if a > stale_after => concerns.push(format!("the checkpoint is {a} s old")),
        None => concerns.push("no checkpoint held".into()),
        _ => {}
    }
    if cosigned < casino.quorum {
        concerns.push(format!(
            "{cosigned} of the {} cosignatures needed",
            casino.quorum
        ));
    }
    let verdict = if concerns.is_empty() {
        "all well".to_owned()
    } else {
        format!("needs attention: {}", concerns.join("; "))
    };
    let alert = NewAlert {
        kind: "daily_summary",
        key,
        message: format!(
            "gaming day {day}: {verdict} — {rounds} rounds followed, {findings} findings, {mismatched} mismatched rounds, checkpoint {} old, witnesses {cosigned} of {}",
            age.map_or("none".to_owned(), |a| format!("{a} s")),
            casino.witnesses.len()
        ),
        evidence: json!({
            "gaming_day": day,
            "all_well": concerns.is_empty(),
            "concerns": concerns,
            "rounds": rounds,
            "findings": findings,
            "findings_amount_h": findings_amount_h,
            "mismatched_rounds": mismatched,
            "alerts": raised,
            "entries": row.as_ref().map(|r| r.size),
            "checkpoint_size": row.as_ref().and_then(|r| r.checkpoint_size),
            "checkpoint_signed_at": signed_at,
            "checkpoint_age_seconds": age,
            "quorum": casino.quorum,
            "witnesses": witness_list,
            "state": state,
        }),
    };
    raise(conn, name, &alert, now)
}
