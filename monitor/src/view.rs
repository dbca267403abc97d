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

#[cfg(test)]
mod tests {
    /// The view reads the monitor's state through `crate::store` only: none of its files names
    /// a table or builds a query.
    #[test]
    fn the_view_holds_no_sql() {
        let files = [
            ("view.rs", include_str!("view.rs")),
            ("view/csv.rs", include_str!("view/csv.rs")),
            ("view/figures.rs", include_str!("view/figures.rs")),
            ("view/html.rs", include_str!("view/html.rs")),
            ("view/overview.rs", include_str!("view/overview.rs")),
            ("view/round.rs", include_str!("view/round.rs")),
        ];
        // Spelled in two halves so this test's own text does not match.
        let marks = [
            ["store::", "schema"],
            ["diesel::", "prelude"],
            ["diesel::", "dsl"],
            ["monitor_", "alerts::"],
            ["monitor_", "findings::"],
            ["monitor_", "mismatches::"],
            ["monitor_", "tallies::"],
            [".load", "(conn)"],
        ];
        for (name, text) in files {
            for [a, b] in marks {
                let mark = format!("{a}{b}");
                assert!(!text.contains(&mark), "{name} holds `{mark}`");
            }
        }
    }
}
