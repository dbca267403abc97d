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

/// A tally row as kept: casino, gaming day and game, and its figures.
#[derive(Debug, Clone, PartialEq, Queryable, serde::Serialize)]
pub struct TallyRow {
    pub casino: String,
    pub gaming_day: chrono::NaiveDate,
    pub game: String,
    pub rounds: i64,
    pub unjudged_rounds: i64,
    pub void_rounds: i64,
    pub stakes_h: i64,
    pub paid_h: i64,
    pub expected_paid_h: i64,
    pub rtp_stakes_h: i64,
    pub expected_payout_mh: i64,
    pub payout_variance_h2: f64,
    pub findings: i64,
    pub findings_amount_h: i64,
}

/// The tallies, by casino, gaming day and game.
pub fn tallies(conn: &mut PgConnection) -> Result<Vec<TallyRow>, MonitorError> {
    use monitor_tallies as t;
    Ok(t::table
        .order((t::casino.asc(), t::gaming_day.asc(), t::game.asc()))
        .select((
            t::casino,
            t::gaming_day,
            t::game,
            t::rounds,
            t::unjudged_rounds,
            t::void_rounds,
            t::stakes_h,
            t::paid_h,
            t::expected_paid_h,
            t::rtp_stakes_h,
            t::expected_payout_mh,
            t::payout_variance_h2,
            t::findings,
            t::findings_amount_h,
        ))
        .load(conn)?)
}

/// A mismatch as kept: where the casino's verdict of a round differs from the monitor's.
#[derive(Debug, Clone, PartialEq, Queryable, serde::Serialize)]
pub struct MismatchRow {
    pub casino: String,
    pub ledger_index: i64,
    pub field: String,
    pub casino_value: serde_json::Value,
    pub monitor_value: serde_json::Value,
    pub found_at: DateTime<Utc>,
}

/// The mismatches, by casino and ledger index.
pub fn mismatches(conn: &mut PgConnection) -> Result<Vec<MismatchRow>, MonitorError> {
    use monitor_mismatches as m;
    Ok(m::table
        .order((m::casino.asc(), m::ledger_index.asc(), m::field.asc()))
        .select((
            m::casino,
            m::ledger_index,
            m::field,
            m::casino_value,
            m::monitor_value,
            m::found_at,
        ))
        .load(conn)?)
}

/// One of the monitor's own findings as kept.
#[derive(Debug, Clone, PartialEq, Queryable, serde::Serialize)]
pub struct FindingRow {
    pub casino: String,
    pub ledger_index: i64,
    pub position: i32,
    pub table_id: String,
    pub seq_no: i64,
    pub kind: String,
    pub amount_h: i64,
    pub message: String,
}

/// The monitor's findings, by casino and ledger index.
pub fn findings(conn: &mut PgConnection) -> Result<Vec<FindingRow>, MonitorError> {
    use monitor_findings as f;
    Ok(f::table
        .order((f::casino.asc(), f::ledger_index.asc(), f::position.asc()))
        .select((
            f::casino,
            f::ledger_index,
            f::position,
            f::table_id,
            f::seq_no,
            f::kind,
            f::amount_h,
            f::message,
        ))
        .load(conn)?)
}
