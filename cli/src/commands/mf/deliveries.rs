//! `dozor report mf deliveries` in Czech, as the compliance officer reads it: a table of every
//! package issued and where it stands with the Ministry, the states in Czech, dates as
//! `1. 10. 2026` and times in Prague time. `--json` keeps the API's English fields.

use chrono::{DateTime, Utc};
use reports::mf::status::DeliveryStatus;

/// The columns' names.
const COLUMNS: [&str; 7] = [
    "Balíček",
    "Stav",
    "Vytvořen",
    "Zapečetěn",
    "Staženo",
    "Naposledy staženo",
    "Odpověď ministerstva",
];

/// A state as the officer reads it (the words the month page uses too).
pub fn state(state: &str) -> String {
    reports::words::delivery_state(state, reports::sheet::Language::Czech)
}

/// `1. 10. 2026 14:05`, Prague time; `–` for none.
pub fn when(at: Option<DateTime<Utc>>) -> String {
    at.map_or_else(
        || "–".to_owned(),
        |t| {
            t.with_timezone(&chrono_tz::Europe::Prague)
                .format("%-d. %-m. %Y %H:%M")
                .to_string()
        },
    )
}

/// The Ministry's answer: when, and its first line; refused files counted.
fn answer(s: &DeliveryStatus) -> String {
    let mut text = match &s.confirmation {
        Some(c) => format!(
            "{} {}: {}",
            if c.result == "confirmed" {
                "potvrzeno"
            } else {
                "odmítnuto"
            },
            when(Some(c.at)),
            c.detail.lines().next().unwrap_or_default()
        ),
        None => "bez odpovědi".to_owned(),
    };
    if s.refused_confirmations > 0 {
        text.push_str(&format!(
            " (nepřijaté soubory: {})",
            s.refused_confirmations
        ));
    }
    text
}

fn cells(s: &DeliveryStatus) -> [String; 7] {
    [
        s.package.clone(),
        state(&s.state),
        when(Some(s.generated_at)),
        when(s.sealed_at),
        format!("{}×", s.downloads),
        when(s.last_download_at),
        answer(s),
    ]
}

/// One package on one line, `Stav: …` and the rest named.
pub fn line(s: &DeliveryStatus) -> String {
    let cells = cells(s);
    COLUMNS
        .iter()
        .zip(cells.iter())
        .map(|(name, value)| format!("{name}: {value}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The table: a header, then a line per package, columns aligned (by characters, not bytes).
pub fn table(statuses: &[DeliveryStatus]) -> String {
    if statuses.is_empty() {
        return "Žádný balíček zatím nebyl vytvořen.\n".to_owned();
    }
    let rows: Vec<[String; 7]> = statuses.iter().map(cells).collect();
    let mut widths = COLUMNS.map(|c| c.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header = COLUMNS.map(str::to_owned);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_czech_in_prague_time() {
        // 12:05 UTC on 1 October is 14:05 in Prague (CEST, UTC+2); on 1 December 13:05 (CET).
        let october: DateTime<Utc> = "2026-10-01T12:05:00Z".parse().unwrap();
        let december: DateTime<Utc> = "2026-12-01T12:05:00Z".parse().unwrap();
        assert_eq!(when(Some(october)), "1. 10. 2026 14:05");
        assert_eq!(when(Some(december)), "1. 12. 2026 13:05");
        assert_eq!(when(None), "–");
        assert_eq!(state("downloaded"), "stažen ministerstvem");
    }
}
