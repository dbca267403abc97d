#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Findings and the daily report through the API, with hand-computed figures.

mod common;

use actix_web::test;
use common::*;
use dozor_log::access::Role;
use serde_json::{json, Value};

#[actix_web::test]
async fn findings_and_daily_report() {
    let (_state, _url, app) = api_app().await;
    let (k1, k2) = (key(1), key(2));
    for (id, k) in [("R01", &k1), ("R02", &k2)] {
        let req = test::TestRequest::post()
            .uri("/api/v1/tables")
            .insert_header(bearer(Role::Admin))
            .set_json(registration(id, k))
            .to_request();
        assert_eq!(test::call_service(&app, req).await.status().as_u16(), 201);
    }
    let red = |id: &str, stake: i64, paid: i64| json!({"bet_id": id, "player": "seat-2", "kind": "red", "stake_h": stake, "paid_h": paid});
    let mut void = spin("R01", 2, 0, json!([straight("v1", 4, 5_000, 5_000)]));
    void["outcome"] = json!({"result": "void", "reason": "wheel_not_reversed"});
    let mut next_day = spin("R02", 2, 3, json!([straight("n1", 3, 1_000, 36_000)]));
    next_day["played_at"] = json!("2026-11-21T05:00:00Z"); // 06:00 in Prague: the next gaming day
    let records = [
        // R01: 17 wins: straight 100 Kč paid 3 600 Kč (correct), red 100 Kč loses (17 is black).
        (
            spin(
                "R01",
                1,
                17,
                json!([straight("b1", 17, 10_000, 360_000), red("b2", 10_000, 0)]),
            ),
            &k1,
        ),
        // R01: void spin, 50 Kč returned.
        (void, &k1),
        // R02: 1 wins (red): red 200 Kč should get 400 Kč but got 410 Kč: overpaid by 10 Kč;
        // straight 5 Kč on 1 (below the 10 Kč minimum), paid correctly 180 Kč.
        (
            spin(
                "R02",
                1,
                1,
                json!([red("c1", 20_000, 41_000), straight("c2", 1, 500, 18_000)]),
            ),
            &k2,
        ),
        (next_day, &k2),
    ];
    for (record, k) in records {
        let req = test::TestRequest::post()
            .uri("/api/v1/records")
            .set_json(signed(record, k))
            .to_request();
        let status = test::call_service(&app, req).await.status().as_u16();
        assert_eq!(status, 201);
    }

    let (status, body) = get_text(&app, "/api/v1/findings?day=2026-11-20").await;
    assert_eq!(status, 200);
    let page: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(page["total"], 2);
    let kinds: Vec<&str> = finding_kinds(&page);
    assert_eq!(kinds, vec!["overpaid", "stake_below_minimum"]);
    let (_, body) = get_text(&app, "/api/v1/findings?kind=overpaid&table_id=R02").await;
    let page: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(page["total"], 1);
    assert_eq!(page["items"][0]["amount_h"], 1_000);
    let (_, body) = get_text(&app, "/api/v1/findings?table_id=R01").await;
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["total"], 0);

    let (status, body) = get_text(&app, "/api/v1/reports/daily?day=2026-11-20").await;
    assert_eq!(status, 200);
    let report: Value = serde_json::from_str(&body).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "two tables and the game total: {report}");
    let r01 = &rows[0];
    assert_eq!(r01["table_id"], "R01");
    assert_eq!(
        (r01["rounds"].as_i64(), r01["void_rounds"].as_i64()),
        (Some(2), Some(1))
    );
    // Stakes 10 000 + 10 000 + 5 000 = 25 000 h; returned 5 000; paid 360 000.
    assert_eq!(r01["stakes_h"], 25_000);
    assert_eq!(r01["returned_stakes_h"], 5_000);
    assert_eq!(r01["payouts_h"], 360_000);
    // GGR = 25 000 − 5 000 − 360 000 = −340 000 h; RTP = 360 000 / 20 000 = 1 800 %.
    assert_eq!(r01["ggr_h"], -340_000);
    assert_eq!(r01["actual_rtp_pct"], 1800.0);
    assert_eq!(r01["theoretical_rtp_pct"], 97.2973); // 36/37
    let total = &rows[2];
    assert_eq!(total["table_id"], Value::Null);
    // Game total: stakes 25 000 + 20 500 = 45 500; payouts 360 000 + 41 000 + 18 000 = 419 000.
    assert_eq!(total["stakes_h"], 45_500);
    assert_eq!(total["payouts_h"], 419_000);
    assert_eq!(total["expected_payouts_h"], 360_000 + 40_000 + 18_000);
    assert_eq!(total["findings"], 2);
    assert_eq!(total["findings_by_kind"]["overpaid"]["amount_h"], 1_000);

    let (status, csv) = get_text(&app, "/api/v1/reports/daily?day=2026-11-20&format=csv").await;
    assert_eq!(status, 200);
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0].starts_with("gaming_day,game,table_id,rounds,void_rounds,stakes_h"));
    assert!(
        lines[1].starts_with(
            "2026-11-20,roulette,R01,2,1,25000,5000,360000,360000,-340000,stakes_minus_payouts,,,,1800.0000,97.2973,"
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines[3].starts_with("2026-11-20,roulette,,3,1,45500,"),
        "{}",
        lines[3]
    );

    // The spin at 06:00 Prague time belongs to the next gaming day.
    let (_, body) = get_text(&app, "/api/v1/reports/daily?day=2026-11-21").await;
    let report: Value = serde_json::from_str(&body).unwrap();
    let r02 = daily_row(&report, "R02").clone();
    assert_eq!(r02["rounds"], 1);
}
