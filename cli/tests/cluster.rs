#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor serve` as a process on its own PostgreSQL cluster: the server logs in with the
//! privileges of `dozor_writer` only, and a cluster left running by a server killed with SIGKILL
//! is taken over (and stopped) by the next one.

mod common;

use std::os::unix::fs::MetadataExt as _;
use std::time::{Duration, Instant};

use common::poll::poll_until;
use common::site::{alive, Http, Site};
use common::{key, registration, signed, spin, straight, Succeeds as _};
use diesel::RunQueryDsl as _;
use serde_json::{json, Value};

const DAY: &str = "2026-11-20";

fn connect(url: &str) -> diesel::PgConnection {
    ledger::storage::connect(url).unwrap()
}

#[derive(diesel::QueryableByName)]
struct Name {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

fn names(url: &str, query: &str) -> Vec<String> {
    let rows: Vec<Name> = diesel::sql_query(query).load(&mut connect(url)).unwrap();
    rows.into_iter().map(|r| r.name).collect()
}

/// The uid PostgreSQL runs as: `postgres` when the tests run as root, else ours.
fn postgres_uid(site: &Site) -> u32 {
    let ours = std::fs::metadata(site.path()).unwrap().uid();
    if ours != 0 {
        return ours;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    passwd
        .lines()
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f[0] == "postgres")
        .map(|f| f[2].parse().unwrap())
        .unwrap()
}

#[test]
fn the_server_does_all_its_work_as_a_member_of_dozor_writer_and_cannot_change_the_ledger() {
    let site = Site::new();
    let server = site.serve();
    let http = &server.http;
    // From the command line while the server runs: the server's cluster, left running after.
    let admin = site.apikey("it-admin", "admin");
    let admin = Some(admin.as_str());

    // Every kind of write the server makes: a registration, rounds one by one and in a batch
    // (verdicts, a finding), a conflicting record (a significant event), an API key, a
    // resolution, a key rotation and revocation; checkpoints.
    let k = key(8);
    http.register_table(admin, &registration("R01", &k));
    let overpaid = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 361_000)]));
    let (status, receipt) = http.post("/api/v1/records", None, &signed(overpaid, &k));
    assert_eq!(status, 201, "{receipt}");
    let round = receipt["index"].as_u64().unwrap();
    let batch: Vec<Value> = (2..=4)
        .map(|seq| {
            let record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
            signed(record, &k)
        })
        .collect();
    let (status, body) = http.post("/api/v1/records/batch", None, &json!(batch));
    assert_eq!(status, 200, "{body}");
    for result in body["results"].as_array().unwrap() {
        assert_eq!(result["status"], 201, "{body}");
    }
    let conflicting = spin("R01", 2, 5, json!([straight("b1", 5, 10_000, 0)]));
    let (status, body) = http.post("/api/v1/records", None, &signed(conflicting, &k));
    assert_eq!(status, 409, "{body}");

    let (status, officer) = http.post(
        "/api/v1/apikeys",
        admin,
        &json!({"name": "officer", "role": "compliance"}),
    );
    assert_eq!(status, 201, "{officer}");
    let officer = officer["token"].as_str().unwrap().to_owned();
    let officer = Some(officer.as_str());
    let (status, body) = http.post(
        &format!("/api/v1/findings/{round}.0/resolutions"),
        officer,
        &json!({"state": "confirmed", "amount_settled_h": 1000, "comment": "repaid at the cage"}),
    );
    assert!((200..300).contains(&status), "{status} {body}");

    let spare = key(9);
    let (status, added) = http.post(
        "/api/v1/tables/R01/keys",
        admin,
        &json!({"public_key": dozor_log::keys::encode_public_key(&spare.verifying_key())}),
    );
    assert_eq!(status, 201, "{added}");
    let (status, body) = http.post(
        &format!(
            "/api/v1/tables/R01/keys/{}/revoke",
            added["key_id"].as_str().unwrap()
        ),
        admin,
        &json!({"reason": "terminal replaced"}),
    );
    assert_eq!(status, 200, "{body}");

    // The ledger: admin key, registration, 4 rounds, officer's key, resolution, key, revocation.
    let size = 10;
    assert_eq!(http.get("/health", None).1["ledger_size"], size);
    poll_until(Duration::from_secs(20), Duration::from_millis(200), || {
        // A signed note: origin, tree size, root hash, then the signatures.
        let (status, note) = http
            .try_call("GET", "/api/v1/ledger/checkpoint", None, None)
            .unwrap();
        if status == 200 && note.lines().nth(1) == Some(&size.to_string()) {
            return Ok(());
        }
        Err(format!(
            "no checkpoint of {size} entries: {status} {note}\n{}",
            server.log()
        ))
    });
    let (status, proof) = http.get(
        &format!("/api/v1/ledger/proof/inclusion?index={round}&size={size}"),
        None,
    );
    assert_eq!(status, 200, "{proof}");
    // Reads, reports and an export (of a period a checkpoint covers) work too.
    for path in [
        format!("/api/v1/findings?day={DAY}"),
        format!("/api/v1/findings/{round}.0"),
        format!("/api/v1/reports/daily?day={DAY}"),
        format!("/api/v1/exports?from={DAY}&to={DAY}"),
        "/api/v1/significant-events".to_owned(),
        "/api/v1/ledger/gaps".to_owned(),
    ] {
        let (status, body) = http.get(&path, officer);
        assert_eq!(status, 200, "{path}: {body}");
    }

    // To PostgreSQL, every connection of the server is the writer's login role.
    let superuser = site.url_as("postgres");
    let server_url = site.url_as("dozor_server");
    assert_eq!(
        names(
            &superuser,
            "SELECT DISTINCT usename::text AS name FROM pg_stat_activity \
             WHERE datname = 'dozor' AND backend_type = 'client backend' \
             AND pid <> pg_backend_pid()"
        ),
        ["dozor_server"]
    );
    assert_eq!(
        names(&server_url, "SELECT current_user::text AS name"),
        ["dozor_server"]
    );
    assert_eq!(
        names(
            &superuser,
            "SELECT g.rolname::text AS name FROM pg_auth_members m \
             JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles r ON r.oid = m.member \
             WHERE r.rolname = 'dozor_server'"
        ),
        ["dozor_writer"]
    );
    // It may not change the ledger: refused for want of privileges, before any trigger.
    let mut writer = connect(&server_url);
    for statement in [
        "UPDATE ledger_entries SET received_at = now()",
        "DELETE FROM ledger_entries",
        "TRUNCATE ledger_entries",
        "UPDATE checkpoints SET note = ''",
        "DELETE FROM api_keys",
    ] {
        let error = diesel::sql_query(statement)
            .execute(&mut writer)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("permission denied for table"),
            "{statement}: {error}"
        );
    }

    // The socket is private to the OS user PostgreSQL runs as (root reaches it anyway).
    let socket_dir = std::fs::metadata(site.socket_dir()).unwrap();
    assert_eq!(socket_dir.mode() & 0o777, 0o700);
    assert_eq!(socket_dir.uid(), postgres_uid(&site));

    // Stopped as systemd stops it: the final checkpoint is made and PostgreSQL stops too.
    server.stop();
    assert_eq!(site.postmaster(), None);
}

#[test]
fn a_cluster_left_running_by_a_killed_server_is_restarted_and_stopped_by_the_next() {
    let site = Site::new();
    let server = site.serve();
    let admin = site.apikey("it-admin", "admin");
    let admin = Some(admin.as_str());
    let k = key(8);
    server.http.register_table(admin, &registration("R01", &k));
    let mut receipts = Vec::new();
    for seq in 1..=3 {
        let record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        let (status, receipt) = server
            .http
            .post("/api/v1/records", None, &signed(record, &k));
        assert_eq!(status, 201, "{receipt}");
        receipts.push(receipt);
    }

    server.kill_9();
    let orphan = site
        .postmaster()
        .expect("PostgreSQL outlives a server killed with SIGKILL");

    let server = site.serve();
    // Every acknowledged record is there, and the server appends after them.
    assert_eq!(server.http.get("/health", None).1["ledger_size"], 5);
    let (status, table) = server.http.get("/api/v1/tables/R01", admin);
    assert_eq!(status, 200, "{table}");
    assert_eq!(table["last_seq_no"], 3);
    let record = spin("R01", 4, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let (status, receipt) = server
        .http
        .post("/api/v1/records", None, &signed(record, &k));
    assert_eq!(status, 201, "{receipt}");
    assert_eq!(receipt["index"], 5);
    let (_, old) = server.http.post(
        "/api/v1/records",
        None,
        &signed(
            spin("R01", 2, 17, json!([straight("b1", 17, 10_000, 360_000)])),
            &k,
        ),
    );
    assert_eq!(
        old, receipts[1],
        "the same record again: its original receipt"
    );

    server.stop();
    assert_eq!(site.postmaster(), None, "PostgreSQL still runs");
    assert!(
        !alive(orphan),
        "the orphaned postmaster {orphan} still runs"
    );
}

#[test]
fn with_database_url_the_server_migrates_as_the_owner_and_serves_as_the_login_it_is_given() {
    // Production's roles on a throwaway cluster: the owner (here the superuser) and a login role
    // that is a member of dozor_writer only.
    let owner = ledger::storage::testing::fresh_database().unwrap();
    diesel::sql_query("CREATE ROLE dozor_test_login LOGIN IN ROLE dozor_writer")
        .execute(&mut connect(&owner))
        .unwrap();
    let login = owner.replacen("postgres://postgres@", "postgres://dozor_test_login@", 1);
    assert_ne!(login, owner);

    let site = Site::new();
    let server = site.serve_with(&[
        ("DATABASE_URL", &login),
        ("DOZOR_OWNER_DATABASE_URL", &owner),
    ]);
    let out = site
        .dozor()
        .env("DATABASE_URL", &owner)
        .args(["apikey", "create", "--name", "it-admin", "--role", "admin"])
        .succeeds();
    let admin: Value = serde_json::from_slice(&out.stdout).unwrap();
    let admin = admin["token"].as_str();
    let k = key(8);
    server.http.register_table(admin, &registration("R01", &k));
    let record = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let (status, receipt) = server
        .http
        .post("/api/v1/records", None, &signed(record, &k));
    assert_eq!(status, 201, "{receipt}");
    let database = owner.split(['/', '?']).nth(3).unwrap().to_owned();
    assert_eq!(
        names(
            &owner,
            &format!(
                "SELECT DISTINCT usename::text AS name FROM pg_stat_activity \
                 WHERE datname = '{database}' AND backend_type = 'client backend' \
                 AND pid <> pg_backend_pid()"
            )
        ),
        ["dozor_test_login"]
    );
    server.stop();
}

/// What one load thread saw: the receipts it got (201) and every other status.
#[derive(Default)]
struct Load {
    acknowledged: Vec<Value>,
    other_statuses: Vec<u16>,
}

#[test]
fn sigterm_under_load_loses_no_acknowledged_record_and_signs_a_final_checkpoint() {
    let site = Site::new();
    // No rate limit gets in the way of the load.
    let unlimited = [
        ("DOZOR_API_KEY_RATE", "1000000"),
        ("DOZOR_API_KEY_BURST", "1000000"),
        ("DOZOR_ADDRESS_RATE", "1000000"),
        ("DOZOR_ADDRESS_BURST", "1000000"),
    ];
    let server = site.serve_with(&unlimited);
    let admin = site.apikey("it-admin", "admin");
    let k = key(8);
    let (status, body) = server.http.post(
        "/api/v1/tables",
        Some(admin.as_str()),
        &registration("R01", &k),
    );
    assert_eq!(status, 201, "{body}");

    // Four clients submit rounds as fast as they are answered (each its own seq_nos), until
    // the server is gone.
    const CLIENTS: u64 = 4;
    let port = server.http.base.rsplit(':').next().unwrap().to_owned();
    let acknowledged = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let loaders: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (k, port, acknowledged) = (k.clone(), port.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                let http = Http::new(port.parse().unwrap());
                let mut load = Load::default();
                let mut failures = 0;
                let mut seq = 1 + client;
                while failures < 20 {
                    let record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
                    match http.try_call("POST", "/api/v1/records", None, Some(&signed(record, &k)))
                    {
                        Some((201, text)) => {
                            load.acknowledged.push(serde_json::from_str(&text).unwrap());
                            acknowledged.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            seq += CLIENTS;
                        }
                        Some((status, _)) => {
                            load.other_statuses.push(status);
                            seq += CLIENTS;
                        }
                        None => {
                            failures += 1;
                            std::thread::sleep(Duration::from_millis(20));
                        }
                    }
                }
                load
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while acknowledged.load(std::sync::atomic::Ordering::Relaxed) < 200 {
        assert!(Instant::now() < deadline, "no load:\n{}", server.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let log_path = server.log.clone();
    // SIGTERM while records are in flight.
    let status = server.terminate();
    let stopped_at = chrono::Utc::now();
    assert!(status.success(), "{status}");
    assert_eq!(
        site.postmaster(),
        None,
        "PostgreSQL still runs after shutdown"
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("final checkpoint signed"), "{log}");

    let mut receipts = Vec::new();
    for loader in loaders {
        let load = loader.join().unwrap();
        // Refused only as "not appended, retry" (503) while stopping; never a 500.
        assert!(
            load.other_statuses.iter().all(|s| *s == 503),
            "{:?}",
            load.other_statuses
        );
        receipts.extend(load.acknowledged);
    }
    assert!(receipts.len() >= 200);
    eprintln!(
        "acknowledged {} records; SIGTERM after the 200th",
        receipts.len()
    );

    // Every acknowledged record is in the ledger under its receipt's index and hash, and the
    // final checkpoint, signed before the server stopped, covers them all.
    let server = site.serve_with(&unlimited);
    let compliance = site.apikey("it-compliance", "compliance");
    for receipt in &receipts {
        let index = receipt["index"].as_u64().unwrap();
        let (status, entry) = server.http.get(
            &format!("/api/v1/ledger/entries/{index}"),
            Some(compliance.as_str()),
        );
        assert_eq!(status, 200, "{entry}");
        assert_eq!(entry["entry_hash"], receipt["entry_hash"], "entry {index}");
    }
    #[derive(diesel::QueryableByName)]
    struct Latest {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        size: i64,
        #[diesel(sql_type = diesel::sql_types::Timestamptz)]
        created_at: chrono::DateTime<chrono::Utc>,
    }
    let latest: Latest = diesel::sql_query(
        "SELECT size, created_at FROM checkpoints WHERE created_at <= $1 \
         ORDER BY size DESC LIMIT 1",
    )
    .bind::<diesel::sql_types::Timestamptz, _>(stopped_at)
    .get_result(&mut connect(&site.url_as("postgres")))
    .unwrap();
    let highest = receipts
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(
        latest.size as u64 > highest,
        "the last checkpoint before the stop covers {} entries, the receipts reach {highest}",
        latest.size
    );
    assert!(latest.created_at <= stopped_at);
    server.stop();
}

#[test]
fn json_logs_carry_each_request_id_and_never_a_key() {
    let site = Site::new();
    let server = site.serve_with(&[("DOZOR_LOG_FORMAT", "json")]);
    let admin = site.apikey("it-admin", "admin");
    // A key made over the API (its token is in the answer), used, then a wrong one.
    let (status, created) = server.http.post(
        "/api/v1/apikeys",
        Some(admin.as_str()),
        &json!({"name": "made-here", "role": "reporter"}),
    );
    assert_eq!(status, 201, "{created}");
    let made = created["token"].as_str().unwrap().to_owned();
    let (status, _) = server.http.get("/metrics", Some(made.as_str()));
    assert_eq!(status, 200);
    let wrong = format!("{}x", &made[..made.len() - 1]);
    let (status, refused) = server.http.get("/api/v1/whoami", Some(wrong.as_str()));
    assert_eq!(status, 401);
    let log = server.log();
    for secret in [&admin, &made, &wrong] {
        assert!(!log.contains(secret.as_str()), "a token is in the log");
        // Not even the part after the prefix.
        assert!(
            !log.contains(&secret[4..20]),
            "part of a token is in the log"
        );
    }
    // One JSON object per line; the refusal's line carries the id its answer gave.
    let lines: Vec<Value> = log
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 3, "{log}");
    let id = refused["request_id"].as_str().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l["span"]["request_id"] == id && l["status"] == 401),
        "{log}"
    );
    server.stop();
}

#[test]
fn the_api_docs_render_every_operation_in_a_browser_with_the_network_off() {
    let site = Site::new();
    let server = site.serve();
    let rendered = common::browser::render_url_offline(
        &format!("{}/docs/", server.http.base),
        "api-docs",
        // Swagger UI builds the page with scripts after loading the document.
        &["--virtual-time-budget=15000", "--window-size=1280,2000"],
    );
    let document = api::openapi::build();
    let mut shown = 0;
    for (path, item) in &document.paths.paths {
        let operations = [&item.get, &item.post].into_iter().flatten().count();
        let listed = rendered
            .dom
            .matches(&format!("data-path=\"{path}\""))
            .count();
        assert_eq!(listed, operations, "{path} in the rendered docs");
        shown += listed;
    }
    assert!(shown > 30, "{shown} operations shown");
    assert!(
        rendered.dom.contains("submit_record"),
        "operation ids shown"
    );
    assert!(
        rendered.screenshot_bytes > 50_000,
        "the screenshot is empty"
    );
    server.stop();
}

/// The hijack a hostile tester once made with percent-encoded paths, replayed against a real
/// server over a socket: every step is refused. And a key is what the ledger says it is: a row
/// added to `api_keys` by the server's own database role is not a key.
#[test]
fn encoded_paths_reach_the_gate_and_a_row_of_api_keys_is_not_a_key() {
    let site = Site::new();
    let server = site.serve();
    let http = &server.http;
    let admin = site.apikey("it-admin", "admin");
    for (table, k) in [("R01", key(8)), ("R02", key(9))] {
        http.register_table(Some(&admin), &registration(table, &k));
    }
    let (_, r01) = http.get("/api/v1/tables/R01", Some(&admin));
    let r01_key = r01["keys"][0]["key_id"].as_str().unwrap().to_owned();
    let attacker = key(66);
    let attacker_key =
        json!({"public_key": dozor_log::keys::encode_public_key(&attacker.verifying_key())});
    // Reads with no Authorization header at all, in the spellings that once answered data.
    for target in [
        "/api/v1/tables",
        "/api/v1/%74ables",
        "/api/v1/apike%79s",
        "/api/v1/findin%67s",
        &format!("/api/v1/exp%6Frts?from={DAY}&to={DAY}"),
        "/m%65trics",
        "/api/v%31/whoami",
        "/reports/mont%68/2026-11",
        "/api/v1/tables/%52%30%31",
        "/api/v1/ledger/entries/%30",
    ] {
        let (status, body) = http.raw("GET", target, None, None);
        assert_eq!(status, 401, "GET {target}: {body}");
    }
    // Writes.
    let writes = [
        ("/api/v1/%74ables", registration("R03", &key(10))),
        ("/api/v1/tables/R02/k%65ys", attacker_key.clone()),
        (
            &format!("/api/v1/tables/R01/keys/{r01_key}/revok%65") as &str,
            json!({"reason": "x"}),
        ),
        (
            "/api/v1/apike%79s",
            json!({"name": "mine", "role": "admin"}),
        ),
    ]
    .map(|(t, b)| (t.to_owned(), b));
    for (target, body) in &writes {
        let (status, answer) = http.raw("POST", target, None, Some(body));
        assert_eq!(status, 401, "POST {target}: {answer}");
    }
    // The attacker's key was never added: its record for R02 is refused.
    let record = spin("R02", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let (status, body) = http.post("/api/v1/records", None, &signed(record, &attacker));
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("unknown_key")),
        "{body}"
    );
    // Nothing changed: two tables, R01's key not revoked, one API key.
    let (_, tables) = http.get("/api/v1/tables", Some(&admin));
    assert_eq!(tables.as_array().unwrap().len(), 2, "{tables}");
    let (_, r01) = http.get("/api/v1/tables/R01", Some(&admin));
    assert_eq!(r01["keys"][0]["revoked_at"], Value::Null, "{r01}");
    assert_eq!(r01["keys"].as_array().unwrap().len(), 1, "{r01}");
    let (_, keys) = http.get("/api/v1/apikeys", Some(&admin));
    assert_eq!(keys.as_array().unwrap().len(), 1, "{keys}");

    // A key row written by the server's own database role, for a token of the attacker's
    // choosing, pointing at an entry of the ledger: the gate does not honour it.
    let forged = dozor_log::access::ApiKeySecret::from_bytes([66; 32]);
    let hash = forged.token_hash();
    let mut writer = connect(&site.url_as("dozor_server"));
    diesel::sql_query(format!(
        "INSERT INTO api_keys (key_id, token_sha256, name, role, created_by, created_at, ledger_index) \
         VALUES ('{}', '\\x{}', 'forged', 'admin', 'cli:root', now(), 2)",
        dozor_log::access::api_key_id(&hash),
        hex::encode(hash)
    ))
    .execute(&mut writer)
    .unwrap();
    let (status, body) = http.get("/api/v1/whoami", Some(&forged.token()));
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("invalid_api_key")),
        "{body}"
    );
    let (status, body) = http.post(
        "/api/v1/tables",
        Some(&forged.token()),
        &registration("R04", &key(11)),
    );
    assert_eq!(status, 401, "{body}");
    // The key list is the ledger's: the forged row is not in it.
    let (_, keys) = http.get("/api/v1/apikeys", Some(&admin));
    assert_eq!(keys.as_array().unwrap().len(), 1, "{keys}");
    // The real admin key still works, and `verify` names the forged row.
    let (status, body) = http.get("/api/v1/whoami", Some(&admin));
    assert_eq!(
        (status, body["name"].as_str()),
        (200, Some("it-admin")),
        "{body}"
    );
    let out = site.dozor().arg("verify").output().unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{report}");
    assert!(report.contains("forged"), "{report}");
}
