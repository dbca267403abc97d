//! The regulator's view across every casino the monitor follows, in Czech: one page of every
//! casino and game for a month (`/`), one round proven from the casino's tiles
//! (`/casino/{name}/round/{index}`), the same figures as JSON and as CSV for a Czech office.
//! Built from the monitor's own state (`overview`) and, for a round, the casino's published
//! files (`round`); written by `html` and `csv`; served by `crate::http`, or written to files.

pub mod csv;
pub mod figures;
pub mod html;
pub mod overview;
pub mod round;

use std::path::Path;

use chrono::{DateTime, Utc};
use diesel::PgConnection;

use crate::config::MonitorConfig;
use crate::error::MonitorError;
use figures::Month;

/// Writes `index.html`, `view.json` and `view.csv` of `month` into `dir`.
pub fn write_files(
    conn: &mut PgConnection,
    config: &MonitorConfig,
    month: Month,
    now: DateTime<Utc>,
    dir: &Path,
) -> Result<(), MonitorError> {
    let view = overview::overview(conn, config, month, now)?;
    let failed = |e: std::io::Error| MonitorError::Casino {
        casino: String::new(),
        message: format!("writing the view into {}: {e}", dir.display()),
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let json = serde_json::to_string_pretty(&view).map_err(|e| MonitorError::Casino {
        casino: String::new(),
        message: e.to_string(),
    })?;
    std::fs::write(dir.join("index.html"), html::overview_page(&view, month)).map_err(failed)?;
    std::fs::write(dir.join("view.json"), json + "\n").map_err(failed)?;
    std::fs::write(dir.join("view.csv"), csv::overview_csv(&view)).map_err(failed)?;
    Ok(())
}
