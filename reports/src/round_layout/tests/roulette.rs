#![allow(clippy::unwrap_used)]
use serde_json::json;

use super::*;

/// A spin of the wheel stopping on `number`, with `bets`.
fn spin(number: u8, bets: Value) -> Value {
    json!({"type": "round", "game": "roulette", "table_id": "R01", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T18:00:00Z",
        "outcome": {"result": "number", "number": number}, "bets": bets})
}

#[test]
fn a_roulette_payout_finding_heads_with_what_its_row_shows() {
    // 17 comes up. 100 Kč straight on 17 is due 35 × 100 + 100 = 3 600 Kč; the table paid
    // 3 700 Kč: 100 Kč overpaid, in the heading, the bet's row and the finding's amount.
    let record = spin(
        17,
        json!([{"bet_id": "b1", "player": "seat-3", "kind": "straight", "numbers": [17],
            "stake_h": 10_000, "paid_h": 370_000}]),
    );
    let page = checked_page(&record, "overpaid", Language::Czech);
    page.heads_with("Vyplatit dle plánu: 3 600,00 Kč · Vyplaceno: 3 700,00 Kč · Rozdíl: 100,00 Kč");
    page.amounts_to(
        10_000,
        "b1 | seat-3 | číslo (plein) | 17 | 100,00 Kč | 3 700,00 Kč | 3 600,00 Kč | 100,00 Kč",
    );
}

#[test]
fn a_roulette_stake_above_the_maximum_heads_with_the_limit_and_the_stake() {
    // 30 000 Kč on red, above the plan's 25 000 Kč a bet by 5 000 Kč. 17 is black: the bet
    // loses and is paid nothing, as due. The heading's figures are the limit and the stake
    // (not payouts); the bet's row shows the stake, and the finding's figures.
    let record = spin(
        17,
        json!([{"bet_id": "r1", "player": "seat-1", "kind": "red", "numbers": [],
            "stake_h": 3_000_000, "paid_h": 0}]),
    );
    let page = checked_page(&record, "stake_above_maximum", Language::Czech);
    page.heads_with(
        "Maximum dle plánu: 25 000,00 Kč · Vsazeno: 30 000,00 Kč · Rozdíl: 5 000,00 Kč",
    );
    assert_eq!(
        page.rows[0][4..8],
        ["30 000,00 Kč", "0,00 Kč", "0,00 Kč", ""]
    );
    assert_eq!(
        page.rows[0][8],
        "sázka nad maximem plánu: Maximum dle plánu 25 000,00 Kč · Vsazeno 30 000,00 Kč · \
         Rozdíl 5 000,00 Kč"
    );
}

#[test]
fn a_spin_the_wheel_reports_shows_its_rotor_and_ball_in_words() {
    // The wheel turned clockwise and the ball against it, nine times round: a valid spin of 17,
    // shown with the directions as a Czech officer reads them.
    let mut record = spin(17, json!([]));
    record["spin"] = json!({"rotor": "clockwise", "ball": "counterclockwise",
        "ball_revolutions": 9});
    let (layout, findings) = plain_layout(&record, Language::Czech);
    assert!(findings.is_empty(), "{findings:?}");
    let facts = facts(&layout);
    assert!(
        facts.contains(&("Rotor", "po směru hodinových ručiček")),
        "{facts:?}"
    );
    assert!(
        facts.contains(&("Kulička", "proti směru hodinových ručiček")),
        "{facts:?}"
    );
    assert!(facts.contains(&("Otáčky kuličky", "9")), "{facts:?}");
}
