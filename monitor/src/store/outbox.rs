//! The outbox of alerts to deliver: every alert is put in it when raised (a trigger, in the
//! alert's own transaction); an attempt that fails is tried again later; one the webhook took
//! (2xx) is marked delivered. Kept across restarts: nothing raised is lost.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::alerts::Alert;
use super::schema::{monitor_alerts, monitor_outbox};
use crate::error::MonitorError;

/// An alert waiting for delivery, with the attempts made so far.
#[derive(Debug, Clone)]
pub struct Pending {
    pub alert: Alert,
    pub attempts: i32,
}

/// Up to `limit` alerts due for an attempt at `now`, oldest first.
pub fn due(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Pending>, MonitorError> {
    use monitor_alerts as a;
    use monitor_outbox as o;
    let rows: Vec<(Alert, i32)> = o::table
        .inner_join(a::table)
        .filter(o::delivered_at.is_null())
        .filter(o::next_attempt_at.le(now))
        .order(o::alert_id.asc())
        .limit(limit)
        .select((
            (
                a::id,
                a::casino,
                a::kind,
                a::key,
                a::raised_at,
                a::message,
                a::evidence,
            ),
            o::attempts,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(alert, attempts)| Pending { alert, attempts })
        .collect())
}

/// The webhook took the alert.
pub fn delivered(conn: &mut PgConnection, id: i64, at: DateTime<Utc>) -> Result<(), MonitorError> {
    use monitor_outbox as o;
    diesel::update(o::table.find(id))
        .set((
            o::delivered_at.eq(at),
            o::attempts.eq(o::attempts + 1),
            o::last_error.eq(None::<String>),
        ))
        .execute(conn)?;
    Ok(())
}

/// An attempt failed: tried again at `next`.
pub fn failed(
    conn: &mut PgConnection,
    id: i64,
    next: DateTime<Utc>,
    error: &str,
) -> Result<(), MonitorError> {
    use monitor_outbox as o;
    diesel::update(o::table.find(id))
        .set((
            o::next_attempt_at.eq(next),
            o::attempts.eq(o::attempts + 1),
            o::last_error.eq(error),
        ))
        .execute(conn)?;
    Ok(())
}

/// Alerts not delivered yet, all casinos.
pub fn pending(conn: &mut PgConnection) -> Result<i64, MonitorError> {
    use monitor_outbox as o;
    Ok(o::table
        .filter(o::delivered_at.is_null())
        .count()
        .get_result(conn)?)
}
