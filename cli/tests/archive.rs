#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Ten years in one database: whole gaming days, closed and sealed, leave it as a verified
//! inspection export, on the record; their reports answer with the figures kept and sealed, an
//! archived entry says where it went, and everything goes on — appending, proofs, the
//! registry, exports of later days, `verify`. A `--to` inside a gaming day is refused.

mod common;

use actix_web::test;
use chrono::{DateTime, Datelike as _, Duration, NaiveDate, Utc};
use common::*;
use diesel::RunQueryDsl as _;
use rules::gaming_day::GamingDayClock;
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

/// The operator at work on the ledger at `url` with the data directory `data`, its key (the
/// tests' operator key) written to `operator.key` under it.
struct Operating<'a> {
    url: &'a str,
    data: &'a std::path::Path,
    key_file: std::path::PathBuf,
}

impl<'a> Operating<'a> {
    fn new(url: &'a str, data: &'a std::path::Path) -> Operating<'a> {
        let key_file = data.join("operator.key");
        ledger::operator_key::write_private(&key_file, &operator().private_key()).unwrap();
        Operating {
            url,
            data,
            key_file,
        }
    }

    /// `dozor log archive --to TO --reason REASON` (`to_reason`) signed with the operator's
    /// key, the archive's export written to `dir`.
    fn archive(&self, (to, reason): (&str, &str), dir: &std::path::Path) -> std::process::Command {
        let mut command = dozor_on(self.url, self.data);
        command
            .args(["log", "archive", "--to", to, "--reason", reason])
            .arg("--operator-key")
            .arg(&self.key_file)
            .arg(dir);
        command
    }

    /// `dozor export` of gaming days `from`..=`to` into `export-d2` under the data directory,
    /// then `dozor verify` of it offline: both must succeed. What its export.json says.
    fn export_verified_offline(&self, (from, to): (NaiveDate, NaiveDate)) -> Value {
        let later = self.data.join("export-d2");
        dozor_on(self.url, self.data)
            .args([
                "export",
                "--from",
                &from.to_string(),
                "--to",
                &to.to_string(),
            ])
            .arg("--operator-key")
            .arg(&self.key_file)
            .arg(&later)
            .succeeds();
        let export_info: Value =
            serde_json::from_slice(&std::fs::read(later.join("export.json")).unwrap()).unwrap();
        dozor_on(self.url, self.data)
            .args(["verify"])
            .arg(&later)
            .args(["--operator-key", &operator().verifier().to_string()])
            .succeeds();
        export_info
    }
}

/// A state on a fresh database whose ranges hold `SPAN` entries.
fn spanned_state() -> (api::state::AppState, String) {
    state_with(|settings| {
        let mut conn = ledger::storage::connect(&settings.database_url).unwrap();
        ledger::storage::partitions::set_span(&mut conn, SPAN).unwrap();
    })
}

/// A [`spanned_state`] (its database's URL, a connection to it) whose entry 0 registers R01 an
/// hour before noon of d1; the [`past_days`] (today, d1, d2).
fn spanned_ledger_with_r01() -> (
    api::state::AppState,
    String,
    diesel::PgConnection,
    (NaiveDate, NaiveDate, NaiveDate),
) {
    let (state, url) = spanned_state();
    let (today, d1, d2) = past_days();
    let mut conn = ledger::storage::connect(&url).unwrap();
    register_roulette(&mut conn, "R01", &key(1), noon(d1) - Duration::hours(1));
    (state, url, conn, (today, d1, d2))
}

/// Today's gaming day, and the gaming days three and two days before it (d1, d2).
fn past_days() -> (NaiveDate, NaiveDate, NaiveDate) {
    let today = GamingDayClock::default().day_of(Utc::now());
    (today, today - Duration::days(3), today - Duration::days(2))
}

/// Noon (Prague) of gaming day `day`.
fn noon(day: NaiveDate) -> DateTime<Utc> {
    GamingDayClock::default().start_of(day) + Duration::hours(6)
}

/// R01's spin `seq_no` played at `at`: 17 wins a 10 Kč straight up, `paid_h` paid.
fn spin_record(seq_no: u64, paid_h: i64, at: DateTime<Utc>) -> Value {
    let mut record = spin(
        "R01",
        seq_no,
        17,
        json!([straight("b1", 17, 1_000, paid_h)]),
    );
    record["played_at"] = json!(at.to_rfc3339());
    record
}

/// Each of R01's spins `seq_nos`, played on `day` at noon and a minute per seq_no and appended
/// as received then, `paid_h(seq_no)` paid (on a 10 Kč straight up that won: 360 Kč is right).
fn append_spins(
    state: &api::state::AppState,
    conn: &mut diesel::PgConnection,
    seq_nos: std::ops::RangeInclusive<u64>,
    day: NaiveDate,
    paid_h: impl Fn(u64) -> i64,
) {
    for seq_no in seq_nos {
        let at = noon(day) + Duration::minutes(seq_no as i64);
        let spin = spin_record(seq_no, paid_h(seq_no), at);
        append_signed(state, conn, spin, &key(1), at);
    }
}

/// The night of `day`, sealed when it is due (06:30 after the day closes).
fn seal_night(conn: &mut diesel::PgConnection, data: &std::path::Path, day: NaiveDate) {
    let clock = GamingDayClock::default();
    let plans = rules::PlanBook::builtin().unwrap();
    let sealer = operator();
    let job = reports::nightly::NightlyJob {
        clock: &clock,
        plans: &plans,
        sealer: &sealer,
        actor: "cli:tests",
        data_dir: data,
    };
    let due = reports::nightly::due_at(
        &clock,
        chrono::NaiveTime::from_hms_opt(6, 30, 0).unwrap(),
        day,
    );
    job.run(conn, day, due).unwrap();
}

/// A report's JSON without what says where and when it was read, or that it is archived.
fn figures_of(report: &Value) -> Value {
    let mut figures = report.clone();
    for field in [
        "covers",
        "archived",
        "archived_days",
        "note",
        "provisional",
        "provisional_note",
    ] {
        figures.as_object_mut().unwrap().remove(field);
    }
    figures
}

/// Each report's JSON.
async fn reports_of(app: &impl TestApp, uris: &[String]) -> Vec<Value> {
    let mut out = Vec::new();
    for uri in uris {
        let (s, b) = get(app, uri).await;
        assert_eq!(s, 200, "{uri}: {b}");
        out.push(b);
    }
    out
}

/// The command was refused (exit code 2), saying `expected`.
fn assert_refused(out: &std::process::Output, expected: String) {
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(said(out), expected);
}

/// The last line of a command's standard error.
fn said(out: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&out.stderr);
    text.trim().lines().last().unwrap_or_default().to_owned()
}

#[actix_web::test]
async fn a_closed_sealed_day_leaves_as_a_verified_export_and_its_reports_stay() {
    let (state, url, mut conn, (today, d1, d2)) = spanned_ledger_with_r01();
    // Gaming day d1: entry 0 the table, 1..=15 fifteen spins (the fifth paid 10 Kč short).
    append_spins(&state, &mut conn, 1..=15, d1, |seq_no| {
        if seq_no == 5 {
            35_000
        } else {
            36_000
        }
    });
    assert_eq!(ledger_size(&url), 16);

    let data = tempfile::tempdir().unwrap();
    let operating = Operating::new(&url, data.path());
    let archive = |to: &str, dir: &std::path::Path| {
        operating
            .archive((to, "a range kept as its export"), dir)
            .output()
            .unwrap()
    };
    let export_dir = data.path().join("archive-1");
    // d1 has closed, but its night is not sealed: refused, naming the day.
    let refused = archive("16", &export_dir);
    assert_refused(&refused, format!("dozor: gaming day {d1} is not sealed: its night's reports are not in the ledger (`dozor report nightly --day {d1}` seals them); no gaming day has closed and been sealed since the last archive yet; nothing was archived"));
    assert!(!export_dir.exists());

    // d1's night sealed on d2 (entries 16..); d2's spins 16..=40 after it; d2 not sealed.
    seal_night(&mut conn, data.path(), d1);
    append_spins(&state, &mut conn, 16..=40, d2, |_| 36_000);
    let after_d2 = ledger_size(&url);
    assert!(after_d2 > 48, "{after_d2}");
    // Today: keys and ten spins through the API, the short payment resolved.
    create_key(&url, dozor_log::access::Role::Admin);
    create_key(&url, dozor_log::access::Role::Compliance);
    let app = test_app(&state).await;
    for seq_no in 41..=50u64 {
        let record = spin_record(seq_no, 36_000, Utc::now());
        submitted_record(&app, record, &key(1)).await;
    }
    let (s, b) = call(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/findings/5.0/resolutions")
            .insert_header(bearer(dozor_log::access::Role::Compliance))
            .set_json(json!({"state": "confirmed", "amount_settled_h": 1_000, "comment": "paid at the cage"}))
            .to_request(),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let size = ledger_size(&url);
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();

    // Inside d2 (closed, not sealed, entries on both sides) and inside today (not over):
    // refused, naming the day, offering the range end that would do.
    let offer = format!("--to 16 archives through gaming day {d1}; nothing was archived");
    let split = archive("32", &export_dir);
    assert_refused(&split, format!("dozor: gaming day {d2} has entries on both sides of --to 32 (entry 32 was received on it): an archive takes only whole gaming days; {offer}"));
    let open_day = size / SPAN * SPAN;
    assert!(open_day > after_d2, "{open_day} {after_d2}");
    let open = archive(&open_day.to_string(), &export_dir);
    assert_eq!(open.status.code(), Some(2));
    let (_, today_ends) = GamingDayClock::default().bounds(today);
    assert!(
        said(&open).starts_with(&format!("dozor: gaming day {d2} is not over"))
            || said(&open).starts_with(&format!(
                "dozor: gaming day {today} is not over (it ends at {today_ends})"
            )),
        "{}",
        said(&open)
    );
    assert!(said(&open).ends_with(&offer), "{}", said(&open));
    // Inside d2 again, off the database's ranges: the same refusal, nothing done.
    let odd = archive("40", &export_dir);
    assert_refused(&odd, format!("dozor: gaming day {d2} has entries on both sides of --to 40 (entry 40 was received on it): an archive takes only whole gaming days; {offer}"));
    assert!(!export_dir.exists());

    // What the reports say before.
    let quarter = format!("{}Q{}", d1.year(), (d1.month() - 1) / 3 + 1);
    let month = format!("{}", d1.format("%Y-%m"));
    let uris = [
        format!("/api/v1/reports/daily?day={d1}"),
        format!("/api/v1/reports/rtp?month={month}"),
        format!("/api/v1/reports/tax?quarter={quarter}"),
        format!("/api/v1/reports/wheels?month={month}"),
    ];
    let before = reports_of(&app, &uris).await;
    assert_eq!(before[0]["rounds"], 15, "{}", before[0]);
    assert!(before[0]["archived"].is_null());
    let (_, entry_before) = get(&app, "/api/v1/ledger/entries/5").await;
    let (_, proof_before) = get(
        &app,
        &format!("/api/v1/ledger/proof/inclusion?index=5&size={size}"),
    )
    .await;

    // Entries 0..16, the whole of d1: exported, verified, archived; d1's figures kept and sealed.
    let done = archive("16", &export_dir);
    assert!(
        done.status.success(),
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    let receipt: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (&receipt["from"], &receipt["to"]),
        (&json!(0), &json!(16)),
        "{receipt}"
    );
    assert_eq!(receipt["registry_events"], 1, "{receipt}");
    assert_eq!(
        receipt["days_kept"][0]["gaming_day"],
        json!(d1.to_string()),
        "{receipt}"
    );
    assert_eq!(
        receipt["days_kept"].as_array().unwrap().len(),
        1,
        "{receipt}"
    );
    // The operator is told where the export is and how many days' figures were kept.
    let said = String::from_utf8_lossy(&done.stderr);
    assert!(
        said.contains(&format!("as the export in {} (", export_dir.display()))
            && said.contains("the figures of its 1 gaming days kept and sealed"),
        "{said}"
    );
    let sealed_at = receipt["days_kept"][0]["sealed_index"].as_u64().unwrap();
    let archived_at = receipt["index"].as_u64().unwrap();
    let mut detached: Vec<&str> = each(&receipt["detached"], |d| d.as_str().unwrap());
    detached.sort();
    assert_eq!(
        detached,
        ["adjudications_p000000", "ledger_entries_p000000"]
    );
    assert_eq!(
        count(
            &url,
            "SELECT count(*) AS n FROM ledger_entries WHERE idx < 16"
        ),
        0
    );
    assert_eq!(
        count(
            &url,
            "SELECT count(*) AS n FROM adjudications WHERE ledger_index < 16"
        ),
        0
    );
    assert_eq!(
        count(&url, "SELECT count(*) AS n FROM archived_entries"),
        16
    );
    assert_eq!(count(&url, "SELECT count(*) AS n FROM archived_days"), 1);
    let manifest = std::fs::read(export_dir.join("MANIFEST")).unwrap();
    let manifest_sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&manifest));
    dozor_on(&url, data.path())
        .args(["verify"])
        .arg(&export_dir)
        .args(["--operator-key", &operator().verifier().to_string()])
        .succeeds();

    // The server starts on it. Every report of d1 answers with the same figures, and says so.
    drop(app);
    let state = api::server::state(&api::server::Settings::new(url.clone(), operator())).unwrap();
    let app = test_app(&state).await;
    let after = reports_of(&app, &uris).await;
    for (before, after) in before.iter().zip(&after) {
        assert_eq!(figures_of(after), figures_of(before), "{after}");
    }
    let archived = json!({
        "gaming_day": d1.to_string(),
        "from_sealed_report_index": sealed_at,
        "range_archived_index": archived_at,
        "entries_below": 16,
        "export": {"first_day": d1.to_string(), "last_day": d1.to_string(), "manifest_sha256": manifest_sha256},
    });
    assert_eq!(after[0]["archived"], archived, "{}", after[0]);
    assert!(after[0]["note"]
        .as_str()
        .unwrap()
        .starts_with(&format!("gaming day {d1} is archived")));
    for report in &after[1..] {
        assert_eq!(
            report["archived_days"],
            json!([archived.clone()]),
            "{report}"
        );
    }
    // The kept figures are the ones their seal names: changed, the reports refuse them.

    // An archived entry answers where it is; proofs are what they were.
    let (s, b) = get(&app, "/api/v1/ledger/entries/5").await;
    assert_eq!(
        (s, b["code"].as_str()),
        (410, Some("entry_archived")),
        "{b}"
    );
    assert_eq!(
        b["details"],
        json!({
            "index": 5,
            "range": {"from": 0, "to": 16},
            "range_archived_index": archived_at,
            "export": {"first_day": d1.to_string(), "last_day": d1.to_string(), "manifest_sha256": manifest_sha256},
            "received_at": entry_before["received_at"],
            "entry_hash": entry_before["entry_hash"],
            "record_hash": b["details"]["record_hash"],
        }),
        "{b}"
    );
    let (s, b) = get(&app, "/api/v1/ledger/entries/9999").await;
    assert_eq!((s, b["code"].as_str()), (404, Some("unknown_entry")), "{b}");
    let (s, proof_after) = get(
        &app,
        &format!("/api/v1/ledger/proof/inclusion?index=5&size={size}"),
    )
    .await;
    assert_eq!(s, 200, "{proof_after}");
    assert_eq!(proof_after, proof_before);

    // An export of d1: refused, naming where its entries start (0). An export of d2, after the
    // archive: written, and it verifies.
    let (s, b) = get(&app, &format!("/api/v1/exports?from={d1}&to={d1}")).await;
    assert_eq!(
        (s, b["code"].as_str()),
        (409, Some("period_archived")),
        "{b}"
    );
    assert_eq!(
        (
            &b["details"]["first_index"],
            &b["details"]["archived_below"]
        ),
        (&json!(0), &json!(16)),
        "{b}"
    );
    assert!(message_of(&b).contains("start at index 0,"), "{b}");
    let export_info = operating.export_verified_offline((d2, today));
    assert_eq!(
        (
            &export_info["first_index"],
            &export_info["period_first_index"]
        ),
        (&json!(16), &json!(16)),
        "{export_info}"
    );

    // Records go on: a new one appended, an archived one sent again recognised, another record
    // under an archived sequence number refused.
    submitted_record(&app, spin_record(51, 36_000, Utc::now()), &key(1)).await;
    // The database verifies: the archived leaves against the signed record, the rest entry by
    // entry.
    let (code, report) = verify_db(&url, data.path());
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report["stderr"]
            .as_str()
            .unwrap()
            .contains("entries 0..16 ARCHIVED at index"),
        "{report}"
    );
    // Below what is archived already: refused.
    let again = archive("16", &data.path().join("archive-2"));
    assert_eq!(again.status.code(), Some(2));
    // Seq 2 was entry 2, archived: sent again, recognised; another record under it, refused.
    let (s, b) = call(
        &app,
        record_request(
            spin_record(2, 36_000, noon(d1) + Duration::minutes(2)),
            &key(1),
        ),
    )
    .await;
    assert_eq!((s, &b["index"]), (200, &json!(2)), "{b}");
    let (s, b) = call(
        &app,
        record_request(spin_record(3, 0, noon(d1) + Duration::minutes(3)), &key(1)),
    )
    .await;
    assert_eq!(
        (s, b["code"].as_str()),
        (409, Some("seq_no_conflict")),
        "{b}"
    );

    // A range that leaves without the record (d2's spins 32..48): verify names where the
    // entries stop.
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

    // A round of d1 received now, after the archive: read from the ledger and added to
    // the kept figures (15 + 1 rounds, 15 × 360 + 350 + 360 Kč paid), d1 still marked archived.
    let played = noon(d1) + Duration::minutes(30);
    submitted_record(&app, spin_record(52, 36_000, played), &key(1)).await;
    let (_, late) = get(&app, &format!("/api/v1/reports/daily?day={d1}")).await;
    let row = daily_row(&late, "R01");
    assert_eq!(
        (&late["rounds"], &row["rounds"]),
        (&json!(16), &json!(16)),
        "{late}"
    );
    assert_eq!(
        row["payouts_h"],
        json!(14 * 36_000 + 35_000 + 36_000),
        "{late}"
    );
    // Late by the window (72 h) only if received that long after it was played.
    let late_by_window = i64::from(Utc::now() - played > Duration::hours(72));
    assert_eq!(row["late_rounds"], json!(late_by_window), "{late}");
    assert_eq!(late["archived"], archived, "{late}");

    // The kept figures changed past the triggers: the reports of d1 refuse them.
    {
        use diesel::connection::SimpleConnection as _;
        let mut conn = ledger::storage::connect(&url).unwrap();
        conn.batch_execute(
            "SET session_replication_role = replica; \
             UPDATE archived_days SET figures = replace(convert_from(figures, 'UTF8'), '\"rounds\": 15', '\"rounds\": 16')::bytea",
        )
        .unwrap();
        let (s, b) = get(&app, &format!("/api/v1/reports/daily?day={d1}")).await;
        assert_eq!(s, 500, "{b}");
    }
}

/// The tester's case: every entry of an open gaming day, `--to` inside it. Refused, naming the
/// day; the day's report and its export are what they were.
#[actix_web::test]
async fn archiving_inside_an_open_gaming_day_is_refused() {
    let (state, url) = spanned_state();
    create_key(&url, dozor_log::access::Role::Admin);
    create_key(&url, dozor_log::access::Role::Compliance);
    let app = test_app(&state).await;
    register_table(&app, registration("R01", &key(1))).await;
    for seq_no in 1..=67u64 {
        let record = spin_record(seq_no, 36_000, Utc::now());
        submitted_record(&app, record, &key(1)).await;
    }
    assert_eq!(ledger_size(&url), 70);
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), 70, Utc::now()).unwrap();
    let clock = GamingDayClock::default();
    let today = clock.day_of(Utc::now());
    let (_, ends) = clock.bounds(today);
    let (_, report_before) = get(&app, &format!("/api/v1/reports/daily?day={today}")).await;
    assert_eq!(report_before["rounds"], 67);

    let data = tempfile::tempdir().unwrap();
    let operating = Operating::new(&url, data.path());
    let dir = data.path().join("archive");
    let out = operating
        .archive(("32", "as the tester did"), &dir)
        .output()
        .unwrap();
    assert_refused(&out, format!("dozor: gaming day {today} is not over (it ends at {ends}): an archive takes only whole gaming days that have closed and been sealed; no gaming day has closed and been sealed since the last archive yet; nothing was archived"));
    assert!(!dir.exists());
    assert_eq!(ledger_size(&url), 70);
    assert_eq!(count(&url, "SELECT count(*) AS n FROM archived_entries"), 0);
    let (_, report_after) = get(&app, &format!("/api/v1/reports/daily?day={today}")).await;
    assert_eq!(figures_of(&report_after), figures_of(&report_before));
    let (s, _) = get_text(&app, &format!("/api/v1/exports?from={today}&to={today}")).await;
    assert_eq!(s, 200);
    let (s, b) = get(&app, "/api/v1/ledger/entries/20").await;
    assert_eq!(s, 200, "{b}");
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
    create_key(&url, dozor_log::access::Role::Admin);
    assert!(migrate("64").status.success());
    let other = migrate("128");
    assert_eq!(other.status.code(), Some(2));
    let said = String::from_utf8_lossy(&other.stderr);
    assert!(said.contains("holds entries"), "{said}");
    assert_eq!(ledger::storage::partitions::span(&mut conn).unwrap(), 64);
}

/// A gaming day's end rarely meets the end of one of the database's ranges: the archive splits
/// the range holding `--to` there (entries 0..11 of a 16-entry range leave, 11.. stay in a
/// range of the same name), and everything goes on as after an archive of whole ranges.
#[actix_web::test]
async fn an_archive_ending_inside_a_range_splits_it_at_the_days_end() {
    let (state, url, mut conn, (today, d1, d2)) = spanned_ledger_with_r01();
    // Gaming day d1: entry 0 the table, 1..=10 ten spins; d1's night sealed on d2 (11..), then
    // five spins of d2.
    append_spins(&state, &mut conn, 1..=10, d1, |_| 36_000);
    assert_eq!(ledger_size(&url), 11);
    let data = tempfile::tempdir().unwrap();
    let operating = Operating::new(&url, data.path());
    seal_night(&mut conn, data.path(), d1);
    append_spins(&state, &mut conn, 11..=15, d2, |_| 36_000);
    create_key(&url, dozor_log::access::Role::Admin);
    create_key(&url, dozor_log::access::Role::Compliance);
    let size = ledger_size(&url);
    assert!(
        size > SPAN,
        "the day after d1 runs into the next range: {size}"
    );
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
    let app = test_app(&state).await;
    let daily = [format!("/api/v1/reports/daily?day={d1}")];
    let before = reports_of(&app, &daily).await;
    let (_, proof_before) = get(
        &app,
        &format!("/api/v1/ledger/proof/inclusion?index=12&size={size}"),
    )
    .await;

    // What the refusal offers is d1's end, entry 11, inside the first range.
    let refused = operating
        .archive(("12", "d1"), &data.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        said(&refused).ends_with(&format!(
            "--to 11 archives through gaming day {d1}; nothing was archived"
        )),
        "{}",
        said(&refused)
    );
    let export_dir = data.path().join("archive-d1");
    let done = operating
        .archive(("11", "d1 kept as its export"), &export_dir)
        .succeeds();
    let receipt: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (&receipt["from"], &receipt["to"]),
        (&json!(0), &json!(11)),
        "{receipt}"
    );
    let mut detached: Vec<&str> = each(&receipt["detached"], |d| d.as_str().unwrap());
    detached.sort();
    assert_eq!(
        detached,
        [
            "adjudications_p000000_below_11",
            "ledger_entries_p000000_below_11"
        ]
    );
    // Below 11: gone (kept as leaves); 11 and above: all there, d2's five spins judged.
    let entries = |sql: &str| count(&url, sql);
    assert_eq!(
        entries("SELECT count(*) AS n FROM ledger_entries WHERE idx < 11"),
        0
    );
    assert_eq!(
        entries("SELECT count(*) AS n FROM ledger_entries WHERE idx >= 11"),
        (ledger_size(&url) - 11) as i64,
        "the entries of d2 and the archive's own"
    );
    assert_eq!(entries("SELECT count(*) AS n FROM adjudications"), 5);
    assert_eq!(entries("SELECT count(*) AS n FROM archived_entries"), 11);
    assert_eq!(
        entries("SELECT count(*) AS n FROM ledger_entries_p000000_below_11"),
        16,
        "the detached range keeps all it held, for the operator to keep or drop"
    );

    // d1's report is what it was, and says it is archived; entry 5 is archived, 12 is not; the
    // proof of 12 is what it was; appending goes on into the split range.
    let after = reports_of(&app, &daily).await;
    assert_eq!(
        figures_of(&after[0]),
        figures_of(&before[0]),
        "{}",
        after[0]
    );
    assert_eq!(after[0]["archived"]["entries_below"], 11, "{}", after[0]);
    let (s, b) = get(&app, "/api/v1/ledger/entries/5").await;
    assert_eq!(
        (s, b["code"].as_str()),
        (410, Some("entry_archived")),
        "{b}"
    );
    assert_eq!(get(&app, "/api/v1/ledger/entries/12").await.0, 200);
    let (s, proof_after) = get(
        &app,
        &format!("/api/v1/ledger/proof/inclusion?index=12&size={size}"),
    )
    .await;
    assert_eq!((s, &proof_after), (200, &proof_before));
    submitted_record(&app, spin_record(16, 36_000, Utc::now()), &key(1)).await;
    let (code, report) = verify_db(&url, data.path());
    assert_eq!(code, Some(0), "{report}");

    // d2 and after, exported after the archive: from entry 11, and it verifies offline.
    let export_info = operating.export_verified_offline((d2, today));
    assert_eq!(export_info["first_index"], 11, "{export_info}");
}
