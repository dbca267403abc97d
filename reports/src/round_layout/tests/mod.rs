//! The layout of each game's rounds, and of a finding's round.

#![allow(clippy::unwrap_used)]
use serde_json::json;

use super::*;

mod blackjack;
mod ofc;
mod poker;
mod roulette;
mod tournament;
mod uth;
mod wheels;

/// `record` judged under the bundled plan on a table set up as `setup`: the verdict as
/// stored (JSON), the kinds of its findings, and the bets they name (what a finding's page
/// and an inspection flag).
fn judged(record: &Value, setup: &rules::TableSetup) -> (Value, Vec<&'static str>, Vec<String>) {
    let plans = rules::PlanBook::builtin().unwrap();
    let plan = plans.get("69games-ziva-hra").unwrap();
    let round = rules::Round::parse(record).unwrap();
    let verdict = rules::adjudicate_at(plan, setup, &round).unwrap();
    let kinds = verdict.findings.iter().map(|f| f.kind.as_str()).collect();
    let flagged = verdict
        .findings
        .iter()
        .flat_map(|f| f.bet_ids.clone().unwrap_or_default())
        .collect();
    (serde_json::to_value(&verdict).unwrap(), kinds, flagged)
}

/// `record` judged and laid out in `language`, with the kinds of the verdict's findings.
fn judged_layout(
    record: &Value,
    setup: &rules::TableSetup,
    language: Language,
) -> (Layout, Vec<&'static str>) {
    let (verdict, kinds, flagged) = judged(record, setup);
    let plans = rules::PlanBook::builtin().unwrap();
    (
        lay_out(record, Some(&verdict), flagged, &plans, language),
        kinds,
    )
}

/// `record` judged on a table with no set-up and laid out in `language`, with the kinds of the
/// verdict's findings.
fn plain_layout(record: &Value, language: Language) -> (Layout, Vec<&'static str>) {
    judged_layout(record, &rules::TableSetup::NONE, language)
}

/// `record` judged on a table with no set-up and laid out in `language`, checked to have no
/// findings, to be headed by `headline` and to show `expected` facts.
fn clean_layout(
    record: &Value,
    language: Language,
    headline: &str,
    expected: &[(&str, &str)],
) -> Layout {
    let (layout, findings) = plain_layout(record, language);
    assert_eq!(findings, Vec::<&str>::new());
    assert_eq!(layout.headline, headline);
    assert_eq!(facts(&layout), expected);
    layout
}

fn section<'l>(layout: &'l Layout, title: &str) -> &'l Section {
    layout
        .sections
        .iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no section {title}: {layout:?}"))
}

/// A section's cells, row by row.
fn cells<'l>(layout: &'l Layout, title: &str) -> Vec<Vec<&'l str>> {
    section(layout, title)
        .rows
        .iter()
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect()
}

/// The flags of a section's rows.
fn flags(layout: &Layout, title: &str) -> Vec<bool> {
    section(layout, title)
        .rows
        .iter()
        .map(|r| r.flagged)
        .collect()
}

fn facts(layout: &Layout) -> Vec<(&str, &str)> {
    layout
        .facts
        .iter()
        .map(|(l, v)| (l.as_str(), v.as_str()))
        .collect()
}

fn hand(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// `record`'s finding of `kind` as its page lays it out: the figures the page heads with, the
/// round laid out for it, the finding and its figures.
fn finding_page(
    record: &Value,
    setup: &rules::TableSetup,
    kind: &str,
    language: Language,
) -> (Vec<(String, String)>, Layout, FindingFacts, FindingFigures) {
    let (verdict, kinds, _) = judged(record, setup);
    let finding = verdict["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(FindingFacts::from_json)
        .find(|f| f.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} among {kinds:?}"));
    let plans = rules::PlanBook::builtin().unwrap();
    let layout = lay_out_finding(record, Some(&verdict), &finding, &plans, language);
    let figures = figures(&finding, record, language);
    (figures.facts(), layout, finding, figures)
}

/// The heading's figures as label and value, to compare with what a test expects.
fn pairs(heading: &[(String, String)]) -> Vec<(&str, &str)> {
    heading
        .iter()
        .map(|(l, v)| (l.as_str(), v.as_str()))
        .collect()
}

/// What every finding's page must hold, whatever the game: the finding's amount is its
/// figures' difference (or the stake of a bet not accepted); the bet rows flagged are exactly
/// the bets it names, each showing the heading's figures; a payout's row shows them in its own
/// paid, due and difference columns too. A finding naming no bet shows them among the facts.
/// Returns the flagged bet rows' cells.
fn assert_page_agrees<'l>(
    layout: &'l Layout,
    finding: &FindingFacts,
    figures: &FindingFigures,
) -> Vec<Vec<&'l str>> {
    assert_eq!(figures.amount.1.abs(), finding.amount_h, "{figures:?}");
    if let (Some((_, plan)), Some((_, table))) = (&figures.plan, &figures.table) {
        if figures.amount.0 == "Rozdíl" || figures.amount.0 == "Difference" {
            assert_eq!(table - plan, figures.amount.1);
        }
    }
    let bets = layout
        .sections
        .iter()
        .find(|s| s.title == "Sázky" || s.title == "Bets")
        .unwrap();
    let flagged: Vec<Vec<&str>> = bets
        .rows
        .iter()
        .filter(|r| r.flagged)
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect();
    let ids: Vec<&str> = flagged.iter().map(|r| r[0]).collect();
    let named: Vec<&str> = finding.bet_ids.iter().map(String::as_str).collect();
    let in_rows = bets
        .rows
        .iter()
        .any(|r| named.contains(&r.cells[0].as_str()));
    if in_rows {
        assert_eq!(
            ids, named,
            "the flagged rows are the bets the finding names"
        );
    } else {
        assert!(ids.is_empty());
        assert!(layout.facts.iter().any(|(_, v)| *v == figures.cell()));
    }
    for row in bets.rows.iter().filter(|r| !r.flagged) {
        assert_eq!(row.cells[8], "", "an unflagged row shows no finding");
    }
    // A payout's figures are the verdict's paid and due (an OFC result is not a payout).
    let payout = figures.plan.as_ref().is_some_and(|(label, _)| {
        ["Vyplatit dle plánu", "Due by the plan", "Vrátit dle plánu"].contains(&label.as_str())
            || label == "To go back by the plan"
    });
    for row in &flagged {
        assert_eq!(row[8], figures.cell());
        if payout {
            let money = |h: i64| rules::money::format_czk(h);
            assert_eq!(row[5], money(figures.table.as_ref().unwrap().1), "paid");
            assert_eq!(row[6], money(figures.plan.as_ref().unwrap().1), "due");
            assert_eq!(row[7], money(figures.amount.1), "difference");
        }
    }
    flagged
}

/// A finding's page as a test reads it: its heading's figures, its layout, the finding and the
/// flagged bet rows' cells.
struct Page {
    heading: Vec<(String, String)>,
    layout: Layout,
    finding: FindingFacts,
    rows: Vec<Vec<String>>,
}

impl Page {
    /// The heading's figures against the expected ones, written as "label: value" separated by
    /// " · ".
    fn heads_with(&self, expected: &str) {
        let expected: Vec<(&str, &str)> = expected
            .split(" · ")
            .map(|pair| pair.split_once(": ").unwrap())
            .collect();
        assert_eq!(pairs(&self.heading), expected);
    }

    /// The finding's amount, and the first row's bet cells (`assert_bet_row`).
    fn amounts_to(&self, amount_h: i64, first_row: &str) {
        assert_eq!(self.finding.amount_h, amount_h);
        assert_bet_row(&self.rows[0][..8], first_row);
    }
}

/// `record`'s finding of `kind` on its page, on a table with no set-up, checked to agree with
/// itself (`assert_page_agrees`).
fn checked_page(record: &Value, kind: &str, language: Language) -> Page {
    checked_page_at(record, &rules::TableSetup::NONE, kind, language)
}

/// `record`'s finding of `kind` on its page, on a table set up as `setup`, checked to agree with
/// itself (`assert_page_agrees`).
fn checked_page_at(
    record: &Value,
    setup: &rules::TableSetup,
    kind: &str,
    language: Language,
) -> Page {
    let (heading, layout, finding, figures) = finding_page(record, setup, kind, language);
    let rows = assert_page_agrees(&layout, &finding, &figures)
        .iter()
        .map(|row| row.iter().map(|cell| cell.to_string()).collect())
        .collect();
    Page {
        heading,
        layout,
        finding,
        rows,
    }
}

/// A bet row's cells against the expected ones, written on one line separated by " | ".
fn assert_bet_row(row: &[String], expected: &str) {
    let expected: Vec<&str> = expected.split(" | ").collect();
    assert_eq!(row, expected);
}

#[test]
fn cards_read_as_people_write_them() {
    assert_eq!(card_face("Th"), "10♥");
    assert_eq!(card_face("As"), "A♠");
    assert_eq!(card_face("??"), "??");
}
#[test]
fn roulette_shows_the_number_and_each_bet_paid_against_due() {
    let record = json!({"game": "roulette", "outcome": {"result": "number", "number": 17},
        "bets": [{"bet_id": "b1", "player": "seat-3", "kind": "straight", "numbers": [17],
                  "stake_h": 10000, "paid_h": 370000}]});
    // 35 × 100 Kč + the stake = 3 600 Kč due; 3 700 Kč paid: 100 Kč too much.
    let verdict = json!({"void": false, "bets": [{"bet_id": "b1", "player": "seat-3",
        "kind": "straight", "stake_h": 10000, "paid_h": 370000, "expected_paid_h": 360000}]});
    let plans = rules::PlanBook::builtin().unwrap();
    let layout = lay_out(
        &record,
        Some(&verdict),
        vec!["b1".into()],
        &plans,
        Language::Czech,
    );
    assert_eq!(layout.headline, "Padlo 17 (černá)");
    let bet = &layout.sections[0].rows[0];
    assert!(bet.flagged);
    assert_eq!(
        bet.cells,
        vec![
            "b1",
            "seat-3",
            "číslo (plein)",
            "17",
            "100,00 Kč",
            "3 700,00 Kč",
            "3 600,00 Kč",
            "100,00 Kč",
            // A verdict without findings: nothing to explain.
            ""
        ]
    );
}
