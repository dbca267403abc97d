#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Hostile HTTP input: wrong media types, oversized records inside batches, overlong strings,
//! input echoed back, unknown routes, an unreachable database and a flooding address. Each is
//! answered with its status and a `{code, message, details}` body, and the ledger is unchanged.

mod common;

use actix_web::test;
use common::*;
use dozor_log::access::Role;
use serde_json::{json, Value};

fn post_as(uri: &str, content_type: &str, body: Vec<u8>) -> actix_http::Request {
    test::TestRequest::post()
        .uri(uri)
        .insert_header(("content-type", content_type))
        .insert_header(bearer(Role::Admin))
        .set_payload(body)
        .to_request()
}

/// A registered roulette table R01 and one good record for it.
async fn table<S>(app: &S) -> (ed25519_dalek::SigningKey, Value)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >,
{
    let k = key(1);
    let body = serde_json::to_vec(&registration("R01", &k)).unwrap();
    let (status, b) = call(app, post_as("/api/v1/tables", "application/json", body)).await;
    assert_eq!(status, 201, "{b}");
    let record = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    (k, record)
}

#[actix_web::test]
async fn json_bodies_must_say_they_are_json() {
    let (_state, url, app) = api_app().await;
    let (k, record) = table(&app).await;
    let head = ledger_size(&url);
    let envelope = serde_json::to_vec(&signed(record.clone(), &k)).unwrap();
    let batch = serde_json::to_vec(&json!([signed(record, &k)])).unwrap();
    for (uri, body) in [
        ("/api/v1/records", envelope.clone()),
        ("/api/v1/records/batch", batch.clone()),
        (
            "/api/v1/tables",
            serde_json::to_vec(&registration("R02", &key(2))).unwrap(),
        ),
    ] {
        for content_type in ["text/plain", "application/x-www-form-urlencoded", ""] {
            let (status, b) = call(&app, post_as(uri, content_type, body.clone())).await;
            assert_error(status, &b, 415, "unsupported_media_type");
        }
    }
    assert_eq!(ledger_size(&url), head);
    // With a charset parameter it is JSON.
    let (status, b) = call(
        &app,
        post_as(
            "/api/v1/records",
            "application/json; charset=utf-8",
            envelope,
        ),
    )
    .await;
    assert_eq!(status, 201, "{b}");
}

#[actix_web::test]
async fn a_batch_holds_each_record_to_the_single_record_limits() {
    // Records of at most 4 KiB: a batch may be at most 4 MB (1 000 × 4 KiB).
    let (state, url) = state_with(|s| s.body_limit = 4096);
    create_key(&url, Role::Admin);
    create_key(&url, Role::Compliance);
    let app = test_app(&state).await;
    let (k, record) = table(&app).await;
    let head = ledger_size(&url);

    // One record over 4 KiB (a long void reason) between two good ones: 413 for it alone.
    let mut big = spin("R01", 2, 3, json!([straight("b1", 3, 10_000, 0)]));
    big["note"] = json!("n".repeat(900));
    big["bets"][0]["note"] = json!("m".repeat(900));
    big["extra"] = json!(vec!["x".repeat(900); 4]);
    let big = signed(big, &k);
    assert!(serde_json::to_vec(&big).unwrap().len() > 4096);
    let third = signed(spin("R01", 3, 3, json!([straight("b1", 3, 10_000, 0)])), &k);
    let body = serde_json::to_vec(&json!([signed(record, &k), big, third])).unwrap();
    let (status, b) = call(
        &app,
        post_as("/api/v1/records/batch", "application/json", body),
    )
    .await;
    assert_eq!(status, 200, "{b}");
    let statuses = batch_statuses(&b);
    assert_eq!(statuses, [201, 413, 201]);
    assert_eq!(b["results"][1]["error"]["code"], "payload_too_large");
    assert_eq!(ledger_size(&url), head + 2);

    // A round id of 5 000 characters fits the size limit but not the id limit: 422, inside a
    // batch as alone, and the message does not quote it back.
    let mut long_id = spin("R01", 4, 3, json!([straight("b1", 3, 10_000, 0)]));
    long_id["round_id"] = json!("r".repeat(3_000));
    let long_id = signed(long_id, &k);
    let body = serde_json::to_vec(&long_id).unwrap();
    let (status, b) = call(&app, post_as("/api/v1/records", "application/json", body)).await;
    assert_error(status, &b, 422, "invalid_record");
    assert_eq!(b["details"]["field"], "round_id");
    assert!(b.to_string().len() < 500, "{b}");
    let body = serde_json::to_vec(&json!([long_id])).unwrap();
    let (status, b) = call(
        &app,
        post_as("/api/v1/records/batch", "application/json", body),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(b["results"][0]["status"], 422, "{b}");

    // The whole batch over 4 MB: 413 before anything is read as a record.
    let body = vec![b' '; 4096 * 1000 + 1];
    let (status, b) = call(
        &app,
        post_as("/api/v1/records/batch", "application/json", body),
    )
    .await;
    assert_error(status, &b, 413, "payload_too_large");
    assert_eq!(b["details"]["limit_bytes"], 4096 * 1000);
    assert_eq!(ledger_size(&url), head + 2);
}

#[actix_web::test]
async fn errors_quote_at_most_a_little_of_the_input() {
    let (_state, url, app) = api_app().await;
    let (k, record) = table(&app).await;
    let head = ledger_size(&url);
    let hostile = "A".repeat(50_000);

    // An unknown key id of 50 000 characters.
    let mut envelope = signed(record, &k);
    envelope["key_id"] = json!(hostile);
    let body = serde_json::to_vec(&envelope).unwrap();
    let (status, b) = call(&app, post_as("/api/v1/records", "application/json", body)).await;
    assert_error(status, &b, 422, "unknown_key");
    // An unknown field and an unknown game of a table registration.
    let registration = registration_of("R02", &hostile, &key(2));
    let body = serde_json::to_vec(&registration).unwrap();
    let (status, b2) = call(&app, post_as("/api/v1/tables", "application/json", body)).await;
    assert_error(status, &b2, 422, "invalid_table");
    let body = format!(r#"{{"{hostile}": 1}}"#).into_bytes();
    let (status, b3) = call(&app, post_as("/api/v1/tables", "application/json", body)).await;
    assert_error(status, &b3, 400, "malformed_json");
    for b in [b, b2, b3] {
        let text = b.to_string();
        assert!(text.len() < 1_000, "{} bytes: {}", text.len(), &text[..300]);
        assert!(!text.contains(&"A".repeat(101)), "{text}");
    }
    assert_eq!(ledger_size(&url), head);
}

#[actix_web::test]
async fn unknown_routes_and_methods_answer_with_the_error_body() {
    let (_state, _, app) = api_app().await;
    for uri in ["/nothing-here", "/api/v1/nothing-here", "/api/v2/records"] {
        let request = role_get(uri, Role::Admin);
        let (status, b) = call(&app, request).await;
        assert_error(status, &b, 404, "no_such_route");
    }
    let request = test::TestRequest::delete()
        .uri("/api/v1/records")
        .to_request();
    let response = test::call_service(&app, request).await;
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers().get("allow").unwrap(), "POST");
    let b: Value = test::read_body_json(response).await;
    assert_error(405, &b, 405, "method_not_allowed");
}

#[actix_web::test]
async fn an_unreachable_database_is_a_503_that_names_no_internals() {
    let (_state, url, app) = api_app().await;
    let (k, record) = table(&app).await;
    // The database disappears under the running server.
    drop_database(&url);
    let body = serde_json::to_vec(&signed(record, &k)).unwrap();
    let (status, b) = call(&app, post_as("/api/v1/records", "application/json", body)).await;
    assert_error(status, &b, 503, "unavailable");
    let text = b.to_string();
    for internal in ["PGSQL", "socket", "/tmp", "postgres", "FATAL", "dozor_test"] {
        assert!(!text.contains(internal), "`{internal}` in {text}");
    }
    assert!(b["details"]["incident"].is_string(), "{b}");
}

#[actix_web::test]
async fn one_address_is_limited_with_429_and_retry_after() {
    let (state, _) = state_limited(true);
    let app = test_app(&state).await;
    let from = |ip: &str| {
        test::TestRequest::get()
            .uri("/api/v1/ledger/head")
            .peer_addr(format!("{ip}:40000").parse().unwrap())
            .to_request()
    };
    for _ in 0..3 {
        let response = test::call_service(&app, from("192.0.2.1")).await;
        assert_ne!(response.status().as_u16(), 429);
    }
    let response = test::call_service(&app, from("192.0.2.1")).await;
    assert_eq!(response.status().as_u16(), 429);
    let retry_after: u64 = retry_after(&response);
    assert!((1..=2).contains(&retry_after), "{retry_after}");
    let b: Value = test::read_body_json(response).await;
    assert_error(429, &b, 429, "rate_limited");
    // Another address is not affected.
    let response = test::call_service(&app, from("192.0.2.2")).await;
    assert_ne!(response.status().as_u16(), 429);
}

/// Every answer says it is what its type says (`nosniff`) and may not be framed by another
/// site: JSON, errors and the month's page alike; the page's own policy forbids framing too.
#[actix_web::test]
async fn answers_are_never_sniffed_nor_framed() {
    let (_state, _, app) = api_app().await;
    for (uri, role) in [
        ("/api/v1/checkpoint", None),
        ("/api/v1/findings", Some(Role::Compliance)),
        ("/api/v1/findings", None),
        ("/api/v1/nothing-here", Some(Role::Admin)),
        ("/reports/month/2026-10", Some(Role::Compliance)),
    ] {
        let mut request = test::TestRequest::get().uri(uri);
        if let Some(role) = role {
            request = request.insert_header(bearer(role));
        }
        let response = test::call_service(&app, request.to_request()).await;
        let headers = response.headers();
        assert_eq!(
            headers
                .get("x-content-type-options")
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{uri} ({})",
            response.status()
        );
        assert_eq!(
            headers.get("x-frame-options").map(|v| v.to_str().unwrap()),
            Some("DENY"),
            "{uri}"
        );
        if uri.contains("/month/") {
            assert_eq!(response.status().as_u16(), 200, "{uri}");
            let policy = headers.get("content-security-policy").unwrap();
            assert!(
                policy.to_str().unwrap().contains("frame-ancestors 'none'"),
                "{policy:?}"
            );
        }
    }
}

/// A round id with a right-to-left override (or any invisible formatting) would display as
/// another id: refused as unreadable, like a control character, and nothing is appended.
#[actix_web::test]
async fn an_id_that_would_display_as_another_is_refused() {
    let (_state, url, app) = api_app().await;
    let (k, _) = table(&app).await;
    let size = ledger_size(&url);
    for round_id in ["R-1\u{202E}9-0", "R-1\u{2066}9", "R-\u{200B}19"] {
        let mut record = spin("R01", 7, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        record["round_id"] = json!(round_id);
        let body = serde_json::to_vec(&signed(record, &k)).unwrap();
        let (status, b) = call(&app, post_as("/api/v1/records", "application/json", body)).await;
        assert_error(status, &b, 422, "invalid_record");
        assert_eq!(b["details"]["field"], "round_id", "{b}");
    }
    assert_eq!(ledger_size(&url), size, "nothing was appended");
}
