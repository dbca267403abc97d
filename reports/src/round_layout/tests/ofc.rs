#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;

/// Three players of Pineapple OFC (the rules' worked hand): A scoops B, C fouls. Each pays
/// `rakes_h`.
///
/// A: Q♥ Q♦ 2♣ (queens: 7) | 9♠ 9♥ 9♣ 4♦ 5♥ (trips: 2) | A♠ K♠ 8♠ 6♠ 3♠ (flush: 4): 13.
/// B: J♣ J♥ 3♦ (jacks: 6) | 10♦ 10♣ 7♥ 7♠ 2♦ (two pair: 0) | 5♣–9♦ (straight: 2): 8.
/// C: back Q-high under a middle pair of aces: fouled.
/// A vs B at 100 Kč a point: 3 rows + 3 scoop + 13 − 8 = 11 points = +1 100 Kč.
/// A vs C at 50 Kč: 6 + 13 = 19 points = +950 Kč. B vs C at 20 Kč: 6 + 8 = 14 = +280 Kč.
/// Nets: A +2 050 Kč, B −1 100 + 280 = −820 Kč, C −950 − 280 = −1 230 Kč.
fn ofc_hand(rakes_h: [i64; 3]) -> Value {
    let player = |name: &str, deal: &str, rows: &str, discards: &str, net_h: i64, rake_h| {
        let rows: Vec<&str> = rows.split('|').collect();
        json!({"player": name, "deal": deal.split('|').map(hand).collect::<Vec<_>>(),
            "front": hand(rows[0]), "middle": hand(rows[1]), "back": hand(rows[2]),
            "discards": hand(discards), "net_h": net_h, "rake_h": rake_h})
    };
    json!({"type": "round", "game": "open_face_chinese", "table_id": "OFC1", "seq_no": 7,
    "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T22:00:00Z",
    "players": [
        player("A", "Qh 9s 9h As Ks | 9c 8s 2s | 6s 3s 3h | Qd 4d 4s | 2c 5h 5s",
            "Qh Qd 2c | 9s 9h 9c 4d 5h | As Ks 8s 6s 3s", "2s 3h 4s 5s", 205_000,
            rakes_h[0]),
        player("B", "Jc Td 5c 6d 7c | Jh 8h 5d | Tc 9d 6h | 7h 7s 7d | 3d 2d 8d",
            "Jc Jh 3d | Td Tc 7h 7s 2d | 5c 6d 7c 8h 9d", "5d 6h 7d 8d", -82_000,
            rakes_h[1]),
        player("C", "Kc Ac 2h 3c Ts | Kh Ad Th | 4c 4h Js | 6c 8c Qs | Jd Qc Kd",
            "Kc Kh 4c | Ac Ad 4h 6c 8c | 2h 3c Ts Jd Qc", "Th Js Qs Kd", -123_000,
            rakes_h[2])
    ],
    "point_values": [
        {"players": ["A", "B"], "point_h": 10_000},
        {"players": ["A", "C"], "point_h": 5_000},
        {"players": ["C", "B"], "point_h": 2_000}
    ]})
}

#[test]
fn an_ofc_hand_shows_each_players_rows_result_and_rake() {
    // Rake 25 Kč a player. A's queens in front (not fouled) earn fantasy land: 14 cards.
    let layout = clean_layout(
        &ofc_hand([2_500; 3]),
        Language::English,
        "Open Face Chinese",
        &[("Fantasy land next hand", "A (14 cards)")],
    );
    assert_eq!(
        cells(&layout, "Players"),
        [
            [
                "A",
                "Q♥ Q♦ 2♣",
                "9♠ 9♥ 9♣ 4♦ 5♥",
                "A♠ K♠ 8♠ 6♠ 3♠",
                "2♠ 3♥ 4♠ 5♠",
                "2 050,00 Kč",
                "25,00 Kč"
            ],
            [
                "B",
                "J♣ J♥ 3♦",
                "10♦ 10♣ 7♥ 7♠ 2♦",
                "5♣ 6♦ 7♣ 8♥ 9♦",
                "5♦ 6♥ 7♦ 8♦",
                "-820,00 Kč",
                "25,00 Kč"
            ],
            [
                "C",
                "K♣ K♥ 4♣",
                "A♣ A♦ 4♥ 6♣ 8♣",
                "2♥ 3♣ 10♠ J♦ Q♣",
                "10♥ J♠ Q♠ K♦",
                "-1 230,00 Kč",
                "25,00 Kč"
            ],
        ]
    );
    assert_eq!(flags(&layout, "Players"), [false, false, false]);
    // Staked: what a player lost plus the rake (A 0 + 25, B 820 + 25, C 1 230 + 25 Kč);
    // paid: what a player won.
    assert_eq!(
        cells(&layout, "Bets"),
        [
            [
                "player-1",
                "A",
                "player",
                "",
                "25,00 Kč",
                "2 050,00 Kč",
                "2 050,00 Kč",
                "",
                ""
            ],
            [
                "player-2",
                "B",
                "player",
                "",
                "845,00 Kč",
                "0,00 Kč",
                "0,00 Kč",
                "",
                ""
            ],
            [
                "player-3",
                "C",
                "player",
                "",
                "1 255,00 Kč",
                "0,00 Kč",
                "0,00 Kč",
                "",
                ""
            ],
        ]
    );
}

#[test]
fn an_ofc_rake_other_than_the_plans_marks_the_player() {
    // C paid 50 Kč rake; the plan takes 25 Kč a player and hand.
    let (layout, findings) = plain_layout(&ofc_hand([2_500, 2_500, 5_000]), Language::Czech);
    assert_eq!(findings, ["rake_wrong"]);
    assert_eq!(flags(&layout, "Hráči"), [false, false, true]);
    assert_eq!(cells(&layout, "Hráči")[2][0], "C");
    assert_eq!(cells(&layout, "Hráči")[2][6], "50,00 Kč");
    assert_eq!(flags(&layout, "Sázky"), [false, false, true]);
    // C staked 1 230 Kč lost + 50 Kč rake = 1 280 Kč.
    assert_eq!(cells(&layout, "Sázky")[2][4], "1 280,00 Kč");
    assert_eq!(
        facts(&layout),
        [("Fantasy Land v další hře", "A (14 karet)")]
    );
}

#[test]
fn an_ofc_result_finding_heads_with_the_result_the_rows_give_and_the_one_settled() {
    // The hand of `ofc_hand` settled with B at −900 Kč and C at −1 150 Kč (A +2 050 Kč: it
    // adds up to 0). The rows give B −820 Kč: B lost 80 Kč too much. The figures are results,
    // not payouts (a loser is paid nothing either way): the heading and B's row say so, and
    // B's line among the players shows the −900 Kč settled.
    let mut record = ofc_hand([2_500; 3]);
    record["players"][1]["net_h"] = json!(-90_000);
    record["players"][2]["net_h"] = json!(-115_000);
    let page = checked_page(&record, "underpaid", Language::Czech);
    page.heads_with("Výsledek dle řad: -820,00 Kč · Vypořádáno: -900,00 Kč · Rozdíl: -80,00 Kč");
    assert_eq!(page.rows[0][0], "player-2");
    assert_eq!(flags(&page.layout, "Hráči"), [false, true, false]);
    assert_eq!(cells(&page.layout, "Hráči")[1][5], "-900,00 Kč");
}
