//! What the regulator's view reads of the monitor's state beyond the status and the tallies:
//! the alerts' keys, the rounds whose verdict differs from the casino's, the findings of a
//! month's rounds, and what was kept of one round.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;

use super::schema::{monitor_alerts, monitor_findings, monitor_mismatches};
use crate::error::MonitorError;

/// The keys of every alert of the casino.
pub fn alert_keys(conn: &mut PgConnection, casino: &str) -> Result<Vec<String>, MonitorError> {
    use monitor_alerts as a;
    Ok(a::table
        .filter(a::casino.eq(casino))
        .select(a::key)
        .load(conn)?)
}

/// The rounds (ledger indexes) of the casino with a mismatch kept, ascending, each once.
pub fn mismatched_indexes(conn: &mut PgConnection, casino: &str) -> Result<Vec<i64>, MonitorError> {
    use monitor_mismatches as m;
    Ok(m::table
        .filter(m::casino.eq(casino))
        .select(m::ledger_index)
        .distinct()
        .order(m::ledger_index.asc())
        .load(conn)?)
}

/// Where one of the monitor's findings is, and the table of its round.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct FindingAt {
    pub ledger_index: i64,
    pub position: i32,
    pub table_id: String,
}

/// The casino's findings whose round was played from `from` until `until`.
pub fn findings_played_between(
    conn: &mut PgConnection,
    casino: &str,
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<FindingAt>, MonitorError> {
    use monitor_findings as f;
    Ok(f::table
        .filter(f::casino.eq(casino))
        .filter(f::played_at.ge(from))
        .filter(f::played_at.lt(until))
        .select((f::ledger_index, f::position, f::table_id))
        .load(conn)?)
}

/// The messages of the monitor's findings kept for one round, in their order.
pub fn round_finding_messages(
    conn: &mut PgConnection,
    casino: &str,
    ledger_index: i64,
) -> Result<Vec<String>, MonitorError> {
    use monitor_findings as f;
    Ok(f::table
        .filter(f::casino.eq(casino))
        .filter(f::ledger_index.eq(ledger_index))
        .order(f::position.asc())
        .select(f::message)
        .load(conn)?)
}

/// A field of one round's verdict where the casino's differs from the monitor's, as kept.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct KeptMismatch {
    pub field: String,
    pub casino_value: Value,
    pub monitor_value: Value,
}

/// The mismatches kept for one round, by field.
pub fn round_mismatches(
    conn: &mut PgConnection,
    casino: &str,
    ledger_index: i64,
) -> Result<Vec<KeptMismatch>, MonitorError> {
    use monitor_mismatches as m;
    Ok(m::table
        .filter(m::casino.eq(casino))
        .filter(m::ledger_index.eq(ledger_index))
        .order(m::field.asc())
        .select((m::field, m::casino_value, m::monitor_value))
        .load(conn)?)
}
