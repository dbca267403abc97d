#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;

/// A UTH round: dealer Q♠ J♦, board 2♥ 7♥ 9♥ K♣ 4♦, 2♠ 3♠ burned.
fn uth_round(spots: Vec<Value>) -> Value {
    json!({"type": "round", "game": "ultimate_texas_holdem", "table_id": "U1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T21:00:00Z",
        "burned": ["2s", "3s"], "dealer": ["Qs", "Jd"], "board": hand("2h 7h 9h Kc 4d"),
        "spots": spots})
}

/// Spot `n` of player `p<n>`: 100 Kč Ante and Blind, `play` (street, stake) or a fold,
/// `trips` (0: none); paid in Ante, Blind, Play, Trips order.
fn uth_spot(n: u8, hole: &str, play: Option<(&str, i64)>, trips: i64, paid: [i64; 4]) -> Value {
    let bet = |kind: &str, stake: i64, paid: i64| json!({"bet_id": format!("s{n}-{kind}"), "kind": kind, "stake_h": stake, "paid_h": paid});
    let mut bets = vec![bet("ante", 10_000, paid[0]), bet("blind", 10_000, paid[1])];
    if let Some((_, stake)) = play {
        bets.push(bet("play", stake, paid[2]));
    }
    if trips > 0 {
        bets.push(bet("trips", trips, paid[3]));
    }
    let mut spot = json!({"spot": n, "player": format!("p{n}"), "cards": hand(hole), "bets": bets});
    if let Some((street, _)) = play {
        spot["play_street"] = json!(street);
    }
    spot
}

/// Spot 1's flush (A♥ 3♥, Play 4× before the flop, 100 Kč Trips) with its Blind paid 200 Kč.
fn flush_with_the_blind_paid_200() -> Value {
    uth_round(vec![uth_spot(
        1,
        "Ah 3h",
        Some(("preflop", 40_000)),
        10_000,
        [10_000, 20_000, 80_000, 80_000],
    )])
}

#[test]
fn an_uth_round_shows_the_dealer_the_board_each_spots_play_and_its_bets() {
    // The dealer's Q♠ J♦ with the board make K-Q-J-9-7, no pair: the dealer does not
    // qualify, every Ante still in pushes (100 Kč back).
    // Spot 1, A♥ 3♥: a flush. Play 4× before the flop = 400 Kč wins 1:1: 800 Kč; Blind
    // 3:2: 150 + 100 = 250 Kč; Trips 7:1: 700 + 100 = 800 Kč.
    // Spot 2, 10♣ 10♦: a pair of tens beats the dealer's king high. Play 2× after the flop
    // = 200 Kč wins 1:1: 400 Kč; the Blind pushes below a straight: 100 Kč.
    // Spot 3, 5♣ 6♣, folds: Ante and Blind lost.
    let record = uth_round(vec![
        uth_spot(
            1,
            "Ah 3h",
            Some(("preflop", 40_000)),
            10_000,
            [10_000, 25_000, 80_000, 80_000],
        ),
        uth_spot(
            2,
            "Tc Td",
            Some(("flop", 20_000)),
            0,
            [10_000, 10_000, 40_000, 0],
        ),
        uth_spot(3, "5c 6c", None, 0, [0, 0, 0, 0]),
    ]);
    let layout = clean_layout(
        &record,
        Language::English,
        "Dealer Q♠ J♦ | 2♥ 7♥ 9♥ K♣ 4♦",
        &[
            ("Dealer", "Q♠ J♦"),
            ("Board", "2♥ 7♥ 9♥ K♣ 4♦"),
            ("Burned", "2♠ 3♠"),
        ],
    );
    assert_eq!(
        cells(&layout, "Spots"),
        [
            ["1", "p1", "A♥ 3♥", "before the flop (4×)"],
            ["2", "p2", "10♣ 10♦", "after the flop (2×)"],
            ["3", "p3", "5♣ 6♣", "folded"],
        ]
    );
    assert_eq!(flags(&layout, "Spots"), [false, false, false]);
    // A bet paid as the plan says: paid and due the same, no difference.
    fn due<'a>(bet: [&'a str; 4], staked: &'a str, paid: &'a str) -> Vec<&'a str> {
        let [id, player, kind, spot] = bet;
        vec![id, player, kind, spot, staked, paid, paid, "", ""]
    }
    let (s1, s2, s3) = ("spot 1", "spot 2", "spot 3");
    assert_eq!(
        cells(&layout, "Bets"),
        [
            due(["s1-ante", "p1", "Ante", s1], "100,00 Kč", "100,00 Kč"),
            due(["s1-blind", "p1", "Blind", s1], "100,00 Kč", "250,00 Kč"),
            due(["s1-play", "p1", "Play", s1], "400,00 Kč", "800,00 Kč"),
            due(["s1-trips", "p1", "Trips", s1], "100,00 Kč", "800,00 Kč"),
            due(["s2-ante", "p2", "Ante", s2], "100,00 Kč", "100,00 Kč"),
            due(["s2-blind", "p2", "Blind", s2], "100,00 Kč", "100,00 Kč"),
            due(["s2-play", "p2", "Play", s2], "200,00 Kč", "400,00 Kč"),
            due(["s3-ante", "p3", "Ante", s3], "100,00 Kč", "0,00 Kč"),
            due(["s3-blind", "p3", "Blind", s3], "100,00 Kč", "0,00 Kč"),
        ]
    );
    assert!(section(&layout, "Bets").rows.iter().all(|r| !r.flagged));
}

#[test]
fn an_uth_blind_paid_short_marks_the_bet_and_its_spot() {
    // Spot 1's flush as above: the Blind is due 3:2, 150 + 100 = 250 Kč; the dealer paid
    // 200 Kč, 50 Kč short.
    let (layout, findings) = plain_layout(&flush_with_the_blind_paid_200(), Language::Czech);
    assert_eq!(findings, ["underpaid"]);
    assert_eq!(
        cells(&layout, "Boxy"),
        [["1", "p1", "A♥ 3♥", "před flopem (4×)"]]
    );
    assert_eq!(flags(&layout, "Boxy"), [true]);
    assert_eq!(flags(&layout, "Sázky"), [false, true, false, false]);
    assert_eq!(
        cells(&layout, "Sázky")[1],
        [
            "s1-blind",
            "p1",
            "Blind",
            "box 1",
            "100,00 Kč",
            "200,00 Kč",
            "250,00 Kč",
            "-50,00 Kč",
            // The finding's figures: 250 Kč due, 200 Kč paid, 50 Kč short.
            "nedoplaceno: Vyplatit dle plánu 250,00 Kč · Vyplaceno 200,00 Kč · Rozdíl -50,00 Kč"
        ]
    );
}

#[test]
fn an_uth_finding_heads_with_the_blinds_due_and_paid_as_its_row_shows() {
    // Spot 1's flush: the Blind is due 3:2, 150 + 100 = 250 Kč; the dealer paid 200 Kč, 50 Kč
    // short: the heading, the Blind's row and the finding's amount all say so.
    let page = checked_page(
        &flush_with_the_blind_paid_200(),
        "underpaid",
        Language::English,
    );
    page.heads_with("Due by the plan: 250,00 Kč · Paid: 200,00 Kč · Difference: -50,00 Kč");
    page.amounts_to(
        5_000,
        "s1-blind | p1 | Blind | spot 1 | 100,00 Kč | 200,00 Kč | 250,00 Kč | -50,00 Kč",
    );
}
