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
//! `dozor_monitor_rtp_z`).

use chrono::{DateTime, Utc};
use diesel::PgConnection;

use crate::config::MonitorConfig;
use crate::error::MonitorError;

/// The monitor's metrics for every casino of `config` as Prometheus text.
pub fn render_metrics(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    now: DateTime<Utc>,
) -> Result<String, MonitorError> {
    let _ = (conn, config, now);
    Ok(String::new())
}
