#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;

#[test]
fn a_blackjack_box_shows_each_hand_with_its_total_and_the_dealers_draw() {
    // Deal order: box 1's first card 8♠, the dealer's 6♥, box 1's second 8♦ — a pair of
    // eights, split: hand 1 gets 3♦ (11), doubles and gets K♣ (21); hand 2 gets 10♣ (18)
    // and stands. The dealer then draws 2♥ (8), 9♠ (17) and stands.
    let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:14:03Z", "shoe_id": "S1",
        "deal": ["8s", "6h", "8d", "3d", "Kc", "Tc", "2h", "9s"],
        "boxes": [{"box": 1, "hands": [["split"], ["double"], ["stand"]],
                   "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                             "stake_h": 10000, "paid_h": 60000}]}]});
    let plans = rules::PlanBook::builtin().unwrap();
    let layout = lay_out(&record, None, vec![], &plans, Language::English);
    let hands = &layout.sections[0];
    let cells: Vec<Vec<&str>> = hands
        .rows
        .iter()
        .map(|r| r.cells.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        cells,
        vec![
            vec!["1", "1", "8♠ 3♦ K♣", "21", "yes", "split, double"],
            vec!["1", "2", "8♦ 10♣", "18", "", "split, stand"],
            vec!["dealer", "", "6♥ 2♥ 9♠", "17", "", ""],
        ]
    );
    assert_eq!(layout.headline, "Dealer 6♥ 2♥ 9♠ (17)");
}

#[test]
fn a_dealer_drawing_past_seventeen_is_flagged_with_the_plans_hand() {
    // Box 1: 10♠ 7♦ (17), stands. The dealer: 9♥, then 8♣ (17) and must stand, but drew
    // 5♦ (22).
    let record = json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 2,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:15:03Z", "shoe_id": "S1",
        "deal": ["Ts", "9h", "7d", "8c", "5d"],
        "boxes": [{"box": 1, "hands": [["stand"]],
                   "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "main",
                             "stake_h": 10000, "paid_h": 20000}]}]});
    let plans = rules::PlanBook::builtin().unwrap();
    let layout = lay_out(&record, None, vec![], &plans, Language::Czech);
    let dealer = layout.sections[0].rows.last().unwrap();
    assert!(dealer.flagged);
    assert_eq!(dealer.cells[2], "9♥ 8♣ 5♦");
    assert_eq!(dealer.cells[3], "22 přes");
    assert_eq!(dealer.cells[5], "dle plánu 9♥ 8♣ (17)");
}

/// A blackjack round of box 1 (T♠ Q♦, 20, stands) against the dealer's 9♥ 8♣ (17, stands),
/// with `bets` on the box.
fn blackjack_round(bets: Value) -> Value {
    json!({"type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 3,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T20:16:03Z", "shoe_id": "S1",
        "deal": ["Ts", "9h", "Qd", "8c"],
        "boxes": [{"box": 1, "hands": [["stand"]], "bets": bets}]})
}

#[test]
fn a_withheld_blackjack_win_heads_with_the_win_and_what_was_paid_as_its_row_shows() {
    // 20 beats 17: the 1 000 Kč main bet wins 1:1, 2 × 1 000 = 2 000 Kč. The casino withheld
    // the win (card counting) and returned the 1 000 Kč stake: the finding is the 1 000 Kč
    // withheld (2 000 − 1 000). Its heading says the 2 000 Kč was won (not "due by the
    // plan", which with the win withheld is the stake) and the bet's row shows the same.
    let record = blackjack_round(json!([{"bet_id": "b1", "player": "p1", "kind": "main",
        "stake_h": 100_000, "paid_h": 100_000, "withheld": true}]));
    let page = checked_page(&record, "payout_withheld", Language::Czech);
    page.heads_with(
        "Vyhráno (zadrženo): 2 000,00 Kč · Vyplaceno: 1 000,00 Kč · Rozdíl: -1 000,00 Kč",
    );
    assert_eq!(page.finding.amount_h, 100_000);
    assert_eq!(
        page.rows,
        [[
            "b1",
            "p1",
            "hlavní sázka",
            "box 1",
            "1 000,00 Kč",
            "1 000,00 Kč",
            "1 000,00 Kč",
            "",
            "výhra nevyplacena: Vyhráno (zadrženo) 2 000,00 Kč · Vyplaceno 1 000,00 Kč · \
             Rozdíl -1 000,00 Kč"
        ]]
    );
}

#[test]
fn main_bets_above_the_box_maximum_head_with_the_limit_and_the_stakes_together() {
    // Two players' main bets on box 1: 15 000 + 12 000 = 27 000 Kč, above the plan's 25 000
    // Kč a box by 2 000 Kč. Both win 1:1 and are paid 30 000 and 24 000 Kč as due. The
    // heading's figures are a limit and a stake, not payouts, and both bets' rows show them.
    let record = blackjack_round(json!([
        {"bet_id": "b1", "player": "p1", "kind": "main", "stake_h": 1_500_000,
         "paid_h": 3_000_000},
        {"bet_id": "b2", "player": "p2", "kind": "main", "stake_h": 1_200_000,
         "paid_h": 2_400_000}
    ]));
    let page = checked_page(&record, "stake_above_maximum", Language::English);
    page.heads_with("The plan's maximum: 25 000,00 Kč · Staked together: 27 000,00 Kč · Difference: 2 000,00 Kč");
    assert_eq!(page.rows.len(), 2);
    assert_eq!(
        page.rows[0][4..8],
        ["15 000,00 Kč", "30 000,00 Kč", "30 000,00 Kč", ""]
    );
    assert_eq!(
        page.rows[1][4..8],
        ["12 000,00 Kč", "24 000,00 Kč", "24 000,00 Kč", ""]
    );
}
