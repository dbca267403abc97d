//! What the periodic checks and the metrics read of the monitor's state: each casino's row, the
//! alerts kept by kind, findings played before a time, the tallies of a month or a day.

use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, Datelike as _, NaiveDate, Utc};
use diesel::dsl::{count_star, sql};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Nullable};

use super::alerts::Alert;
use super::schema::{monitor_alerts, monitor_casinos, monitor_findings, monitor_mismatches};
use super::schema::{monitor_outbox, monitor_tallies};
use crate::error::MonitorError;

/// A casino's row as the checks and metrics need it.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct CasinoRow {
    pub casino: String,
    pub size: i64,
    pub checkpoint_size: Option<i64>,
    pub checkpoint_note: Option<String>,
    /// When the monitor verified the checkpoint held.
    pub checkpoint_at: Option<DateTime<Utc>>,
    pub halted: Option<String>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub failures: i32,
}

/// The row of `casino`, if the monitor has one.
pub fn casino_row(
    conn: &mut PgConnection,
    casino: &str,
) -> Result<Option<CasinoRow>, MonitorError> {
    use monitor_casinos as c;
    Ok(c::table
        .find(casino)
        .select((
            c::casino,
            c::size,
            c::checkpoint_size,
            c::checkpoint_note,
            c::checkpoint_at,
            c::halted,
            c::last_attempt_at,
            c::last_error,
            c::failures,
        ))
        .first(conn)
        .optional()?)
}

fn alert_columns() -> (
    monitor_alerts::id,
    monitor_alerts::casino,
    monitor_alerts::kind,
    monitor_alerts::key,
    monitor_alerts::raised_at,
    monitor_alerts::message,
    monitor_alerts::evidence,
) {
    use monitor_alerts as a;
    (
        a::id,
        a::casino,
        a::kind,
        a::key,
        a::raised_at,
        a::message,
        a::evidence,
    )
}

/// The casino's latest alert of `kind`.
pub fn latest_alert(
    conn: &mut PgConnection,
    casino: &str,
    kind: &str,
) -> Result<Option<Alert>, MonitorError> {
    use monitor_alerts as a;
    Ok(a::table
        .filter(a::casino.eq(casino).and(a::kind.eq(kind)))
        .order(a::id.desc())
        .select(alert_columns())
        .first(conn)
        .optional()?)
}

/// Whether the casino has the alert of `key`.
pub fn has_alert(conn: &mut PgConnection, casino: &str, key: &str) -> Result<bool, MonitorError> {
    use monitor_alerts as a;
    let n: i64 = a::table
        .filter(a::casino.eq(casino).and(a::key.eq(key)))
        .select(count_star())
        .first(conn)?;
    Ok(n > 0)
}

/// The keys of the casino's alerts of `kind`.
pub fn alert_keys(
    conn: &mut PgConnection,
    casino: &str,
    kind: &str,
) -> Result<HashSet<String>, MonitorError> {
    use monitor_alerts as a;
    Ok(a::table
        .filter(a::casino.eq(casino).and(a::kind.eq(kind)))
        .select(a::key)
        .load::<String>(conn)?
        .into_iter()
        .collect())
}

/// One of the monitor's findings with when its round was played.
#[derive(Debug, Clone, PartialEq, Queryable)]
pub struct PlayedFinding {
    pub ledger_index: i64,
    pub position: i32,
    pub table_id: String,
    pub seq_no: i64,
    pub kind: String,
    pub amount_h: i64,
    pub message: String,
    pub played_at: Option<DateTime<Utc>>,
}

/// The casino's findings whose round was played before `before` (none: every finding).
pub fn findings_played_before(
    conn: &mut PgConnection,
    casino: &str,
    before: Option<DateTime<Utc>>,
) -> Result<Vec<PlayedFinding>, MonitorError> {
    use monitor_findings as f;
    let mut query = f::table
        .filter(f::casino.eq(casino.to_owned()))
        .order((f::ledger_index.asc(), f::position.asc()))
        .select((
            f::ledger_index,
            f::position,
            f::table_id,
            f::seq_no,
            f::kind,
            f::amount_h,
            f::message,
            f::played_at,
        ))
        .into_boxed();
    if let Some(before) = before {
        query = query.filter(f::played_at.lt(before));
    }
    Ok(query.load(conn)?)
}

/// A game's figures summed over gaming days.
#[derive(Debug, Clone, Default, PartialEq, Queryable)]
pub struct Summed {
    pub rounds: i64,
    pub rtp_stakes_h: i64,
    /// Paid in rounds played (not what void rounds returned), as the reports count payouts.
    pub paid_h: i64,
    pub expected_payout_mh: i64,
    pub payout_variance_h2: f64,
    pub payout_third_moment_h3: f64,
    /// Rounds judged and not void: those the theory covers.
    pub theory_rounds: i64,
    pub findings: i64,
    pub findings_amount_h: i64,
    pub void_rounds: i64,
    pub unjudged_rounds: i64,
    /// Every stake placed, void rounds' included.
    pub stakes_h: i64,
    /// Stakes handed back on void rounds.
    pub returned_h: i64,
    /// What the plan says is due, void rounds' returns included (as the verdicts count it).
    pub expected_paid_h: i64,
}

/// The casino's tallies from `from` to `to` (both included), summed by game.
pub fn summed_by_game(
    conn: &mut PgConnection,
    casino: &str,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<BTreeMap<String, Summed>, MonitorError> {
    use monitor_tallies as t;
    let big = |column: &str| sql::<BigInt>(&format!("CAST(COALESCE(SUM({column}), 0) AS BIGINT)"));
    let rows: Vec<(String, Summed)> = t::table
        .filter(t::casino.eq(casino))
        .filter(t::gaming_day.between(from, to))
        .group_by(t::game)
        .select((
            t::game,
            (
                big("rounds"),
                big("rtp_stakes_h"),
                big("paid_h - returned_h"),
                big("expected_payout_mh"),
                sql::<Double>("COALESCE(SUM(payout_variance_h2), 0)"),
                sql::<Double>("COALESCE(SUM(payout_third_moment_h3), 0)"),
                big("rounds - void_rounds - unjudged_rounds"),
                big("findings"),
                big("findings_amount_h"),
                big("void_rounds"),
                big("unjudged_rounds"),
                big("stakes_h"),
                big("returned_h"),
                big("expected_paid_h"),
            ),
        ))
        .load(conn)?;
    Ok(rows.into_iter().collect())
}

/// The months (first day of each) the casino has tallies in, by game.
pub fn tallied_months(
    conn: &mut PgConnection,
    casino: &str,
) -> Result<Vec<NaiveDate>, MonitorError> {
    use monitor_tallies as t;
    let days: Vec<NaiveDate> = t::table
        .filter(t::casino.eq(casino))
        .select(t::gaming_day)
        .distinct()
        .load(conn)?;
    let mut months: Vec<NaiveDate> = days.into_iter().filter_map(|d| d.with_day0(0)).collect();
    months.sort_unstable();
    months.dedup();
    Ok(months)
}

/// Rounds with a mismatch found from `from` until `to`.
pub fn mismatched_rounds_found(
    conn: &mut PgConnection,
    casino: &str,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<i64, MonitorError> {
    use monitor_mismatches as m;
    Ok(m::table
        .filter(m::casino.eq(casino))
        .filter(m::found_at.ge(from).and(m::found_at.lt(to)))
        .select(sql::<BigInt>("COUNT(DISTINCT ledger_index)"))
        .first(conn)?)
}

/// Rounds with a mismatch, ever.
pub fn mismatched_rounds(conn: &mut PgConnection, casino: &str) -> Result<i64, MonitorError> {
    use monitor_mismatches as m;
    Ok(m::table
        .filter(m::casino.eq(casino))
        .select(sql::<BigInt>("COUNT(DISTINCT ledger_index)"))
        .first(conn)?)
}

/// The kinds of the casino's alerts raised from `from` until `to` (all: none), with how many.
pub fn alerts_by_kind(
    conn: &mut PgConnection,
    casino: &str,
    between: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> Result<BTreeMap<String, i64>, MonitorError> {
    use monitor_alerts as a;
    let mut query = a::table
        .filter(a::casino.eq(casino.to_owned()))
        .group_by(a::kind)
        .select((a::kind, count_star()))
        .into_boxed();
    if let Some((from, to)) = between {
        query = query.filter(a::raised_at.ge(from).and(a::raised_at.lt(to)));
    }
    Ok(query.load::<(String, i64)>(conn)?.into_iter().collect())
}

/// Rounds followed in total.
pub fn rounds(conn: &mut PgConnection, casino: &str) -> Result<i64, MonitorError> {
    use monitor_tallies as t;
    let n: Option<i64> = t::table
        .filter(t::casino.eq(casino))
        .select(sql::<Nullable<BigInt>>("CAST(SUM(rounds) AS BIGINT)"))
        .first(conn)?;
    Ok(n.unwrap_or(0))
}

/// The casino's alerts not delivered yet.
pub fn undelivered(conn: &mut PgConnection, casino: &str) -> Result<i64, MonitorError> {
    Ok(monitor_outbox::table
        .inner_join(monitor_alerts::table)
        .filter(monitor_alerts::casino.eq(casino))
        .filter(monitor_outbox::delivered_at.is_null())
        .select(count_star())
        .first(conn)?)
}

/// How far the casino's log has got in its own time: the latest gaming day of a round followed,
/// and the latest registry event's time.
pub fn log_reached(
    conn: &mut PgConnection,
    casino: &str,
) -> Result<(Option<NaiveDate>, Option<DateTime<Utc>>), MonitorError> {
    use super::schema::monitor_registry_events as e;
    use diesel::dsl::max;
    let day: Option<NaiveDate> = monitor_tallies::table
        .filter(monitor_tallies::casino.eq(casino))
        .select(max(monitor_tallies::gaming_day))
        .first(conn)?;
    let event: Option<DateTime<Utc>> = e::table
        .filter(e::casino.eq(casino))
        .select(max(e::received_at))
        .first(conn)?;
    Ok((day, event))
}
