#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Ministry's monthly package from the ledger: a simulated month passes the validator, one
//! table period and one cage day give the hand-computed figures, a drop that does not reconcile
//! and a round outside a period are findings, and the package's seal travels in the export.

mod common;

use std::collections::BTreeMap;

use actix_web::test;
use chrono::Utc;
use common::*;
use dozor_log::access::Role;
use reports::mf::{PackageSource, Schema, ValidationSettings};
use rules::gaming_day::GamingDayClock;
use serde_json::{json, Value};
use sha2::Digest as _;

const PLAN: &str = "69games-ziva-hra";

/// GET as `role`, the body as bytes, with the response's headers.
async fn get_bytes(
    app: &impl TestApp,
    uri: &str,
    role: Role,
) -> (u16, Vec<u8>, actix_web::http::header::HeaderMap) {
    let request = role_get(uri, role);
    let response = test::call_service(app, request).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, test::read_body(response).await.to_vec(), headers)
}

/// [`get_bytes`] of a package that is served: its bytes and the response's headers.
async fn package(
    app: &impl TestApp,
    uri: &str,
    role: Role,
) -> (Vec<u8>, actix_web::http::header::HeaderMap) {
    let (status, zip, headers) = get_bytes(app, uri, role).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&zip));
    (zip, headers)
}

/// Writes the package's ZIP into a fresh directory (named as the package) and validates it.
fn validate_zip(zip: &[u8], name: &str) -> (tempfile::TempDir, std::path::PathBuf, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.zip"));
    std::fs::write(&path, zip).unwrap();
    let source = PackageSource::read(&path).unwrap();
    let errors = reports::mf::validate(
        Schema::embedded().unwrap(),
        &source,
        &ValidationSettings {
            now: Utc::now(),
            clock: GamingDayClock::default(),
        },
    );
    (dir, path, errors.iter().map(ToString::to_string).collect())
}

/// The rows of one file of a package ZIP, each as field → value.
fn rows(zip: &[u8], file: &str) -> Vec<BTreeMap<String, String>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let name = archive
        .file_names()
        .find(|n| n.ends_with(&format!("/{file}")))
        .unwrap()
        .to_owned();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut archive.by_name(&name).unwrap(), &mut text).unwrap();
    let mut lines = text.split("\r\n").skip(1).filter(|l| !l.is_empty());
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(';'))
                .map(|(k, v)| ((*k).to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// The row of `file` in the package `zip` for the table (or period) `id` (its `IDZaznamPSTB`).
fn table_row(zip: &[u8], file: &str, id: &str) -> BTreeMap<String, String> {
    row_where(&rows(zip, file), "IDZaznamPSTB", id).clone()
}

fn row_where<'a>(
    rows: &'a [BTreeMap<String, String>],
    field: &str,
    value: &str,
) -> &'a BTreeMap<String, String> {
    rows.iter()
        .find(|r| r[field] == value)
        .unwrap_or_else(|| panic!("no row with {field} = {value}: {rows:?}"))
}

#[actix_web::test]
async fn a_simulated_month_gives_a_package_the_validator_passes() {
    let (state, url) = api_state_configured();
    create_key(&url, Role::Reporter);
    let app = test_app(&state).await;
    let submitted = submit_simulated_tables(
        &app,
        october(3, 10, 0.0, 7),
        &[
            ("R01", "roulette"),
            ("BJ1", "blackjack"),
            ("PH1", "poker_cash"),
            ("ROOM1", "poker_tournament"),
        ],
        Some("CAGE"),
    )
    .await;
    assert!(submitted > 150, "{submitted}");

    // Every period reconciles exactly; no round is outside a period.
    let (status, audit) = get(&app, "/api/v1/reports/periods?month=2026-10").await;
    assert_eq!(status, 200, "{audit}");
    assert_eq!(audit["findings"], json!([]), "{audit}");
    assert_eq!(audit["tables"].as_array().unwrap().len(), 3 * 3);
    assert_eq!(audit["cages"].as_array().unwrap().len(), 3);
    assert!(audit["tables"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["difference_h"] == 0));
    // The table periods for a Czech office: nine lines whose rounds' results add up to the
    // JSON's, every difference 0,00 Kč.
    let (status, people) =
        get_text(&app, "/api/v1/reports/periods?month=2026-10&format=csv-cz").await;
    assert_eq!(status, 200, "{people}");
    let results: i64 = python_czech_column(&people, "Výsledek kol (Kč)")
        .iter()
        .map(|k| haler_of_koruny(k))
        .sum();
    let expected: i64 = each(&audit["tables"], |t| t["rounds_result_h"].as_i64().unwrap())
        .iter()
        .sum();
    assert_eq!(results, expected);
    assert_eq!(python_czech_column(&people, "Rozdíl (Kč)"), vec!["0,00"; 9]);

    let (zip, headers) = package(
        &app,
        "/api/v1/reports/mf?month=2026-10&misto=kasino_1",
        Role::Reporter,
    )
    .await;
    let name = "12345679-M-202610-Z-kasino_1-01";
    assert_eq!(
        headers.get("content-disposition").unwrap(),
        &format!("attachment; filename=\"{name}.zip\"")
    );
    let (_dir, path, errors) = validate_zip(&zip, name);
    assert_eq!(errors, Vec::<String>::new());
    // The command says so too.
    let out = dozor()
        .args(["report", "mf-validate"])
        .arg(&path)
        .succeeds_or(|out| String::from_utf8_lossy(&out.stdout).into_owned());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("OK: "));

    // 3 days × 3 tables + 3 cage days + 3 tournaments.
    let periods = rows(&zip, "pokladna_stul_turnaj_bingo.csv");
    let count = |kind: &str| {
        periods
            .iter()
            .filter(|r| r["PokladnaStulTurnajBingo"] == kind)
            .count()
    };
    assert_eq!((count("S"), count("P"), count("T")), (9, 3, 3));
    let games: Vec<String> = rows(&zip, "evidence_her.csv")
        .iter()
        .map(|r| r["IDHra"].clone())
        .collect();
    assert_eq!(
        games,
        [
            "12345679-roulette",
            "12345679-blackjack",
            "12345679-poker_cash",
            "12345679-poker_tournament"
        ]
    );

    // Between players the casino's part is the rake, an accompanying payment: the stakes net of
    // it are what the winners took, and the rake is the table's net result.
    let haler = |text: &str| -> i64 {
        let (koruna, halere) = text.split_once(',').unwrap();
        let sign = if koruna.starts_with('-') { -1 } else { 1 };
        sign * (koruna.trim_start_matches('-').parse::<i64>().unwrap() * 100
            + halere.parse::<i64>().unwrap())
    };
    let games = rows(&zip, "hra_turnaj_bingo.csv");
    let poker: Vec<_> = games
        .iter()
        .filter(|r| r["IDPSTB"] == "12345679-PH1")
        .collect();
    assert_eq!(poker.len(), 3);
    for row in poker {
        let rake = haler(&row["UhrnDoprovodnaPlneniVyse"]);
        assert!(rake > 0, "{row:?}");
        let staked = haler(&row["UhrnSazkyVyse"]);
        assert_eq!(
            staked - haler(&row["UhrnVyhryVyse"]) - haler(&row["UhrnVraceneSazkyVyse"]),
            0,
            "{row:?}"
        );
        let period = row_where(&periods, "IDZaznamPSTB", &row["IDZaznamPSTB"]);
        assert_eq!(haler(&period["CistyHerniVysledek"]), rake, "{row:?}");
    }
    // Tournaments: their fee is the accompanying payment, with their players counted.
    for row in games.iter().filter(|r| !r["OznaceniTurnaj"].is_empty()) {
        assert!(haler(&row["UhrnDoprovodnaPlneniVyse"]) > 0, "{row:?}");
        assert!(
            row["TurnajPocetHracu"].parse::<u32>().unwrap() > 1,
            "{row:?}"
        );
    }

    // The ZIP's SHA-256 is sealed in the ledger at the index the answer names.
    let sha256 = hex::encode(sha2::Sha256::digest(&zip));
    assert_eq!(
        headers.get("x-dozor-sha256").unwrap().to_str().unwrap(),
        sha256
    );
    let index = headers.get("x-dozor-sealed-at").unwrap().to_str().unwrap();
    let (status, entry) = get(&app, &format!("/api/v1/ledger/entries/{index}")).await;
    assert_eq!(status, 200, "{entry}");
    let stored: Value = serde_json::from_str(entry["entry"].as_str().unwrap()).unwrap();
    let record = &stored["envelope"]["record"];
    assert_eq!(record["type"], "report_published", "{entry}");
    assert_eq!(record["name"], format!("reports/mf/{name}.zip"));
    assert_eq!(record["sha256"], sha256);

    // An inspection export of today carries the seal, and verifies.
    let today = GamingDayClock::default().day_of(Utc::now());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export");
    export_days(
        &mut ledger::storage::connect(&url).unwrap(),
        today,
        today,
        &out,
    );
    let report = verify_exported(&out).unwrap();
    assert_eq!(
        report.ministry_packages,
        [dozor_verify::SealedPackage {
            name: format!("reports/mf/{name}.zip"),
            index: index.parse().unwrap(),
            sha256,
        }]
    );
}

#[actix_web::test]
async fn a_package_is_issued_once_per_content_and_never_without_an_active_station() {
    let (state, url) = api_state_configured();
    create_key(&url, Role::Reporter);
    let app = test_app(&state).await;
    register_table(&app, registration_for_october("R01", "roulette", &key(1))).await;
    let spin_on = |table: &str, seq_no: u64, day: &str| {
        let mut round = spin(
            table,
            seq_no,
            17,
            json!([straight("b1", 17, 10_000, 360_000)]),
        );
        round["played_at"] = json!(format!("{day}T18:00:00Z"));
        round
    };
    submitted_record(&app, spin_on("R01", 1, "2026-10-05"), &key(1)).await;
    let uri = "/api/v1/reports/mf?month=2026-10&misto=kasino_1";
    let (first, headers) = package(&app, uri, Role::Reporter).await;
    let header = |h: &actix_web::http::header::HeaderMap, name: &str| {
        h.get(name).unwrap().to_str().unwrap().to_owned()
    };
    assert_eq!(header(&headers, "x-dozor-issued"), "new");
    let size = ledger_size(&url);
    // Asked again with the ledger unchanged: the same bytes, the same seal, nothing appended.
    let (_, second, again) = get_bytes(&app, uri, Role::Reporter).await;
    assert_eq!(second, first);
    assert_eq!(
        (
            header(&again, "x-dozor-issued"),
            header(&again, "x-dozor-sealed-at")
        ),
        ("before".to_owned(), header(&headers, "x-dozor-sealed-at"))
    );
    assert_eq!(ledger_size(&url), size);
    // Another round of the month: a changed content is the next version.
    submitted_record(&app, spin_on("R01", 2, "2026-10-06"), &key(1)).await;
    let (_, third, changed) = get_bytes(&app, uri, Role::Reporter).await;
    assert_eq!(header(&changed, "x-dozor-issued"), "new");
    assert_eq!(
        header(&changed, "content-disposition"),
        "attachment; filename=\"12345679-M-202610-Z-kasino_1-02.zip\""
    );
    let (_, _dir, errors) = validate_zip(&third, "12345679-M-202610-Z-kasino_1-02");
    assert_eq!(errors, Vec::<String>::new());
    // Version 1 stays as it was issued.
    let (_, earlier, _) = get_bytes(&app, &format!("{uri}&version=1"), Role::Reporter).await;
    assert_eq!(earlier, first);
    let (status, body, _) = get_bytes(&app, &format!("{uri}&version=3"), Role::Reporter).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_error(status, &body, 404, "package_not_issued");

    // A table with rounds in the month that no premises lists: refused, naming it.
    register_table(&app, registration_for_october("R99", "roulette", &key(9))).await;
    submitted_record(&app, spin_on("R99", 1, "2026-10-07"), &key(9)).await;
    let size = ledger_size(&url);
    let (status, body, _) = get_bytes(&app, uri, Role::Reporter).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_error(status, &body, 409, "stations_without_premises");
    assert_eq!(body["details"]["stations"], json!(["R99"]), "{body}");
    assert!(message_of(&body).contains("R99"), "{body}");
    assert_eq!(ledger_size(&url), size);

    // `dozor verify` holds each kept package to its seal.
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{report} {stderr}");
    let mut conn = ledger::storage::connect(&url).unwrap();
    for sql in [
        "ALTER TABLE mf_packages DISABLE TRIGGER mf_packages_append_only",
        "UPDATE mf_packages SET zip = zip || '\\x00'::bytea WHERE version = 1",
    ] {
        diesel::RunQueryDsl::execute(diesel::sql_query(sql), &mut conn).unwrap();
    }
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report
            .to_string()
            .contains("12345679-M-202610-Z-kasino_1-01 as kept"),
        "{report}"
    );
}

fn record(table_id: &str, kind: &str, seq_no: u64, period: &str, at: &str, fields: Value) -> Value {
    let mut r = json!({"type": kind, "table_id": table_id, "seq_no": seq_no, "plan_id": PLAN,
                       "period_id": period, "at": at});
    for (k, v) in fields.as_object().unwrap() {
        r[k] = v.clone();
    }
    r
}

fn chips(pairs: &[(i64, u32)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(d, c)| json!({"denomination_h": d, "count": c}))
            .collect(),
    )
}

fn spin_at(table_id: &str, seq_no: u64, number: u8, bet: Value, at: &str) -> Value {
    let mut r = spin(table_id, seq_no, number, json!([bet]));
    r["played_at"] = json!(at);
    r
}

/// One evening at a roulette table, counted as `closing` (100 Kč notes of the float).
fn evening(table_id: &str, drop_h: i64, closing: Value) -> Vec<Value> {
    let p = "E1";
    vec![
        // Opening float: 100 × 1 000 Kč = 100 000 Kč.
        record(
            table_id,
            "table_open",
            1,
            p,
            "2026-10-05T16:00:00Z",
            json!({"float": chips(&[(100_000, 100)])}),
        ),
        // Straight 1 000 Kč on 17, 17 wins: paid 35 × 1 000 + 1 000 = 36 000 Kč.
        spin_at(
            table_id,
            2,
            17,
            straight("b1", 17, 100_000, 3_600_000),
            "2026-10-05T17:00:00Z",
        ),
        // Straight 500 Kč on 5, 3 wins: lost.
        spin_at(
            table_id,
            3,
            3,
            straight("b1", 5, 50_000, 0),
            "2026-10-05T18:00:00Z",
        ),
        // Fill: 20 × 1 000 Kč = 20 000 Kč.
        record(
            table_id,
            "table_fill",
            4,
            p,
            "2026-10-05T18:30:00Z",
            json!({"slip_no": "F-1", "chips": chips(&[(100_000, 20)]), "by": "J. Nováková"}),
        ),
        // Straight 2 000 Kč on 10, 22 wins: lost.
        spin_at(
            table_id,
            5,
            22,
            straight("b1", 10, 200_000, 0),
            "2026-10-05T19:00:00Z",
        ),
        // Credit: 5 × 1 000 Kč = 5 000 Kč.
        record(
            table_id,
            "table_credit",
            6,
            p,
            "2026-10-05T20:00:00Z",
            json!({"slip_no": "C-1", "chips": chips(&[(100_000, 5)]), "by": "P. Dvořák"}),
        ),
        // Tips: 4 × 25 Kč = 100 Kč into the tronc.
        record(
            table_id,
            "table_tips",
            7,
            p,
            "2026-10-05T21:00:00Z",
            json!({"chips": chips(&[(2_500, 4)])}),
        ),
        record(
            table_id,
            "table_drop",
            8,
            p,
            "2026-10-05T21:50:00Z",
            json!({"cash_h": drop_h, "counted_by": "count room"}),
        ),
        record(
            table_id,
            "table_close",
            9,
            p,
            "2026-10-05T22:00:00Z",
            json!({"float": closing}),
        ),
    ]
}

#[actix_web::test]
async fn one_table_period_and_one_cage_day_give_the_hand_computed_package() {
    let (state, url) = api_state_configured();
    let app = test_app(&state).await;
    let (table_key, short_key, cage_key) = (key(1), key(2), key(3));
    for (id, game, k) in [
        ("R01", "roulette", &table_key),
        ("R02", "roulette", &short_key),
        ("CAGE", "cage", &cage_key),
    ] {
        register_table(&app, registration_for_october(id, game, k)).await;
    }
    // Rounds: stakes 1 000 + 500 + 2 000 = 3 500 Kč, paid 36 000 Kč: the table lost 32 500 Kč.
    // Closing float from win = closing − opening + credits − fills + drop:
    //   −32 500 = closing − 100 000 + 5 000 − 20 000 + 20 000  →  closing = 62 500 Kč
    //   = 62 × 1 000 Kč + 1 × 500 Kč.
    let closing = chips(&[(100_000, 62), (50_000, 1)]);
    let mut records: Vec<(Value, &ed25519_dalek::SigningKey)> =
        evening("R01", 2_000_000, closing.clone())
            .into_iter()
            .map(|r| (r, &table_key))
            .collect();
    // R02: the same evening, but the drop counts 1 500 Kč less than the rounds explain
    // (tolerance 100 Kč), and a round played before its period opened.
    records.extend(
        evening("R02", 1_850_000, closing)
            .into_iter()
            .map(|r| (r, &short_key)),
    );
    records.push((
        spin_at(
            "R02",
            10,
            3,
            straight("b9", 5, 10_000, 0),
            "2026-10-05T15:00:00Z",
        ),
        &short_key,
    ));
    // The cage's day: opening with 1 000 000 Kč cash, 200 × 5 000 Kč chips, an empty tronc.
    let cage =
        |seq: u64, kind: &str, at: &str, fields: Value| record("CAGE", kind, seq, "D1", at, fields);
    let tx = |seq: u64, kind: &str, amount_h: i64, payment: Option<&str>| {
        let mut fields = json!({"kind": kind, "amount_h": amount_h});
        if let Some(p) = payment {
            fields["payment"] = json!(p);
        }
        if kind.starts_with("tournament") {
            fields["tournament_id"] = json!("T-1");
        }
        cage(seq, "cage_transaction", "2026-10-05T18:00:00Z", fields)
    };
    for r in [
        cage(
            1,
            "cage_open",
            "2026-10-05T12:00:00Z",
            json!({"cash_h": 100_000_000, "chips": chips(&[(500_000, 200)]), "tronc_h": 0}),
        ),
        tx(2, "chip_purchase", 1_000_000, Some("cash")),
        tx(3, "chip_purchase", 500_000, Some("cash")),
        tx(4, "chip_purchase", 800_000, Some("non_cash")),
        tx(5, "chip_redemption", 1_200_000, Some("cash")),
        tx(6, "chips_lost", 10_000, None),
        tx(7, "chips_found", 2_500, None),
        tx(8, "cash_in", 20_000_000, None),
        tx(9, "cash_out", 15_000_000, None),
        tx(10, "tournament_buy_in", 500_000, Some("cash")),
        // Cash: 1 000 000 + 10 000 + 5 000 − 12 000 + 200 000 − 150 000 + 5 000 = 1 058 000 Kč.
        // Chips: 1 000 000 − (10 000 + 5 000 + 8 000) + 12 000 = 989 000 Kč
        //        = 197 × 5 000 + 4 × 1 000 Kč.
        cage(
            11,
            "cage_close",
            "2026-10-06T03:00:00Z",
            json!({"cash_h": 105_800_000, "chips": chips(&[(500_000, 197), (100_000, 4)]), "tronc_h": 0}),
        ),
    ] {
        records.push((r, &cage_key));
    }
    for (r, k) in records {
        submitted_record(&app, r, k).await;
    }

    let (status, audit) = get(&app, "/api/v1/reports/periods?month=2026-10").await;
    assert_eq!(status, 200, "{audit}");
    let r01 = audit["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table_id"] == "R01")
        .unwrap();
    assert_eq!(
        (r01["rounds"].as_i64(), r01["rounds_result_h"].as_i64()),
        (Some(3), Some(-3_250_000))
    );
    assert_eq!(r01["table_win_h"], -3_250_000);
    // R02's count: −32 500 − 1 500 = −34 000 Kč against the rounds' −32 500 Kč.
    let findings: Vec<(&str, &str, Option<i64>)> = each(&audit["findings"], |f| {
        (
            f["table_id"].as_str().unwrap(),
            f["kind"].as_str().unwrap(),
            f["amount_h"].as_i64(),
        )
    });
    assert_eq!(
        findings,
        [
            ("R02", "round_outside_period", None),
            ("R02", "drop_not_reconciled", Some(-150_000)),
        ]
    );
    assert_eq!(audit["rounds_outside_periods"][0]["rounds"], 1);
    // October is over: nothing provisional about it.
    assert_eq!(
        (&audit["provisional"], &audit["provisional_note"]),
        (&json!(false), &Value::Null)
    );

    let (zip, headers) = package(
        &app,
        "/api/v1/reports/mf?month=2026-10&misto=kasino_1",
        Role::Compliance,
    )
    .await;
    assert_eq!(
        headers
            .get("x-dozor-provisional")
            .and_then(|v| v.to_str().ok()),
        Some("false")
    );
    let (_dir, _path, errors) = validate_zip(&zip, "12345679-M-202610-Z-kasino_1-01");
    assert_eq!(errors, Vec::<String>::new());

    let table = "12345679-S-R01-1";
    let period = table_row(&zip, "pokladna_stul_turnaj_bingo.csv", table);
    assert_eq!(period["PokladnaStulTurnajBingo"], "S");
    assert_eq!(period["CistyHerniVysledek"], "-32500,00");
    assert_eq!(period["ProvozOd"], "2026-10-05T18:00:00.0+02:00");
    assert_eq!(period["ProvozDo"], "2026-10-06T00:00:00.0+02:00");
    let holdings = rows(&zip, "prostredek.csv");
    // What the holding `id` held at the start of the day and at its end.
    let held = |id: String, start: &str, end: &str| {
        let r = row_where(&holdings, "IDZaznamProstredek", &id);
        let found = (r["StavVysePocatek"].as_str(), r["StavVyseKonec"].as_str());
        assert_eq!(found, (start, end), "{id}");
    };
    // Drop box cash, float, tronc.
    held(format!("{table}-0"), "0,00", "20000,00");
    held(format!("{table}-1"), "100000,00", "62500,00");
    held(format!("{table}-2"), "0,00", "100,00");
    let game = table_row(&zip, "hra_turnaj_bingo.csv", table);
    assert_eq!(
        (
            game["UhrnSazkyVyse"].as_str(),
            game["UhrnVyhryVyse"].as_str(),
            game["UhrnVraceneSazkyVyse"].as_str()
        ),
        ("3500,00", "36000,00", "0,00")
    );
    let possible = table_row(&zip, "mozna_vyhra_stul_bingo.csv", table);
    assert_eq!(possible["MoznaVyhraVyseKonec"], "900000,00");

    // The cage's day: movements by the Ministry's codes and payment (1 cash, 0 not).
    let cage_id = "12345679-P-CAGE-1";
    let transactions = rows(&zip, "pstb_transakce.csv");
    let amount = |id: &str| row_where(&transactions, "IDTransakce", id)["TransakceVyse"].clone();
    // Chip purchases in cash: 10 000 + 5 000 = 15 000 Kč; by card 8 000 Kč.
    assert_eq!(amount(&format!("{cage_id}-J1-1")), "15000,00");
    assert_eq!(amount(&format!("{cage_id}-J1-0")), "8000,00");
    assert_eq!(amount(&format!("{cage_id}-K1-1")), "12000,00");
    // Lost 100 Kč, found 25 Kč: 75 Kč written off.
    assert_eq!(amount(&format!("{cage_id}-L1")), "75,00");
    assert_eq!(amount(&format!("{cage_id}-3")), "200000,00");
    assert_eq!(amount(&format!("{cage_id}-7")), "150000,00");
    assert_eq!(amount(&format!("{cage_id}-1-1")), "5000,00");
    // And the table's drop: cash bought chips at the table (J2), 20 000 Kč.
    assert_eq!(amount(&format!("{table}-J2-1")), "20000,00");
    held(format!("{cage_id}-0"), "1000000,00", "1058000,00");
    held(format!("{cage_id}-1"), "1000000,00", "989000,00");

    // The command names every period finding of the month, one line each, as the audit has
    // them: the round outside R02's period and its drop 1 500 Kč short.
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("operator.key");
    ledger::operator_key::write_private(&key, &operator().private_key()).unwrap();
    std::fs::write(dir.path().join("dozor.toml"), OPERATOR_CONFIG).unwrap();
    let made = dozor()
        .args(["report", "mf", "--month", "2026-10", "--misto", "kasino_1"])
        .arg("--config")
        .arg(dir.path().join("dozor.toml"))
        .arg("--operator-key")
        .arg(&key)
        .arg("--out")
        .arg(dir.path())
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&made.stdout);
    assert!(made.status.success(), "{stdout}");
    assert!(stdout.contains("; 2 period findings"), "{stdout}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("period finding: "))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("R02") && lines[0].contains(": round_outside_period"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("R02") && lines[1].contains(": drop_not_reconciled (-1 500,00 Kč)"),
        "{stdout}"
    );
    assert!(!stdout.contains("provisional"), "{stdout}");
}

#[actix_web::test]
async fn the_package_route_answers_each_mistake_with_its_error() {
    let (state, _url) = api_state_configured();
    let app = test_app(&state).await;
    for (uri, status, code) in [
        (
            "/api/v1/reports/mf?month=2026-13&misto=kasino_1",
            400,
            "invalid_query",
        ),
        (
            "/api/v1/reports/mf?month=2026-10&misto=kasino_9",
            404,
            "unknown_premises",
        ),
        (
            "/api/v1/reports/mf?month=2026-10&misto=kasino_1&version=0",
            400,
            "invalid_query",
        ),
        (
            "/api/v1/reports/periods?month=10-2026",
            400,
            "invalid_query",
        ),
    ] {
        let (s, body) = get(&app, uri).await;
        assert_error(s, &body, status, code);
    }
    // Without the operator's configuration there is no package to make.
    let (_state, _url, app) = api_app().await;
    let (s, body) = get(&app, "/api/v1/reports/mf?month=2026-10&misto=kasino_1").await;
    assert_error(s, &body, 409, "not_configured");
}

#[actix_web::test]
async fn a_month_without_activity_still_gives_a_valid_package() {
    let (state, url) = api_state_configured();
    create_key(&url, Role::Regulator);
    let app = test_app(&state).await;
    // August: nothing. September: nothing, and the quarter's exchange-rate file.
    for (month, files) in [("2026-08", 9), ("2026-09", 10)] {
        let uri = format!("/api/v1/reports/mf?month={month}&misto=kasino_1");
        let (zip, _) = package(&app, &uri, Role::Regulator).await;
        let name = format!("12345679-M-{}-Z-kasino_1-01", month.replace('-', ""));
        let (_dir, _path, errors) = validate_zip(&zip, &name);
        assert_eq!(errors, Vec::<String>::new(), "{month}");
        let archive = zip::ZipArchive::new(std::io::Cursor::new(&zip)).unwrap();
        assert_eq!(archive.len(), files, "{month}");
        // The operator and the premises, and nothing else.
        assert_eq!(rows(&zip, "provozovatel.csv").len(), 1);
        assert_eq!(rows(&zip, "pokladna_stul_turnaj_bingo.csv").len(), 0);
    }
}

// `test` is actix's here; this one is the standard test attribute.
#[::core::prelude::v1::test]
fn the_command_writes_the_folder_and_zip_and_refuses_a_bad_configuration() {
    let url = ledger::storage::testing::fresh_database().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("operator.key");
    ledger::operator_key::write_private(&key, &operator().private_key()).unwrap();
    let config = dir.path().join("dozor.toml");
    std::fs::write(&config, OPERATOR_CONFIG).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let run_with = |config: &std::path::Path, misto: &str, extra: &[&str]| {
        dozor()
            .args(["report", "mf", "--month", "2026-10", "--misto", misto])
            .args(extra)
            .arg("--config")
            .arg(config)
            .arg("--operator-key")
            .arg(&key)
            .arg("--out")
            .arg(&out)
            .env("DATABASE_URL", &url)
            .output()
            .unwrap()
    };
    let run = |config: &std::path::Path, misto: &str| run_with(config, misto, &[]);
    let made = run(&config, "kasino_1");
    let stdout = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let name = "12345679-M-202610-Z-kasino_1-01";
    assert!(
        stdout.contains("sealed at ledger index 0 (issued now)"),
        "{stdout}"
    );
    let first_zip = std::fs::read(out.join(format!("{name}.zip"))).unwrap();
    // Made again from the same ledger: the same package, byte for byte, sealed once.
    let again = run(&config, "kasino_1");
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        stdout.contains(&format!("{name}.zip sha256 "))
            && stdout.contains("sealed at ledger index 0 (issued before, unchanged)"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(out.join(format!("{name}.zip"))).unwrap(),
        first_zip
    );
    // A version issued before is written as it was; one never issued is refused.
    let first = run_with(&config, "kasino_1", &["--version", "1"]);
    assert!(first.status.success());
    let never = run_with(&config, "kasino_1", &["--version", "2"]);
    assert_eq!(never.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&never.stderr)
        .contains("version 02 of this package has not been issued"));
    let checked = dozor()
        .args(["report", "mf-validate"])
        .arg(out.join(name))
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    assert!(out.join(format!("{name}.zip")).is_file());

    // A broken package: its errors on standard output, exit 1.
    std::fs::remove_file(out.join(name).join("misto.csv")).unwrap();
    let broken = dozor()
        .args(["report", "mf-validate"])
        .arg(out.join(name))
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&broken.stdout).trim(),
        "ERR_PKG_MISSING_FILE misto.csv: mandatory file is missing"
    );

    // An unknown premises, a configuration with a mistake: one line naming it, exit 2 (as for
    // every command that cannot run).
    let unknown = run(&config, "kasino_9");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("--misto `kasino_9`"));
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        OPERATOR_CONFIG.replace("region = \"PHA\"", "region = \"XXX\""),
    )
    .unwrap();
    let refused = run(&bad, "kasino_1");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("premises[0].region"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // An IČO whose check digit is wrong (12345679 → 12345678: the digit should be 9).
    std::fs::write(&bad, OPERATOR_CONFIG.replace("12345679", "12345678")).unwrap();
    let refused = run(&bad, "kasino_1");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("operator.ico") && stderr.contains("would be 9, not 8"),
        "{stderr}"
    );
}
