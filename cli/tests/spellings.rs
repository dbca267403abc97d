#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every route of the role table in every spelling of its path — percent-encoded letters and
//! digits, a parameter that is itself encoded, encoded slashes, double slashes, a trailing
//! slash, `.` and `..` segments, mixed case — called with no key, an unknown key and each role.
//! A spelling the router decodes to the route must get exactly the route's answer; any other
//! spelling is a 404 or 405, or the refusal the route's rule gives. Never data without a key.

mod common;

use std::collections::BTreeMap;

use actix_web::test;
use api::access::{Access, ROUTES};
use chrono::Utc;
use common::*;
use dozor_log::access::{ApiKeySecret, Role};
use dozor_log::keys::encode_public_key;
use ed25519_dalek::SigningKey;
use ledger::storage::api_keys::{create_api_key, NewApiKey};
use serde_json::{json, Value};

/// Whether a spelling is one the router reads as the route itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spelling {
    /// Decodes to the canonical path: the route's exact answer.
    SameRoute,
    /// Another path: a 404 or 405, or at most the refusal of the route's rule.
    Other,
}

fn encode_char(c: char, lower: bool) -> String {
    let mut buffer = [0u8; 4];
    c.encode_utf8(&mut buffer)
        .bytes()
        .map(|b| {
            if lower {
                format!("%{b:02x}")
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn encode_all(segment: &str) -> String {
    segment.chars().map(|c| encode_char(c, false)).collect()
}

/// The spellings of `uri` (a path and perhaps a query) for the route `pattern`.
fn spellings(uri: &str, pattern: &str) -> Vec<(String, Spelling, String)> {
    let (path, query) = match uri.split_once('?') {
        Some((p, q)) => (p, format!("?{q}")),
        None => (uri, String::new()),
    };
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let mut kinds: Vec<bool> = pattern
        .split('/')
        .skip(1)
        .map(|s| s.starts_with('{'))
        .collect();
    // A parameter that ends the pattern may span the path's last segments (a tile's path).
    if kinds.last() == Some(&true) && segments.len() > kinds.len() {
        kinds.resize(segments.len(), true);
    }
    assert_eq!(segments.len(), kinds.len(), "{uri} for {pattern}");
    let join = |parts: &[String]| format!("/{}{query}", parts.join("/"));
    let owned: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
    let edit = |i: usize, f: &dyn Fn(&str) -> String| {
        let mut parts = owned.clone();
        parts[i] = f(&parts[i]);
        join(&parts)
    };
    let mut out = vec![("canonical".to_owned(), Spelling::SameRoute, uri.to_owned())];
    let statics: Vec<usize> = (0..segments.len()).filter(|i| !kinds[*i]).collect();
    let params: Vec<usize> = (0..segments.len()).filter(|i| kinds[*i]).collect();
    for &i in &statics {
        out.push((
            format!("segment {i}'s first letter encoded"),
            Spelling::SameRoute,
            edit(i, &|s| {
                let mut chars = s.chars();
                let first = chars.next().unwrap();
                format!("{}{}", encode_char(first, false), chars.as_str())
            }),
        ));
    }
    let last = *statics.last().unwrap();
    out.push((
        "last letter encoded in lower-case hex".into(),
        Spelling::SameRoute,
        edit(last, &|s| {
            let cut = s.char_indices().last().unwrap().0;
            format!(
                "{}{}",
                &s[..cut],
                encode_char(s[cut..].chars().next().unwrap(), true)
            )
        }),
    ));
    if let Some(i) = statics
        .iter()
        .copied()
        .find(|i| segments[*i].chars().any(|c| c.is_ascii_digit()))
    {
        out.push((
            "a digit encoded".into(),
            Spelling::SameRoute,
            edit(i, &|s| {
                s.chars()
                    .map(|c| {
                        if c.is_ascii_digit() {
                            encode_char(c, false)
                        } else {
                            c.to_string()
                        }
                    })
                    .collect()
            }),
        ));
    }
    out.push((
        "every character encoded".into(),
        Spelling::SameRoute,
        join(&owned.iter().map(|s| encode_all(s)).collect::<Vec<_>>()),
    ));
    for &i in &params {
        out.push((
            format!("parameter {i} encoded"),
            Spelling::SameRoute,
            edit(i, &encode_all),
        ));
    }
    let n = owned.len();
    let with = |parts: Vec<String>| join(&parts);
    let mut other = |what: &str, uri: String| out.push((what.to_owned(), Spelling::Other, uri));
    if n > 1 {
        other(
            "first slash encoded",
            format!("/{}%2F{}{query}", owned[0], owned[1..].join("/")),
        );
        other(
            "last slash encoded",
            format!("/{}%2F{}{query}", owned[..n - 1].join("/"), owned[n - 1]),
        );
        other(
            "last slash encoded in lower case",
            format!("/{}%2f{}{query}", owned[..n - 1].join("/"), owned[n - 1]),
        );
        let mut doubled = owned.clone();
        doubled.insert(1, String::new());
        other("double slash inside", with(doubled));
    }
    other("double slash in front", format!("/{}", join(&owned)));
    other("trailing slash", format!("/{}/{query}", owned.join("/")));
    let mut dot = owned.clone();
    dot.insert(n - 1, ".".into());
    other("a `.` segment", with(dot));
    let mut encoded_dot = owned.clone();
    encoded_dot.insert(n - 1, "%2e".into());
    other("an encoded `.` segment", with(encoded_dot));
    let mut dotdot = owned.clone();
    dotdot.insert(n - 1, "x".into());
    dotdot.insert(n, "..".into());
    other("a `..` segment", with(dotdot));
    let mut encoded_dotdot = owned.clone();
    encoded_dotdot.insert(n - 1, "x".into());
    encoded_dotdot.insert(n, "%2E%2E".into());
    other("an encoded `..` segment", with(encoded_dotdot));
    other(
        "first letter upper case",
        edit(statics[0], &|s| {
            let mut chars = s.chars();
            let first = chars.next().unwrap().to_ascii_uppercase();
            format!("{first}{}", chars.as_str())
        }),
    );
    other(
        "upper case",
        join(
            &owned
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if kinds[i] {
                        s.clone()
                    } else {
                        s.to_ascii_uppercase()
                    }
                })
                .collect::<Vec<_>>(),
        ),
    );
    other("a `;` parameter", edit(last, &|s| format!("{s};x")));
    out
}

/// Requests that succeed for a role the table allows, a new one for each call that may
/// change something (a new table, a new table key to revoke, a new API key to revoke...).
struct Examples {
    n: u32,
    escalated: bool,
    /// Where finding 7.1, which the workbench's form resolves, stands.
    page_escalated: bool,
}

fn seeded_key(n: u32) -> SigningKey {
    let mut seed = [7u8; 32];
    seed[..4].copy_from_slice(&n.to_be_bytes());
    SigningKey::from_bytes(&seed)
}

impl Examples {
    /// The request for `method path`: its URI and body. `setup` runs what must exist first.
    async fn next(
        &mut self,
        app: &impl TestApp,
        url: &str,
        method: &str,
        path: &str,
    ) -> (String, Option<Value>) {
        self.n += 1;
        let n = self.n;
        if let Some(example) = example_of_shared_route(method, path) {
            return example;
        }
        // The tiles of the latest checkpoint's tree (any tile before one is signed: the gate
        // and the parameters' check come first).
        let published = ledger::storage::tiles::published_checkpoint(
            &mut ledger::storage::connect(url).unwrap(),
        )
        .unwrap();
        if let Some(example) = example_of_tiles_route(method, path, published.map_or(1, |c| c.size))
        {
            return example;
        }
        match (method, path) {
            ("POST", "/api/v1/records") => {
                let round = spin(
                    "R01",
                    10_000 + u64::from(n),
                    3,
                    json!([straight("b", 3, 1_000, 36_000)]),
                );
                (path.into(), Some(signed(round, &key(1))))
            }
            ("POST", "/api/v1/records/batch") => {
                let round = spin(
                    "R01",
                    10_000 + u64::from(n),
                    3,
                    json!([straight("b", 3, 1_000, 36_000)]),
                );
                (path.into(), Some(json!([signed(round, &key(1))])))
            }
            ("POST", "/api/v1/tables") => (
                path.into(),
                Some(registration(&format!("S{n}"), &seeded_key(n))),
            ),
            ("POST", "/api/v1/tables/{table_id}/keys") => (
                "/api/v1/tables/R01/keys".into(),
                Some(json!({"public_key": encode_public_key(&seeded_key(n).verifying_key())})),
            ),
            ("POST", "/api/v1/tables/{table_id}/keys/{key_id}/revoke") => {
                // A fresh key of R01 to revoke, added canonically by the admin.
                let (s, b) = post(
                    app,
                    "/api/v1/tables/R01/keys",
                    json!({"public_key": encode_public_key(&seeded_key(n).verifying_key())}),
                )
                .await;
                assert_eq!(s, 201, "{b}");
                let key_id = b["key_id"].as_str().unwrap();
                (
                    format!("/api/v1/tables/R01/keys/{key_id}/revoke"),
                    Some(json!({"reason": "terminal replaced"})),
                )
            }
            ("POST", "/api/v1/apikeys") => (
                path.into(),
                Some(json!({"name": format!("made-{n}"), "role": "reporter"})),
            ),
            ("POST", "/api/v1/apikeys/{key_id}/revoke") => {
                let name = format!("spare-{n}");
                let mut bytes = [9u8; 32];
                bytes[..4].copy_from_slice(&n.to_be_bytes());
                create_api_key(
                    &mut ledger::storage::connect(url).unwrap(),
                    operator().signing_key(),
                    &NewApiKey {
                        name: &name,
                        role: Role::Reporter,
                        created_by: "cli:tests",
                        expires_at: None,
                    },
                    &ApiKeySecret::from_bytes(bytes),
                    Utc::now(),
                )
                .unwrap();
                (
                    format!("/api/v1/apikeys/{name}/revoke"),
                    Some(json!({"reason": "no longer needed"})),
                )
            }
            ("POST", "/api/v1/findings/{finding_id}/resolutions") => {
                // open → escalated → confirmed → escalated → ...: each step allowed; only a
                // call that succeeds moves the finding on (see `succeeded`).
                let state = if self.escalated {
                    "confirmed"
                } else {
                    "escalated"
                };
                (
                    format!("/api/v1/findings/{FINDING}/resolutions"),
                    Some(json!({"state": state, "comment": "reviewed the video"})),
                )
            }
            ("GET", "/workbench/findings") => (format!("{path}?state=open"), None),
            ("GET", "/workbench/findings/{finding_id}") => {
                (format!("/workbench/findings/{FINDING}"), None)
            }
            ("POST", "/workbench/findings/{finding_id}/resolutions") => {
                let state = if self.page_escalated {
                    "confirmed"
                } else {
                    "escalated"
                };
                (
                    "/workbench/findings/7.1/resolutions".to_owned(),
                    Some(Value::String(format!(
                        "token=FORM_TOKEN&state={state}&comment=reviewed+the+video"
                    ))),
                )
            }
            ("GET", "/api/v1/ledger/proof/inclusion") => (format!("{path}?index=0&size=2"), None),
            ("GET", "/api/v1/ledger/proof/consistency") => {
                (format!("{path}?first=1&second=2"), None)
            }
            ("GET", "/api/v1/findings/{finding_id}") => {
                (format!("/api/v1/findings/{FINDING}"), None)
            }
            ("GET", _) if !path.contains('{') => (path.into(), None),
            _ => panic!("no example request for {method} {path}: add one"),
        }
    }

    /// A call of `path` answered `status`: what it changed.
    fn succeeded(&mut self, path: &str, status: u16) {
        if path.starts_with("/workbench/") {
            if path.ends_with("/resolutions") && status == 303 {
                self.page_escalated = !self.page_escalated;
            }
        } else if path.ends_with("/resolutions") && (200..300).contains(&status) {
            self.escalated = !self.escalated;
        }
    }
}

/// A key's rate limit these tests never reach: they call thousands of times in seconds.
const UNLIMITED: api::auth::RateLimit = api::auth::RateLimit {
    per_second: 1_000_000,
    burst: 1_000_000,
};

/// A server state with the operator configured (delivering to the Ministry), a key of every
/// role (entries 0-3) and no key's rate limit in reach.
fn state_with_every_role() -> (api::state::AppState, String) {
    let pki = common::pki::Pki::new();
    let (state, url) = state_with(|s| {
        delivering(s, &pki);
        s.api_key_rate = UNLIMITED;
    });
    for role in Role::ALL {
        create_key(&url, role);
    }
    (state, url)
}

/// The round the setup submits is entry 7; its first finding is an overpayment.
const FINDING: &str = "7.0";

/// Who calls: no key, a token that is no key's, or the tests' key of a role.
#[derive(Debug, Clone, Copy)]
enum Who {
    NoKey,
    UnknownKey,
    Role(Role),
}

impl Who {
    fn all() -> Vec<Who> {
        let mut all = vec![Who::NoKey, Who::UnknownKey];
        all.extend(Role::ALL.into_iter().map(Who::Role));
        all
    }

    fn token(self) -> Option<String> {
        match self {
            Who::NoKey => None,
            Who::UnknownKey => Some(ApiKeySecret::from_bytes([99; 32]).token()),
            Who::Role(role) => Some(token(role)),
        }
    }

    /// What the route's rule answers this caller, as a status class: 2xx, or the refusal.
    fn answer(self, access: Access) -> Answer {
        match (access, self) {
            (Access::Public | Access::TableSignature, _) => Answer::Success,
            (Access::Roles(_), Who::NoKey | Who::UnknownKey) => Answer::Status(401),
            (Access::Roles(roles), Who::Role(role)) if roles.contains(&role) => Answer::Success,
            (Access::Roles(_), Who::Role(_)) => Answer::Status(403),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Success,
    Status(u16),
}

impl Answer {
    fn holds(self, status: u16) -> bool {
        match self {
            // A page's form answers "see the page" (303).
            Answer::Success => (200..300).contains(&status) || status == 303,
            Answer::Status(s) => s == status,
        }
    }
}

#[actix_web::test]
async fn every_spelling_of_every_route_gets_its_rules_answer_or_a_404() {
    let (state, url) = state_with_every_role();
    let app = test_app(&state).await;
    // Entries 0-3: the keys; 4: the table; 5-6: two more of its keys; 7: a round with a finding.
    register_table(&app, registration("R01", &key(1))).await;
    for n in [2, 3] {
        let (s, b) = post(
            &app,
            "/api/v1/tables/R01/keys",
            json!({"public_key": encode_public_key(&key(n).verifying_key())}),
        )
        .await;
        assert_eq!(s, 201, "{b}");
    }
    // Overpaid: a straight on 17 pays 35:1 + stake = 360 000; paid 370 000 (7.0) and 380 000
    // (7.1, the one the workbench's form resolves).
    let round = twice_overpaid_spin();
    let (s, b) = call(&app, record_request(round, &key(1))).await;
    assert_eq!((s, b["index"].as_u64()), (201, Some(7)), "{b}");
    let mut conn = ledger::storage::connect(&url).unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();

    let mut examples = Examples {
        n: 0,
        escalated: false,
        page_escalated: false,
    };
    let mut counted: BTreeMap<&str, usize> = BTreeMap::new();
    for route in ROUTES {
        let (template, _) = examples.next(&app, &url, route.method, route.path).await;
        for (what, spelling, _) in spellings(&template, route.path) {
            for who in Who::all() {
                // A fresh request for each call (a new table, a new key to revoke...), spelled.
                let (uri, body) = examples.next(&app, &url, route.method, route.path).await;
                let body = match who {
                    Who::Role(role) => with_form_token(body, &state, role),
                    _ => body,
                };
                let (_, _, spelled) = spellings(&uri, route.path)
                    .into_iter()
                    .find(|(w, _, _)| *w == what)
                    .unwrap();
                let token = who.token();
                let (status, answer) = call_text(
                    &app,
                    request(route.method, &spelled, body.as_ref(), token.as_deref()),
                )
                .await;
                examples.succeeded(route.path, status);
                let expected = who.answer(route.access);
                let context = || {
                    format!(
                        "{} {} spelled `{spelled}` ({what}) by {who:?}: {status} {}",
                        route.method,
                        route.path,
                        answer.chars().take(300).collect::<String>()
                    )
                };
                // A file that is not the Ministry's confirmation is kept and answered 422.
                let refused_file = expected == Answer::Success
                    && status == 422
                    && route.path == "/api/v1/reports/mf/confirmations";
                match spelling {
                    Spelling::SameRoute => {
                        assert!(expected.holds(status) || refused_file, "{}", context())
                    }
                    Spelling::Other => {
                        let refused =
                            matches!(status, 404 | 405) || expected == Answer::Status(status);
                        let allowed_success = expected == Answer::Success
                            && (status < 300 || matches!(status, 400 | 409 | 422));
                        assert!(refused || allowed_success, "{}", context());
                        // Never data or a redirect for a caller the route refuses.
                        if expected != Answer::Success {
                            assert!(status >= 400, "{}", context());
                        }
                    }
                }
                *counted
                    .entry(if status < 300 { "2xx" } else { "refused" })
                    .or_default() += 1;
            }
        }
    }
    // The run did call routes successfully and was refused: it tested something both ways.
    assert!(
        counted["2xx"] > 200 && counted["refused"] > 1_000,
        "{counted:?}"
    );
    // The metrics name routes by the pattern the gate decided for, whatever the spelling: no
    // label holds a client's spelling of a path.
    let (status, metrics) = call_text(
        &app,
        request("GET", "/metrics", None, Some(&token(Role::Reporter))),
    )
    .await;
    assert_eq!(status, 200, "{metrics}");
    let routes: std::collections::BTreeSet<&str> = metrics
        .split("route=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(routes.contains("/api/v1/tables/{table_id}"), "{routes:?}");
    for route in &routes {
        let known = *route == "unmatched" || ROUTES.iter().any(|r| r.path == *route);
        assert!(known, "metrics label `{route}` is not a route's pattern");
    }
    // Another method on a spelled path: the same 405 as on the canonical one.
    for uri in ["/api/v1/tables", "/api/v1/%74ables", "/api/v1/tabl%65s"] {
        let response = test::call_service(
            &app,
            test::TestRequest::delete()
                .uri(uri)
                .insert_header(bearer(Role::Admin))
                .to_request(),
        )
        .await;
        assert_eq!(response.status().as_u16(), 405, "{uri}");
        assert_eq!(response.headers().get("allow").unwrap(), "POST, GET");
    }
}

#[actix_web::test]
async fn spellings_of_a_path_are_what_they_say() {
    let all = spellings(
        "/api/v1/tables/R01/gaps?x=1",
        "/api/v1/tables/{table_id}/gaps",
    );
    let find = |what: &str| {
        all.iter()
            .find(|(w, _, _)| w == what)
            .map(|(_, _, uri)| uri.as_str())
            .unwrap()
    };
    assert_eq!(
        find("segment 0's first letter encoded"),
        "/%61pi/v1/tables/R01/gaps?x=1"
    );
    assert_eq!(find("a digit encoded"), "/api/v%31/tables/R01/gaps?x=1");
    assert_eq!(
        find("parameter 3 encoded"),
        "/api/v1/tables/%52%30%31/gaps?x=1"
    );
    assert_eq!(find("last slash encoded"), "/api/v1/tables/R01%2Fgaps?x=1");
    assert_eq!(find("double slash inside"), "/api//v1/tables/R01/gaps?x=1");
    assert_eq!(find("trailing slash"), "/api/v1/tables/R01/gaps/?x=1");
    assert_eq!(find("a `..` segment"), "/api/v1/tables/R01/x/../gaps?x=1");
    assert_eq!(find("upper case"), "/API/V1/TABLES/R01/GAPS?x=1");
    assert_eq!(
        find("last letter encoded in lower-case hex"),
        "/api/v1/tables/R01/gap%73?x=1"
    );
}

/// A NUL, a line break or bytes that are not UTF-8 in any path or query parameter the
/// document names, on every route: a 400 naming the parameter, for a caller the route admits.
#[actix_web::test]
async fn a_control_character_in_any_parameter_is_a_400_naming_it() {
    let (state, url) = state_with_every_role();
    let app = test_app(&state).await;
    register_table(&app, registration("R01", &key(1))).await;
    let document = serde_json::to_value(api::openapi::build()).unwrap();
    let mut examples = Examples {
        n: 0,
        escalated: false,
        page_escalated: false,
    };
    let mut checked = 0;
    for route in ROUTES {
        let operation = &document["paths"][route.path][route.method.to_lowercase()];
        let parameters = operation["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let who = match route.access {
            Access::Roles(roles) => Some(token(roles[0])),
            _ => None,
        };
        let (uri, body) = examples.next(&app, &url, route.method, route.path).await;
        let (path, query) = uri.split_once('?').unwrap_or((&uri, ""));
        for parameter in &parameters {
            let name = parameter["name"].as_str().unwrap();
            for bad in ["%00", "R%0A1", "%FF"] {
                let (spelled, code) = match parameter["in"].as_str().unwrap() {
                    "path" => {
                        let position = route
                            .path
                            .split('/')
                            .position(|s| s == format!("{{{name}}}"))
                            .unwrap();
                        let mut segments: Vec<&str> = path.split('/').collect();
                        segments[position] = bad;
                        (format!("{}?{query}", segments.join("/")), "invalid_path")
                    }
                    "query" => {
                        let kept: Vec<&str> = query
                            .split('&')
                            .filter(|p| !p.is_empty() && !p.starts_with(&format!("{name}=")))
                            .collect();
                        let mut all = kept.join("&");
                        if !all.is_empty() {
                            all.push('&');
                        }
                        (format!("{path}?{all}{name}={bad}"), "invalid_query")
                    }
                    _ => continue,
                };
                let (s, b) = call(
                    &app,
                    request(route.method, &spelled, body.as_ref(), who.as_deref()),
                )
                .await;
                assert_eq!(
                    (s, b["code"].as_str(), b["details"]["parameter"].as_str()),
                    (400, Some(code), Some(name)),
                    "{} {} as `{spelled}`: {b}",
                    route.method,
                    route.path
                );
                checked += 1;
            }
        }
    }
    // Every parameter the routes have was tried (the count grows with the document).
    assert!(checked > 60, "{checked}");
}
