//! Hand-computed Pineapple OFC cases. Amounts in haléře: 1 Kč = 100 h.

use serde_json::{json, Value};

use super::*;
use crate::plan::bundled_plan as plan;
use crate::record::Round;
use crate::test_support::assert_says;
use crate::verdict::FindingKind;

fn cards(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// A player: `deal` is groups separated by `|`, `rows` is "front | middle | back".
fn player(name: &str, deal: &str, rows: &str, discards: &str, net_h: i64) -> Value {
    let rows: Vec<&str> = rows.split('|').collect();
    json!({
        "player": name,
        "deal": deal.split('|').map(cards).collect::<Vec<_>>(),
        "front": cards(rows[0]), "middle": cards(rows[1]), "back": cards(rows[2]),
        "discards": cards(discards),
        "net_h": net_h,
        "rake_h": 2_500
    })
}

fn hand(players: Vec<Value>, point_values: &[(&str, &str, i64)]) -> Value {
    json!({
        "type": "round", "game": "open_face_chinese", "table_id": "OFC1", "seq_no": 7,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T22:00:00Z",
        "players": players,
        "point_values": point_values.iter()
            .map(|(a, b, v)| json!({"players": [a, b], "point_h": v}))
            .collect::<Vec<_>>(),
    })
}

fn parse(record: &Value) -> Result<OfcHand, RecordError> {
    match Round::parse(record)? {
        Round::OpenFaceChinese(h) => Ok(h),
        other => panic!("not OFC: {other:?}"),
    }
}

/// Findings and fantasy entitlements (player, cards) of a hand.
fn judge(record: &Value) -> (Vec<Finding>, Vec<(String, u8)>, Vec<i64>) {
    let plan = plan();
    let h = parse(record).unwrap();
    let v = adjudicate(plan.open_face_chinese().unwrap(), &plan, &h);
    let fantasy = v
        .fantasy_next
        .unwrap_or_default()
        .iter()
        .map(|e| (e.player.to_owned(), e.cards))
        .collect();
    let rows: Vec<ScoredRows> = h
        .players
        .iter()
        .map(|p| {
            score_rows(
                plan.open_face_chinese().unwrap(),
                &p.front,
                &p.middle,
                &p.back,
            )
        })
        .collect();
    let nets = expected_nets(plan.open_face_chinese().unwrap(), &h, &rows);
    (v.findings, fantasy, nets)
}

/// Three players; C fouls (back high card under a middle pair of aces), A scoops B.
///
/// A: front Qh Qd 2c (pair of queens: 7) | middle 9s 9h 9c 4d 5h (trips: 2) | back flush
///    As Ks 8s 6s 3s (4) → royalties 13.
/// B: front Jc Jh 3d (pair of jacks: 6) | middle Td Tc 7h 7s 2d (two pair: 0) | back straight
///    5c..9d (2) → royalties 8.
/// C: front Kc Kh 4c | middle Ac Ad 4h 6c 8c | back 2h 3c Ts Jd Qc: back < middle → fouled.
///
/// A vs B: A wins all three rows (QQ > JJ, trips > two pair, flush > straight): 3, plus the
/// scoop 3, plus royalties 13 − 8: +11 points, at 100 Kč = +1 100 Kč.
/// A vs C: C fouled → A gets 6 + 13 = 19 points, at 50 Kč = +950 Kč.
/// B vs C: B gets 6 + 8 = 14 points, at 20 Kč = +280 Kč.
/// Nets: A 1 100 + 950 = +2 050 Kč; B −1 100 + 280 = −820 Kč; C −950 − 280 = −1 230 Kč.
fn three_players(nets: [i64; 3]) -> Value {
    hand(
        vec![
            player(
                "A",
                "Qh 9s 9h As Ks | 9c 8s 2s | 6s 3s 3h | Qd 4d 4s | 2c 5h 5s",
                "Qh Qd 2c | 9s 9h 9c 4d 5h | As Ks 8s 6s 3s",
                "2s 3h 4s 5s",
                nets[0],
            ),
            player(
                "B",
                "Jc Td 5c 6d 7c | Jh 8h 5d | Tc 9d 6h | 7h 7s 7d | 3d 2d 8d",
                "Jc Jh 3d | Td Tc 7h 7s 2d | 5c 6d 7c 8h 9d",
                "5d 6h 7d 8d",
                nets[1],
            ),
            player(
                "C",
                "Kc Ac 2h 3c Ts | Kh Ad Th | 4c 4h Js | 6c 8c Qs | Jd Qc Kd",
                "Kc Kh 4c | Ac Ad 4h 6c 8c | 2h 3c Ts Jd Qc",
                "Th Js Qs Kd",
                nets[2],
            ),
        ],
        &[("A", "B", 10_000), ("A", "C", 5_000), ("C", "B", 2_000)],
    )
}

#[test]
fn three_players_one_foul_a_scoop_and_a_point_value_per_pair() {
    let (findings, fantasy, nets) = judge(&three_players([205_000, -82_000, -123_000]));
    assert_eq!(nets, [205_000, -82_000, -123_000]);
    assert!(findings.is_empty(), "{findings:?}");
    // A's queens in front (no foul) earn 14 cards; C's kings do not count (fouled).
    assert_eq!(fantasy, [("A".to_owned(), 14)]);

    // The table settled C as if C had not fouled: C vs A and C vs B scored as rows.
    // Without the foul: C's rows KK4 / AA / Q-high: A vs C: front KK > QQ (C), middle trips >
    // pair (A), back flush > high (A): A +1, no scoop, royalties A 13 − C (KK 8 + 0 + 0) = 5
    // → +6 points = 300 Kč. B vs C: front C, middle B (two pair > pair), back B: B +1 + 8 − 8
    // = +1 point = 20 Kč. Table's nets: A 1 100 + 300 = 1 400 Kč, B −1 100 + 20 = −1 080 Kč,
    // C −300 − 20 = −320 Kč.
    let (findings, _, _) = judge(&three_players([140_000, -108_000, -32_000]));
    let kinds = crate::test_support::kinds_and_amounts(&findings);
    assert_eq!(
        kinds,
        [
            (FindingKind::Underpaid, 65_000), // A: 2 050 − 1 400 = 650 Kč
            (FindingKind::Underpaid, 26_000), // B: −820 − (−1 080) = 260 Kč
            (FindingKind::Overpaid, 91_000),  // C: −320 − (−1 230) = 910 Kč
        ]
    );
    assert_says(&findings[2].message, "fouled");
}

#[test]
fn results_that_do_not_add_up_and_a_wrong_rake_are_found() {
    let mut record = three_players([205_000, -82_000, -122_000]);
    record["players"][1]["rake_h"] = json!(5_000);
    let (findings, _, _) = judge(&record);
    let kinds: Vec<FindingKind> = findings.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FindingKind::RakeWrong,
            FindingKind::Overpaid,
            FindingKind::ChipsNotConserved
        ]
    );
    assert_eq!(findings[2].actual_h, Some(1_000)); // 205 000 − 82 000 − 122 000
                                                   // Time collection: no rake from the hand.
    let mut record = three_players([205_000, -82_000, -123_000]);
    record["collection"] = json!("time");
    let (findings, _, _) = judge(&record);
    assert_eq!(findings.len(), 3);
    assert!(findings.iter().all(|f| f.kind == FindingKind::RakeWrong));
}

/// A front that beats the middle is a foul, kicker by kicker: QQ5 over QQ432.
#[test]
fn a_front_beating_the_middle_by_a_kicker_fouls() {
    let plan = plan();
    let ofc = plan.open_face_chinese().unwrap();
    let c = parsed_cards;
    let back = c("As Ad Ac 2d 2c");
    let fouled = score_rows(ofc, &c("Qh Qd 5c"), &c("Qs Qc 4d 3h 2s"), &back);
    assert!(fouled.fouled);
    assert_eq!(fouled.royalties, 0);
    // QQ4 in front, QQ432 in the middle: the middle is not weaker (equal up to the front's
    // three cards, then more kickers). Royalties: QQ 7 + full house 6 = 13.
    let ok = score_rows(ofc, &c("Qh Qd 4c"), &c("Qs Qc 4d 3h 2s"), &back);
    assert!(!ok.fouled);
    assert_eq!(ok.royalties, 13);
    // A three-card "straight" or "flush" in front is only a high card: 2h 3h 4h is 4-high and
    // earns nothing; a 5-card middle of any pair beats it.
    let front = score_rows(ofc, &c("2h 3h 4h"), &c("5s 5c 8d 9h Jc"), &back);
    assert!(!front.fouled);
    assert_eq!(front.front.category(), crate::hand_rank::Category::HighCard);
    // A legal hand: front 888 (16), middle K-high straight flush (30), back royal flush (25)
    // = 71.
    let legal = score_rows(
        ofc,
        &c("8h 8d 8c"),
        &c("9s Ts Js Qs Ks"),
        &c("Th Jh Qh Kh Ah"),
    );
    assert!(!legal.fouled);
    assert_eq!(legal.royalties, 71);
    // A royal in the middle over a king-high straight flush in back: fouled, no royalties.
    let fouled = score_rows(
        ofc,
        &c("8h 8d 8c"),
        &c("Ts Js Qs Ks As"),
        &c("9h Th Jh Qh Kh"),
    );
    assert!(fouled.fouled);
    assert_eq!(fouled.royalties, 0);
}

/// Cards written `As Kd …`.
fn parsed_cards(text: &str) -> Vec<crate::cards::Card> {
    text.split_whitespace()
        .map(|x| crate::cards::Card::parse(x).unwrap())
        .collect()
}

fn fantasy_of(front: &str, middle: &str, back: &str, in_fantasy: bool) -> Option<u8> {
    let plan = plan();
    let ofc = plan.open_face_chinese().unwrap();
    let c = parsed_cards;
    let rows = score_rows(ofc, &c(front), &c(middle), &c(back));
    fantasy_next(ofc, &rows, in_fantasy)
}

#[test]
fn fantasy_land_entry_by_the_front_and_staying_by_trips_or_quads() {
    // Middles at least as strong as the fronts (no foul); back a full house.
    let back = "Ts Tc Td 4h 4d";
    let (kings, aces, jacks) = ("Ks Kc 5d 8h 9c", "As Ac 5d 8h 9c", "Js Jc Jd 8h 9c");
    // Entry (plan: 5 + 9 / 10 / 11 / 12 cards).
    assert_eq!(fantasy_of("Jh Jd 3c", kings, back, false), None);
    assert_eq!(fantasy_of("Qh Qd 3c", kings, back, false), Some(14));
    assert_eq!(fantasy_of("Kh Kd 3c", aces, back, false), Some(15));
    assert_eq!(fantasy_of("Ah Ad 3c", jacks, back, false), Some(16));
    assert_eq!(fantasy_of("3h 3d 3s", jacks, back, false), Some(17));
    // Aces in front over a middle pair of twos: fouled, no fantasy land.
    assert_eq!(fantasy_of("Ah Ad 3c", "2s 2c 5d 8h 9c", back, false), None);
    // Staying: in fantasy land, queens in front alone do not keep it...
    assert_eq!(fantasy_of("Qh Qd 3c", kings, back, true), None);
    // ...trips in front do (with the front's own 17 cards), and quads in back do (14).
    assert_eq!(fantasy_of("3h 3d 3s", jacks, back, true), Some(17));
    assert_eq!(
        fantasy_of("2h 3d 5s", "Js Jc 6d 8h 9c", "Ts Tc Td Th 4d", true),
        Some(14)
    );
    // Quads in back and kings in front: the front's 15 counts.
    assert_eq!(
        fantasy_of("Kh Kd 5s", "As Ac 6d 8h 9c", "Ts Tc Td Th 4d", true),
        Some(15)
    );
}

#[test]
fn the_next_hand_must_deal_the_fantasy_land_earned() {
    let plan = plan();
    // A earned 14 cards in the three-player hand.
    let first = parse(&three_players([205_000, -82_000, -123_000])).unwrap();
    let verdict = adjudicate(plan.open_face_chinese().unwrap(), &plan, &first);
    let earned = verdict.fantasy_next.clone().unwrap_or_default();
    // The next hand: A dealt 14 cards at once (the same rows, 2s discarded), B and C
    // normally: nothing to say.
    let mut next = three_players([205_000, -82_000, -123_000]);
    next["players"][0]["fantasy"] = json!(true);
    next["players"][0]["deal"] = json!([cards("Qh Qd 2c 9s 9h 9c 4d 5h As Ks 8s 6s 3s 2s")]);
    next["players"][0]["discards"] = json!(["2s"]);
    let next = parse(&next).unwrap();
    assert!(check_fantasy_deal(&earned, &next).is_empty());

    // A dealt a normal hand instead; B dealt fantasy land without earning it.
    let mut wrong = three_players([205_000, -82_000, -123_000]);
    wrong["players"][1]["fantasy"] = json!(true);
    wrong["players"][1]["deal"] = json!([cards("Jc Td 5c 6d 7c Jh 8h 5d Tc 9d 6h 7h 7s 2d 3d")]);
    wrong["players"][1]["discards"] = json!(["5d", "6h"]);
    let wrong = parse(&wrong).unwrap();
    let findings = check_fantasy_deal(&earned, &wrong);
    let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(findings.len(), 2, "{messages:?}");
    assert!(findings
        .iter()
        .all(|f| f.kind == FindingKind::FantasyLandWrong));
    assert!(messages[0].starts_with("A: earned fantasy land with 14 cards"));
    assert!(messages[1].starts_with("B: dealt fantasy land (15 cards) without earning it"));

    // The audit over a table's sequence: hand 7 earns A 14 cards, hand 8 deals A normally
    // (found); across a gap (hand 10 after 8) nothing is said.
    let ofc = plan.open_face_chinese().unwrap();
    let mut eighth = three_players([205_000, -82_000, -123_000]);
    eighth["seq_no"] = json!(8);
    let mut tenth = eighth.clone();
    tenth["seq_no"] = json!(10);
    let hands = [first, parse(&eighth).unwrap(), parse(&tenth).unwrap()];
    let audit = audit_fantasy_sequence(&hands, |_| Some(ofc));
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!((audit[0].previous_seq_no, audit[0].seq_no), (7, 8));
}

#[test]
fn cards_not_dealt_or_discarded_wrongly_are_found() {
    // A keeps 2s (from dealing round 2) in front and discards Qh (from round 1) instead.
    let mut record = three_players([205_000, -82_000, -123_000]);
    record["players"][0]["front"] = json!(cards("2s Qd 2c"));
    record["players"][0]["discards"] = json!(cards("Qh 3h 4s 5s"));
    let (findings, _, _) = judge(&record);
    let illegal: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == FindingKind::IllegalDecision)
        .collect();
    assert_eq!(illegal.len(), 1, "{findings:?}");
    assert!(illegal[0]
        .message
        .contains("1 cards of dealing round 1 discarded, the game allows 0"));
    assert!(illegal[0]
        .message
        .contains("0 cards of dealing round 2 discarded, the game allows 1"));
    // A sets Kd (dealt to C) in the middle instead of the 5h it was dealt.
    let mut record = three_players([205_000, -82_000, -123_000]);
    record["players"][0]["middle"] = json!(cards("9s 9h 9c 4d Kd"));
    let (findings, _, _) = judge(&record);
    assert!(findings
        .iter()
        .any(|f| f.kind == FindingKind::CardsInconsistent
            && f.message
                .contains("1 cards set or discarded were not dealt")
            && f.message
                .contains("1 dealt cards are neither in a row nor discarded")));
}

#[test]
fn stop_loss_caps_what_is_lost_and_what_is_won() {
    // Two players from the hand above, A vs B only: A +11 points at 100 Kč = +1 100 Kč.
    // B's stack 800 Kč: B loses 800, A wins 800. A's stack 500 Kč: A wins at most 500, so
    // 300 Kč go back to B: A +500, B −500.
    let mut nets = [110_000, -110_000];
    apply_stop_loss(&mut nets, &[50_000, 80_000]);
    assert_eq!(nets, [50_000, -50_000]);
    let mut nets = [110_000, -110_000];
    apply_stop_loss(&mut nets, &[200_000, 80_000]);
    assert_eq!(nets, [80_000, -80_000]);
    // Three players (A +2 050, B −820, C −1 230 Kč), A's stack 1 500 Kč: the excess 550 Kč goes
    // back to B and C in proportion to their losses, 820 : 1 230:
    // B 55 000 × 82 000 / 205 000 = 22 000 h, C 55 000 × 123 000 / 205 000 = 33 000 h.
    // B −820 + 220 = −600 Kč, C −1 230 + 330 = −900 Kč.
    let mut nets = [205_000, -82_000, -123_000];
    apply_stop_loss(&mut nets, &[150_000, 1_000_000, 1_000_000]);
    assert_eq!(nets, [150_000, -60_000, -90_000]);
    // C's stack 1 000 Kč: C pays 1 000, the 230 Kč shortfall comes off A (the only winner):
    // A 1 820, B −820, C −1 000. Then A's stack 1 500: the excess 320 Kč goes back to B and C
    // 820 : 1 000: B 32 000 × 82 000 / 182 000 = 14 417.58 → 14 417 h, C 32 000 × 100 000 /
    // 182 000 = 17 582.42 → 17 582 h, the haléř left over to C (the larger loss): 17 583 h.
    // B −82 000 + 14 417 = −67 583 h, C −100 000 + 17 583 = −82 417 h.
    let mut nets = [205_000, -82_000, -123_000];
    apply_stop_loss(&mut nets, &[150_000, 1_000_000, 100_000]);
    assert_eq!(nets, [150_000, -67_583, -82_417]);
    assert_eq!(nets.iter().sum::<i64>(), 0);

    // In a record: stop_loss with stacks; B's stack 500 Kč caps B's loss.
    let mut record = three_players([205_000, -50_000, -123_000]);
    record["stop_loss"] = json!(true);
    for (i, stack) in [1_000_000, 50_000, 1_000_000].into_iter().enumerate() {
        record["players"][i]["stack_h"] = json!(stack);
    }
    // B −820 → −500; the 320 Kč shortfall off A: A 2 050 − 320 = 1 730 Kč.
    // The table capped B but still paid A in full: A overpaid by 320 Kč, and the results
    // add up to +320 Kč.
    let (findings, _, nets) = judge(&record);
    assert_eq!(nets, [173_000, -50_000, -123_000]);
    let kinds = crate::test_support::kinds_and_amounts(&findings);
    assert_eq!(
        kinds,
        [
            (FindingKind::Overpaid, 32_000),
            (FindingKind::ChipsNotConserved, 32_000)
        ]
    );
    record["players"][0]["net_h"] = json!(173_000);
    assert!(judge(&record).0.is_empty());
}

#[test]
fn impossible_hands_are_kept_with_a_finding_naming_the_field() {
    // Readable, signed, but not a hand one deck can deal: appended with `record_impossible`,
    // the money as the table reports it (A +2 050 Kč; B −820, C −1 230 Kč lost; 25 Kč rake each).
    let impossible = |edit: &dyn Fn(&mut Value)| {
        let mut record = three_players([205_000, -82_000, -123_000]);
        edit(&mut record);
        let v = crate::test_support::verdict_with(plan(), record);
        assert_eq!(
            crate::test_support::kinds(&v.findings),
            [FindingKind::RecordImpossible]
        );
        // Stakes: 82 000 + 123 000 lost + 3 × 2 500 rake = 212 500 h; paid 205 000 h.
        assert_eq!((v.stakes_h, v.paid_h), (212_500, 205_000));
        v.findings[0].message.clone()
    };
    // 14 cards at once outside fantasy land.
    let e = impossible(&|r| {
        r["players"][1]["deal"] = json!([cards("Jc Td 5c 6d 7c Jh 8h 5d Tc 9d 6h 7h 7s 7d")]);
    });
    assert!(
        e.contains("players[1].deal") && e.contains("5 cards, then 4 × 3"),
        "{e}"
    );
    // A row of 4.
    let e = impossible(&|r| r["players"][0]["front"] = json!(cards("Qh Qd 2c 5h")));
    assert!(
        e.contains("players[0].front") && e.contains("3 cards, not 4"),
        "{e}"
    );
    // One card dealt to two players.
    let e = impossible(&|r| r["players"][2]["deal"][4][2] = json!("Qh"));
    assert!(
        e.contains("players[2].deal") && e.contains("Qh is dealt to two players"),
        "{e}"
    );
}

#[test]
fn bad_hands_are_refused_with_the_field() {
    let error = |edit: &dyn Fn(&mut Value)| {
        let mut record = three_players([205_000, -82_000, -123_000]);
        edit(&mut record);
        parse(&record).unwrap_err().to_string()
    };
    // More groups than a deal has: not a hand a reader need take.
    let e = error(&|r| {
        r["players"][1]["deal"] = json!([["Jc"], ["Td"], ["5c"], ["6d"], ["7c"], ["Jh"]]);
    });
    assert!(
        e.contains("players[1].deal") && e.contains("at most 5 groups"),
        "{e}"
    );
    // A pair without a point value; four players.
    let e = error(&|r| {
        r["point_values"].as_array_mut().unwrap().pop();
    });
    assert!(
        e.contains("every pair of players needs its point value"),
        "{e}"
    );
    let e = error(&|r| {
        let extra = r["players"][0].clone();
        r["players"].as_array_mut().unwrap().push(extra);
    });
    assert!(e.contains("2 or 3 players"), "{e}");
    // A stop-loss without stacks.
    let e = error(&|r| r["stop_loss"] = json!(true));
    assert!(
        e.contains("players[0].stack_h") && e.contains("stop-loss"),
        "{e}"
    );
}

#[test]
fn a_tournament_hand_scores_in_chips_without_rake_or_money() {
    // The three-player hand in a tournament at 1 point = 50 chips for every pair: A +11 × 50
    // + 19 × 50 = 1 500 chips, B −11 × 50 + 14 × 50 = 150 chips, C −19 × 50 − 14 × 50 = −1 650.
    let mut record = three_players([1_500, 150, -1_650]);
    record["tournament_id"] = json!("ofc-sunday");
    record["point_values"] = json!([
        {"players": ["A", "B"], "point_h": 50},
        {"players": ["A", "C"], "point_h": 50},
        {"players": ["B", "C"], "point_h": 50}
    ]);
    for i in 0..3 {
        record["players"][i]["rake_h"] = json!(0);
    }
    let plan = plan();
    let h = parse(&record).unwrap();
    let v = adjudicate(plan.open_face_chinese().unwrap(), &plan, &h);
    assert!(v.findings.is_empty(), "{:?}", v.findings);
    assert_eq!((v.stakes_h, v.paid_h, v.expected_paid_h), (0, 0, 0));
    // B settled at +100 chips instead of +150: found, in chips, with no money amount; a rake
    // taken in a tournament is found too.
    record["players"][1]["net_h"] = json!(100);
    record["players"][2]["net_h"] = json!(-1_600);
    record["players"][0]["rake_h"] = json!(2_500);
    let h = parse(&record).unwrap();
    let v = adjudicate(plan.open_face_chinese().unwrap(), &plan, &h);
    let found: Vec<(FindingKind, i64, &str)> = v
        .findings
        .iter()
        .map(|f| (f.kind, f.amount_h, f.message.as_str()))
        .collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert_eq!(found[0].0, FindingKind::RakeWrong);
    assert_eq!(found[0].1, 2_500);
    assert_eq!(
        (found[1].0, found[1].1),
        (FindingKind::Underpaid, 0),
        "{found:#?}"
    );
    assert!(found[1]
        .2
        .ends_with("settled at 100 chips, the rows give 150 chips"));
    assert_eq!((found[2].0, found[2].1), (FindingKind::Overpaid, 0));
}

#[test]
fn equal_rows_stand_unless_the_plan_reads_weaker_strictly() {
    let mut plan = plan();
    let c = parsed_cards;
    // Back A-K-Q-J-9 and middle A-K-Q-J-9 of other suits: equal, ace high; front 5-3-2.
    let (front, middle, back) = (c("5h 3d 2c"), c("As Kd Qc Jd 9h"), c("Ad Ks Qh Jc 9s"));
    let ofc = plan.open_face_chinese().unwrap();
    assert_eq!(ofc.equal_rows, crate::plan::poker::EqualRows::Allowed);
    assert!(!score_rows(ofc, &front, &middle, &back).fouled);
    if let Some(o) = plan.open_face_chinese.as_mut() {
        o.equal_rows = crate::plan::poker::EqualRows::Foul;
    }
    let ofc = plan.open_face_chinese().unwrap();
    assert!(score_rows(ofc, &front, &middle, &back).fouled);
    // A stronger back (A-K-Q-J-T, a straight) is no foul either way.
    assert!(!score_rows(ofc, &front, &middle, &c("Ad Ks Qh Jc Ts")).fouled);
}
