#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A finding's page as the workbench serves it, from signed rounds submitted over the API: the
//! figures it heads with, the row of the bet (seat) it names and the finding's amount are one
//! computation and say the same. Each layout of every game is checked the same way by the unit
//! tests of `reports::round_layout`; here the cases the workbench once contradicted itself on.

mod common;

use common::*;
use serde_json::{json, Value};

/// The page's heading facts (label, value) up to the round, and the cells of every marked row
/// of its tables.
fn page_parts(html: &str) -> (Vec<(String, String)>, Vec<Vec<String>>) {
    let heading = html
        .split("<h2>")
        .next()
        .unwrap()
        .split("<dt>")
        .skip(1)
        .map(|fact| {
            let (label, rest) = fact.split_once("</dt><dd>").unwrap();
            (
                label.to_owned(),
                rest.split("</dd>").next().unwrap().to_owned(),
            )
        })
        .collect();
    let flagged = html
        .split("<tr class=\"flag\">")
        .skip(1)
        .map(|row| {
            row.split("</tr>")
                .next()
                .unwrap()
                .split("<td>")
                .skip(1)
                .map(|cell| cell.trim_end_matches("</td>").to_owned())
                .collect()
        })
        .collect();
    (heading, flagged)
}

/// The finding of `kind` at `table_id`, and its page in Czech.
async fn finding_page(app: &impl TestApp, table_id: &str, kind: &str) -> (Value, String) {
    let (s, page) = get(
        app,
        &format!("/api/v1/findings?table_id={table_id}&kind={kind}"),
    )
    .await;
    assert_eq!((s, &page["total"]), (200, &json!(1)), "{page}");
    let finding = page["items"][0].clone();
    let id = finding["id"].as_str().unwrap();
    let (s, html) = get_text(app, &format!("/workbench/findings/{id}")).await;
    assert_eq!(s, 200, "{html}");
    (finding, html)
}

/// The page of the one finding of `kind` at `table_id`, whose amount is `amount_h`: the facts
/// of its heading, its flagged rows, and the page.
async fn flagged_page(
    app: &impl TestApp,
    table_id: &str,
    kind: &str,
    amount_h: i64,
) -> (Vec<(String, String)>, Vec<Vec<String>>, String) {
    let (finding, html) = finding_page(app, table_id, kind).await;
    assert_eq!(finding["amount_h"], amount_h);
    let (heading, flagged) = page_parts(&html);
    (heading, flagged, html)
}

/// Registers `table_id` for `game`, signed by `key(k)`, and submits `record`.
async fn submit(app: &impl TestApp, table_id: &str, game: &str, k: u8, record: Value) {
    let table = registration_of(table_id, game, &key(k));
    register_table(app, table).await;
    let (s, b) = call(app, record_request(record, &key(k))).await;
    assert_eq!(s, 201, "{b}");
}

/// The facts of `heading` from `label` on, three of them: the plan's figure, the table's and
/// the difference.
fn figures<'h>(heading: &'h [(String, String)], label: &str) -> Vec<(&'h str, &'h str)> {
    let at = heading.iter().position(|(l, _)| l == label).unwrap();
    heading[at..at + 3]
        .iter()
        .map(|(l, v)| (l.as_str(), v.as_str()))
        .collect()
}

/// The heading shows the three figures `expected` (the plan's, the table's, the difference).
fn assert_figures(heading: &[(String, String)], expected: [(&str, &str); 3]) {
    assert_eq!(figures(heading, expected[0].0), expected);
}

#[actix_web::test]
async fn a_withheld_blackjack_win_heads_its_page_with_what_its_row_shows() {
    let (_state, _url, app) = api_app().await;
    // Box 1's T♠ Q♦ (20) stands; the dealer's 9♥ 8♣ (17) stands: the 1 000 Kč main bet wins
    // 1:1, 2 × 1 000 = 2 000 Kč. The casino withheld the win (card counting) and returned
    // the stake: 1 000 Kč paid, 2 000 − 1 000 = 1 000 Kč withheld. The page once headed
    // "Dle plánu 2 000 / Skutečně 1 000" over a row paid 1 000, due 1 000, no difference.
    let round = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T20:16:03Z", "shoe_id": "S1",
        "deal": ["Ts", "9h", "Qd", "8c"],
        "boxes": [{"box": 1, "hands": [["stand"]], "bets": [{"bet_id": "b1", "player": "p1",
            "kind": "main", "stake_h": 100_000, "paid_h": 100_000, "withheld": true}]}]});
    submit(&app, "BJ1", "blackjack", 5, round).await;
    let (heading, flagged, _) = flagged_page(&app, "BJ1", "payout_withheld", 100_000).await;
    assert_figures(
        &heading,
        [
            ("Vyhráno (zadrženo)", "2 000,00 Kč"),
            ("Vyplaceno", "1 000,00 Kč"),
            ("Rozdíl", "-1 000,00 Kč"),
        ],
    );
    assert!(
        !heading.iter().any(|(l, _)| l == "Dle plánu"),
        "{heading:?}"
    );
    // The bet's row: staked 1 000, paid 1 000, due 1 000 (the stake, with the win withheld),
    // and the heading's figures.
    let bet = flagged.iter().find(|r| r.len() == 9).unwrap();
    assert_eq!(
        bet[..8],
        [
            "b1",
            "p1",
            "hlavní sázka",
            "box 1",
            "1 000,00 Kč",
            "1 000,00 Kč",
            "1 000,00 Kč",
            ""
        ]
    );
    assert_eq!(
        bet[8],
        "výhra nevyplacena: Vyhráno (zadrženo) 2 000,00 Kč · Vyplaceno 1 000,00 Kč · \
         Rozdíl -1 000,00 Kč"
    );
}

#[actix_web::test]
async fn a_poker_seat_kept_from_its_uncalled_bet_heads_its_page_with_what_its_row_shows() {
    let (_state, _url, app) = api_app().await;
    // Button 2, blinds 25/50 Kč. Preflop seat 2 raises to 150 Kč, seat 1 calls (300 Kč);
    // flop seat 1 bets 200 Kč, seat 2 calls (700 Kč); turn seat 1 checks, seat 2 bets 900 Kč
    // and seat 1 folds. The pot of 700 Kč less 5 % rake (35 Kč) is 665 Kč, and the uncalled
    // 900 Kč goes back: 1 565 Kč due to seat 2. The table handed it 665 Kč: 900 Kč short.
    // The page once headed "handed 665, the pots give 1 565" over a row paid −235 Kč (the
    // pots' share net of the uncalled bet), due 665 Kč.
    let act = |seat: u8, street: &str, action: &str, to_h: Option<i64>| {
        let mut a = json!({"seat": seat, "street": street, "action": action});
        if let Some(to) = to_h {
            a["to_h"] = json!(to);
        }
        a
    };
    let hand = json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T23:05:00Z",
        "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": [{"seat": 1, "player": "p1", "stack_h": 200_000},
                  {"seat": 2, "player": "p2", "stack_h": 200_000}],
        "actions": [
            act(2, "preflop", "small_blind", Some(2_500)),
            act(1, "preflop", "big_blind", Some(5_000)),
            act(2, "preflop", "raise", Some(15_000)),
            act(1, "preflop", "call", None),
            act(1, "flop", "bet", Some(20_000)),
            act(2, "flop", "call", None),
            act(1, "turn", "check", None),
            act(2, "turn", "bet", Some(90_000)),
            act(1, "turn", "fold", None)
        ],
        "board": ["2c", "7d", "9s", "Jh"],
        "awards": [{"seat": 2, "amount_h": 66_500}],
        "rake_h": 3_500});
    submit(&app, "P1", "poker_cash", 6, hand).await;
    let (heading, flagged, html) = flagged_page(&app, "P1", "underpaid", 90_000).await;
    assert_figures(
        &heading,
        [
            ("Vyplatit dle plánu", "1 565,00 Kč"),
            ("Vyplaceno", "665,00 Kč"),
            ("Rozdíl", "-900,00 Kč"),
        ],
    );
    // Seat 2's row: put in 150 + 200 + 900 = 1 250 Kč, handed 665, due 1 565, −900 Kč.
    let seat = flagged.iter().find(|r| r.len() == 9).unwrap();
    assert_eq!(
        seat[..8],
        [
            "seat-2",
            "p2",
            "hráč u stolu",
            "",
            "1 250,00 Kč",
            "665,00 Kč",
            "1 565,00 Kč",
            "-900,00 Kč"
        ]
    );
    assert_eq!(
        seat[8],
        "nedoplaceno: Vyplatit dle plánu 1 565,00 Kč · Vyplaceno 665,00 Kč · Rozdíl -900,00 Kč"
    );
    assert!(html.contains("nedoplaceno 900,00 Kč"), "{html}");
}

#[actix_web::test]
async fn a_roulette_stake_above_the_maximum_heads_its_page_with_the_limit_and_the_stake() {
    let (_state, _url, app) = api_app().await;
    // 30 000 Kč on red, above the plan's 25 000 Kč a bet by 5 000 Kč; 17 is black, the bet
    // is lost and paid nothing, as due. The figures are a limit and a stake, not payouts.
    let red = json!({"bet_id": "r1", "player": "seat-1", "kind": "red", "stake_h": 3_000_000,
        "paid_h": 0});
    submit(&app, "R01", "roulette", 7, spin("R01", 1, 17, json!([red]))).await;
    let (heading, flagged, _) = flagged_page(&app, "R01", "stake_above_maximum", 500_000).await;
    assert_figures(
        &heading,
        [
            ("Maximum dle plánu", "25 000,00 Kč"),
            ("Vsazeno", "30 000,00 Kč"),
            ("Rozdíl", "5 000,00 Kč"),
        ],
    );
    assert_eq!(
        flagged[0],
        [
            "r1",
            "seat-1",
            "červená",
            "",
            "30 000,00 Kč",
            "0,00 Kč",
            "0,00 Kč",
            "",
            "sázka nad maximem plánu: Maximum dle plánu 25 000,00 Kč · Vsazeno 30 000,00 Kč · \
             Rozdíl 5 000,00 Kč"
        ]
    );
}
