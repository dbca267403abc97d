#![allow(clippy::unwrap_used)]
use serde_json::{json, Value};

use super::*;

/// Seat `seat`'s `action` on `street`, to `to_h` when it names an amount.
fn act(seat: u8, street: &str, action: &str, to_h: Option<i64>) -> Value {
    let mut a = json!({"seat": seat, "street": street, "action": action});
    if let Some(to) = to_h {
        a["to_h"] = json!(to);
    }
    a
}

/// Heads-up, button 2, blinds 25/50 Kč: seat 2 raises to 150 Kč before the flop and seat 1
/// calls; seat 1 bets 200 Kč on the flop and seat 2 calls; seat 1 checks the turn and seat 2
/// bets `turn_bet_h`; then `rest`.
fn actions_to_the_turn_bet(turn_bet_h: i64, rest: &[Value]) -> Vec<Value> {
    let mut actions = vec![
        act(2, "preflop", "small_blind", Some(2_500)),
        act(1, "preflop", "big_blind", Some(5_000)),
        act(2, "preflop", "raise", Some(15_000)),
        act(1, "preflop", "call", None),
        act(1, "flop", "bet", Some(20_000)),
        act(2, "flop", "call", None),
        act(1, "turn", "check", None),
        act(2, "turn", "bet", Some(turn_bet_h)),
    ];
    actions.extend_from_slice(rest);
    actions
}

/// Heads-up Hold'em, button 2, blinds 25/50 Kč: A♠ A♦ (seat 1) against K♥ K♦ (seat 2),
/// 150 Kč each before the flop, 200 Kč on the flop, 500 Kč on the turn, checked on the
/// river; the table took `rake_h` and handed seat 1 `award_h`.
fn poker_hand(rake_h: i64, award_h: i64) -> Value {
    let actions = actions_to_the_turn_bet(
        50_000,
        &[
            act(1, "turn", "call", None),
            act(1, "river", "check", None),
            act(2, "river", "check", None),
        ],
    );
    json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T23:00:00Z",
        "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": [
            {"seat": 1, "player": "p1", "stack_h": 200_000, "shown": ["As", "Ad"]},
            {"seat": 2, "player": "p2", "stack_h": 200_000, "shown": ["Kh", "Kd"]}
        ],
        "actions": actions,
        "board": hand("2c 7d 9s Jh 3c"),
        "awards": [{"seat": 1, "amount_h": award_h}],
        "rake_h": rake_h})
}

#[test]
fn a_poker_hand_shows_seats_actions_by_street_the_pot_awarded_and_the_rake() {
    // Each seat puts in 150 + 200 + 500 = 850 Kč: a 1 700 Kč pot. Rake 5 % of 1 700 Kč
    // = 85 Kč, under the 200 Kč cap for 2–4 players. Aces beat kings on
    // 2♣ 7♦ 9♠ J♥ 3♣: seat 1 is handed 1 700 − 85 = 1 615 Kč.
    let layout = clean_layout(
        &poker_hand(8_500, 161_500),
        Language::English,
        "Board 2♣ 7♦ 9♠ J♥ 3♣ | rake 85,00 Kč",
        &[
            ("Variant", "holdem"),
            ("Blinds", "25,00 Kč / 50,00 Kč"),
            ("Button", "2"),
            ("Board", "2♣ 7♦ 9♠ J♥ 3♣"),
            ("Rake", "85,00 Kč"),
        ],
    );
    assert_eq!(
        cells(&layout, "Seats"),
        [
            ["1", "p1", "2 000,00 Kč", "A♠ A♦"],
            ["2", "p2", "2 000,00 Kč", "K♥ K♦"]
        ]
    );
    assert_eq!(
        cells(&layout, "Actions"),
        [
            ["preflop", "2", "small blind", "25,00 Kč"],
            ["preflop", "1", "big blind", "50,00 Kč"],
            ["preflop", "2", "raise", "150,00 Kč"],
            ["preflop", "1", "call", ""],
            ["flop", "1", "bet", "200,00 Kč"],
            ["flop", "2", "call", ""],
            ["turn", "1", "check", ""],
            ["turn", "2", "bet", "500,00 Kč"],
            ["turn", "1", "call", ""],
            ["river", "1", "check", ""],
            ["river", "2", "check", ""],
        ]
    );
    assert_eq!(cells(&layout, "Pots awarded"), [["1", "1 615,00 Kč"]]);
    assert_eq!(
        cells(&layout, "Bets"),
        [
            [
                "seat-1",
                "p1",
                "seat",
                "",
                "850,00 Kč",
                "1 615,00 Kč",
                "1 615,00 Kč",
                "",
                ""
            ],
            [
                "seat-2",
                "p2",
                "seat",
                "",
                "850,00 Kč",
                "0,00 Kč",
                "0,00 Kč",
                "",
                ""
            ],
        ]
    );
    assert!(layout
        .sections
        .iter()
        .all(|s| s.rows.iter().all(|r| !r.flagged)));
}

#[test]
fn a_poker_rake_above_the_plans_shows_what_the_plan_allows_and_marks_the_winner() {
    // The same 1 700 Kč pot: the table took 150 Kč instead of 85 Kč (5 %) and handed seat 1
    // 1 550 Kč: 65 Kč short of the 1 615 Kč due.
    let (layout, findings) = plain_layout(&poker_hand(15_000, 155_000), Language::Czech);
    assert_eq!(findings, ["rake_wrong", "underpaid"]);
    assert!(
        facts(&layout).contains(&("Rake", "150,00 Kč (dle plánu 85,00 Kč)")),
        "{:?}",
        layout.facts
    );
    assert_eq!(layout.headline, "Stůl 2♣ 7♦ 9♠ J♥ 3♣ | rake 150,00 Kč");
    assert_eq!(flags(&layout, "Hráči"), [true, false]);
    assert_eq!(cells(&layout, "Výhry z potů"), [["1", "1 550,00 Kč"]]);
    assert_eq!(flags(&layout, "Výhry z potů"), [true]);
    assert_eq!(flags(&layout, "Sázky"), [true, false]);
    assert_eq!(
        cells(&layout, "Sázky")[0],
        [
            "seat-1",
            "p1",
            "hráč u stolu",
            "",
            "850,00 Kč",
            "1 550,00 Kč",
            "1 615,00 Kč",
            "-65,00 Kč",
            "nedoplaceno: Vyplatit dle plánu 1 615,00 Kč · Vyplaceno 1 550,00 Kč · Rozdíl -65,00 Kč"
        ]
    );
}

#[test]
fn a_poker_seat_not_handed_its_uncalled_bet_shows_what_it_put_in_and_was_handed() {
    // Button 2, blinds 25/50 Kč. Preflop seat 2 raises to 150 Kč, seat 1 calls: 300 Kč. Flop:
    // seat 1 bets 200 Kč, seat 2 calls: 700 Kč. Turn: seat 1 checks, seat 2 bets 900 Kč,
    // seat 1 folds. The 900 Kč is uncalled: it goes back to seat 2 with the 700 Kč pot less
    // the rake, 5 % of 700 = 35 Kč: 665 + 900 = 1 565 Kč due. The table handed seat 2 the
    // 665 Kč and kept the 900 Kč: underpaid by 900 Kč. Seat 2 put in 150 + 200 + 900
    // = 1 250 Kč; its row shows that, 665 Kč handed and 1 565 Kč due (not 665 − 900 Kč).
    let actions = actions_to_the_turn_bet(90_000, &[act(1, "turn", "fold", None)]);
    let record = json!({"type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 2,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T23:05:00Z",
        "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": [
            {"seat": 1, "player": "p1", "stack_h": 200_000},
            {"seat": 2, "player": "p2", "stack_h": 200_000}
        ],
        "actions": actions,
        "board": hand("2c 7d 9s Jh"),
        "awards": [{"seat": 2, "amount_h": 66_500}],
        "rake_h": 3_500});
    let page = checked_page(&record, "underpaid", Language::Czech);
    page.heads_with("Vyplatit dle plánu: 1 565,00 Kč · Vyplaceno: 665,00 Kč · Rozdíl: -900,00 Kč");
    assert_bet_row(
        &page.rows[0][..8],
        "seat-2 | p2 | hráč u stolu |  | 1 250,00 Kč | 665,00 Kč | 1 565,00 Kč | -900,00 Kč",
    );
    // Seat 1 put in 150 + 200 = 350 Kč and is due nothing.
    assert_eq!(
        cells(&page.layout, "Sázky")[0][..8],
        [
            "seat-1",
            "p1",
            "hráč u stolu",
            "",
            "350,00 Kč",
            "0,00 Kč",
            "0,00 Kč",
            ""
        ]
    );
}

#[test]
fn a_poker_rake_finding_heads_with_the_plans_rake_and_the_one_taken_as_the_facts_show() {
    // The 1 700 Kč pot of `poker_hand`: the plan's rake is 5 % = 85 Kč, the table took 150 Kč,
    // 65 Kč too much. The finding names no seat: its figures are among the round's facts,
    // next to the rake as the round shows it.
    let page = checked_page(&poker_hand(15_000, 155_000), "rake_wrong", Language::Czech);
    page.heads_with("Rake dle plánu: 85,00 Kč · Rake vybrán: 150,00 Kč · Rozdíl: 65,00 Kč");
    let facts = facts(&page.layout);
    assert!(facts.contains(&("Rake", "150,00 Kč (dle plánu 85,00 Kč)")));
    assert!(facts.contains(&(
        "Nález",
        "chybný rake: Rake dle plánu 85,00 Kč · Rake vybrán 150,00 Kč · Rozdíl 65,00 Kč"
    )));
}
