//! Hand-computed tournaments. Amounts in haléře: 1 000 Kč = 100 000 h.

use chrono::DateTime;
use serde_json::{json, Value};

use super::*;
use crate::plan::bundled_plan as plan;
use crate::record::Round;
use crate::verdict::FindingKind;

const KC: i64 = 100;

/// 34 players buy in at 1 000 Kč, players p01–p06 re-enter once after busting: 40 entries,
/// moneypool 40 × 1 000 = 40 000 Kč. Fee 10 % = 4 000 Kč; 36 000 Kč from the entries, under
/// the 50 000 Kč guarantee: prize pool 50 000 Kč, overlay 14 000 Kč.
/// 40 entries: the plan's column 36–44 pays 38 / 23 / 15 / 10 / 8 / 6 %:
/// 19 000, 11 500, 7 500, 5 000, 4 000 and 3 000 Kč (= 50 000).
fn forty_entries(buy_in_kc: i64, guarantee_kc: Option<i64>, prizes_kc: &[i64]) -> Value {
    let mut entries = Vec::new();
    for n in 1..=34 {
        entries.push(json!({
            "player": format!("p{n:02}"), "kind": "buy_in",
            "at": format!("2026-11-21T18:{:02}:00Z", n), "amount_h": buy_in_kc * KC
        }));
    }
    for n in 1..=6 {
        entries.push(json!({
            "player": format!("p{n:02}"), "kind": "re_entry",
            "at": format!("2026-11-21T19:{:02}:00Z", n * 5), "amount_h": buy_in_kc * KC,
            "stack_before": 0
        }));
    }
    let results: Vec<Value> = prizes_kc
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut r =
                json!({"place": i + 1, "player": format!("p{:02}", i + 1), "prize_h": p * KC});
            // Out at 01:50, 01:40, 01:30, … (the winner last, at 02:00).
            if i > 0 {
                let out = DateTime::parse_from_rfc3339("2026-11-22T02:00:00Z").unwrap()
                    - chrono::Duration::minutes(10 * i as i64);
                r["out_at"] = json!(out.to_utc().to_rfc3339());
            }
            r
        })
        .collect();
    let mut t = json!({
        "type": "round", "game": "poker_tournament", "table_id": "POKER-ROOM", "seq_no": 3,
        "plan_id": "69games-ziva-hra", "tournament_id": "main-event-2026-11-21",
        "played_at": "2026-11-22T02:00:00Z",
        "variant": "holdem", "format": "re_entry",
        "announced_at": "2026-11-10T12:00:00Z",
        "starts_at": "2026-11-21T18:00:00Z",
        "registration_closes_at": "2026-11-21T20:00:00Z",
        "buy_in_h": buy_in_kc * KC, "starting_stack": 20_000,
        "fee_percent": 10, "fee_h": buy_in_kc * 40 * KC / 10,
        "entries": entries,
        "results": results,
    });
    if let Some(g) = guarantee_kc {
        t["guarantee_h"] = json!(g * KC);
    }
    t
}

fn parse(record: &Value) -> Result<TournamentRecord, RecordError> {
    match Round::parse(record)? {
        Round::Tournament(t) => Ok(t),
        other => panic!("not a tournament: {other:?}"),
    }
}

fn judge(record: &Value) -> (Vec<Finding>, TournamentFigures, Vec<(String, i64)>) {
    let plan = plan();
    let t = parse(record).unwrap();
    let v = adjudicate(plan.poker_tournament().unwrap(), &plan, &t);
    let due = v
        .bets
        .iter()
        .filter(|b| b.expected_paid_h > 0)
        .map(|b| (b.player.to_owned(), b.expected_paid_h / KC))
        .collect();
    (v.findings, v.tournament.unwrap(), due)
}

/// The kinds of `findings` with their amounts in whole Kč.
fn kinds_in_kc(findings: &[Finding]) -> Vec<(FindingKind, i64)> {
    findings.iter().map(|f| (f.kind, f.amount_h / KC)).collect()
}

/// The findings of `record`, each with its amount in whole Kč.
fn findings_in_kc(record: &Value) -> Vec<(FindingKind, i64)> {
    kinds_in_kc(&judge(record).0)
}

const GUARANTEED: [i64; 6] = [19_000, 11_500, 7_500, 5_000, 4_000, 3_000];

#[test]
fn forty_entries_with_re_entries_a_ten_percent_fee_and_a_guarantee_overlay() {
    let (findings, figures, due) = judge(&forty_entries(1_000, Some(50_000), &GUARANTEED));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(
        figures,
        TournamentFigures {
            entries: 40,
            moneypool_h: 40_000 * KC,
            fee_h: 4_000 * KC,
            prize_pool_h: 50_000 * KC,
            overlay_h: 14_000 * KC,
        }
    );
    let expected: Vec<(String, i64)> = GUARANTEED
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("p{:02}", i + 1), *p))
        .collect();
    assert_eq!(due, expected);

    // Without the guarantee: 36 000 Kč × 38 / 23 / 15 / 10 / 8 / 6 % = 13 680, 8 280, 5 400,
    // 3 600, 2 880, 2 160 Kč. The table paid the guaranteed amounts instead: each overpaid,
    // and 50 000 Kč is more than the 36 000 Kč prize pool.
    let (findings, figures, _) = judge(&forty_entries(1_000, None, &GUARANTEED));
    assert_eq!(figures.overlay_h, 0);
    assert_eq!(figures.prize_pool_h, 36_000 * KC);
    let overpaid: Vec<i64> = findings
        .iter()
        .filter(|f| f.kind == FindingKind::Overpaid)
        .map(|f| f.amount_h / KC)
        .collect();
    // 19 000 − 13 680 = 5 320; 11 500 − 8 280 = 3 220; 7 500 − 5 400 = 2 100;
    // 5 000 − 3 600 = 1 400; 4 000 − 2 880 = 1 120; 3 000 − 2 160 = 840.
    assert_eq!(overpaid, [5_320, 3_220, 2_100, 1_400, 1_120, 840]);
    assert!(findings
        .iter()
        .any(|f| f.kind == FindingKind::ChipsNotConserved
            && f.expected_h == Some(36_000 * KC)
            && f.actual_h == Some(50_000 * KC)));
}

#[test]
fn prizes_are_whole_koruny_and_the_rounding_rest_goes_to_the_winner() {
    // Buy-in 1 234 Kč: moneypool 40 × 1 234 = 49 360 Kč, fee 4 936 Kč, pool 44 424 Kč.
    // 38 % = 16 881.12, 23 % = 10 217.52, 15 % = 6 663.60, 10 % = 4 442.40, 8 % = 3 553.92,
    // 6 % = 2 665.44 → rounded down 16 881 + 10 217 + 6 663 + 4 442 + 3 553 + 2 665 = 44 421;
    // the 3 Kč left go to the winner: 16 884.
    let prizes = [16_884, 10_217, 6_663, 4_442, 3_553, 2_665];
    let (findings, figures, due) = judge(&forty_entries(1_234, None, &prizes));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(figures.prize_pool_h, 44_424 * KC);
    assert_eq!(due.iter().map(|d| d.1).collect::<Vec<_>>(), prizes);
}

#[test]
fn a_deal_among_the_last_three_keeps_their_prizes_together() {
    // Places 1–3 pay 19 000 + 11 500 + 7 500 = 38 000 Kč; the three agree 14 000 / 13 000 /
    // 11 000 (= 38 000) after registration closed.
    let paid = [14_000, 13_000, 11_000, 5_000, 4_000, 3_000];
    let mut record = forty_entries(1_000, Some(50_000), &paid);
    record["deal"] = json!({"at": "2026-11-22T01:30:00Z", "shares": [
        {"player": "p01", "amount_h": 14_000 * KC},
        {"player": "p02", "amount_h": 13_000 * KC},
        {"player": "p03", "amount_h": 11_000 * KC},
    ]});
    let (findings, _, due) = judge(&record);
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(due.iter().map(|d| d.1).collect::<Vec<_>>(), paid);

    // Sharing 38 100 Kč: the pool is not preserved; the table's prizes stand, so p01 is
    // underpaid 19 000 − 14 000 = 5 000 Kč and p02, p03 overpaid 1 500 and 3 600 Kč.
    let mut bigger = record.clone();
    bigger["deal"]["shares"][2]["amount_h"] = json!(11_100 * KC);
    bigger["results"][2]["prize_h"] = json!(11_100 * KC);
    assert_eq!(
        findings_in_kc(&bigger),
        [
            (FindingKind::ChipsNotConserved, 100),
            (FindingKind::Underpaid, 5_000),
            (FindingKind::Overpaid, 1_500),
            (FindingKind::Overpaid, 3_600),
            (FindingKind::ChipsNotConserved, 100),
        ]
    );

    // Before registration closed (when all six were still in): not a deal the plan allows, so
    // the table's prizes stand — p01 underpaid 5 000, p02 and p03 overpaid 1 500 and 3 500 Kč.
    let mut early = record.clone();
    early["deal"]["at"] = json!("2026-11-21T19:30:00Z");
    let (findings, _, _) = judge(&early);
    let kinds = kinds_in_kc(&findings);
    assert_eq!(
        kinds,
        [
            (FindingKind::IllegalDecision, 0),
            (FindingKind::IllegalDecision, 0),
            (FindingKind::ChipsNotConserved, 12_000), // places 1–6 pay 50 000, the deal 38 000
            (FindingKind::Underpaid, 5_000),
            (FindingKind::Overpaid, 1_500),
            (FindingKind::Overpaid, 3_500),
        ]
    );
    assert!(findings[0]
        .message
        .starts_with("a deal at 2026-11-21 19:30 before registration closed"));
    // Without the third remaining player (p03 went out at 01:40, after the deal at 01:30).
    let mut two = record.clone();
    two["deal"]["shares"].as_array_mut().unwrap().pop();
    let (findings, _, _) = judge(&two);
    assert!(findings
        .iter()
        .any(|f| f.kind == FindingKind::IllegalDecision
            && f.message.contains("every remaining player")));
    // A deal needs the times the others went out.
    let mut untimed = record;
    untimed["results"][4]
        .as_object_mut()
        .unwrap()
        .remove("out_at");
    let v = crate::test_support::verdict_with(plan(), untimed);
    assert_eq!(
        crate::test_support::kinds(&v.findings),
        [FindingKind::RecordImpossible]
    );
    assert!(v.findings[0].message.contains("results[4].out_at"), "{v:?}");
}

#[test]
fn re_entries_rebuys_fees_and_eliminations_are_checked() {
    let mut record = forty_entries(1_000, Some(50_000), &GUARANTEED);
    // p07 re-enters holding 500 chips; p08 rebuys in a re-entry tournament; p09 re-enters
    // after registration closed (and the moneypool grows by those three: 43 entries …).
    let entries = record["entries"].as_array_mut().unwrap();
    entries.push(
        json!({"player": "p07", "kind": "re_entry", "at": "2026-11-21T19:50:00Z",
        "amount_h": 100_000, "stack_before": 500}),
    );
    entries.push(
        json!({"player": "p08", "kind": "rebuy", "at": "2026-11-21T19:55:00Z",
        "amount_h": 100_000, "stack_before": 0}),
    );
    entries.push(
        json!({"player": "p09", "kind": "re_entry", "at": "2026-11-21T20:10:00Z",
        "amount_h": 100_000, "stack_before": 0}),
    );
    let (findings, figures, _) = judge(&record);
    assert_eq!(figures.entries, 42); // two more re-entries; the rebuy is not an entry
    let messages: Vec<String> = findings
        .iter()
        .map(|f| format!("{:?}: {}", f.kind, f.message))
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with(
            "IllegalDecision: entries[40] (p07): a re-entry while the player still had chips"
        )),
        "{messages:#?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m
                .starts_with("BetNotAllowed: entries[41] (p08): a Rebuy in a ReEntry tournament")),
        "{messages:#?}"
    );
    assert!(
        messages.iter().any(|m| m
            .starts_with("IllegalDecision: entries[42] (p09): ReEntry after registration closed")),
        "{messages:#?}"
    );
    // The fee on 43 000 Kč is 4 300, not the 4 000 taken.
    assert!(findings
        .iter()
        .any(|f| f.kind == FindingKind::FeeWrong && f.expected_h == Some(430_000)));

    // Fee 20 %, announced 3 days ahead.
    let mut record = forty_entries(1_000, Some(50_000), &GUARANTEED);
    record["fee_percent"] = json!(20);
    record["fee_h"] = json!(800_000);
    record["announced_at"] = json!("2026-11-18T18:00:00Z");
    let (findings, _, _) = judge(&record);
    let fees: Vec<&str> = crate::test_support::messages(&findings, FindingKind::FeeWrong);
    assert_eq!(
        fees,
        [
            "the fee was announced 3 days before the start; the plan requires at least 7",
            "a fee of 20 %; the plan allows 5 to 15 %"
        ]
    );

    // p05 (3 000 chips) and p06 (8 000 chips) busted in hand 212: p06 must place 5th, not 6th.
    let mut record = forty_entries(1_000, Some(50_000), &GUARANTEED);
    record["eliminations"] = json!([
        {"player": "p05", "hand": 212, "stack_at_hand_start": 3_000},
        {"player": "p06", "hand": 212, "stack_at_hand_start": 8_000},
    ]);
    let (findings, _, _) = judge(&record);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0]
        .message
        .starts_with("p06 started hand 212 with 8000 chips, p05 with 3000"));
    // At the money bubble: p07 (not placed: the results list the six paid places) had more
    // chips than p06 when both went out in hand 230.
    record["eliminations"] = json!([
        {"player": "p06", "hand": 230, "stack_at_hand_start": 3_000},
        {"player": "p07", "hand": 230, "stack_at_hand_start": 9_000},
    ]);
    let (findings, _, _) = judge(&record);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .message
            .ends_with("p07 places higher, not not placed against 6"),
        "{}",
        findings[0].message
    );
}

#[test]
fn players_out_together_with_equal_stacks_split_their_places() {
    // Seed 001, rule 30. Buy-in 1 234 Kč (the rounding test): places 4 and 5 pay 4 442 and
    // 3 553 Kč. p04 and p05 went out in hand 300 with 4 000 chips each, p05 with the better
    // hand: 7 995 Kč split, 3 997 each, the 1 Kč that does not divide to p05: 3 997 / 3 998.
    let split = [16_884, 10_217, 6_663, 3_997, 3_998, 2_665];
    let mut record = forty_entries(1_234, None, &split);
    record["eliminations"] = json!([
        {"player": "p04", "hand": 300, "stack_at_hand_start": 4_000, "hand_order": 2},
        {"player": "p05", "hand": 300, "stack_at_hand_start": 4_000, "hand_order": 1},
    ]);
    let (findings, _, due) = judge(&record);
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(due.iter().map(|d| d.1).collect::<Vec<_>>(), split);
    // Paid by place instead: p04 overpaid 4 442 − 3 997 = 445, p05 underpaid 3 998 − 3 553 = 445.
    let by_place = [16_884, 10_217, 6_663, 4_442, 3_553, 2_665];
    record["results"] = forty_entries(1_234, None, &by_place)["results"].clone();
    assert_eq!(
        findings_in_kc(&record),
        [(FindingKind::Overpaid, 445), (FindingKind::Underpaid, 445)]
    );
}

#[test]
fn a_cancelled_tournament_refunds_everything_paid_in() {
    let mut record = forty_entries(1_000, Some(50_000), &[]);
    record["fee_h"] = json!(0);
    // p01–p06 paid 2 000 Kč each (buy-in and re-entry), the others 1 000 Kč.
    let refunds: Vec<Value> = (1..=34)
        .map(|n| json!({"player": format!("p{n:02}"), "amount_h": if n <= 6 { 200_000 } else { 100_000 }}))
        .collect();
    record["cancelled"] = json!({"refunds": refunds});
    let (findings, figures, _) = judge(&record);
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(figures.prize_pool_h, 0);
    // p03 refunded only the buy-in.
    record["cancelled"]["refunds"][2]["amount_h"] = json!(100_000);
    let (findings, _, _) = judge(&record);
    assert_eq!(findings.len(), 1);
    assert_eq!(
        (findings[0].kind, findings[0].amount_h),
        (FindingKind::Underpaid, 100_000)
    );
}

#[test]
fn impossible_tournament_records_are_kept_with_a_finding_naming_the_field() {
    // Readable and signed, but not a tournament that can have been played: appended with
    // `record_impossible`, the money as reported (the moneypool in, the prizes out).
    let impossible = |edit: &dyn Fn(&mut Value)| {
        let mut record = forty_entries(1_000, Some(50_000), &GUARANTEED);
        edit(&mut record);
        let pool = parse(&record).unwrap().moneypool_h();
        let v = crate::test_support::verdict_with(plan(), record);
        assert_eq!(
            crate::test_support::kinds(&v.findings),
            [FindingKind::RecordImpossible]
        );
        assert_eq!(v.stakes_h, pool);
        v.findings[0].message.clone()
    };
    let e = impossible(&|r| r["results"][1]["place"] = json!(3));
    assert!(e.contains("results[1].place"), "{e}");
    let e = impossible(&|r| r["results"][0]["player"] = json!("nobody"));
    assert!(
        e.contains("results[0].player") && e.contains("never entered"),
        "{e}"
    );
    let e = impossible(&|r| r["registration_closes_at"] = json!("2026-11-21T17:00:00Z"));
    assert!(e.contains("registration_closes_at"), "{e}");
    let e = impossible(&|r| r["entries"][3]["at"] = json!("2026-11-21T17:00:00Z"));
    assert!(
        e.contains("entries[3].at") && e.contains("time order"),
        "{e}"
    );
    let e = impossible(&|r| r["cancelled"] = json!({"refunds": []}));
    assert!(e.contains("no results"), "{e}");
}

#[test]
fn unreadable_tournament_records_are_refused_with_the_field() {
    let error = |edit: &dyn Fn(&mut Value)| {
        let mut record = forty_entries(1_000, Some(50_000), &GUARANTEED);
        edit(&mut record);
        parse(&record).unwrap_err().to_string()
    };
    let e = error(&|r| r["fee_percent"] = json!(100));
    assert!(e.contains("fee_percent"), "{e}");
    let e = error(&|r| r["results"][0]["player"] = json!(""));
    assert!(e.contains("results[0].player"), "{e}");
}
