#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The view on a real PostgreSQL with a small real log followed: the figures against the
//! monitor's state worked by hand, a round proven from the published tiles, the page rendered
//! in headless Chromium with the network off, the CSV read by Python's csv module, and the
//! listener's tokens (401 without one, 403 with another).

use std::process::Command;

use actix_web::test as web_test;

use super::*;
use crate::follow::follow_once;
use crate::http_config::HttpConfig;
use crate::store::test_db::empty_database;
use crate::test_log::TestLog;
use crate::view::figures::rounded;

const TOKEN: &str = "regulator-secret-token";

/// A database with casino-1 followed to 300 entries: entry 0 registers R1, 299 spins, one in ten
/// (k = 3, 13, …, 293: 30) overpaid by 10 000 h.
fn followed() -> (TestLog, MonitorConfig, String) {
    followed_with(|_| {})
}

/// [`followed`], the log changed by `change` before it is published.
fn followed_with(change: impl FnOnce(&mut TestLog)) -> (TestLog, MonitorConfig, String) {
    let url = empty_database();
    let mut conn = connect(&url).unwrap();
    crate::store::connection::migrate(&mut conn).unwrap();
    let mut log = TestLog::new();
    log.spins(299);
    change(&mut log);
    let casino = crate::follow::tests::casino(&log);
    let size = log.entries.len() as u64;
    follow_once(&mut conn, &casino, &log.publish(size)).unwrap();
    // As `run` records each pass.
    crate::store::state::record_attempt(&mut conn, &casino.name, None, Utc::now()).unwrap();
    let config = MonitorConfig {
        database_url: Some(url.clone()),
        data_dir: std::path::PathBuf::new(),
        poll: std::time::Duration::from_secs(1),
        backoff_max: std::time::Duration::from_secs(1),
        timeout: std::time::Duration::from_secs(5),
        quorum_grace: std::time::Duration::from_secs(1),
        casinos: vec![casino],
        http: Some(HttpConfig {
            listen: "0.0.0.0:9464".parse().unwrap(),
            token_sha256: vec![sha2::Sha256::digest(TOKEN.as_bytes()).into()],
        }),
        alerts: None,
    };
    (log, config, url)
}

fn november() -> Month {
    Month::parse("2026-11").unwrap()
}

#[test]
fn the_figures_are_the_monitor_s_state_of_the_month() {
    let (_log, config, url) = followed();
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    let c = &view.casinos[0];
    assert_eq!((c.casino.as_str(), c.state), ("casino-1", "following"));
    assert_eq!((c.entries_followed, c.checkpoint_size), (300, Some(300)));
    assert!(c.witnesses.quorum_met);
    assert_eq!(c.witnesses.cosigners.len(), 1);
    let g = &c.games[0];
    assert_eq!(g.game, "roulette");
    // 299 spins of 10 000 h: 2 990 000 h staked. Paid: 30 overpaid spins × 370 000 h and 8 won
    // straight-ups (k ≡ 17 mod 37: 17, 54, 91, 128, 165, 202, 239, 276) × 360 000 h
    // = 11 100 000 + 2 880 000 = 13 980 000 h.
    assert_eq!(
        (g.rounds, g.stakes_h, g.paid_h),
        (299, 2_990_000, 13_980_000)
    );
    // Due by the plan: the 8 wins and the 30 overpaid spins' 360 000 h = 38 × 360 000.
    assert_eq!(g.expected_paid_h, 13_680_000);
    assert_eq!((g.findings, g.findings_amount_h), (30, 300_000));
    assert_eq!((g.findings_open, g.findings_resolved), (30, 0));
    assert_eq!(g.actual_rtp_pct, Some(467.5585));
    assert!(g.flagged, "paid far above theory: {:?}", g.deviation_sd);
    assert!(c.mismatched_rounds.is_empty());
    // October has no rounds, so no figures and no findings.
    let october = overview::overview(
        &mut conn,
        &config,
        Month::parse("2026-10").unwrap(),
        Utc::now(),
    )
    .unwrap();
    assert!(october.casinos[0].games.is_empty());
}

/// Headless Chromium's DOM of `html`, the network off, and a screenshot into `png`.
fn chromium(html: &str, png: &std::path::Path) -> Option<String> {
    let browser = std::path::Path::new("/usr/bin/chromium");
    if !browser.exists() {
        eprintln!("no /usr/bin/chromium: the page is not rendered");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, html).unwrap();
    let run = |extra: &str| {
        let profile = tempfile::tempdir().unwrap();
        let out = Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--hide-scrollbars",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--proxy-server=http://127.0.0.1:9",
                "--window-size=1200,1400",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(extra)
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let dom = run("--dump-dom");
    run(&format!("--screenshot={}", png.display()));
    assert!(std::fs::metadata(png).unwrap().len() > 10_000);
    Some(dom)
}

fn self_contained(html: &str) {
    for attribute in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "url(http",
        "@import",
    ] {
        assert!(!html.contains(attribute), "{attribute} in the page");
    }
    assert!(!html.contains("<script"));
}

#[test]
fn the_pages_render_in_czech_self_contained_and_the_round_is_proven_from_the_tiles() {
    let (log, config, url) = followed();
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    let page = html::overview_page(&view, november());
    self_contained(&page);
    for words in [
        "Dozor nad kasiny — listopad 2026",
        "sleduje se",
        "skutečné RTP",
        "Ruleta",
    ] {
        assert!(page.contains(words), "{words}");
    }
    // 2 990 000 h = 29 900,00 Kč.
    assert!(page.contains("29 900,00 Kč"));
    let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/monitor-view");
    std::fs::create_dir_all(&shots).unwrap();
    if let Some(dom) = chromium(&page, &shots.join("monitor-casinos.png")) {
        assert!(dom.contains("sleduje se") && dom.contains("casino-1"));
    }

    // Entry 4 is spin k = 3: overpaid by 10 000 h on bet b1.
    let files = log.publish(300);
    let round = crate::view::round::round_view(&mut conn, &config.casinos[0], &files, 4).unwrap();
    assert!(round.proof.verified);
    assert_eq!(round.proof.checkpoint_size, 300);
    assert_eq!(round.proof.leaf_hash, hex::encode(log.leaves[4]));
    assert_eq!(round.proof.checkpoint_root, hex::encode(log.root(300)));
    // A tree of 300: the path from leaf 4 has ⌈log2 300⌉ = 9 hashes.
    assert_eq!(round.proof.path.len(), 9);
    assert_eq!(round.findings.len(), 1);
    assert_eq!(
        (round.findings[0].kind.as_str(), round.findings[0].amount_h),
        ("overpaid", 10_000)
    );
    assert_eq!(round.findings[0].bet_ids, vec!["b1".to_owned()]);
    assert!(round.casino_verdict.is_some() && round.mismatches.is_empty());
    let page = html::round_page(&round);
    self_contained(&page);
    assert!(page.contains("Záznam č. 4 je v kontrolním bodě velikosti 300 s kořenem"));
    assert!(page.contains("ověřeno") && page.contains("přeplaceno"));
    assert!(page.contains("<tr class=\"flag\"><td>b1</td>"));
    // The bet's kind and the outcome in Czech, as the casino's workbench names them: 17 is a
    // black pocket; the finding's message names the kind the same way.
    assert_eq!(round.outcome_words.as_deref(), Some("padlo 17 (černá)"));
    assert_eq!(round.bets[0].kind_name, "číslo (plein)");
    assert!(page.contains("<tr class=\"flag\"><td>b1</td><td>číslo (plein)</td>"));
    assert!(
        page.contains("<dt>Výsledek</dt><dd>padlo 17 (černá)</dd>"),
        "{page}"
    );
    assert!(page.contains("sázka b1 (číslo (plein))"));
    assert!(!page.contains("straight") && !page.contains("result: number"));
    if let Some(dom) = chromium(&page, &shots.join("monitor-round.png")) {
        assert!(dom.contains("Důkaz z dlaždic kasina"));
    }
    // A changed hash tile: the proof does not verify against the held root.
    let mut broken = files.clone();
    broken.get_mut("tile/0/001.p/44").unwrap()[0] ^= 1;
    let changed =
        crate::view::round::round_view(&mut conn, &config.casinos[0], &broken, 4).unwrap();
    assert!(!changed.proof.verified);
    assert!(html::round_page(&changed).contains("DŮKAZ ZAHRNUTÍ NESEDÍ"));
    // Beyond what was followed.
    assert!(matches!(
        crate::view::round::round_view(&mut conn, &config.casinos[0], &files, 300),
        Err(crate::view::round::RoundError::NotFound(_))
    ));
}

#[test]
fn a_round_whose_verdict_the_casino_softened_is_listed_and_its_difference_highlighted() {
    // The casino says entry 4 (overpaid by 10 000 h) was paid as due: no finding.
    let (log, config, url) = followed_with(|log| {
        let verdict = log.verdicts[4].as_mut().unwrap();
        verdict["expected_paid_h"] = serde_json::json!(370_000);
        verdict["findings"] = serde_json::json!([]);
    });
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    assert_eq!(view.casinos[0].mismatched_rounds, vec![4]);
    assert_eq!(view.casinos[0].alerts_open, 1);
    assert_eq!(view.casinos[0].latest_alerts[0].kind, "verdict_mismatch");
    let page = html::overview_page(&view, november());
    assert!(page.contains("<td>verdikt kasina se liší</td>"));
    assert!(page.contains("<a href=\"/casino/casino-1/round/4\">4</a>"));
    let files = log.publish(300);
    let round = crate::view::round::round_view(&mut conn, &config.casinos[0], &files, 4).unwrap();
    let fields: Vec<&str> = round.mismatches.iter().map(|m| m.field.as_str()).collect();
    assert_eq!(fields, vec!["expected_paid_h", "findings"]);
    let page = html::round_page(&round);
    assert!(page.contains("Verdikt kasina se liší od posouzení monitoru."));
    assert!(page.contains("<tr class=\"flag\"><td>expected_paid_h</td><td><code>370000</code></td><td><code>360000</code></td></tr>"));
    // The casino's own verdict beside the monitor's: no finding.
    assert!(page.contains("<dt>Nálezy kasina</dt><dd>žádné</dd>"));
}

#[test]
fn a_finding_the_casino_s_log_records_as_confirmed_is_resolved_the_others_open() {
    use dozor_log::access::{FindingState, Role};
    use dozor_log::registry_event::RegistryEvent;
    // After the 299 spins: entry 300 creates a compliance officer's API key, entry 301 confirms
    // the overpaid finding of entry 4 (its finding 0).
    let (_log, config, url) = followed_with(|log| {
        let key_id = "0123456789abcdef".to_owned();
        let created = log.registry_event(&RegistryEvent::ApiKeyCreated {
            previous: Some(0),
            key_id: key_id.clone(),
            token_sha256: None,
            name: "officer".into(),
            role: Role::Compliance,
            created_by: "cli:root".into(),
            expires_at: None,
        });
        let rules_version = log.verdicts[4].as_ref().unwrap()["rules_version"]
            .as_str()
            .unwrap()
            .to_owned();
        log.registry_event(&RegistryEvent::FindingResolved {
            previous: Some(created),
            table_id: "R1".into(),
            round_index: 4,
            finding: 0,
            kind: "overpaid".into(),
            rules_version,
            state: FindingState::Confirmed,
            amount_settled_h: Some(10_000),
            reason: None,
            comment: "vráceno hráčem".into(),
            key_id,
            key_name: "officer".into(),
            key_role: Role::Compliance,
        });
    });
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    let g = &view.casinos[0].games[0];
    // 30 findings, one of them confirmed.
    assert_eq!(
        (g.findings, g.findings_resolved, g.findings_open),
        (30, 1, 29)
    );
}

#[test]
fn the_csv_reads_in_python_with_czech_headings_and_decimal_commas() {
    let (_log, config, url) = followed();
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    let text = csv::overview_csv(&view);
    assert!(text.starts_with('\u{feff}'));
    let script = "import csv,sys,json\nrows=list(csv.reader(open(sys.argv[1],encoding='utf-8-sig',newline=''),delimiter=';'))\nprint(json.dumps(rows))";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("view.csv");
    std::fs::write(&file, &text).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0][0], "Kasino");
    assert_eq!(rows[0][7], "Vsazeno (Kč)");
    assert_eq!(rows.len(), 2);
    let row = &rows[1];
    assert_eq!(
        (row[0].as_str(), row[1].as_str(), row[5].as_str()),
        ("casino-1", "sleduje se", "Ruleta")
    );
    // 2 990 000 h and 13 980 000 h in koruny.
    // 2 990 000 h staked, nothing handed back, 13 980 000 h paid, in koruny.
    assert_eq!(
        (row[7].as_str(), row[8].as_str(), row[9].as_str()),
        ("29900,00", "0,00", "139800,00")
    );
    assert_eq!(row[11], "467,56");
}

/// The listener's routes and headers over `config` and the database at `url`, as served.
fn listener(
    config: MonitorConfig,
    url: String,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let state = web::Data::new(ViewState {
        config,
        database_url: url,
    });
    App::new().app_data(state).wrap(headers()).configure(routes)
}

#[actix_web::test]
async fn every_route_needs_an_allowed_token() {
    let (_log, config, url) = followed();
    let app = web_test::init_service(listener(config, url)).await;
    for path in [
        "/",
        "/view.json?month=2026-11",
        "/view.csv",
        "/casino/casino-1/round/4",
    ] {
        let none =
            web_test::call_service(&app, web_test::TestRequest::get().uri(path).to_request()).await;
        assert_eq!(none.status(), StatusCode::UNAUTHORIZED, "{path}");
        let other = web_test::TestRequest::get()
            .uri(path)
            .insert_header((header::AUTHORIZATION, "Bearer not-the-token"))
            .to_request();
        let other = web_test::call_service(&app, other).await;
        assert_eq!(other.status(), StatusCode::FORBIDDEN, "{path}");
        let body: serde_json::Value = web_test::read_body_json(other).await;
        assert_eq!(body["code"], "forbidden");
    }
    let allowed = web_test::TestRequest::get()
        .uri("/view.json?month=2026-11")
        .insert_header((header::AUTHORIZATION, format!("Bearer {TOKEN}")))
        .to_request();
    let answer = web_test::call_service(&app, allowed).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(
        answer.headers().get(header::CACHE_CONTROL).unwrap(),
        "no-store"
    );
    let body: serde_json::Value = web_test::read_body_json(answer).await;
    assert_eq!(body["casinos"][0]["games"][0]["rounds"], 299);
    let scrape = web_test::TestRequest::get()
        .uri("/metrics")
        .insert_header((header::AUTHORIZATION, format!("Bearer {TOKEN}")))
        .to_request();
    let scrape = web_test::call_service(&app, scrape).await;
    assert_eq!(scrape.status(), StatusCode::OK);
    let text = String::from_utf8(web_test::read_body(scrape).await.to_vec()).unwrap();
    assert!(text.contains("casino=\"casino-1\""), "{text}");
    let bad = web_test::TestRequest::get()
        .uri("/view.json?month=2026-13")
        .insert_header((header::AUTHORIZATION, format!("Bearer {TOKEN}")))
        .to_request();
    assert_eq!(
        web_test::call_service(&app, bad).await.status(),
        StatusCode::BAD_REQUEST
    );
}

#[actix_web::test]
async fn without_tokens_only_a_request_naming_the_loopback_listener_is_answered() {
    let (_log, mut config, url) = followed();
    config.http = Some(HttpConfig {
        listen: "127.0.0.1:9464".parse().unwrap(),
        token_sha256: Vec::new(),
    });
    let app = web_test::init_service(listener(config, url)).await;
    // The test listener's own address is 127.0.0.1:8080 (actix's test set-up).
    for host in [
        "127.0.0.1:8080",
        "localhost:8080",
        "[::1]:8080",
        "LocalHost:8080",
    ] {
        for path in ["/view.json?month=2026-11", "/metrics"] {
            let request = web_test::TestRequest::get()
                .uri(path)
                .insert_header((header::HOST, host))
                .to_request();
            let answer = web_test::call_service(&app, request).await;
            assert_eq!(answer.status(), StatusCode::OK, "{host} {path}");
        }
    }
    // A page whose own name was rebound to 127.0.0.1 sends that name; another port or a name
    // merely beginning like a loopback one is not this listener either.
    for host in [
        Some("rebound.example:8080"),
        Some("127.0.0.1.rebound.example:8080"),
        Some("127.0.0.1:9464"),
        Some("localhost"),
        Some("localhost:8080:8080"),
        Some("[::1]"),
        None,
    ] {
        for path in [
            "/",
            "/view.json?month=2026-11",
            "/view.csv",
            "/casino/casino-1/round/4",
            "/metrics",
        ] {
            let mut request = web_test::TestRequest::get().uri(path);
            if let Some(host) = host {
                request = request.insert_header((header::HOST, host));
            }
            let answer = web_test::call_service(&app, request.to_request()).await;
            assert_eq!(answer.status(), StatusCode::FORBIDDEN, "{host:?} {path}");
            let body: serde_json::Value = web_test::read_body_json(answer).await;
            assert_eq!(body["code"], "forbidden_host", "{host:?} {path}");
            assert!(body["message"].as_str().unwrap().contains("loopback"));
        }
    }
}

#[test]
fn a_void_round_s_returned_stake_is_no_payout_on_the_page_the_csv_or_the_rtp_alert() {
    // After the 299 spins, entry 300 is a no-spin: its 10 000 h stake handed back.
    let (log, config, url) = followed_with(|log| log.void_spin());
    let mut conn = connect(&url).unwrap();
    let view = overview::overview(&mut conn, &config, november(), Utc::now()).unwrap();
    let g = &view.casinos[0].games[0];
    // 300 rounds, one void; staked 2 990 000 + 10 000 = 3 000 000 h, 10 000 h of it handed
    // back; paid 13 980 000 + 10 000 = 13 990 000 h in all, of which the played rounds'
    // payouts 13 980 000 h.
    assert_eq!((g.rounds, g.void_rounds), (300, 1));
    assert_eq!(
        (g.stakes_h, g.returned_h, g.paid_h, g.payouts_h),
        (3_000_000, 10_000, 13_990_000, 13_980_000)
    );
    // As the casino's month page: payouts / (stakes − returned) = 13 980 000 / 2 990 000
    // = 467.5585 % (not 13 990 000 / 2 990 000 = 467.8930 %).
    assert_eq!(g.actual_rtp_pct, Some(467.5585));
    // Theory over the 299 played straight-ups of 10 000 h: expected 299 × 9 729.730 h
    // = 2 909 189.27 h; variance 299 × 360 000² × (1/37)(36/37) = 1 019 002 483 565 h²,
    // σ = 1 009 456.53 h. z = (13 980 000 − 2 909 189.27) / 1 009 456.53 = 10.967 → 10.97
    // (with the returned stake as a payout it would be 10.98).
    assert_eq!(g.deviation_sd, Some(10.97));
    assert_eq!(g.theoretical_rtp_pct, Some(97.2973));
    // A straight-up's payout has skewness (35/37) / √(36/37²) = 35/6; the sum of n of them
    // 35/(6√n), at most 0.2 from n = (35/6 / 0.2)² = 850.7 → 851 rounds: the 299 played are
    // too few for the flag to mean anything, so no RTP alert.
    assert_eq!((g.rounds_needed, g.flag_meaningful), (Some(851), false));
    // The RTP alert reads the same figures through the same function.
    let (first, last) = (
        november().first_day().unwrap(),
        november().last_day().unwrap(),
    );
    let summed =
        crate::store::alert_reads::summed_by_game(&mut conn, "casino-1", first, last).unwrap();
    let alert = crate::alerts::readings::month_figures(&summed["roulette"])
        .deviation()
        .unwrap();
    assert_eq!(g.actual_rtp_pct, Some(rounded(alert.actual_rtp_pct, 4)));
    assert_eq!(g.deviation_sd, Some(rounded(alert.z, 2)));
    // The CSV: 100,00 Kč handed back, RTP 467,56 %.
    let text = csv::overview_csv(&view);
    let line = text.lines().nth(1).unwrap();
    let cells: Vec<&str> = line.split(';').collect();
    assert_eq!(
        (cells[7], cells[8], cells[9], cells[11]),
        ("30000,00", "100,00", "139900,00", "467,56")
    );
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["casinos"][0]["games"][0]["payouts_h"], 13_980_000);
    // The void round's page says why it was void, in Czech.
    let files = log.publish(301);
    let round = crate::view::round::round_view(&mut conn, &config.casinos[0], &files, 300).unwrap();
    assert_eq!(
        round.outcome_words.as_deref(),
        Some("neplatné roztočení (kulička oběhla příliš málokrát)")
    );
}
