#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every route of the role table, called with no key, every role, a revoked key and an expired
//! key: the table is the test's only source of who may do what, and a route missing from the
//! table (or from the OpenAPI document, or without an example request here) fails it.

mod common;

use std::collections::BTreeSet;

use actix_web::test;
use api::access::{Access, ROUTES};
use chrono::{Duration, Utc};
use common::*;
use dozor_log::access::{ApiKeySecret, Role};
use ledger::storage::api_keys::{create_api_key, revoke_api_key, NewApiKey};
use serde_json::{json, Value};

/// The state the `n`th resolution of one finding moves it to: open → escalated → confirmed →
/// escalated → ...: every step is allowed.
fn resolution_state(n: usize) -> &'static str {
    if n.is_multiple_of(2) {
        "escalated"
    } else {
        "confirmed"
    }
}

/// Spin `seq_no` at R01: 10 Kč on 3 straight up, 3 comes and pays 360 Kč.
fn straight_3_won(seq_no: u64) -> Value {
    spin("R01", seq_no, 3, json!([straight("b", 3, 1_000, 36_000)]))
}

/// A request for the route `path` that succeeds for a role the table allows: the URI with its
/// parameters filled in and the body. `n` counts the calls, so that a request that changes
/// something is a new one each time; `tree_size` is the latest checkpoint's (below 256).
fn example(
    method: &str,
    path: &str,
    n: usize,
    spare_table_key: &str,
    tree_size: u64,
) -> Option<(String, Option<Value>)> {
    if let Some(example) = example_of_shared_route(method, path) {
        return Some(example);
    }
    if let Some(example) = example_of_tiles_route(method, path, tree_size) {
        return Some(example);
    }
    Some(match (method, path) {
        ("GET", "/health") => ("/health".into(), None),
        ("GET", "/healthz") => ("/healthz".into(), None),
        ("GET", "/readyz") => ("/readyz".into(), None),
        ("GET", "/metrics") => ("/metrics".into(), None),
        ("GET", "/api/v1/openapi.json") => (path.into(), None),
        ("GET", "/api/v1/ledger/checkpoint") => (path.into(), None),
        ("GET", "/api/v1/ledger/proof/inclusion") => (format!("{path}?index=0&size=2"), None),
        ("GET", "/api/v1/ledger/proof/consistency") => (format!("{path}?first=1&second=2"), None),
        ("POST", "/api/v1/records") => {
            let round = straight_3_won(100 + n as u64);
            (path.into(), Some(signed(round, &key(1))))
        }
        ("POST", "/api/v1/records/batch") => {
            let round = straight_3_won(500 + n as u64);
            (path.into(), Some(json!([signed(round, &key(1))])))
        }
        ("POST", "/api/v1/tables") => {
            let table = format!("T{n}");
            (path.into(), Some(registration(&table, &key(100 + n as u8))))
        }
        ("GET", "/api/v1/tables") => (path.into(), None),
        ("POST", "/api/v1/tables/{table_id}/keys") => {
            let k = key(200 + n as u8);
            (
                "/api/v1/tables/R01/keys".into(),
                Some(json!({"public_key": dozor_log::keys::encode_public_key(&k.verifying_key())})),
            )
        }
        ("POST", "/api/v1/tables/{table_id}/keys/{key_id}/revoke") => (
            format!("/api/v1/tables/R01/keys/{spare_table_key}/revoke"),
            Some(json!({"reason": "terminal replaced"})),
        ),
        ("GET", "/api/v1/ledger/head") => (path.into(), None),
        ("GET", "/api/v1/ledger/gaps") => (path.into(), None),
        ("GET", "/api/v1/significant-events") => (path.into(), None),
        ("GET", "/api/v1/findings/{finding_id}") => {
            (format!("/api/v1/findings/{}", finding()), None)
        }
        ("POST", "/api/v1/findings/{finding_id}/resolutions") => {
            let state = resolution_state(n);
            (
                format!("/api/v1/findings/{}/resolutions", finding()),
                Some(json!({"state": state, "comment": "reviewed the video"})),
            )
        }
        ("GET", "/workbench/findings") => (format!("{path}?state=open"), None),
        ("GET", "/workbench/findings/{finding_id}") => {
            (format!("/workbench/findings/{}", finding()), None)
        }
        ("POST", "/workbench/findings/{finding_id}/resolutions") => {
            let state = resolution_state(n);
            (
                "/workbench/findings/7.1/resolutions".to_owned(),
                Some(Value::String(format!(
                    "token=FORM_TOKEN&state={state}&comment=reviewed+the+video"
                ))),
            )
        }
        ("GET", "/api/v1/apikeys") => (path.into(), None),
        ("POST", "/api/v1/apikeys") => (
            path.into(),
            Some(json!({"name": format!("made-{n}"), "role": "reporter"})),
        ),
        ("POST", "/api/v1/apikeys/{key_id}/revoke") => (
            format!("/api/v1/apikeys/spare-{}/revoke", n % 8),
            Some(json!({"reason": "no longer needed"})),
        ),
        ("GET", "/api/v1/whoami") => (path.into(), None),
        _ => return None,
    })
}

/// The overpaid finding of the round the setup submits (entry 7, its first finding).
fn finding() -> &'static str {
    "7.0"
}

#[actix_web::test]
async fn every_route_answers_each_role_as_the_role_table_says() {
    // Entries 0-1: admin and compliance keys; 2-3: regulator and reporter keys.
    // Delivering to the Ministry: every role that may deliver gets its answer, not a 409.
    let pki = common::pki::Pki::new();
    let (state, url) = api_state_delivering(&pki);
    create_key(&url, Role::Regulator);
    create_key(&url, Role::Reporter);
    let mut conn = ledger::storage::connect(&url).unwrap();
    let operator = operator();
    // Entries 4-5: a compliance key and its revocation; entry 6: the table, whose round is 7.
    let revoked = ApiKeySecret::from_bytes([61; 32]);
    let new = |name: &'static str, expires_at| NewApiKey {
        name,
        role: Role::Compliance,
        created_by: "cli:tests",
        expires_at,
    };
    create_api_key(
        &mut conn,
        operator.signing_key(),
        &new("gone", None),
        &revoked,
        Utc::now(),
    )
    .unwrap();
    revoke_api_key(
        &mut conn,
        operator.signing_key(),
        "gone",
        "cli:tests",
        "left",
        Utc::now(),
    )
    .unwrap();
    let app = test_app(&state).await;
    let (s, b) = call(
        &app,
        request(
            "POST",
            "/api/v1/tables",
            Some(&registration("R01", &key(1))),
            Some(&token(Role::Admin)),
        ),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    // Overpaid: straight on 17 pays 35:1 + stake = 360 000; paid 370 000 (7.0) and 380 000
    // (7.1, which the workbench's form resolves).
    let round = twice_overpaid_spin();
    let (s, b) = call(
        &app,
        request(
            "POST",
            "/api/v1/records",
            Some(&signed(round, &key(1))),
            None,
        ),
    )
    .await;
    assert_eq!((s, b["index"].as_u64()), (201, Some(7)), "{b}");
    let (_, f) = call(
        &app,
        request(
            "GET",
            &format!("/api/v1/findings/{}", finding()),
            None,
            Some(&token(Role::Compliance)),
        ),
    )
    .await;
    assert_eq!(f["kind"], "overpaid", "{f}");
    // Spare table keys and API keys for the revocation routes.
    let mut spare_table_keys = Vec::new();
    for i in 0..4u8 {
        let k = key(150 + i);
        let (s, b) = call(
            &app,
            request(
                "POST",
                "/api/v1/tables/R01/keys",
                Some(
                    &json!({"public_key": dozor_log::keys::encode_public_key(&k.verifying_key())}),
                ),
                Some(&token(Role::Admin)),
            ),
        )
        .await;
        assert_eq!(s, 201, "{b}");
        spare_table_keys.push(b["key_id"].as_str().unwrap().to_owned());
    }
    for i in 0..8 {
        let name = format!("spare-{i}");
        create_api_key(
            &mut conn,
            operator.signing_key(),
            &NewApiKey {
                name: &name,
                role: Role::Reporter,
                created_by: "cli:tests",
                expires_at: None,
            },
            &ApiKeySecret::from_bytes([70 + i as u8; 32]),
            Utc::now(),
        )
        .unwrap();
    }
    // A key that expires in a moment.
    let expiring = ApiKeySecret::from_bytes([62; 32]);
    create_api_key(
        &mut conn,
        operator.signing_key(),
        &new("brief", Some(Utc::now() + Duration::milliseconds(300))),
        &expiring,
        Utc::now(),
    )
    .unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator, size, Utc::now()).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;

    let mut calls = 0usize;
    let mut spare_key = 0usize;
    let mut checked = 0;
    for route in ROUTES {
        let next = |calls: &mut usize, spare_key: &mut usize| {
            *calls += 1;
            if route.path.ends_with("/keys/{key_id}/revoke") {
                *spare_key += 1;
            }
            let spare = &spare_table_keys[(*spare_key).min(spare_table_keys.len() - 1)];
            example(route.method, route.path, *calls, spare, size).unwrap_or_else(|| {
                panic!(
                    "no example request for {} {}: add one",
                    route.method, route.path
                )
            })
        };
        let what = |who: &str| format!("{} {} with {who}", route.method, route.path);
        match route.access {
            Access::Public | Access::TableSignature => {
                let (uri, body) = next(&mut calls, &mut spare_key);
                let (s, b) = call(&app, request(route.method, &uri, body.as_ref(), None)).await;
                assert!((200..300).contains(&s), "{}: {s} {b}", what("no key"));
            }
            Access::Roles(allowed) => {
                let (uri, body) = next(&mut calls, &mut spare_key);
                let response =
                    test::call_service(&app, request(route.method, &uri, body.as_ref(), None))
                        .await;
                assert_eq!(response.status().as_u16(), 401, "{}", what("no key"));
                assert_eq!(
                    response.headers().get("www-authenticate").unwrap(),
                    "Bearer realm=\"dozor\""
                );
                let b: Value = test::read_body_json(response).await;
                assert_eq!(b["code"], "unauthenticated", "{b}");
                for (who, secret, code) in [
                    ("a revoked key", &revoked, "api_key_revoked"),
                    ("an expired key", &expiring, "api_key_expired"),
                ] {
                    let (s, b) = call(
                        &app,
                        request(route.method, &uri, body.as_ref(), Some(&secret.token())),
                    )
                    .await;
                    assert_eq!(
                        (s, b["code"].as_str()),
                        (401, Some(code)),
                        "{}: {b}",
                        what(who)
                    );
                }
                let unknown = ApiKeySecret::from_bytes([99; 32]).token();
                for bad in [unknown.as_str(), "dzr_short", "not-a-token"] {
                    let (s, b) =
                        call(&app, request(route.method, &uri, body.as_ref(), Some(bad))).await;
                    assert_eq!(
                        (s, b["code"].as_str()),
                        (401, Some("invalid_api_key")),
                        "{}: {b}",
                        what("a bad token")
                    );
                }
                for role in Role::ALL {
                    let (uri, body) = next(&mut calls, &mut spare_key);
                    let body = with_form_token(body, &state, role);
                    let (s, b) = call(
                        &app,
                        request(route.method, &uri, body.as_ref(), Some(&token(role))),
                    )
                    .await;
                    if allowed.contains(&role) {
                        // A page's form answers "see the page" (303); a file that is not the
                        // Ministry's confirmation is kept as evidence and answered 422.
                        let success = (200..300).contains(&s)
                            || (s == 303 && route.path.starts_with("/workbench/"))
                            || (s == 422
                                && b["code"] == "confirmation_refused"
                                && route.path == "/api/v1/reports/mf/confirmations");
                        assert!(success, "{}: {s} {b}", what(role.as_str()));
                    } else {
                        assert_eq!(
                            (s, b["code"].as_str()),
                            (403, Some("forbidden")),
                            "{}: {b}",
                            what(role.as_str())
                        );
                        assert_eq!(b["details"]["role"], role.as_str());
                    }
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, ROUTES.len());
    // Another method on a known route: 405 naming the methods there are.
    let response = test::call_service(
        &app,
        test::TestRequest::delete()
            .uri("/api/v1/tables")
            .insert_header(bearer(Role::Admin))
            .to_request(),
    )
    .await;
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers().get("allow").unwrap(), "POST, GET");
    // Every refusal above was counted: no key, revoked, expired and three bad tokens per route
    // behind a key.
    let keyed = ROUTES
        .iter()
        .filter(|r| matches!(r.access, Access::Roles(_)))
        .count() as u64;
    assert_eq!(state.gatekeeper.refused(), 6 * keyed);
}

#[actix_web::test]
async fn the_role_table_and_the_openapi_document_list_the_same_routes() {
    let document = api::openapi::build();
    let mut documented = BTreeSet::new();
    for (path, item) in &document.paths.paths {
        for (method, operation) in [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("DELETE", &item.delete),
            ("PATCH", &item.patch),
        ] {
            if let Some(operation) = operation {
                documented.insert((method.to_owned(), path.clone()));
                let access = api::access::lookup(method, path);
                // An operation behind a key names the roles as its security requirement.
                let security = serde_json::to_value(&operation.security).unwrap();
                match access {
                    api::access::Lookup::Found(Access::Roles(roles)) => {
                        let names: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
                        assert_eq!(security, json!([{"api_key": names}]), "{method} {path}");
                    }
                    api::access::Lookup::Found(_) => assert!(security.is_null(), "{method} {path}"),
                    other => panic!("{method} {path} is not in the role table: {other:?}"),
                }
            }
        }
    }
    let table: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|r| (r.method.to_owned(), r.path.to_owned()))
        .collect();
    assert_eq!(documented, table);
}

#[actix_web::test]
async fn docs_list_the_role_table_as_it_is() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ACCESS.md")).unwrap();
    assert!(
        docs.contains(&api::access::markdown()),
        "docs/ACCESS.md does not hold the role table; paste the output of `dozor roles` there"
    );
}

#[actix_web::test]
async fn a_key_over_its_rate_limit_gets_429_while_other_keys_are_served() {
    let (state, url) = state_limited(false);
    create_key(&url, Role::Reporter);
    create_key(&url, Role::Regulator);
    let app = test_app(&state).await;
    let get = |role: Role| role_get("/api/v1/whoami", role);
    // A burst of 3 is allowed, then one request a second.
    for _ in 0..3 {
        let (s, b) = call(&app, get(Role::Reporter)).await;
        assert_eq!(s, 200, "{b}");
    }
    let response = test::call_service(&app, get(Role::Reporter)).await;
    assert_eq!(response.status().as_u16(), 429);
    let retry: u64 = retry_after(&response);
    assert_eq!(retry, 1);
    let b: Value = test::read_body_json(response).await;
    assert_eq!(
        (
            b["code"].as_str(),
            b["details"]["retry_after_seconds"].as_u64()
        ),
        (Some("rate_limited"), Some(1))
    );
    // The other key is served meanwhile.
    let (s, b) = call(&app, get(Role::Regulator)).await;
    assert_eq!((s, b["name"].as_str()), (200, Some("test-regulator")));
    // After the wait, the first key is served again.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let (s, _) = call(&app, get(Role::Reporter)).await;
    assert_eq!(s, 200);
}

/// The access policy as written by hand, not read from the role table: widening a role in the
/// table (and regenerating the docs from it) fails this test.
/// The tiles of the tree of 6 entries the hand-written policy signs a checkpoint of.
const TILES: [&str; 4] = [
    "/api/v1/tiles/checkpoint",
    "/api/v1/tiles/tile/0/000.p/6",
    "/api/v1/tiles/verdicts/000.p/6",
    "/api/v1/tiles/minimum-index",
];

#[actix_web::test]
async fn the_policy_written_by_hand_holds() {
    let (state, url) =
        state_with(|s| s.configured.operator_config = Some(std::sync::Arc::new(operator_config())));
    for role in Role::ALL {
        create_key(&url, role);
    }
    let app = test_app(&state).await;
    // Entry 4: the table; 5: a round with an overpayment, whose finding is 5.0.
    register_table(&app, registration("R01", &key(1))).await;
    let mut round = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 370_000)]));
    round["round_id"] = json!("R01-1");
    let (s, b) = call(&app, record_request(round, &key(1))).await;
    assert_eq!((s, b["index"].as_u64()), (201, Some(5)), "{b}");
    // The registration names who made it.
    let (s, entry) = get(&app, "/api/v1/ledger/entries/4").await;
    assert_eq!(s, 200, "{entry}");
    assert!(
        entry.to_string().contains(r#"\"actor\":\"test-admin\""#),
        "{entry}"
    );
    let as_role = |role: Option<Role>, method: &str, uri: &str, body: Option<Value>| {
        let token = role.map(token);
        request(method, uri, body.as_ref(), token.as_deref())
    };
    let key_body =
        |n: u8| json!({"public_key": dozor_log::keys::encode_public_key(&key(n).verifying_key())});
    // No role but admin registers tables, adds or revokes table keys, creates or revokes keys.
    let admin_only = [
        ("/api/v1/tables", registration("R09", &key(9))),
        ("/api/v1/tables/R01/keys", key_body(10)),
        (
            "/api/v1/tables/R01/limits",
            json!({"limits": {"min_bet_h": 1_000, "max_straight_up_h": 100_000,
                              "max_inside_h": 200_000, "max_outside_h": 500_000},
                   "reason": "mine"}),
        ),
        (
            "/api/v1/tables/R01/keys/0000000000000000/revoke",
            json!({"reason": "stolen"}),
        ),
        ("/api/v1/apikeys", json!({"name": "mine", "role": "admin"})),
        (
            "/api/v1/apikeys/test-admin/revoke",
            json!({"reason": "mine now"}),
        ),
    ];
    for role in [Role::Compliance, Role::Regulator, Role::Reporter] {
        for (uri, body) in &admin_only {
            let (s, b) = call(&app, as_role(Some(role), "POST", uri, Some(body.clone()))).await;
            assert_eq!(s, 403, "{role} POST {uri}: {b}");
        }
    }
    // Only compliance resolves findings, over the API or from the workbench's page.
    for role in [Role::Admin, Role::Regulator, Role::Reporter] {
        let uri = "/workbench/findings/5.0/resolutions";
        let form = with_form_token(
            Some(Value::String(
                "token=FORM_TOKEN&state=escalated&comment=looked".into(),
            )),
            &state,
            role,
        );
        let (s, b) = call(&app, as_role(Some(role), "POST", uri, form)).await;
        assert_eq!(s, 403, "{role} POST {uri}: {b}");
    }
    let resolution = json!({"state": "escalated", "comment": "looked"});
    for role in [Role::Admin, Role::Regulator, Role::Reporter] {
        let uri = "/api/v1/findings/5.0/resolutions";
        let (s, b) = call(
            &app,
            as_role(Some(role), "POST", uri, Some(resolution.clone())),
        )
        .await;
        assert_eq!(s, 403, "{role} POST {uri}: {b}");
    }
    // Only compliance takes in the Ministry's confirmations; compliance and the nightly job
    // (reporter) deliver packages; admin and the regulator do neither. Without [delivery]
    // configured, a role the gate admits gets 409 `delivery_not_configured`.
    let deliveries_uri = "/api/v1/reports/mf/deliveries?month=2026-10&misto=kasino_1";
    let confirmations_uri =
        "/api/v1/reports/mf/confirmations?file=12345679-M-202611-Z-kasino_1-01.Ok.zip.p7e.p7s";
    for (role, uri, admitted) in [
        (Role::Admin, deliveries_uri, false),
        (Role::Regulator, deliveries_uri, false),
        (Role::Reporter, deliveries_uri, true),
        (Role::Compliance, deliveries_uri, true),
        (Role::Admin, confirmations_uri, false),
        (Role::Regulator, confirmations_uri, false),
        (Role::Reporter, confirmations_uri, false),
        (Role::Compliance, confirmations_uri, true),
    ] {
        let (s, b) = call(
            &app,
            as_role(Some(role), "POST", uri, Some(json!("a file"))),
        )
        .await;
        let expected = if admitted {
            (409, "delivery_not_configured")
        } else {
            (403, "forbidden")
        };
        assert_eq!(
            (s, b["code"].as_str().unwrap_or_default()),
            expected,
            "{role} POST {uri}: {b}"
        );
    }
    // A reporter reads no finding, ledger entry or export, nor the registry of keys.
    for uri in [
        "/workbench/findings",
        "/workbench/findings/5.0",
        "/api/v1/findings",
        "/api/v1/findings/5.0",
        "/api/v1/tables/R01/records/1",
        "/api/v1/tables/R01/rounds/R01-1",
        "/api/v1/ledger/entries/0",
        "/api/v1/ledger/head",
        "/api/v1/ledger/gaps",
        "/api/v1/significant-events",
        "/api/v1/exports?from=2026-11-20&to=2026-11-20",
        "/api/v1/apikeys",
        "/api/v1/tables",
        "/api/v1/tables/R01",
    ]
    .into_iter()
    .chain(TILES)
    {
        let (s, b) = call(&app, as_role(Some(Role::Reporter), "GET", uri, None)).await;
        assert_eq!(s, 403, "reporter GET {uri}: {b}");
    }
    // The tiles are the regulator's (and the admin's, checking what the log publishes): a
    // compliance officer reads the same entries through the ledger's routes.
    for uri in TILES {
        let (s, b) = call(&app, as_role(Some(Role::Compliance), "GET", uri, None)).await;
        assert_eq!(s, 403, "compliance GET {uri}: {b}");
    }
    // With no key, nothing is read but what a transparency log publishes and the probes.
    let public = [
        "/health",
        "/healthz",
        "/readyz",
        "/api/v1/openapi.json",
        "/api/v1/ledger/checkpoint",
        "/api/v1/ledger/proof/inclusion?index=0&size=2",
        "/api/v1/ledger/proof/consistency?first=1&second=2",
    ];
    let keyed = [
        "/metrics",
        "/api/v1/tables",
        "/api/v1/tables/R01",
        "/api/v1/tables/R01/gaps",
        "/api/v1/tables/R01/records/1",
        "/api/v1/tables/R01/rounds/R01-1",
        "/api/v1/tables/R01/limits",
        "/api/v1/ledger/head",
        "/api/v1/ledger/entries/0",
        "/api/v1/ledger/gaps",
        "/api/v1/significant-events",
        "/api/v1/findings",
        "/api/v1/findings/5.0",
        "/api/v1/reports/daily?day=2026-11-20",
        "/api/v1/reports/shoes?day=2026-11-20",
        "/api/v1/reports/fantasy?day=2026-11-20",
        "/api/v1/reports/time-collection?day=2026-11-20",
        "/api/v1/reports/table-audit?day=2026-11-20",
        "/api/v1/reports/wheels?month=2026-11",
        "/api/v1/reports/rtp?month=2026-11",
        "/api/v1/reports/tax?quarter=2026Q4",
        "/reports/month/2026-11",
        "/api/v1/reports/mf?month=2026-11&misto=kasino_1",
        "/api/v1/reports/mf/deliveries",
        "/api/v1/reports/periods?month=2026-11",
        "/api/v1/exports?from=2026-11-20&to=2026-11-20",
        "/api/v1/apikeys",
        "/api/v1/whoami",
        "/workbench/findings",
        "/workbench/findings/5.0",
    ]
    .into_iter()
    .chain(TILES)
    .collect::<Vec<_>>();
    let mut conn = ledger::storage::connect(&url).unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
    for uri in public {
        let (s, b) = call(&app, as_role(None, "GET", uri, None)).await;
        assert_eq!(s, 200, "no key GET {uri}: {b}");
    }
    for &uri in &keyed {
        let (s, b) = call(&app, as_role(None, "GET", uri, None)).await;
        assert_eq!(s, 401, "no key GET {uri}: {b}");
    }
    // An admin manages tables and keys: it reads those, the metrics and who it is, the tiles the
    // log publishes, and no finding, ledger entry, record, export, report or page of the
    // workbench.
    let admin_reads = [
        TILES[0],
        TILES[1],
        TILES[2],
        TILES[3],
        "/metrics",
        "/api/v1/tables",
        "/api/v1/tables/R01",
        "/api/v1/tables/R01/gaps",
        "/api/v1/tables/R01/limits",
        "/api/v1/apikeys",
        "/api/v1/whoami",
    ];
    for &uri in &keyed {
        let (s, b) = call(&app, as_role(Some(Role::Admin), "GET", uri, None)).await;
        if admin_reads.contains(&uri) {
            assert_eq!(s, 200, "admin GET {uri}: {b}");
        } else {
            assert_eq!(s, 403, "admin GET {uri}: {b}");
        }
    }
    // Every GET route of the table is in one of the two lists above (a new route is added
    // to this policy by hand).
    let path_of = |uri: &str| uri.split('?').next().unwrap().to_owned();
    let listed: BTreeSet<String> = public
        .iter()
        .chain(keyed.iter())
        .map(|u| path_of(u))
        .collect();
    for route in ROUTES.iter().filter(|r| r.method == "GET") {
        let concrete = route
            .path
            .replace("{table_id}", "R01")
            .replace("{index}", "0")
            .replace("{finding_id}", "5.0")
            .replace("{seq_no}", "1")
            .replace("{round_id}", "R01-1")
            .replace("{month}", "2026-11")
            .replace("tile/{path}", "tile/0/000.p/6")
            .replace("verdicts/{path}", "verdicts/000.p/6");
        assert!(
            listed.contains(&concrete),
            "GET {} is not in the hand-written policy",
            route.path
        );
    }
    // No key writes nothing: every POST but a table's signed records is 401.
    let keyed_posts: Vec<(&str, Value)> = admin_only
        .iter()
        .cloned()
        .chain([
            ("/api/v1/findings/5.0/resolutions", resolution.clone()),
            (deliveries_uri, Value::Null),
            (confirmations_uri, json!("x")),
            (
                "/workbench/findings/5.0/resolutions",
                Value::String("state=escalated&comment=looked".into()),
            ),
        ])
        .collect();
    for (uri, body) in keyed_posts.iter().cloned() {
        let (s, b) = call(&app, as_role(None, "POST", uri, Some(body))).await;
        assert_eq!(s, 401, "no key POST {uri}: {b}");
    }
    // The POSTs above and the tables' signed records are every POST the API has: the router's
    // routes as the OpenAPI document lists them, and the role table (a new POST route is added
    // to this policy by hand).
    let signed_posts = ["/api/v1/records", "/api/v1/records/batch"];
    let mut by_hand = BTreeSet::new();
    for uri in keyed_posts.iter().map(|(u, _)| *u).chain(signed_posts) {
        let path = uri.split('?').next().unwrap();
        let route = ROUTES
            .iter()
            .find(|r| r.method == "POST" && pattern_matches(r.path, path))
            .unwrap_or_else(|| panic!("POST {path} matches no route"));
        by_hand.insert(route.path.to_owned());
    }
    for path in signed_posts {
        assert_eq!(
            api::access::lookup("POST", path),
            api::access::Lookup::Found(Access::TableSignature),
            "POST {path}"
        );
    }
    let document = api::openapi::build();
    let documented: BTreeSet<String> = document
        .paths
        .paths
        .iter()
        .filter(|(_, item)| item.post.is_some())
        .map(|(path, _)| path.clone())
        .collect();
    let in_table: BTreeSet<String> = ROUTES
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.path.to_owned())
        .collect();
    assert_eq!(
        documented, by_hand,
        "the POST routes of the OpenAPI document are not the policy's"
    );
    assert_eq!(
        in_table, by_hand,
        "the role table's POST routes are not the policy's"
    );
}

/// Whether `path` is one of `pattern`'s (a `{name}` stands for one non-empty segment).
fn pattern_matches(pattern: &str, path: &str) -> bool {
    let wanted: Vec<&str> = pattern.split('/').collect();
    let given: Vec<&str> = path.split('/').collect();
    wanted.len() == given.len()
        && wanted
            .iter()
            .zip(&given)
            .all(|(w, g)| (w.starts_with('{') && w.ends_with('}') && !g.is_empty()) || w == g)
}
