//! Shared helpers: a real server state on a fresh database of a throwaway cluster.
#![allow(dead_code)]

pub mod browser;
pub mod casinos;
pub mod debian;
pub mod direct;
pub mod examples;
pub mod json;
pub mod nginx;
pub mod pki;
pub mod poll;
pub mod rounds;
pub mod simulated;
pub mod site;
pub mod tiles_reader;
pub mod webdriver;

#[allow(unused_imports)]
pub use direct::*;
#[allow(unused_imports)]
pub use examples::*;
#[allow(unused_imports)]
pub use json::*;
#[allow(unused_imports)]
pub use poll::*;
#[allow(unused_imports)]
pub use rounds::*;
#[allow(unused_imports)]
pub use simulated::*;

use api::server::{self, Settings};
use api::state::AppState;
use dozor_log::access::{ApiKeySecret, Role};
use dozor_log::keys::encode_public_key;
use dozor_log::Envelope;
use ed25519_dalek::SigningKey;
use ledger::storage::api_keys::NewApiKey;
use serde_json::{json, Value};

pub fn state() -> (AppState, String) {
    state_with(|_| {})
}

/// A state whose ledger starts with an admin key (entry 0) and a compliance key (entry 1), the
/// keys [`post`] and [`get`]-style helpers send.
pub fn api_state() -> (AppState, String) {
    let (state, url) = state();
    create_key(&url, Role::Admin);
    create_key(&url, Role::Compliance);
    (state, url)
}

/// [`api_state`] with the operator and its premises configured (see [`operator_config`]).
pub fn api_state_configured() -> (AppState, String) {
    let (state, url) =
        state_with(|s| s.configured.operator_config = Some(std::sync::Arc::new(operator_config())));
    create_key(&url, Role::Admin);
    create_key(&url, Role::Compliance);
    (state, url)
}

/// Settings with the operator configured and delivering to the Ministry: `[delivery]` names
/// `pki`'s files, its keys loaded (into memory: the files may go after).
pub fn delivering(settings: &mut Settings, pki: &pki::Pki) {
    let text = format!(
        "{OPERATOR_CONFIG}{}",
        pki.delivery_section("https://mf.kasino.test/data/")
    );
    let config = reports::mf::OperatorConfig::parse(&text).unwrap();
    let keys = reports::mf::keys::DeliveryKeys::load(
        config.delivery.as_ref().unwrap(),
        std::path::Path::new("/"),
        &|_| None,
    )
    .unwrap();
    settings.configured.operator_config = Some(std::sync::Arc::new(config));
    settings.configured.delivery_keys = Some(std::sync::Arc::new(keys));
}

/// [`api_state_configured`] that also delivers to the Ministry: `[delivery]` names `pki`'s
/// files and its keys are loaded, as `dozor serve` loads them.
pub fn api_state_delivering(pki: &pki::Pki) -> (AppState, String) {
    let (state, url) = state_with(|s| delivering(s, pki));
    create_key(&url, Role::Admin);
    create_key(&url, Role::Compliance);
    (state, url)
}

/// The tests' operator (IČO 12345679) and its premises `kasino_1` in Prague, holding the
/// stations R01, R02, BJ1, PH1, ROOM1 and CAGE.
pub const OPERATOR_CONFIG: &str = r#"
[operator]
ico = "12345679"
name = "Kasino Test a.s."

[[premises]]
id = "kasino_1"
name = "Kasino Praha"
street = "Václavské náměstí"
house_number = 800
orientation_number = "12a"
postcode = 11000
municipality = "Praha"
municipal_district = 1
region = "PHA"
ruian = 21723265
gps_x = "14.4252"
gps_y = "50.0811"
stations = ["R01", "R02", "BJ1", "PH1", "ROOM1", "CAGE"]

[reconciliation]
tolerance_h = 10000
"#;

pub fn operator_config() -> reports::mf::OperatorConfig {
    reports::mf::OperatorConfig::parse(OPERATOR_CONFIG).unwrap()
}

/// The fixed secret of the tests' key of `role`.
fn secret(role: Role) -> ApiKeySecret {
    let n = Role::ALL.iter().position(|r| *r == role).unwrap() as u8;
    ApiKeySecret::from_bytes([100 + n; 32])
}

/// The token of the tests' key of `role` (see [`create_key`]).
pub fn token(role: Role) -> String {
    secret(role).token()
}

/// The form token the pages serve to the tests' key of `role`.
pub fn form_token(state: &AppState, role: Role) -> String {
    let key_id = dozor_log::access::api_key_id(&dozor_log::access::token_hash(&token(role)));
    state.form_secret.token(&key_id)
}

/// A page's form body with `FORM_TOKEN` replaced by the token of `role`'s key.
pub fn with_form_token(body: Option<Value>, state: &AppState, role: Role) -> Option<Value> {
    match body {
        Some(Value::String(form)) => Some(Value::String(
            form.replace("FORM_TOKEN", &form_token(state, role)),
        )),
        other => other,
    }
}

/// `Authorization: Bearer …` of the tests' key of `role`.
pub fn bearer(role: Role) -> (&'static str, String) {
    ("authorization", format!("Bearer {}", token(role)))
}

/// Creates the tests' key of `role` (named `test-<role>`) in the database at `url`.
pub fn create_key(url: &str, role: Role) {
    let name = format!("test-{role}");
    ledger::storage::api_keys::create_api_key(
        &mut ledger::storage::connect(url).unwrap(),
        operator().signing_key(),
        &NewApiKey {
            name: &name,
            role,
            created_by: "cli:tests",
            expires_at: None,
        },
        &secret(role),
        chrono::Utc::now(),
    )
    .unwrap();
}

pub fn state_with(adjust: impl FnOnce(&mut Settings)) -> (AppState, String) {
    let url = ledger::storage::testing::fresh_database().unwrap();
    let mut settings = Settings::new(url.clone(), operator());
    settings.body_limit = 64 * 1024;
    adjust(&mut settings);
    (server::state(&settings).unwrap(), url)
}

/// The operator key of the tests' checkpoints and registry events.
pub fn operator() -> dozor_log::checkpoint::NoteSigner {
    operator_with(42)
}

/// An operator key of the same name from another seed.
pub fn operator_with(seed: u8) -> dozor_log::checkpoint::NoteSigner {
    dozor_log::checkpoint::NoteSigner::new("dozor.test/ledger", SigningKey::from_bytes(&[seed; 32]))
        .unwrap()
}

pub fn key(n: u8) -> SigningKey {
    SigningKey::from_bytes(&[n; 32])
}

/// From when the test tables play: before every fixed `played_at` of the tests.
pub const PLAYS_FROM: &str = "2026-11-01T00:00:00Z";

pub fn registration(table_id: &str, key: &SigningKey) -> Value {
    json!({"table_id": table_id, "game": "roulette", "location": "Praha, sál 1",
           "public_key": encode_public_key(&key.verifying_key()),
           "valid_from": PLAYS_FROM})
}

pub fn spin(table_id: &str, seq_no: u64, number: u8, bets: Value) -> Value {
    json!({"type": "round", "game": "roulette", "table_id": table_id, "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T18:00:00Z",
           "outcome": {"result": "number", "number": number}, "bets": bets})
}

/// Submits spins `seq_nos` of T1 (signed with `key(11)`), one request each; the highest
/// receipt's index.
#[allow(dead_code)]
pub fn submit_spins(http: &site::Http, seq_nos: std::ops::RangeInclusive<u64>) -> u64 {
    let mut last = 0;
    for seq_no in seq_nos {
        let record = spin("T1", seq_no, 7, json!([straight("b1", 7, 1_000, 36_000)]));
        let (status, receipt) = http.post("/api/v1/records", None, &signed(record, &key(11)));
        assert_eq!(status, 201, "{receipt}");
        last = receipt["index"].as_u64().unwrap();
    }
    last
}

pub fn straight(id: &str, number: u8, stake_h: i64, paid_h: i64) -> Value {
    json!({"bet_id": id, "player": "seat-1", "kind": "straight", "numbers": [number],
           "stake_h": stake_h, "paid_h": paid_h})
}

pub fn signed(record: Value, key: &SigningKey) -> Value {
    serde_json::to_value(Envelope::sign(record, key).unwrap()).unwrap()
}

/// Drops the test's database under a running app: the database is gone, the app is not.
pub fn drop_database(url: &str) {
    use diesel::connection::SimpleConnection as _;
    let name = url.split('/').nth(3).unwrap().split('?').next().unwrap();
    let admin_url = url.replacen(&format!("/{name}?"), "/postgres?", 1);
    ledger::storage::connect(&admin_url)
        .unwrap()
        .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .unwrap();
}

pub fn ledger_size(url: &str) -> u64 {
    ledger::storage::reads::size(&mut ledger::storage::connect(url).unwrap()).unwrap()
}

/// The app `actix_web::test::init_service` makes.
pub trait TestApp:
    actix_web::dev::Service<
    actix_http::Request,
    Response = actix_web::dev::ServiceResponse,
    Error = actix_web::Error,
>
{
}

impl<S> TestApp for S where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >
{
}

/// The server's app on `state`, as `actix_web::test::init_service` makes it.
pub async fn test_app(state: &AppState) -> impl TestApp {
    actix_web::test::init_service(actix_web::App::new().configure(server::configure(state.clone())))
        .await
}

/// [`api_state`] and the server's app on it.
pub async fn api_app() -> (AppState, String, impl TestApp) {
    let (state, url) = api_state();
    let app = test_app(&state).await;
    (state, url, app)
}

/// [`state`] whose ledger starts with an admin key (entry 0), and the server's app on it.
pub async fn admin_app() -> (AppState, String, impl TestApp) {
    let (state, url) = state();
    create_key(&url, Role::Admin);
    let app = test_app(&state).await;
    (state, url, app)
}

/// [`registration`] of a table of `game`.
pub fn registration_of(table_id: &str, game: &str, key: &SigningKey) -> Value {
    let mut table = registration(table_id, key);
    table["game"] = json!(game);
    table
}

/// POST of `record` signed by `key` as an admin: accepted, its receipt.
pub async fn posted_record(app: &impl TestApp, record: Value, key: &SigningKey) -> Value {
    let (status, receipt) = post(app, "/api/v1/records", signed(record, key)).await;
    assert_eq!(status, 201, "{receipt}");
    receipt
}

/// [`record_request`] of `record` signed by `key`: accepted, its receipt.
pub async fn submitted_record(app: &impl TestApp, record: Value, key: &SigningKey) -> Value {
    let (status, receipt) = call(app, record_request(record, key)).await;
    assert_eq!(status, 201, "{receipt}");
    receipt
}

/// Registers a table (`registration`, e.g. [`registration`]'s) as an admin: it is accepted.
pub async fn register_table(app: &impl TestApp, registration: Value) {
    let (status, body) = post(app, "/api/v1/tables", registration).await;
    assert_eq!(status, 201, "{body}");
}

/// POST `body` as an admin.
pub async fn post(app: &impl TestApp, uri: &str, body: Value) -> (u16, Value) {
    let request = actix_web::test::TestRequest::post()
        .uri(uri)
        .insert_header(bearer(Role::Admin))
        .set_json(body)
        .to_request();
    call(app, request).await
}

/// GET as a compliance officer, the body as JSON.
pub async fn get(app: &impl TestApp, uri: &str) -> (u16, Value) {
    call(app, role_get(uri, Role::Compliance)).await
}

/// GET as a compliance officer, the body as text.
pub async fn get_text(app: &impl TestApp, uri: &str) -> (u16, String) {
    call_text(app, role_get(uri, Role::Compliance)).await
}

/// GET of `uri` with the tests' key of `role`.
pub fn role_get(uri: &str, role: Role) -> actix_http::Request {
    actix_web::test::TestRequest::get()
        .uri(uri)
        .insert_header(bearer(role))
        .to_request()
}

/// An error answer: its status, and a body `{code, message, details}` with this code.
pub fn assert_error(status: u16, body: &Value, expected_status: u16, code: &str) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["details"].is_object(), "{body}");
}

/// The `dozor` binary.
pub fn dozor() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_dozor"))
}

/// What a command wrote, its standard output then its standard error.
pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The last line a command wrote to standard error (where dozor says its result).
pub fn last_stderr_line(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

/// A local TCP port no one listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs a command that must succeed (its output), or fail with one line on standard error
/// and exit status 2 (that line).
pub trait Succeeds {
    fn succeeds(&mut self) -> std::process::Output;
    /// [`Succeeds::succeeds`] that says `explain` of the output if it fails.
    fn succeeds_or(
        &mut self,
        explain: impl FnOnce(&std::process::Output) -> String,
    ) -> std::process::Output;
    fn fails(&mut self) -> String;
}

impl Succeeds for std::process::Command {
    fn succeeds(&mut self) -> std::process::Output {
        self.succeeds_or(|out| String::from_utf8_lossy(&out.stderr).into_owned())
    }

    fn succeeds_or(
        &mut self,
        explain: impl FnOnce(&std::process::Output) -> String,
    ) -> std::process::Output {
        let out = self.output().unwrap();
        assert!(out.status.success(), "{}", explain(&out));
        out
    }

    fn fails(&mut self) -> String {
        let out = self.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        stderr
    }
}

/// A GET or POST of `uri`, with `body` as JSON and `token` as the bearer token if given.
pub fn request(
    method: &str,
    uri: &str,
    body: Option<&Value>,
    token: Option<&str>,
) -> actix_http::Request {
    let mut r = match method {
        "GET" => actix_web::test::TestRequest::get(),
        "POST" => actix_web::test::TestRequest::post(),
        other => panic!("no requests of method {other} here"),
    }
    .uri(uri);
    if let Some(token) = token {
        r = r.insert_header(("authorization", format!("Bearer {token}")));
    }
    match body {
        // A string is a page's form, sent as a browser sends it.
        Some(Value::String(form)) => {
            r = r
                .insert_header(("content-type", "application/x-www-form-urlencoded"))
                .set_payload(form.clone());
        }
        Some(body) => r = r.set_json(body),
        None => {}
    }
    r.to_request()
}

/// Sends a request to a test app: status and body as JSON (null if the body is not JSON).
pub async fn call(app: &impl TestApp, request: actix_http::Request) -> (u16, Value) {
    let (status, body) = call_text(app, request).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// Sends a request to a test app: status and body as text.
pub async fn call_text(app: &impl TestApp, request: actix_http::Request) -> (u16, String) {
    let response = actix_web::test::call_service(app, request).await;
    let status = response.status().as_u16();
    let body = actix_web::test::read_body(response).await;
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Sends a request to a test app that must answer 200 with `header` set to `value`: the body.
pub async fn call_for_file(
    app: &impl TestApp,
    request: actix_http::Request,
    header: &str,
    value: &str,
) -> actix_web::web::Bytes {
    let response = actix_web::test::call_service(app, request).await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers().get(header).unwrap(), value);
    actix_web::test::read_body(response).await
}

/// Rewrites MANIFEST to match the files, as a forger would.
pub fn fix_manifest(dir: &std::path::Path) {
    let mut lines = Vec::new();
    let mut stack = vec![std::path::PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for e in std::fs::read_dir(dir.join(&rel)).unwrap() {
            let e = e.unwrap();
            let p = rel.join(e.file_name());
            if e.path().is_dir() {
                stack.push(p);
            } else if p != std::path::Path::new("MANIFEST") {
                let bytes = std::fs::read(e.path()).unwrap();
                lines.push(format!(
                    "{}  {}",
                    dozor_verify::format::sha256_hex(&bytes),
                    p.display()
                ));
            }
        }
    }
    lines.sort_by(|a, b| a[66..].cmp(&b[66..]));
    std::fs::write(dir.join("MANIFEST"), lines.join("\n") + "\n").unwrap();
}

pub fn edit_lines(dir: &std::path::Path, file: &str, edit: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    edit(&mut lines);
    std::fs::write(dir.join(file), lines.join("\n") + "\n").unwrap();
}

/// `dozor verify` of the ledger in the database at `url`: exit code, report, stderr.
pub fn verify_database(url: &str) -> (Option<i32>, Value, String) {
    verify_database_with(url, &[])
}

/// [`verify_database`] with more arguments (e.g. `--witness FILE`).
pub fn verify_database_with(url: &str, args: &[&str]) -> (Option<i32>, Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dozor"))
        .args([
            "verify",
            "--operator-key",
            &operator().verifier().to_string(),
        ])
        .args(args)
        .env("DATABASE_URL", url)
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Registers roulette table `table_id` in Praha with `key`, on the database directly.
pub fn register_roulette(
    conn: &mut diesel::PgConnection,
    table_id: &str,
    key: &SigningKey,
    at: chrono::DateTime<chrono::Utc>,
) {
    register_on(conn, new_table(table_id, "roulette", "Praha"), key, at);
}

/// The Retry-After header of a 429, in seconds.
pub fn retry_after(response: &actix_web::dev::ServiceResponse) -> u64 {
    response
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// The kinds of the findings on a page of `GET /findings`, in order.
pub fn finding_kinds(page: &Value) -> Vec<&str> {
    each(&page["items"], |f| f["kind"].as_str().unwrap())
}

/// `POST /records` of `record` signed by `key` (tables need no API key).
pub fn record_request(record: Value, key: &SigningKey) -> actix_http::Request {
    actix_web::test::TestRequest::post()
        .uri("/api/v1/records")
        .set_json(signed(record, key))
        .to_request()
}

/// The status of each record of a batch answer, in order.
pub fn batch_statuses(answer: &Value) -> Vec<u64> {
    each(&answer["results"], |r| r["status"].as_u64().unwrap())
}

/// The row of `table_id` in a daily report.
pub fn daily_row<'a>(report: &'a Value, table_id: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["table_id"] == table_id)
        .unwrap()
}

/// Settings whose limit for each API key (or, with `per_address`, each client address) is
/// one request a second after a burst of three.
pub fn state_limited(per_address: bool) -> (AppState, String) {
    state_with(|s| {
        let tight = api::auth::RateLimit {
            per_second: 1,
            burst: 3,
        };
        if per_address {
            s.address_rate = tight;
        } else {
            s.api_key_rate = tight;
        }
    })
}

/// The first 100 findings stored for `table_id`, as the server lists them.
pub fn findings_page(url: &str, table_id: &str) -> reports::findings::FindingPage {
    let filter = reports::findings::FindingFilter {
        table_id: Some(table_id.into()),
        limit: 100,
        ..Default::default()
    };
    reports::findings::list(
        &mut ledger::storage::connect(url).unwrap(),
        &rules::gaming_day::GamingDayClock::default(),
        &filter,
    )
    .unwrap()
}

/// The findings stored for the round at ledger `index` of `table_id`: (kind, amount).
pub fn findings_of(url: &str, table_id: &str, index: u64) -> Vec<(String, i64)> {
    findings_page(url, table_id)
        .items
        .iter()
        .filter(|f| f.ledger_index == index as i64)
        .map(|f| (f.kind.clone(), f.amount_h))
        .collect()
}

/// Signs a checkpoint over the whole ledger, exports gaming day `day` and verifies the export
/// offline, re-adjudicating every round.
pub fn export_and_verify_day(url: &str, day: chrono::NaiveDate) -> dozor_verify::InspectionReport {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export");
    checkpoint_and_export_day(url, day, &out);
    verify_exported(&out).unwrap()
}

/// One column of a CSV for a Czech office as Python's csv module reads it (`;` between fields,
/// UTF-8 with a byte-order mark): the values under `heading`, a line each.
pub fn python_czech_column(text: &str, heading: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("people.csv");
    std::fs::write(&file, text).unwrap();
    let script = r#"
import csv, json, sys
with open(sys.argv[1], encoding="utf-8-sig", newline="") as f:
    print(json.dumps([r[sys.argv[2]] for r in csv.DictReader(f, delimiter=";")]))
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&file)
        .arg(heading)
        .succeeds_or(|out| format!("{heading}: {}", String::from_utf8_lossy(&out.stderr)));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Koruny as a Czech office writes them (`373775,00`, `-0,50`) in haléře.
pub fn haler_of_koruny(text: &str) -> i64 {
    let (koruny, haler) = text.split_once(',').unwrap();
    assert_eq!(haler.len(), 2, "{text}");
    let sign = if koruny.starts_with('-') { -1 } else { 1 };
    koruny.parse::<i64>().unwrap() * 100 + sign * haler.parse::<i64>().unwrap()
}

/// A PyPI package (`requirement`, e.g. `openpyxl==3.1.5`) installed once into the tests' scratch
/// directory, for checks by someone else's code: the directory to put on `PYTHONPATH` so that
/// `module` imports.
pub fn pypi(module: &str, requirement: &str) -> std::path::PathBuf {
    let packages = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(module);
    if !packages.join(module).exists() {
        let status = std::process::Command::new("python3")
            .env("PIP_ROOT_USER_ACTION", "ignore")
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&packages)
            .arg(requirement)
            .status()
            .unwrap();
        assert!(status.success(), "installing {requirement} from PyPI");
    }
    packages
}

/// The verification mark at `index`, as the ledger holds it.
pub fn mark_at(url: &str, index: u64) -> Value {
    let mut conn = ledger::storage::connect(url).unwrap();
    let bytes = ledger::storage::reads::entry(&mut conn, index)
        .unwrap()
        .unwrap()
        .entry;
    let entry: Value = serde_json::from_slice(&bytes).unwrap();
    let record = entry["envelope"]["record"].clone();
    assert_eq!(record["type"], "ledger_verified", "{entry}");
    record
}
