#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Ten years in one database: a range of old entries leaves it as a verified inspection
//! export, on the record, and everything goes on — appending, proofs, the registry, `verify`
//! — while a range that leaves without the record is named.

mod common;

use actix_web::{test, App};
use chrono::Utc;
use common::*;
use diesel::RunQueryDsl as _;
use serde_json::{json, Value};

/// Entries per range in this test's database (set while it is empty).
const SPAN: u64 = 16;

fn dozor_on(url: &str, data: &std::path::Path) -> std::process::Command {
    let mut command = dozor();
    command
        .env("DATABASE_URL", url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .arg("--data-dir")
        .arg(data);
    command
}

fn count(url: &str, sql: &str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = ledger::storage::connect(url).unwrap();
    diesel::sql_query(sql).get_result::<N>(&mut conn).unwrap().n
}

fn verify_db(url: &str, data: &std::path::Path) -> (Option<i32>, Value) {
    let out = dozor_on(url, data)
        .args([
            "verify",
            "--operator-key",
            &operator().verifier().to_string(),
        ])
        .output()
        .unwrap();
    let mut report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    report["stderr"] = json!(String::from_utf8_lossy(&out.stderr));
    (out.status.code(), report)
}

#[actix_web::test]
async fn an_old_range_leaves_as_a_verified_export_and_the_ledger_goes_on() {
    let (state, url) = state_with(|settings| {
        let mut conn = ledger::storage::connect(&settings.database_url).unwrap();
        ledger::storage::partitions::set_span(&mut conn, SPAN).unwrap();
    });
    create_key(&url, ledger::access::Role::Admin);
    create_key(&url, ledger::access::Role::Compliance);
    let app = test::init_service(App::new().configure(api::server::configure(state.clone()))).await;
    // Entries 0-1: the keys; 2: the table; 3..=52: fifty spins, the fifth paid 10 Kč short.
    let (s, b) = post(&app, "/api/v1/tables", registration("R01", &key(1))).await;
    assert_eq!(s, 201, "{b}");
    let spin_of = |seq_no: u64, paid_h: i64| {
        spin(
            "R01",
            seq_no,
            17,
            json!([straight("b1", 17, 1_000, paid_h)]),
        )
    };
    for seq_no in 1..=50u64 {
        let paid = if seq_no == 5 { 35_000 } else { 36_000 };
        let (s, b) = call(&app, record_request(spin_of(seq_no, paid), &key(1))).await;
        assert_eq!(s, 201, "{b}");
    }
    // Entry 53: the short payment resolved (a registry event after the range to archive);
    // then a checkpoint over all 54.
    let (s, b) = call(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/findings/7.0/resolutions")
            .insert_header(bearer(ledger::access::Role::Compliance))
            .set_json(json!({"state": "confirmed", "amount_settled_h": 1_000, "comment": "paid at the cage"}))
            .to_request(),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), 54, Utc::now()).unwrap();
    let (_, proof_before) = get(&app, "/api/v1/ledger/proof/inclusion?index=5&size=54").await;

    let data = tempfile::tempdir().unwrap();
    let key_file = data.path().join("operator.key");
    ledger::operator_key::write_private(&key_file, &operator().private_key()).unwrap();
    let archive = |to: &str, dir: &std::path::Path| {
        dozor_on(&url, data.path())
            .args([
                "log",
                "archive",
                "--to",
                to,
                "--reason",
                "two ranges kept as their export",
            ])
            .arg("--operator-key")
            .arg(&key_file)
            .arg(dir)
            .output()
            .unwrap()
    };
    // Not a boundary of the ranges: one line, nothing done.
    let export_dir = data.path().join("archive-1");
    let refused = archive("40", &export_dir);
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    let last = said.trim().lines().last().unwrap();
    assert!(
        last.starts_with("dozor: --to 40 must be above 0") && last.contains("a multiple of 16"),
        "{said}"
    );
    assert!(!export_dir.exists());

    // Entries 0..32 (two ranges): exported (its reports sealed first), verified, archived.
    let done = archive("32", &export_dir);
    assert!(
        done.status.success(),
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    let receipt: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (&receipt["from"], &receipt["to"]),
        (&json!(0), &json!(32)),
        "{receipt}"
    );
    let size = receipt["index"].as_u64().unwrap() + 1;
    assert!(size > 54, "{receipt}");
    // Keys, table registration: 3 registry events among them.
    assert_eq!(receipt["registry_events"], 3);
    let mut detached: Vec<String> = receipt["detached"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_owned())
        .collect();
    detached.sort();
    assert_eq!(
        detached,
        [
            "adjudications_p000000",
            "adjudications_p000001",
            "ledger_entries_p000000",
            "ledger_entries_p000001"
        ]
    );
    // The rows are gone from the tables; what stays of them is kept.
    assert_eq!(
        count(
            &url,
            "SELECT count(*) AS n FROM ledger_entries WHERE idx < 32"
        ),
        0
    );
    assert_eq!(
        count(
            &url,
            "SELECT count(*) AS n FROM adjudications WHERE ledger_index < 32"
        ),
        0
    );
    assert_eq!(
        count(&url, "SELECT count(*) AS n FROM archived_entries"),
        32
    );
    assert_eq!(
        count(&url, "SELECT count(*) AS n FROM archived_registry_entries"),
        3
    );
    // The export it names verifies offline.
    let offline = dozor_on(&url, data.path())
        .args(["verify"])
        .arg(&export_dir)
        .args(["--operator-key", &operator().verifier().to_string()])
        .output()
        .unwrap();
    assert!(
        offline.status.success(),
        "{}",
        String::from_utf8_lossy(&offline.stderr)
    );

    // The database verifies: the archived leaves and registry events against the signed
    // record, the rest entry by entry.
    let (code, report) = verify_db(&url, data.path());
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["entries_checked"], size, "{report}");
    assert_eq!(
        (
            &report["archived_ranges"][0]["from"],
            &report["archived_ranges"][0]["to"]
        ),
        (&json!(0), &json!(32)),
        "{report}"
    );
    assert!(
        report["stderr"]
            .as_str()
            .unwrap()
            .contains("entries 0..32 ARCHIVED at index"),
        "{report}"
    );

    // The server starts on it (the registry replays from the kept events), proofs of archived
    // entries are what they were, and records go on: a new one appended, an archived one sent
    // again recognised, another record under an archived sequence number refused.
    drop(app);
    let state = api::server::state(&api::server::Settings::new(url.clone(), operator())).unwrap();
    let app = test::init_service(App::new().configure(api::server::configure(state))).await;
    let (s, proof_after) = get(&app, "/api/v1/ledger/proof/inclusion?index=5&size=54").await;
    assert_eq!(s, 200, "{proof_after}");
    assert_eq!(proof_after, proof_before);
    let (s, b) = call(&app, record_request(spin_of(51, 36_000), &key(1))).await;
    assert_eq!((s, &b["index"]), (201, &json!(size)), "{b}");
    // Seq 2 was entry 4, archived.
    let (s, b) = call(&app, record_request(spin_of(2, 36_000), &key(1))).await;
    assert_eq!((s, &b["index"]), (200, &json!(4)), "{b}");
    let (s, b) = call(&app, record_request(spin_of(3, 0), &key(1))).await;
    assert_eq!(
        (s, b["code"].as_str()),
        (409, Some("seq_no_conflict")),
        "{b}"
    );
    let (code, report) = verify_db(&url, data.path());
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["entries_checked"], size + 1, "{report}");

    // An export of a period whose entries are archived: refused, naming where they are.
    let (s, b) = get(
        &app,
        &format!(
            "/api/v1/exports?from={0}&to={0}",
            reports::GamingDayClock::default().day_of(Utc::now())
        ),
    )
    .await;
    assert_eq!(
        (s, b["code"].as_str()),
        (409, Some("period_archived")),
        "{b}"
    );

    // Below what is archived already: refused.
    let again = archive("16", &data.path().join("archive-2"));
    assert_eq!(again.status.code(), Some(2));

    // A range that leaves without the record: verify names where the entries stop.
    {
        use diesel::connection::SimpleConnection as _;
        let mut conn = ledger::storage::connect(&url).unwrap();
        conn.batch_execute("ALTER TABLE ledger_entries DETACH PARTITION ledger_entries_p000002")
            .unwrap();
        let (code, report) = verify_db(&url, data.path());
        assert_eq!(code, Some(1), "{report}");
        assert_eq!(report["failure"]["index"], 32, "{report}");
        conn.batch_execute(
            "ALTER TABLE ledger_entries ATTACH PARTITION ledger_entries_p000002 \
             FOR VALUES FROM (32) TO (48)",
        )
        .unwrap();
        assert_eq!(verify_db(&url, data.path()).0, Some(0));
        // What stays of an archived entry, changed past the triggers: named.
        conn.batch_execute(
            "SET session_replication_role = replica; \
             UPDATE archived_entries SET leaf_hash = sha256(leaf_hash) WHERE idx = 9",
        )
        .unwrap();
        let (code, report) = verify_db(&url, data.path());
        assert_eq!(code, Some(1), "{report}");
        let reason = report["failure"]["reason"].as_str().unwrap();
        assert!(reason.contains("archived entries"), "{report}");
    }
}

/// The size of the ranges is set once, while the ledger is empty, from the command line.
#[::core::prelude::v1::test]
fn the_range_size_is_set_on_an_empty_ledger_only() {
    let url = ledger::storage::testing::fresh_database().unwrap();
    let data = tempfile::tempdir().unwrap();
    let migrate = |span: &str| {
        dozor_on(&url, data.path())
            .args(["migrate", "--partition-span", span])
            .output()
            .unwrap()
    };
    let set = migrate("64");
    assert!(
        set.status.success(),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    assert!(String::from_utf8_lossy(&set.stdout).contains("the ledger's ranges hold 64 entries"));
    let mut conn = ledger::storage::connect(&url).unwrap();
    assert_eq!(ledger::storage::partitions::span(&mut conn).unwrap(), 64);
    // Not a power of two: refused in one line.
    let odd = migrate("100");
    assert_eq!(odd.status.code(), Some(2));
    // Once the ledger holds an entry, the same size is fine and another is refused.
    create_key(&url, ledger::access::Role::Admin);
    assert!(migrate("64").status.success());
    let other = migrate("128");
    assert_eq!(other.status.code(), Some(2));
    let said = String::from_utf8_lossy(&other.stderr);
    assert!(said.contains("holds entries"), "{said}");
    assert_eq!(ledger::storage::partitions::span(&mut conn).unwrap(), 64);
}
