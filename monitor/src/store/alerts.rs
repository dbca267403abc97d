//! Alerts, each raised once (a casino and a key make an alert the same one again), and the
//! evidence of forks: both signed notes.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;

use super::schema::{monitor_alerts, monitor_forks};
use crate::error::MonitorError;

/// An alert to raise.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAlert {
    /// What kind: `fork`, `rollback`, `not_extending`, `checkpoint`, `tiles`, `entry`,
    /// `verdict_mismatch`, `unjudged_round`, `unknown_plan`, `verdicts_missing`,
    /// `quorum_missing`.
    pub kind: &'static str,
    /// What makes it the same alert again (`entry:1234`, `fork:<size>`…).
    pub key: String,
    pub message: String,
    pub evidence: Value,
}

/// Raises `alert` unless the casino has it already; whether it is new.
pub fn raise(
    conn: &mut PgConnection,
    casino: &str,
    alert: &NewAlert,
    at: DateTime<Utc>,
) -> Result<bool, MonitorError> {
    let inserted = diesel::insert_into(monitor_alerts::table)
        .values((
            monitor_alerts::casino.eq(casino),
            monitor_alerts::kind.eq(alert.kind),
            monitor_alerts::key.eq(&alert.key),
            monitor_alerts::raised_at.eq(at),
            monitor_alerts::message.eq(&alert.message),
            monitor_alerts::evidence.eq(&alert.evidence),
        ))
        .on_conflict((monitor_alerts::casino, monitor_alerts::key))
        .do_nothing()
        .execute(conn)?;
    if inserted > 0 {
        crate::alerts::log_alert(
            casino,
            alert.kind,
            &alert.key,
            &alert.message,
            &alert.evidence,
        );
    }
    Ok(inserted > 0)
}

/// Keeps both notes of a fork (`kind`: rollback, fork, not_extending), once.
pub fn keep_fork(
    conn: &mut PgConnection,
    casino: &str,
    kind: &str,
    held_note: &str,
    seen_note: &str,
    at: DateTime<Utc>,
) -> Result<(), MonitorError> {
    diesel::insert_into(monitor_forks::table)
        .values((
            monitor_forks::casino.eq(casino),
            monitor_forks::kind.eq(kind),
            monitor_forks::held_note.eq(held_note),
            monitor_forks::seen_note.eq(seen_note),
            monitor_forks::found_at.eq(at),
        ))
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// An alert as kept.
#[derive(Debug, Clone, Queryable, serde::Serialize)]
pub struct Alert {
    pub id: i64,
    pub casino: String,
    pub kind: String,
    pub key: String,
    pub raised_at: DateTime<Utc>,
    pub message: String,
    pub evidence: Value,
}

/// The alerts of `casino` (all casinos: none), oldest first.
pub fn alerts(conn: &mut PgConnection, casino: Option<&str>) -> Result<Vec<Alert>, MonitorError> {
    let mut query = monitor_alerts::table
        .order(monitor_alerts::id.asc())
        .select((
            monitor_alerts::id,
            monitor_alerts::casino,
            monitor_alerts::kind,
            monitor_alerts::key,
            monitor_alerts::raised_at,
            monitor_alerts::message,
            monitor_alerts::evidence,
        ))
        .into_boxed();
    if let Some(casino) = casino {
        query = query.filter(monitor_alerts::casino.eq(casino.to_owned()));
    }
    Ok(query.load(conn)?)
}

/// How many forks are kept for `casino`.
pub fn forks(conn: &mut PgConnection, casino: &str) -> Result<i64, MonitorError> {
    Ok(monitor_forks::table
        .filter(monitor_forks::casino.eq(casino))
        .count()
        .get_result(conn)?)
}
