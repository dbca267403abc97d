#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! What an operator runs dozor by: liveness, readiness, Prometheus metrics, request ids, the
//! API docs, and a 405 for every method a route does not have.

mod common;

use actix_web::test;
use api::access::ROUTES;
use api::metrics::IngestResult;
use common::*;
use dozor_log::access::Role;
use serde_json::{json, Value};

fn get_as(uri: &str, role: Option<Role>) -> actix_http::Request {
    let mut request = test::TestRequest::get().uri(uri);
    if let Some(role) = role {
        request = request.insert_header(bearer(role));
    }
    request.to_request()
}

#[actix_web::test]
async fn liveness_and_readiness_are_public_and_readiness_names_each_check() {
    let (_state, url, app) = api_app().await;
    let (status, body) = call(&app, get_as("/healthz", None)).await;
    assert_eq!((status, body), (200, json!({"status": "alive"})));
    let (status, body) = call(&app, get_as("/readyz", None)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "ready");
    let names: Vec<&str> = each(&body["checks"], |c| c["name"].as_str().unwrap());
    assert_eq!(names, ["database", "migrations", "ledger_writer"]);
    // The admin's key is read now, while the database answers (and then kept for a while).
    let (status, _) = call(&app, get_as("/api/v1/whoami", Some(Role::Admin))).await;
    assert_eq!(status, 200);

    // The database disappears: still alive, no longer ready, and the answer says why.
    drop_database(&url);
    let (status, _) = call(&app, get_as("/healthz", None)).await;
    assert_eq!(status, 200);
    let (status, body) = call(&app, get_as("/readyz", None)).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["status"], "not_ready");
    assert_eq!(body["checks"][0]["ok"], false, "{body}");
    // In its own words: nothing of what the driver said (a socket path, a database name).
    assert_eq!(
        body["checks"][0]["problem"], "the database does not answer",
        "{body}"
    );
    let database = url.rsplit('/').next().unwrap().split('?').next().unwrap();
    assert!(!body.to_string().contains(database), "{body}");
    assert!(!body.to_string().contains("socket"), "{body}");
    // What needs the database is told so after the pool's wait for a connection (2 s), not
    // held longer: the public checkpoint, a key not seen before, the metrics.
    let unseen = dozor_log::access::ApiKeySecret::from_bytes([55; 32]).token();
    for (uri, token, expected) in [
        ("/api/v1/ledger/checkpoint", None, 503),
        ("/api/v1/whoami", Some(unseen.as_str()), 503),
        ("/metrics", Some(token(Role::Admin).as_str()), 200),
    ] {
        let mut request = test::TestRequest::get().uri(uri);
        if let Some(token) = token {
            request = request.insert_header(("authorization", format!("Bearer {token}")));
        }
        let started = std::time::Instant::now();
        let (status, body) = call(&app, request.to_request()).await;
        let took = started.elapsed();
        assert_eq!(status, expected, "{uri}: {body}");
        assert!(
            took < ledger::storage::CONNECTION_WAIT + std::time::Duration::from_secs(2),
            "{uri} took {took:?}"
        );
    }
}

/// `name{labels} value` lines of the text format, checked line by line: every sample is a
/// metric name, optional well-formed labels and a number, and every family has HELP and TYPE.
fn samples(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let mut typed = std::collections::HashSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split(' ');
            let name = parts.next().unwrap();
            let kind = parts.next().unwrap();
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            typed.insert(name.to_owned());
            continue;
        }
        if line.starts_with("# HELP ") || line.is_empty() {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap();
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("bad value: {line}"));
        let name = series.split('{').next().unwrap();
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "{line}"
        );
        if let Some(labels) = series.strip_prefix(name) {
            if !labels.is_empty() {
                assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
            }
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s).filter(|f| typed.contains(*f)))
            .unwrap_or(name);
        assert!(typed.contains(family), "no TYPE before {line}");
        out.push((series.to_owned(), value));
    }
    out
}

fn sample(samples: &[(String, f64)], series: &str) -> Option<f64> {
    samples.iter().find(|(s, _)| s == series).map(|(_, v)| *v)
}

#[actix_web::test]
async fn metrics_count_ingest_by_game_and_result_and_read_the_ledger() {
    let (state, url) = api_state();
    create_key(&url, Role::Reporter);
    let app = test_app(&state).await;
    // Any key may scrape; no key may not.
    let (status, body) = call(&app, get_as("/metrics", None)).await;
    assert_error(status, &body, 401, "unauthenticated");

    let table_key = key(1);
    register_table(&app, registration("R01", &table_key)).await;
    // A straight-up on 3 that wins pays 35:1 plus the stake: 1 000 + 35 000 = 36 000.
    let clean = spin("R01", 1, 3, json!([straight("b", 3, 1_000, 36_000)]));
    // Paid 40 000 where 36 000 was due: an overpayment finding.
    let overpaid = spin("R01", 2, 3, json!([straight("b", 3, 1_000, 40_000)]));
    for record in [&clean, &overpaid, &clean] {
        let (status, body) = call(&app, record_request(record.clone(), &table_key)).await;
        assert!(status == 201 || status == 200, "{status} {body}");
    }
    // Signed by a key nobody registered: refused before its game is known.
    let (status, _) = call(&app, record_request(spin("R01", 3, 3, json!([])), &key(9))).await;
    assert_eq!(status, 422);

    let response = test::call_service(&app, get_as("/metrics", Some(Role::Reporter))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "text/plain; version=0.0.4"
    );
    let text = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    let samples = samples(&text);
    let count = |series: &str| sample(&samples, series);
    assert_eq!(
        count(r#"dozor_records_ingested_total{game="roulette",result="clean"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(r#"dozor_records_ingested_total{game="roulette",result="findings"}"#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"dozor_records_ingested_total{game="roulette",result="duplicate"}"#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"dozor_records_ingested_total{game="unknown",result="refused"}"#),
        Some(1.0)
    );
    assert_eq!(count(r#"dozor_findings{kind="overpaid"}"#), Some(1.0));
    // Three API keys, the table's registration and two rounds.
    assert_eq!(count("dozor_ledger_entries"), Some(6.0));
    assert_eq!(count("dozor_writer_alive"), Some(1.0));
    assert_eq!(count("dozor_writer_queue_depth"), Some(0.0));
    assert!(count("dozor_db_pool_max").unwrap() >= 1.0);
    // Four record submissions were timed under their route's pattern.
    assert_eq!(
        count(
            r#"dozor_http_request_duration_seconds_count{method="POST",route="/api/v1/records",status="2xx"}"#
        ),
        Some(3.0)
    );
    assert_eq!(
        count(
            r#"dozor_http_request_duration_seconds_count{method="POST",route="/api/v1/records",status="4xx"}"#
        ),
        Some(1.0)
    );
}

/// Every `game` label the ingest counter knows: the rules' game codes, the operation record
/// types, and `unknown` (refused before the table was known).
fn ingest_games() -> Vec<&'static str> {
    rules::GameCode::ALL
        .iter()
        .map(|g| g.as_str())
        .chain(rules::operations::OPERATION_TYPES)
        .chain(["unknown"])
        .collect()
}

async fn scrape(app: &impl TestApp) -> Vec<(String, f64)> {
    let (status, text) = call_text(app, get_as("/metrics", Some(Role::Admin))).await;
    assert_eq!(status, 200, "{text}");
    samples(&text)
}

#[actix_web::test]
async fn ingest_counters_exist_from_zero_for_every_game_and_result() {
    let (_state, _, app) = api_app().await;
    let ingest_series = |game: &str, result: IngestResult| {
        format!(
            r#"dozor_records_ingested_total{{game="{game}",result="{}"}}"#,
            result.label()
        )
    };
    // Before any record: every game × result is there, at 0, and nothing else.
    let before = scrape(&app).await;
    for game in ingest_games() {
        for result in IngestResult::ALL {
            let series = ingest_series(game, result);
            assert_eq!(sample(&before, &series), Some(0.0), "{series}");
        }
    }
    let ingest_count = |samples: &[(String, f64)]| {
        samples
            .iter()
            .filter(|(s, _)| s.starts_with("dozor_records_ingested_total{"))
            .count()
    };
    assert_eq!(
        ingest_count(&before),
        ingest_games().len() * IngestResult::ALL.len()
    );

    // One clean roulette round: its series is 1, every other stays 0.
    let table_key = key(1);
    register_table(&app, registration("R01", &table_key)).await;
    let clean = spin("R01", 1, 3, json!([straight("b", 3, 1_000, 36_000)]));
    submitted_record(&app, clean, &table_key).await;
    let after = scrape(&app).await;
    for game in ingest_games() {
        for result in IngestResult::ALL {
            let series = ingest_series(game, result);
            let expected = if (game, result) == ("roulette", IngestResult::Clean) {
                1.0
            } else {
                0.0
            };
            assert_eq!(sample(&after, &series), Some(expected), "{series}");
        }
    }
    assert_eq!(ingest_count(&after), ingest_count(&before));
}

#[actix_web::test]
async fn every_answer_carries_a_request_id_in_its_header_and_error_body() {
    let (_state, _, app) = api_app().await;
    // The caller's id is kept...
    let request = test::TestRequest::get()
        .uri("/api/v1/tables/NOPE")
        .insert_header(bearer(Role::Admin))
        .insert_header(("x-request-id", "gateway-42.7"))
        .to_request();
    let response = test::call_service(&app, request).await;
    assert_eq!(
        response.headers().get("x-request-id").unwrap(),
        "gateway-42.7"
    );
    let body: Value = test::read_body_json(response).await;
    assert_error(404, &body, 404, "unknown_table");
    assert_eq!(body["request_id"], "gateway-42.7");
    // ...one that could forge a log line is replaced, and a refusal by the gate carries one too.
    let request = test::TestRequest::get()
        .uri("/api/v1/tables")
        .insert_header(("x-request-id", "forged id=1 level=error"))
        .to_request();
    let response = test::call_service(&app, request).await;
    let id = response
        .headers()
        .get("x-request-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(id.len(), 24);
    let body: Value = test::read_body_json(response).await;
    assert_error(401, &body, 401, "unauthenticated");
    assert_eq!(body["request_id"], id.as_str());
    // A success has the header and an unchanged body.
    let response = test::call_service(&app, get_as("/healthz", None)).await;
    assert!(response.headers().contains_key("x-request-id"));
}

#[actix_web::test]
async fn a_route_answers_other_methods_with_405_and_the_methods_it_has() {
    let (_state, _, app) = api_app().await;
    let concrete = |pattern: &str| {
        pattern
            .split('/')
            .map(|s| if s.starts_with('{') { "X1" } else { s })
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut checked = 0;
    for route in ROUTES {
        let uri = concrete(route.path);
        let mut allowed: Vec<&str> = ROUTES
            .iter()
            .filter(|r| concrete(r.path) == uri)
            .map(|r| r.method)
            .collect();
        allowed.sort_unstable();
        for method in ["PUT", "DELETE", "PATCH", "POST", "GET"] {
            if allowed.contains(&method) {
                continue;
            }
            let request = test::TestRequest::default()
                .method(method.parse().unwrap())
                .uri(&uri)
                .insert_header(bearer(Role::Admin))
                .to_request();
            let response = test::call_service(&app, request).await;
            assert_eq!(response.status(), 405, "{method} {uri}");
            let mut listed: Vec<String> = response
                .headers()
                .get("allow")
                .unwrap()
                .to_str()
                .unwrap()
                .split(", ")
                .map(str::to_owned)
                .collect();
            listed.sort_unstable();
            assert_eq!(listed, allowed, "{method} {uri}");
            let body: Value = test::read_body_json(response).await;
            assert_error(405, &body, 405, "method_not_allowed");
            checked += 1;
        }
    }
    assert!(checked > 3 * ROUTES.len(), "{checked}");
}

#[actix_web::test]
async fn the_api_docs_are_served_from_the_binary_with_a_policy_that_loads_nothing_else() {
    let (_state, _, app) = api_app().await;
    let response = test::call_service(&app, get_as("/docs", None)).await;
    assert_eq!(response.status(), 308);
    assert_eq!(response.headers().get("location").unwrap(), "/docs/");
    let response = test::call_service(&app, get_as("/docs/", None)).await;
    assert_eq!(response.status(), 200);
    let policy = response
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"));
    let html = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{html}"
    );
    for file in [
        "swagger-ui-bundle.js",
        "swagger-ui.css",
        "swagger-initializer.js",
    ] {
        assert!(html.contains(file), "{file} not in the page");
        let response = test::call_service(&app, get_as(&format!("/docs/{file}"), None)).await;
        assert_eq!(response.status(), 200, "{file}");
    }
    let response = test::call_service(&app, get_as("/docs/swagger-initializer.js", None)).await;
    let script = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
    assert!(script.contains("/api/v1/openapi.json"), "{script}");
    assert!(script.contains("\"validatorUrl\": \"none\""), "{script}");
    let (status, body) = call(&app, get_as("/docs/nothing.js", None)).await;
    assert_error(status, &body, 404, "no_such_file");
    // The document the page loads is the one `dozor openapi` writes.
    let (status, text) = call_text(&app, get_as("/api/v1/openapi.json", None)).await;
    assert_eq!(status, 200);
    assert_eq!(text, api::openapi::document().unwrap());
}

#[actix_web::test]
async fn every_example_record_of_the_document_is_accepted_as_it_stands() {
    let (_state, _, app) = api_app().await;
    let document: Value = serde_json::from_str(&api::openapi::document().unwrap()).unwrap();
    let examples = document["paths"]["/api/v1/records"]["post"]["requestBody"]["content"]
        ["application/json"]["examples"]
        .as_object()
        .unwrap();
    let mut games: Vec<&str> = Vec::new();
    // The tables the examples were signed for, registered as `dozor openapi --example-tables`
    // prints them.
    for registration in api::openapi::example_registrations() {
        register_table(&app, registration).await;
    }
    for (name, example) in examples {
        let envelope = &example["value"];
        let game = envelope["record"]["game"].as_str().unwrap();
        assert_eq!(name, game);
        games.push(game);
        let request = test::TestRequest::post()
            .uri("/api/v1/records")
            .set_json(envelope)
            .to_request();
        let (status, body) = call(&app, request).await;
        assert_eq!(status, 201, "{game}: {body}");
    }
    games.sort_unstable();
    assert_eq!(
        games,
        [
            "blackjack",
            "money_wheel_1",
            "money_wheel_2",
            "open_face_chinese",
            "poker_cash",
            "poker_tournament",
            "roulette",
            "ultimate_texas_holdem"
        ]
    );
}

#[actix_web::test]
async fn a_filter_naming_nothing_dozor_knows_is_refused_rather_than_matching_nothing() {
    let (_state, _, app) = api_app().await;
    for uri in [
        "/api/v1/findings?game=pachinko",
        "/api/v1/significant-events?kind=true",
        "/api/v1/reports/rtp?month=2026-10&game=pachinko",
        "/reports/month/2026-10?game=pachinko",
    ] {
        let (status, body) = call(&app, get_as(uri, Some(Role::Compliance))).await;
        assert_error(status, &body, 400, "invalid_query");
    }
    // What the document lists is taken.
    for uri in [
        "/api/v1/findings?game=open_face_chinese",
        "/api/v1/significant-events?kind=late_record",
    ] {
        let (status, body) = call(&app, get_as(uri, Some(Role::Compliance))).await;
        assert_eq!(status, 200, "{uri}: {body}");
    }
}
