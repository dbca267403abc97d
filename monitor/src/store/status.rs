//! What `dozor monitor status` shows of each casino.

use chrono::{DateTime, Utc};
use diesel::dsl::{count_star, sql};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use super::schema::{
    monitor_alerts, monitor_casinos, monitor_findings, monitor_mismatches, monitor_tallies,
};
use crate::error::MonitorError;

/// One casino as the monitor holds it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CasinoStatus {
    pub casino: String,
    /// Entries followed.
    pub size: i64,
    pub checkpoint_size: Option<i64>,
    /// When the latest checkpoint was verified.
    pub checkpoint_at: Option<DateTime<Utc>>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub failures: i32,
    pub halted: Option<String>,
    pub rounds: i64,
    pub findings: i64,
    /// Rounds whose verdict differs from the casino's.
    pub mismatched_rounds: i64,
    pub alerts: i64,
}

/// The casino's own row.
#[derive(Queryable)]
struct Row {
    casino: String,
    size: i64,
    checkpoint_size: Option<i64>,
    checkpoint_at: Option<DateTime<Utc>>,
    last_success_at: Option<DateTime<Utc>>,
    last_error: Option<String>,
    failures: i32,
    halted: Option<String>,
}

/// Every casino the monitor has state of, by name.
pub fn status(conn: &mut PgConnection) -> Result<Vec<CasinoStatus>, MonitorError> {
    let rows: Vec<Row> = monitor_casinos::table
        .order(monitor_casinos::casino.asc())
        .select((
            monitor_casinos::casino,
            monitor_casinos::size,
            monitor_casinos::checkpoint_size,
            monitor_casinos::checkpoint_at,
            monitor_casinos::last_success_at,
            monitor_casinos::last_error,
            monitor_casinos::failures,
            monitor_casinos::halted,
        ))
        .load(conn)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let casino = row.casino.as_str();
        let rounds: Option<i64> = monitor_tallies::table
            .filter(monitor_tallies::casino.eq(casino))
            .select(sql::<Nullable<BigInt>>("CAST(SUM(rounds) AS BIGINT)"))
            .first(conn)?;
        let findings: i64 = monitor_findings::table
            .filter(monitor_findings::casino.eq(casino))
            .select(count_star())
            .first(conn)?;
        let mismatched_rounds: i64 = monitor_mismatches::table
            .filter(monitor_mismatches::casino.eq(casino))
            .select(sql::<BigInt>("COUNT(DISTINCT ledger_index)"))
            .first(conn)?;
        let alerts: i64 = monitor_alerts::table
            .filter(monitor_alerts::casino.eq(casino))
            .select(count_star())
            .first(conn)?;
        out.push(CasinoStatus {
            rounds: rounds.unwrap_or(0),
            findings,
            mismatched_rounds,
            alerts,
            casino: row.casino,
            size: row.size,
            checkpoint_size: row.checkpoint_size,
            checkpoint_at: row.checkpoint_at,
            last_success_at: row.last_success_at,
            last_error: row.last_error,
            failures: row.failures,
            halted: row.halted,
        });
    }
    Ok(out)
}
