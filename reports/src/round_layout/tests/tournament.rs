#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;

/// A freezeout of eight players p01–p08 at 1 000 Kč, announced 11 days ahead with a 10 %
/// fee; p01 wins `first_h`, p02 `second_h`.
fn tournament(first_h: i64, second_h: i64) -> Value {
    let entries: Vec<Value> = (1..=8)
        .map(|n| {
            json!({"player": format!("p{n:02}"), "kind": "buy_in",
                "at": format!("2026-11-21T18:{n:02}:00Z"), "amount_h": 100_000})
        })
        .collect();
    json!({"type": "round", "game": "poker_tournament", "table_id": "POKER-ROOM",
    "seq_no": 3, "plan_id": "69games-ziva-hra", "tournament_id": "friday-freezeout",
    "played_at": "2026-11-22T02:00:00Z", "variant": "holdem", "format": "freezeout",
    "announced_at": "2026-11-10T12:00:00Z", "starts_at": "2026-11-21T18:00:00Z",
    "registration_closes_at": "2026-11-21T20:00:00Z",
    "buy_in_h": 100_000, "starting_stack": 20_000, "fee_percent": 10, "fee_h": 80_000,
    "entries": entries,
    "results": [
        {"place": 1, "player": "p01", "prize_h": first_h},
        {"place": 2, "player": "p02", "prize_h": second_h,
         "out_at": "2026-11-22T01:50:00Z"}
    ]})
}

#[test]
fn a_tournament_shows_buy_in_fee_entries_pools_and_results() {
    // 8 entries × 1 000 Kč = 8 000 Kč moneypool; fee 10 % = 800 Kč; prize pool 7 200 Kč.
    // 8 entries: the plan's 6–9 column pays 70 / 30 %: 5 040 and 2 160 Kč. No guarantee,
    // no overlay.
    let layout = clean_layout(
        &tournament(504_000, 216_000),
        Language::Czech,
        "friday-freezeout",
        &[
            ("Formát", "freezeout"),
            ("Buy-in", "1 000,00 Kč"),
            ("Poplatek", "800,00 Kč (10 %)"),
            ("Vstupů", "8"),
            ("Moneypool", "8 000,00 Kč"),
            ("Výherní fond", "7 200,00 Kč"),
            ("Doplatek provozovatele", "0,00 Kč"),
        ],
    );
    assert_eq!(
        cells(&layout, "Výsledky"),
        [["1", "p01", "5 040,00 Kč"], ["2", "p02", "2 160,00 Kč"]]
    );
    assert_eq!(flags(&layout, "Výsledky"), [false, false]);
    let bets = cells(&layout, "Sázky");
    assert_eq!(bets.len(), 8);
    assert_eq!(
        bets[0],
        [
            "p01",
            "p01",
            "hráč turnaje",
            "",
            "1 000,00 Kč",
            "5 040,00 Kč",
            "5 040,00 Kč",
            "",
            ""
        ]
    );
    assert_eq!(
        bets[7],
        [
            "p08",
            "p08",
            "hráč turnaje",
            "",
            "1 000,00 Kč",
            "0,00 Kč",
            "0,00 Kč",
            "",
            ""
        ]
    );
}

#[test]
fn a_tournament_prize_paid_short_marks_the_place() {
    // Second place is due 30 % of 7 200 Kč = 2 160 Kč; the floor paid 2 000 Kč.
    let (layout, findings) = plain_layout(&tournament(504_000, 200_000), Language::English);
    assert_eq!(findings, ["underpaid"]);
    assert_eq!(flags(&layout, "Results"), [false, true]);
    assert_eq!(cells(&layout, "Results")[1], ["2", "p02", "2 000,00 Kč"]);
    let bets = section(&layout, "Bets");
    assert!(bets.rows[1].flagged && !bets.rows[0].flagged);
    assert_eq!(bets.rows[1].cells[7], "-160,00 Kč");
    assert!(facts(&layout).contains(&("Fee", "800,00 Kč (10 %)")));
}

#[test]
fn a_tournament_prize_finding_heads_with_what_its_row_shows() {
    // Second place is due 30 % of the 7 200 Kč prize pool = 2 160 Kč; the floor paid 2 000 Kč:
    // 160 Kč short, in the heading, p02's row and the finding's amount.
    let page = checked_page(&tournament(504_000, 200_000), "underpaid", Language::Czech);
    page.heads_with(
        "Vyplatit dle plánu: 2 160,00 Kč · Vyplaceno: 2 000,00 Kč · Rozdíl: -160,00 Kč",
    );
    page.amounts_to(
        16_000,
        "p02 | p02 | hráč turnaje |  | 1 000,00 Kč | 2 000,00 Kč | 2 160,00 Kč | -160,00 Kč",
    );
    assert_eq!(flags(&page.layout, "Výsledky"), [false, true]);
}

#[test]
fn a_tournament_fee_finding_heads_with_the_plans_fee_and_the_one_taken() {
    // 10 % of the 8 000 Kč moneypool is 800 Kč; the record took 900 Kč, 100 Kč too much. The
    // finding names no player: its figures are among the facts, by the fee as the round
    // shows it.
    let mut record = tournament(504_000, 216_000);
    record["fee_h"] = json!(90_000);
    let page = checked_page(&record, "fee_wrong", Language::English);
    page.heads_with("Fee by the plan: 800,00 Kč · Fee taken: 900,00 Kč · Difference: 100,00 Kč");
    assert!(facts(&page.layout).contains(&("Fee", "900,00 Kč (10 %) (by the plan 800,00 Kč)")));
}
