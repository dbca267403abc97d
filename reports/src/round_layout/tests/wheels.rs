#![allow(clippy::unwrap_used)]
use serde_json::json;

use super::*;

/// Wheel I laid out as the plan counts its boxes: 0–16 `1x`, 17–26 `2x`, 27–31 `5x`, 32–33
/// `10x`, 34 `25x_black`, 35 `25x_pink`.
fn wheel_one() -> rules::TableSetup {
    let plans = rules::PlanBook::builtin().unwrap();
    let plan = plans.get("69games-ziva-hra").unwrap();
    let labels: Vec<String> = plan
        .money_wheel_1
        .as_ref()
        .unwrap()
        .boxes
        .iter()
        .flat_map(|b| std::iter::repeat_n(b.id.clone(), b.segments as usize))
        .collect();
    rules::TableSetup::for_table(plan, rules::GameCode::MoneyWheel1, Some(&labels), None).unwrap()
}

#[test]
fn a_money_wheel_shows_the_segment_its_label_and_marks_a_losing_box_paid() {
    let setup = wheel_one();
    // The pointer stops on segment 35, the pink 25x, after 5 turns. 100 Kč on 25x pink:
    // 25 × 100 + 100 = 2 600 Kč. 100 Kč on 25x black loses but was paid 2 600 Kč; 50 Kč on
    // 1x loses.
    let record = json!({"type": "round", "game": "money_wheel_1", "table_id": "W1",
    "seq_no": 1, "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:00:00Z",
    "outcome": {"result": "segment", "segment": 35, "turns": 5},
    "bets": [
        {"bet_id": "pink", "player": "p1", "box": "25x_pink", "stake_h": 10_000, "paid_h": 260_000},
        {"bet_id": "black", "player": "p2", "box": "25x_black", "stake_h": 10_000, "paid_h": 260_000},
        {"bet_id": "b3", "player": "p2", "box": "1x", "stake_h": 5_000, "paid_h": 0}
    ]});
    let (layout, findings) = judged_layout(&record, &setup, Language::Czech);
    assert_eq!(findings, ["overpaid"]);
    assert_eq!(layout.headline, "Kolo zastavilo: pole 25x růžové");
    assert_eq!(
        facts(&layout),
        [("Segment", "35 (pole 25x růžové)"), ("Otáčky", "5")]
    );
    assert_eq!(
        cells(&layout, "Sázky"),
        [
            [
                "pink",
                "p1",
                "pole 25x růžové",
                "25x_pink",
                "100,00 Kč",
                "2 600,00 Kč",
                "2 600,00 Kč",
                "",
                ""
            ],
            [
                "black",
                "p2",
                "pole 25x černé",
                "25x_black",
                "100,00 Kč",
                "2 600,00 Kč",
                "0,00 Kč",
                "2 600,00 Kč",
                // A losing box is due nothing: all 2 600 Kč paid is the finding's.
                "přeplaceno: Vyplatit dle plánu 0,00 Kč · Vyplaceno 2 600,00 Kč · Rozdíl 2 600,00 Kč"
            ],
            [
                "b3",
                "p2",
                "pole 1x",
                "1x",
                "50,00 Kč",
                "0,00 Kč",
                "0,00 Kč",
                "",
                ""
            ],
        ]
    );
    assert_eq!(flags(&layout, "Sázky"), [false, true, false]);
}

#[test]
fn a_wheel_finding_heads_with_what_was_due_and_paid_as_its_row_shows() {
    // The pointer stops on segment 20, a 2x. 200 Kč on 5x loses (due 0) but was paid
    // 1 200 Kč, as if 5x had come up (5 × 200 + 200): 1 200 Kč overpaid. 300 Kč on 2x wins
    // 2 × 300 + 300 = 900 Kč and is paid so.
    let record = json!({"type": "round", "game": "money_wheel_1", "table_id": "W1",
    "seq_no": 2, "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:01:00Z",
    "outcome": {"result": "segment", "segment": 20, "turns": 4},
    "bets": [
        {"bet_id": "five", "player": "p1", "box": "5x", "stake_h": 20_000, "paid_h": 120_000},
        {"bet_id": "two", "player": "p2", "box": "2x", "stake_h": 30_000, "paid_h": 90_000}
    ]});
    let page = checked_page_at(&record, &wheel_one(), "overpaid", Language::Czech);
    page.heads_with("Vyplatit dle plánu: 0,00 Kč · Vyplaceno: 1 200,00 Kč · Rozdíl: 1 200,00 Kč");
    assert_bet_row(
        &page.rows[0][..8],
        "five | p1 | pole 5x | 5x | 200,00 Kč | 1 200,00 Kč | 0,00 Kč | 1 200,00 Kč",
    );
}
