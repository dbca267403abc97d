//! Records several tests play: the same hands, written once.

use serde_json::{json, Value};

use super::{spin, straight};

/// Heads-up Hold'em at P1, blinds 25/50 Kč, button 2. Seat 2 raises to 150 Kč, seat 1 calls;
/// checked down, seat 1's kings beat seat 2's queens: pot 300 Kč. What the table paid seat 1
/// and the rake it took are the caller's.
pub fn heads_up_kings_over_queens(played_at: &str, award_h: i64, rake_h: i64) -> Value {
    json!({
        "type": "round", "game": "poker_cash", "table_id": "P1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": played_at,
        "variant": "holdem", "button": 2, "small_blind_h": 2_500, "big_blind_h": 5_000,
        "seats": [
            {"seat": 1, "player": "anna", "stack_h": 100_000, "shown": ["Ks", "Kd"]},
            {"seat": 2, "player": "bert", "stack_h": 100_000, "shown": ["Qs", "Qd"]}
        ],
        "actions": [
            {"seat": 2, "street": "preflop", "action": "small_blind", "to_h": 2_500},
            {"seat": 1, "street": "preflop", "action": "big_blind", "to_h": 5_000},
            {"seat": 2, "street": "preflop", "action": "raise", "to_h": 15_000},
            {"seat": 1, "street": "preflop", "action": "call"},
            {"seat": 1, "street": "flop", "action": "check"},
            {"seat": 2, "street": "flop", "action": "check"},
            {"seat": 1, "street": "turn", "action": "check"},
            {"seat": 2, "street": "turn", "action": "check"},
            {"seat": 1, "street": "river", "action": "check"},
            {"seat": 2, "street": "river", "action": "check"}
        ],
        "board": ["2c", "7d", "9h", "Jc", "4s"],
        "awards": [{"seat": 1, "amount_h": award_h}],
        "rake_h": rake_h
    })
}

/// An Open Face Chinese player's hand: the five deals, the rows set (front, middle, back), the
/// discards, the net result and a rake of 25 Kč; cards written `"Qh 9s"`.
pub fn ofc_player(
    name: &str,
    deal: [&str; 5],
    rows: [&str; 3],
    discards: &str,
    net_h: i64,
) -> Value {
    let cards = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    json!({"player": name, "deal": deal.map(cards), "front": cards(rows[0]),
           "middle": cards(rows[1]), "back": cards(rows[2]), "discards": cards(discards),
           "net_h": net_h, "rake_h": 2_500})
}

/// The five deals of players A, B and C in the rules' worked Open Face Chinese hand.
pub const OFC_DEALS: [[&str; 5]; 3] = [
    [
        "Qh 9s 9h As Ks",
        "9c 8s 2s",
        "6s 3s 3h",
        "Qd 4d 4s",
        "2c 5h 5s",
    ],
    [
        "Jc Td 5c 6d 7c",
        "Jh 8h 5d",
        "Tc 9d 6h",
        "7h 7s 7d",
        "3d 2d 8d",
    ],
    [
        "Kc Ac 2h 3c Ts",
        "Kh Ad Th",
        "4c 4h Js",
        "6c 8c Qs",
        "Jd Qc Kd",
    ],
];

/// The rules' worked Open Face Chinese hand at OFC1 (rules::ofc tests give the arithmetic):
/// three players, C fouled, A scoops B: A +2 050 Kč, B −820 Kč, C −1 230 Kč, rake 25 Kč each.
/// A's queens in front earn fantasy land.
pub fn ofc_scoop_hand() -> Value {
    json!({
        "type": "round", "game": "open_face_chinese", "table_id": "OFC1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T21:00:00Z",
        "players": [
            ofc_player("A", OFC_DEALS[0],
                   ["Qh Qd 2c", "9s 9h 9c 4d 5h", "As Ks 8s 6s 3s"], "2s 3h 4s 5s", 205_000),
            ofc_player("B", OFC_DEALS[1],
                   ["Jc Jh 3d", "Td Tc 7h 7s 2d", "5c 6d 7c 8h 9d"], "5d 6h 7d 8d", -82_000),
            ofc_player("C", OFC_DEALS[2],
                   ["Kc Kh 4c", "Ac Ad 4h 6c 8c", "2h 3c Ts Jd Qc"], "Th Js Qs Kd", -123_000)
        ],
        "point_values": [
            {"players": ["A", "B"], "point_h": 10_000},
            {"players": ["A", "C"], "point_h": 5_000},
            {"players": ["B", "C"], "point_h": 2_000}
        ]
    })
}

/// R01's spin 1 (round id `R01-1`): 17 wins two 100 Kč straights up, paid 3 700 Kč and
/// 3 800 Kč.
pub fn twice_overpaid_spin() -> Value {
    let mut round = spin(
        "R01",
        1,
        17,
        json!([
            straight("b1", 17, 10_000, 370_000),
            straight("b2", 17, 10_000, 380_000)
        ]),
    );
    round["round_id"] = json!("R01-1");
    round
}

/// A freezeout at ROOM on gaming day `day` (`YYYY-MM-DD`), announced at `announced_at`: five
/// buy-ins of 2 000 Kč at 18:01–18:05, fee 10 % = 1 000 Kč, a 12 000 Kč guarantee; the winner
/// p3 paid `prize_h`.
pub fn freezeout_of_five(
    tournament_id: &str,
    day: &str,
    announced_at: &str,
    prize_h: i64,
) -> Value {
    let entries: Vec<Value> = (1..=5)
        .map(|n| {
            json!({"player": format!("p{n}"), "kind": "buy_in",
                   "at": format!("{day}T18:0{n}:00Z"), "amount_h": 200_000})
        })
        .collect();
    json!({
        "type": "round", "game": "poker_tournament", "table_id": "ROOM", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "tournament_id": tournament_id,
        "played_at": format!("{day}T23:00:00Z"), "variant": "holdem", "format": "freezeout",
        "announced_at": announced_at, "starts_at": format!("{day}T18:00:00Z"),
        "registration_closes_at": format!("{day}T19:00:00Z"),
        "buy_in_h": 200_000, "starting_stack": 10_000, "fee_percent": 10, "fee_h": 100_000,
        "guarantee_h": 1_200_000, "entries": entries,
        "results": [{"place": 1, "player": "p3", "prize_h": prize_h}]
    })
}
