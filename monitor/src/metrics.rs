//! The monitor's Prometheus metrics, per casino, read from its state when scraped:
//!
//! ```ignore
//! pub fn render_metrics(
//!     conn: &mut PgConnection,
//!     config: &MonitorConfig,
//!     now: DateTime<Utc>,
//! ) -> Result<String, MonitorError>
//! ```
//!
//! The text exposition format (`text/plain; version=0.0.4`), encoded by the `prometheus`
//! crate's text encoder. `now` is the scrape's time (checkpoint ages, the current month of
//! `dozor_monitor_rtp_z`). Every configured casino has every per-casino series, from 0; a
//! casino without a checkpoint held has no `checkpoint_age_seconds` (rather than a false 0).

use chrono::{DateTime, Datelike as _, Utc};
use diesel::PgConnection;
use prometheus::core::Collector;
use prometheus::{Encoder as _, GaugeVec, IntCounterVec, IntGaugeVec, Opts, Registry, TextEncoder};

use dozor_log::access::FindingState;

use crate::alerts::readings::{checkpoint_signed_at, month_bounds, month_figures, month_label};
use crate::config::{CasinoConfig, MonitorConfig};
use crate::error::MonitorError;
use crate::store::alert_reads;
use crate::store::state;

fn failed(e: impl std::fmt::Display) -> MonitorError {
    MonitorError::Metrics(e.to_string())
}

/// The series, registered in a registry of their own for one scrape.
struct Series {
    registry: Registry,
    entries: IntGaugeVec,
    checkpoint_age: GaugeVec,
    rounds: IntCounterVec,
    findings_open: IntGaugeVec,
    mismatches: IntCounterVec,
    alerts: IntCounterVec,
    up: IntGaugeVec,
    failures: IntGaugeVec,
    halted: IntGaugeVec,
    rtp_z: GaugeVec,
    webhook_pending: IntGaugeVec,
}

fn registered<M: Collector + Clone + 'static>(
    registry: &Registry,
    metric: Result<M, prometheus::Error>,
) -> Result<M, MonitorError> {
    let metric = metric.map_err(failed)?;
    registry
        .register(Box::new(metric.clone()))
        .map_err(failed)?;
    Ok(metric)
}

impl Series {
    fn new() -> Result<Series, MonitorError> {
        let registry = Registry::new_custom(Some("dozor_monitor".into()), None).map_err(failed)?;
        let r = &registry;
        let gauge = |name: &str, help: &str| {
            registered(r, IntGaugeVec::new(Opts::new(name, help), &["casino"]))
        };
        let counter = |name: &str, help: &str, labels: &[&str]| {
            registered(r, IntCounterVec::new(Opts::new(name, help), labels))
        };
        Ok(Series {
            entries: gauge("entries", "Entries of the casino's log followed and verified")?,
            checkpoint_age: registered(
                r,
                GaugeVec::new(
                    Opts::new(
                        "checkpoint_age_seconds",
                        "Seconds since the checkpoint held was signed (its newest witness cosignature, else when first verified)",
                    ),
                    &["casino"],
                ),
            )?,
            rounds: counter("rounds_total", "Rounds followed and counted", &["casino"])?,
            findings_open: gauge(
                "findings_open",
                "The monitor's findings without a resolution recorded in the log",
            )?,
            mismatches: counter(
                "mismatches_total",
                "Rounds whose verdict by the casino differs from the monitor's",
                &["casino"],
            )?,
            alerts: counter("alerts_total", "Alerts raised, by kind", &["casino", "kind"])?,
            up: gauge("up", "1 when the last attempt to follow the casino succeeded")?,
            failures: gauge("failures_in_a_row", "Failed attempts since the last success")?,
            halted: gauge("halted", "1 when following stopped for good (a fork, a rollback)")?,
            rtp_z: registered(
                r,
                GaugeVec::new(
                    Opts::new(
                        "rtp_z",
                        "The current month's payouts past theory, in standard deviations, per game",
                    ),
                    &["casino", "game", "month"],
                ),
            )?,
            webhook_pending: gauge(
                "webhook_pending",
                "Alerts not delivered to the webhook yet",
            )?,
            registry,
        })
    }
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// One casino's series.
fn casino_series(
    conn: &mut PgConnection,
    s: &Series,
    casino: &CasinoConfig,
    now: DateTime<Utc>,
) -> Result<(), MonitorError> {
    let name = casino.name.as_str();
    let l = &[name];
    let row = alert_reads::casino_row(conn, name)?;
    s.entries
        .with_label_values(l)
        .set(row.as_ref().map_or(0, |r| r.size));
    if let Some(at) = row
        .as_ref()
        .and_then(|r| checkpoint_signed_at(r, &casino.witnesses))
    {
        let age = now.signed_duration_since(at).num_milliseconds() as f64 / 1000.0;
        s.checkpoint_age.with_label_values(l).set(age.max(0.0));
    }
    s.rounds
        .with_label_values(l)
        .inc_by(count(alert_reads::rounds(conn, name)?));
    s.mismatches
        .with_label_values(l)
        .inc_by(count(alert_reads::mismatched_rounds(conn, name)?));
    let up = row
        .as_ref()
        .is_some_and(|r| r.last_attempt_at.is_some() && r.last_error.is_none());
    s.up.with_label_values(l).set(i64::from(up));
    s.failures
        .with_label_values(l)
        .set(row.as_ref().map_or(0, |r| i64::from(r.failures)));
    s.halted
        .with_label_values(l)
        .set(i64::from(row.as_ref().is_some_and(|r| r.halted.is_some())));
    for (kind, n) in alert_reads::alerts_by_kind(conn, name, None)? {
        s.alerts.with_label_values(&[name, &kind]).inc_by(count(n));
    }
    s.webhook_pending
        .with_label_values(l)
        .set(alert_reads::undelivered(conn, name)?);
    let findings = alert_reads::findings_played_before(conn, name, None)?;
    let open = if findings.is_empty() {
        0
    } else {
        let held = state::load(conn, name, &casino.operator_keys)?;
        let resolutions = held.followed.history.resolutions();
        findings
            .iter()
            .filter(|f| {
                let at = (
                    count(f.ledger_index),
                    u32::try_from(f.position).unwrap_or(u32::MAX),
                );
                resolutions.state_of(at) == FindingState::Open
            })
            .count()
    };
    s.findings_open
        .with_label_values(l)
        .set(i64::try_from(open).unwrap_or(i64::MAX));
    let first = casino.clock.day_of(now).with_day0(0);
    if let Some((from, to)) = first.and_then(month_bounds) {
        let month = month_label(from);
        for (game, summed) in alert_reads::summed_by_game(conn, name, from, to)? {
            if let Some(d) = month_figures(&summed).deviation() {
                s.rtp_z.with_label_values(&[name, &game, &month]).set(d.z);
            }
        }
    }
    Ok(())
}

/// The monitor's metrics for every casino of `config` as Prometheus text.
pub fn render_metrics(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    now: DateTime<Utc>,
) -> Result<String, MonitorError> {
    let series = Series::new()?;
    for casino in &config.casinos {
        casino_series(conn, &series, casino, now)?;
    }
    let mut out = Vec::new();
    TextEncoder::new()
        .encode(&series.registry.gather(), &mut out)
        .map_err(failed)?;
    String::from_utf8(out).map_err(failed)
}

#[cfg(test)]
mod tests;
