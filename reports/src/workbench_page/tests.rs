#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;
use crate::findings::{FindingItem, FindingWithHistory};
use crate::round_view::RecordView;
use crate::sheet::Language;

/// The page of the first finding of kind `kind` of `record`, judged under the bundled plan.
fn page_of(record: Value, kind: &str) -> String {
    let plans = rules::PlanBook::builtin().unwrap();
    let plan = plans.get("69games-ziva-hra").unwrap();
    let round = rules::Round::parse(&record).unwrap();
    let verdict = rules::adjudicate_at(plan, &rules::TableSetup::NONE, &round).unwrap();
    let verdict = serde_json::to_value(&verdict).unwrap();
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-21T20:16:03Z")
        .unwrap()
        .to_utc();
    let findings: Vec<FindingItem> = verdict["findings"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(n, f)| FindingItem {
            id: format!("7.{n}"),
            ledger_index: 7,
            position: n as i32,
            state: "open".into(),
            table_id: record["table_id"].as_str().unwrap().into(),
            seq_no: record["seq_no"].as_i64(),
            round_id: None,
            game: record["game"].as_str().unwrap().into(),
            played_at: at,
            gaming_day: at.date_naive(),
            kind: f["kind"].as_str().unwrap().into(),
            bet_ids: f["bet_ids"].clone(),
            expected_h: f["expected_h"].as_i64(),
            actual_h: f["actual_h"].as_i64(),
            amount_h: f["amount_h"].as_i64().unwrap(),
            message: f["message"].as_str().unwrap().into(),
        })
        .collect();
    let finding = findings.iter().find(|f| f.kind == kind).unwrap().clone();
    let view = RecordView {
        table_id: finding.table_id.clone(),
        seq_no: finding.seq_no.unwrap(),
        round_id: None,
        record_type: "round".into(),
        ledger_index: 7,
        received_at: at,
        entry_hash: "00".repeat(32),
        record,
        key_id: "table-key".into(),
        signature: String::new(),
        verdict: Some(verdict),
        findings,
        checkpoint: None,
    };
    let with_history = FindingWithHistory {
        finding,
        history: Vec::new(),
    };
    render_finding(&FindingPageView {
        finding: &with_history,
        record: &view,
        proof_checked: None,
        form: None,
        notice: None,
        plans: &plans,
        language: Language::Czech,
    })
}

#[test]
fn a_withheld_blackjack_win_heads_its_page_with_the_figures_its_flagged_row_shows() {
    // Box 1's T♠ Q♦ (20) beats the dealer's 9♥ 8♣ (17): the 1 000 Kč main bet wins 1:1,
    // 2 000 Kč. The casino withheld the win and returned the 1 000 Kč stake: the finding is
    // 2 000 − 1 000 = 1 000 Kč. The page once headed "Dle plánu 2 000 / Skutečně 1 000"
    // over a row paid 1 000, due 1 000, no difference.
    let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1",
        "seq_no": 3, "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:16:03Z",
        "shoe_id": "S1", "deal": ["Ts", "9h", "Qd", "8c"],
        "boxes": [{"box": 1, "hands": [["stand"]], "bets": [{"bet_id": "b1",
            "player": "p1", "kind": "main", "stake_h": 100_000, "paid_h": 100_000,
            "withheld": true}]}]});
    let page = page_of(record, "payout_withheld");
    let figures = "<dt>Vyhráno (zadrženo)</dt><dd>2 000,00 Kč</dd>\
         <dt>Vyplaceno</dt><dd>1 000,00 Kč</dd><dt>Rozdíl</dt><dd>-1 000,00 Kč</dd>";
    assert!(page.contains(figures), "{page}");
    assert!(!page.contains("<dt>Dle plánu</dt>"));
    let row = "<tr class=\"flag\"><td>b1</td><td>p1</td><td>hlavní sázka</td><td>box 1</td>\
         <td>1 000,00 Kč</td><td>1 000,00 Kč</td><td>1 000,00 Kč</td><td></td>\
         <td>výhra nevyplacena: Vyhráno (zadrženo) 2 000,00 Kč · Vyplaceno 1 000,00 Kč · \
         Rozdíl -1 000,00 Kč</td></tr>";
    assert!(page.contains(row), "{page}");
    assert!(page.contains("Nález 7.0 — výhra nevyplacena 1 000,00 Kč"));
    // The description in Czech, as the rules' catalogue reads the English the ledger keeps.
    assert!(page.contains(
        "<p>sázka b1: kasino zadrželo výhru 2 000,00 Kč (počítání karet) a vrátilo vklad \
         1 000,00 Kč; rozhodnutí musí být zdůvodněno</p>"
    ));
    assert!(!page.contains("the casino withheld"), "{page}");
    // Days and times as Czech write them, in Prague time (20:16:03 UTC is 21:16:03 CET).
    assert!(page.contains("<dd>21. 11. 2026 21:16:03</dd>"), "{page}");
    assert!(page.contains("<dd>21. 11. 2026</dd>"), "{page}");
}

#[test]
fn days_are_read_as_people_type_them() {
    assert_eq!(
        parse_czech_day("27. 11. 2026").as_deref(),
        Some("2026-11-27")
    );
    assert_eq!(parse_czech_day("1.10.2026").as_deref(), Some("2026-10-01"));
    assert_eq!(parse_czech_day("31. 11. 2026"), None);
    assert_eq!(parse_czech_day("2026-11-27"), None);
    assert_eq!(parse_czech_day("yesterday"), None);
}

#[test]
fn koruny_are_read_as_people_type_them() {
    assert_eq!(parse_koruny("100"), Some(10_000));
    assert_eq!(parse_koruny("1 234,50"), Some(123_450));
    assert_eq!(parse_koruny("1234.5"), Some(123_450));
    assert_eq!(parse_koruny("0,05 Kč"), Some(5));
    assert_eq!(parse_koruny(",5"), Some(50));
    assert_eq!(parse_koruny("1,234"), None);
    assert_eq!(parse_koruny("-5"), None);
    assert_eq!(parse_koruny("deset"), None);
    assert_eq!(parse_koruny(""), None);
    assert_eq!(parse_koruny("99999999999999999999"), None);
}

#[test]
fn text_is_escaped_and_queries_encoded() {
    assert_eq!(
        esc("<a href=\"x\">&'"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
    );
    let q = query(&[
        ("table_id".into(), "R 01&x".into()),
        ("kind".into(), String::new()),
    ]);
    assert_eq!(q, "table_id=R+01%26x");
}

#[test]
fn the_list_counts_with_the_thousands_space_and_offers_the_days_keeping_the_filters() {
    let plans = rules::PlanBook::builtin().unwrap();
    let at = chrono::DateTime::parse_from_rfc3339("2026-10-01T20:16:03Z")
        .unwrap()
        .to_utc();
    let item = FindingItem {
        id: "7.0".into(),
        ledger_index: 7,
        position: 0,
        state: "open".into(),
        table_id: "R01".into(),
        seq_no: Some(3),
        round_id: None,
        game: "roulette".into(),
        played_at: at,
        gaming_day: at.date_naive(),
        kind: "underpaid".into(),
        bet_ids: json!(["b1"]),
        expected_h: Some(90_000),
        actual_h: Some(45_000),
        amount_h: 45_000,
        message: "bet b1 (tiers): underpaid; paid 450,00 Kč, the plan requires 900,00 Kč".into(),
    };
    // 1 251 findings over October, the first of them shown.
    let page = crate::findings::FindingPage {
        total: 1_251,
        total_amount_h: 123_456_789,
        limit: 100,
        offset: 0,
        items: vec![item],
    };
    let filter: Vec<(String, String)> = [
        ("from", "2026-11-28"),
        ("to", "2026-11-28"),
        ("kind", "underpaid"),
        ("sort", "-played_at"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let html = render_list(&ListView {
        page: &page,
        filter: &filter,
        plans: &plans,
        language: Language::Czech,
        today: chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap(),
    });
    for shown in [
        "Nálezů <b>1\u{a0}251</b>, v částce <b>1 234 567,89 Kč</b>; zobrazeny 1–1.",
        // Yesterday (28 Nov) is the day shown; the others keep the kind and the order.
        "<b aria-current=\"page\">včera</b>",
        "<a href=\"?kind=underpaid&amp;sort=-played_at&amp;from=2026-11-29&amp;to=2026-11-29\">dnes</a>",
        "<a href=\"?kind=underpaid&amp;sort=-played_at&amp;from=2026-11-27&amp;to=2026-11-27\">pá 27. 11. 2026</a>",
        "<a href=\"?kind=underpaid&amp;sort=-played_at&amp;from=2026-11-01&amp;to=2026-11-29\">tento měsíc</a>",
        "<a href=\"?kind=underpaid&amp;sort=-played_at&amp;from=2026-10-01&amp;to=2026-10-31\">minulý měsíc</a>",
        "<a href=\"?kind=underpaid&amp;sort=-played_at&amp;all=1\">všechny dny</a>",
        "<option value=\"-played_at\" selected>nejnovější první</option>",
        // The days in the form as Czech write them, whatever the browser's language.
        "name=\"from\" value=\"28. 11. 2026\"",
        // 20:16:03 UTC is 22:16:03 in Prague (summer time on 1 October).
        "<td>1. 10. 2026</td><td>1. 10. 2026 22:16:03</td>",
        "<td>sázka b1 (malá série): nedoplaceno; vyplaceno 450,00 Kč, plán požaduje 900,00 Kč</td>",
    ] {
        assert!(html.contains(shown), "`{shown}` is not on the page:\n{html}");
    }
    // The files download every day of the filter, without the page's `all`.
    assert!(!html.contains("findings?all"), "{html}");
}
