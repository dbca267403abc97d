//! The view as CSV for people in a Czech office, as the casino's own CSV files are written: a
//! byte-order mark, `;` between fields, koruny with a decimal comma, Czech headings, CRLF; a
//! text cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a
//! line end, or their full-width forms) written with a single quote before it, and quoted.

use rules::money::koruny_plain;
use rules::spreadsheet::{neutralise, reads_as_formula};

use super::figures::decimal;
use super::overview::Overview;

/// A text cell: neutralised when it would read as a formula (`rules::spreadsheet`, as the
/// casino's CSV files), quoted where CSV needs it.
pub fn text_cell(text: &str) -> String {
    let formula = reads_as_formula(text);
    let text = neutralise(text).into_owned();
    if formula || text.contains([';', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

const HEADINGS: [&str; 18] = [
    "Kasino",
    "Stav",
    "Záznamů ověřeno",
    "Kontrolní bod",
    "Měsíc",
    "Hra",
    "Kol",
    "Vsazeno (Kč)",
    "Vráceno na neplatných kolech (Kč)",
    "Vyplaceno (Kč)",
    "Podle plánu (Kč)",
    "Skutečné RTP (%)",
    "Teoretické RTP (%)",
    "z (σ)",
    "Nálezy v měsíci",
    "Částka nálezů (Kč)",
    "Nálezy otevřené",
    "Nálezy vyřešené",
];

/// One line per casino and game (a casino without a game in the month: one line without one).
pub fn overview_csv(view: &Overview) -> String {
    let mut out = String::from("\u{feff}");
    out.push_str(&HEADINGS.join(";"));
    out.push_str("\r\n");
    let opt = |v: Option<f64>, places: usize| v.map_or_else(String::new, |v| decimal(v, places));
    for c in &view.casinos {
        let head = [
            text_cell(&c.casino),
            text_cell(super::html::state_words(c.state)),
            c.entries_followed.to_string(),
            c.checkpoint_size
                .map_or_else(String::new, |s| s.to_string()),
            view.month.clone(),
        ];
        if c.games.is_empty() {
            let mut line: Vec<String> = head.to_vec();
            line.resize(HEADINGS.len(), String::new());
            out.push_str(&line.join(";"));
            out.push_str("\r\n");
        }
        for g in &c.games {
            let mut line: Vec<String> = head.to_vec();
            line.extend([
                text_cell(&g.game_name),
                g.rounds.to_string(),
                koruny_plain(g.stakes_h),
                koruny_plain(g.returned_h),
                koruny_plain(g.paid_h),
                koruny_plain(g.expected_paid_h),
                opt(g.actual_rtp_pct, 2),
                opt(g.theoretical_rtp_pct, 2),
                opt(g.deviation_sd, 2),
                g.findings.to_string(),
                koruny_plain(g.findings_amount_h),
                g.findings_open.to_string(),
                g.findings_resolved.to_string(),
            ]);
            out.push_str(&line.join(";"));
            out.push_str("\r\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_a_spreadsheet_would_run_is_text() {
        assert_eq!(text_cell("=1+2"), "\"'=1+2\"");
        assert_eq!(text_cell("-A1"), "\"'-A1\"");
        assert_eq!(text_cell("Ruleta; francouzská"), "\"Ruleta; francouzská\"");
        assert_eq!(text_cell("casino-1"), "casino-1");
    }
}
