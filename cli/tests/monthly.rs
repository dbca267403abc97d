#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The monthly payout/RTP report: hand-computed totals and deviation for one game-day, bet
//! kinds, filters, CSV; a simulated month whose days add up to the month; the HTML page rendered
//! by headless Chromium with the network off.

mod common;

use actix_web::test;
use common::*;
use dozor_log::access::Role;
use serde_json::{json, Value};

fn row<'a>(report: &'a Value, day: Option<&str>, game: &str, table: Option<&str>) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["gaming_day"] == json!(day) && r["game"] == game && r["table_id"] == json!(table)
        })
        .unwrap_or_else(|| panic!("no row {day:?} {game} {table:?} in {report}"))
}

fn kind<'a>(report: &'a Value, game: &str, kind: &str) -> &'a Value {
    report["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["game"] == game && k["bet_kind"] == kind && k["table_id"].is_null())
        .unwrap_or_else(|| panic!("no kind {game} {kind} in {report}"))
}

async fn get_as(app: &impl TestApp, uri: &str, role: Role) -> (u16, String, Option<String>) {
    let request = role_get(uri, role);
    let response = test::call_service(app, request).await;
    let status = response.status().as_u16();
    let csp = response
        .headers()
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    (status, body, csp)
}

#[actix_web::test]
async fn one_game_day_by_hand() {
    let (state, url) = api_state();
    create_key(&url, Role::Reporter);
    let app = test_app(&state).await;
    let (k1, k2) = (key(1), key(2));
    for (id, k) in [("R01", &k1), ("R02", &k2)] {
        register_table(&app, registration(id, k)).await;
    }
    let red = |id: &str, stake: i64, paid: i64| json!({"bet_id": id, "player": "seat-2", "kind": "red", "stake_h": stake, "paid_h": paid});
    let records = [
        // 17 (black): straight-up 100 Kč paid 3 600 Kč, red 100 Kč lost.
        (
            spin(
                "R01",
                1,
                17,
                json!([straight("a", 17, 10_000, 360_000), red("b", 10_000, 0)]),
            ),
            &k1,
        ),
        // 5 (red): red 200 Kč paid 400 Kč.
        (spin("R01", 2, 5, json!([red("c", 20_000, 40_000)])), &k1),
        // 0: straight-up 100 Kč on 17 lost.
        (
            spin("R02", 1, 0, json!([straight("d", 17, 10_000, 0)])),
            &k2,
        ),
    ];
    for (record, k) in records {
        submitted_record(&app, record, k).await;
    }
    let (status, report) = get(&app, "/api/v1/reports/rtp?month=2026-11").await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["through_day"], "2026-11-30");

    // Roulette on gaming day 2026-11-20 (all spins at 19:00 Prague):
    // stakes 100 + 100 + 200 + 100 = 500 Kč = 50 000 h; payouts 3 600 + 400 = 4 000 Kč
    // = 400 000 h; GGR 50 000 − 400 000 = −350 000 h; actual RTP 400 000 / 50 000 = 800 %.
    let day = row(&report, Some("2026-11-20"), "roulette", None);
    assert_eq!(day["rounds"], 3);
    assert_eq!(day["stakes_h"], 50_000);
    assert_eq!(day["payouts_h"], 400_000);
    assert_eq!(day["ggr_h"], -350_000);
    assert_eq!(day["actual_rtp_pct"], 800.0);
    // Theory, per spin over the 37 pockets:
    //  R01/1: 17 pays 360 000, the 18 reds 20 000: mean (360 000 + 360 000)/37 = 19 459.459 h;
    //         variance (37 × (360 000² + 18 × 20 000²) − 720 000²)/37² = 3 318 626 734.8 h².
    //  R01/2: 18 reds pay 40 000: mean 19 459.459 h; variance (37 × 18 × 40 000² − 720 000²)/37²
    //         = 399 707 815.9 h².
    //  R02/1: 17 pays 360 000: mean 9 729.730 h; variance 360 000² × 36/37² = 3 408 035 062.1 h².
    // Expected 19 459 459 + 19 459 459 + 9 729 729 = 48 648 647 mh; theoretical RTP
    // 48 648.647 / 50 000 = 97.2973 %. Variance 7 126 369 612.9 h², σ = 84 417.83 h.
    // z = (400 000 − 48 648.647) / 84 417.83 = 4.162 → 4.16: beyond 3σ, flagged.
    assert_eq!(day["theoretical_rtp_pct"], 97.2973);
    let deviation = &day["deviation"];
    assert_eq!(deviation["deviation_sd"], 4.16);
    assert_eq!(deviation["flagged"], true);
    // But the straight-ups make the sum lopsided: third moments 1.0638e15 + 4.3212e11 +
    // 1.1606e15 = 2.2248e15 h³; skewness 2.2248e15 / 84 417.83³ = 3.698; rounds needed
    // 3 × (3.698 / 0.2)² = 1 025.7 → 1 026: three spins cannot make the flag mean anything.
    assert_eq!(deviation["rounds_needed"], 1026);
    assert_eq!(deviation["flag_meaningful"], false);
    // Band: 3σ / stakes = 3 × 84 417.83 / 50 000 = 506.5 percentage points.
    assert_eq!(deviation["band_3sd_pct"], 506.507);

    // Each table's month row; the month row of the game is the day's (one day played).
    assert_eq!(
        row(&report, None, "roulette", Some("R01"))["payouts_h"],
        400_000
    );
    assert_eq!(row(&report, None, "roulette", Some("R02"))["payouts_h"], 0);
    assert_eq!(
        row(&report, None, "roulette", None)["deviation"],
        *deviation
    );
    // By kind: straight-ups in two spins (stakes 20 000, paid 360 000), reds in two
    // (stakes 30 000, paid 40 000).
    let straights = kind(&report, "roulette", "straight");
    assert_eq!(
        [
            &straights["rounds"],
            &straights["bets"],
            &straights["stakes_h"],
            &straights["payouts_h"]
        ],
        [2, 2, 20_000, 360_000]
    );
    let reds = kind(&report, "roulette", "red");
    assert_eq!(
        [
            &reds["rounds"],
            &reds["bets"],
            &reds["stakes_h"],
            &reds["payouts_h"]
        ],
        [2, 2, 30_000, 40_000]
    );
    // Red: expected 9 729.729 (R01/1: 20 000 on 18 of 37) + 19 459.459 (R01/2) = 29 189.188 h;
    // variance (37 × 18 × 20 000² − 360 000²)/37² = 99 926 954.0 plus 399 707 815.9
    // = 499 634 769.9 h², σ = 22 352.51 h; z = (40 000 − 29 189.188) / 22 352.51 = 0.48.
    assert_eq!(reds["theoretical_rtp_pct"], 97.2973);
    assert_eq!(reds["deviation"]["deviation_sd"], 0.48);

    // Filters: one table; a game nobody played.
    let (_, only_r02) = get(&app, "/api/v1/reports/rtp?month=2026-11&table_id=R02").await;
    assert!(only_r02["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["table_id"] == "R02" || r["table_id"].is_null()));
    assert_eq!(row(&only_r02, None, "roulette", None)["payouts_h"], 0);
    let (_, blackjack) = get(&app, "/api/v1/reports/rtp?month=2026-11&game=blackjack").await;
    assert_eq!(blackjack["rows"], json!([]));
    // Month to date: through the 19th, nothing was played (nor were the tables registered).
    let (_, early) = get(&app, "/api/v1/reports/rtp?month=2026-11&through=2026-11-19").await;
    assert_eq!(early["through_day"], "2026-11-19");
    assert_eq!(early["rows"], json!([]));

    // CSV: RFC 4180, one line per row and per kind.
    let (status, csv_text, _) = get_as(
        &app,
        "/api/v1/reports/rtp?month=2026-11&format=csv",
        Role::Reporter,
    )
    .await;
    assert_eq!(status, 200);
    assert!(csv_text.contains("\r\n"));
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(
        records.len(),
        report["rows"].as_array().unwrap().len() + report["kinds"].as_array().unwrap().len()
    );
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let day_line = records
        .iter()
        .find(|r| r[column("gaming_day")] == *"2026-11-20" && r[column("table_id")].is_empty())
        .unwrap();
    assert_eq!(&day_line[column("deviation_sd")], "4.16");
    assert_eq!(&day_line[column("rounds_needed")], "1026");
    assert_eq!(&day_line[column("ggr_h")], "-350000");

    // Bad input.
    for uri in [
        "/api/v1/reports/rtp?month=2026-13",
        "/api/v1/reports/rtp?month=2026-11&through=2026-10-31",
        "/api/v1/reports/rtp?month=2026-11&through=2026-12-01",
        "/reports/month/2026-11?through=2026-12-01",
        "/api/v1/reports/rtp?month=2026-11&format=xml",
        "/api/v1/reports/rtp?month=2026-11&colour=red",
        "/reports/month/november",
    ] {
        let (status, body) = get(&app, uri).await;
        assert_error(status, &body, 400, "invalid_query");
    }

    // The page: HTML with its charts, nothing fetched.
    let (status, page, csp) = get_as(&app, "/reports/month/2026-11", Role::Compliance).await;
    assert_eq!(status, 200);
    assert_eq!(
        csp.as_deref(),
        Some("default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
    );
    assert!(page.contains("<svg class=\"rtp-chart\""));
    assert!(page.contains("R01"));
    assert!(!page.contains("http://") && !page.contains("https://"));
    // In Czech by default, the game as the plan names it, the charts' words too; English on
    // request, the plan's names unchanged.
    assert!(page.contains("<h3>Ruleta</h3>"), "{page}");
    assert!(page.contains(">herní den</text>"), "{page}");
    assert!(
        !page.contains("gaming day") && !page.contains(">roulette<"),
        "{page}"
    );
    let (_, english, _) = get_as(&app, "/reports/month/2026-11?lang=en", Role::Compliance).await;
    assert!(english.contains("<h3>Ruleta</h3>") && english.contains(">gaming day</text>"));
}

#[actix_web::test]
async fn a_simulated_month_adds_up_and_its_page_renders_offline() {
    let (state, url) = api_state();
    create_key(&url, Role::Regulator);
    let app = test_app(&state).await;
    submit_simulated_tables(
        &app,
        october(4, 40, 0.1, 11),
        &[
            ("R01", "roulette"),
            ("BJ1", "blackjack"),
            ("U01", "ultimate_texas_holdem"),
            ("PH1", "poker_cash"),
        ],
        None,
    )
    .await;
    let (status, report) = get(&app, "/api/v1/reports/rtp?month=2026-10").await;
    assert_eq!(status, 200, "{report}");
    let rows = report["rows"].as_array().unwrap();
    for game in [
        "roulette",
        "blackjack",
        "ultimate_texas_holdem",
        "poker_cash",
    ] {
        let month = row(&report, None, game, None);
        assert_eq!(month["rounds"], 4 * 40, "{game}");
        // The days add up to the month, for every amount and every finding.
        for field in [
            "rounds",
            "stakes_h",
            "payouts_h",
            "ggr_h",
            "returned_stakes_h",
        ] {
            let days: i64 = rows
                .iter()
                .filter(|r| {
                    r["game"] == game && r["table_id"].is_null() && !r["gaming_day"].is_null()
                })
                .map(|r| r[field].as_i64().unwrap())
                .sum();
            assert_eq!(json!(days), month[field], "{game} {field}");
        }
        let day_findings: i64 = rows
            .iter()
            .filter(|r| r["game"] == game && r["table_id"].is_null() && !r["gaming_day"].is_null())
            .map(|r| r["findings"]["count"].as_i64().unwrap())
            .sum();
        assert_eq!(json!(day_findings), month["findings"]["count"], "{game}");
    }
    // Ten per cent of the rounds carry an error: there are findings, all open.
    let roulette = row(&report, None, "roulette", None);
    assert!(
        roulette["findings"]["count"].as_i64().unwrap() > 0,
        "{roulette}"
    );
    assert_eq!(roulette["findings"]["open"], roulette["findings"]["count"]);
    // Games against the house have a theory and a deviation; poker cash (players against each
    // other) has neither.
    assert!(roulette["deviation"]["deviation_sd"].is_number());
    assert!(row(&report, None, "poker_cash", None)["deviation"].is_null());
    // The kinds of a game stake what its rounds stake for RTP: blackjack's main, pairs and
    // insurance; UTH's hand and Trips.
    for game in ["blackjack", "ultimate_texas_holdem"] {
        let kinds: i64 = report["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| k["game"] == game && k["table_id"].is_null())
            .map(|k| k["stakes_h"].as_i64().unwrap())
            .sum();
        let month = row(&report, None, game, None);
        let expected = month["theoretical_rtp_pct"].as_f64().unwrap();
        assert!(kinds > 0 && expected > 90.0, "{game}: {kinds} {expected}");
    }
    assert!(
        kind(&report, "ultimate_texas_holdem", "ante_blind_play")["deviation"]["rounds_needed"]
            .as_i64()
            .unwrap()
            > 1_000
    );

    // Resolving a finding moves it from open to confirmed.
    let (_, page) = get(&app, "/api/v1/findings?game=roulette&limit=1").await;
    let finding = page["items"][0]["id"].as_str().unwrap().to_owned();
    let request = test::TestRequest::post()
        .uri(&format!("/api/v1/findings/{finding}/resolutions"))
        .insert_header(bearer(Role::Compliance))
        .set_json(
            json!({"state": "confirmed", "comment": "recovered from the player",
                         "amount_settled_h": 100}),
        )
        .to_request();
    let (status, body) = call(&app, request).await;
    assert_eq!(status, 201, "{body}");
    let (_, after) = get(&app, "/api/v1/reports/rtp?month=2026-10&game=roulette").await;
    let findings = &row(&after, None, "roulette", None)["findings"];
    assert_eq!(findings["confirmed"], 1);
    assert_eq!(
        findings["open"].as_i64().unwrap(),
        roulette["findings"]["open"].as_i64().unwrap() - 1
    );

    // The page in a real browser with the network off: it loads, and its charts are there.
    let (status, html, _) = get_as(&app, "/reports/month/2026-10", Role::Regulator).await;
    assert_eq!(status, 200);
    let rendered = common::browser::render_offline(&html, "month-2026-10");
    assert!(rendered.dom.contains("class=\"rtp-chart\""), "no RTP chart");
    assert!(
        rendered.dom.contains("<polygon class=\"band\""),
        "no ±3σ band"
    );
    assert!(rendered.dom.contains("class=\"ggr-chart\""), "no GGR chart");
    assert!(
        rendered.dom.contains("class=\"findings-chart\""),
        "no findings chart"
    );
    assert!(
        rendered.screenshot_bytes > 10_000,
        "the screenshot is empty"
    );
}

/// A browser cannot send a bearer token, but it asks for Basic credentials itself when told to:
/// the page takes the key as the password, and refuses a wrong one or a role that may not read
/// reports.
#[actix_web::test]
async fn a_browser_opens_the_page_with_the_key_as_its_password() {
    use base64::Engine as _;
    let (_state, _, app) = api_app().await;
    let basic = |user: &str, password: &str| {
        let pair = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        ("authorization", format!("Basic {pair}"))
    };
    let page = |header: Option<(&'static str, String)>| {
        let mut request = test::TestRequest::get().uri("/reports/month/2026-11");
        if let Some(h) = header {
            request = request.insert_header(h);
        }
        request.to_request()
    };
    let response = test::call_service(&app, page(None)).await;
    assert_eq!(response.status().as_u16(), 401);
    let challenges: Vec<&str> = response
        .headers()
        .get_all("www-authenticate")
        .map(|v| v.to_str().unwrap())
        .collect();
    assert!(
        challenges
            .iter()
            .any(|c| c.starts_with("Basic realm=\"dozor\"")),
        "{challenges:?}"
    );
    let response =
        test::call_service(&app, page(Some(basic("officer", &token(Role::Compliance))))).await;
    assert_eq!(response.status().as_u16(), 200);
    let body = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    assert!(body.starts_with("<!DOCTYPE html>"), "{body}");
    // A token that is not a key's, and a key whose role may not read reports.
    let wrong = format!("dzr_{}", "A".repeat(43));
    let response = test::call_service(&app, page(Some(basic("officer", &wrong)))).await;
    assert_eq!(response.status().as_u16(), 401);
    let response = test::call_service(&app, page(Some(basic("it", &token(Role::Admin))))).await;
    assert_eq!(response.status().as_u16(), 403);
    // Credentials without a colon are not credentials.
    let response = test::call_service(
        &app,
        page(Some((
            "authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(token(Role::Compliance))
            ),
        ))),
    )
    .await;
    assert_eq!(response.status().as_u16(), 401);
}
