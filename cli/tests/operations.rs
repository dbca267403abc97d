#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Table operating periods and the cage: their records are signed and ingested like rounds,
//! each from the right kind of station.

mod common;

use common::*;
use dozor_log::keys::encode_public_key;
use serde_json::{json, Value};

fn cage_registration(table_id: &str, key: &ed25519_dalek::SigningKey) -> Value {
    json!({"table_id": table_id, "game": "cage", "location": "Praha, pokladna",
           "public_key": encode_public_key(&key.verifying_key()),
           "valid_from": PLAYS_FROM})
}

fn table_open(table_id: &str, seq_no: u64) -> Value {
    json!({"type": "table_open", "table_id": table_id, "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "period_id": "P1", "at": "2026-11-20T16:00:00Z",
           "float": [{"denomination_h": 10000, "count": 100}]})
}

fn cage_open(table_id: &str, seq_no: u64) -> Value {
    json!({"type": "cage_open", "table_id": table_id, "seq_no": seq_no,
           "plan_id": "69games-ziva-hra", "period_id": "D1", "at": "2026-11-20T14:00:00Z",
           "cash_h": 100_000_000, "chips": [], "tronc_h": 0})
}

#[actix_web::test]
async fn operation_records_are_ingested_from_their_own_kind_of_station() {
    let (_state, url, app) = api_app().await;
    let (table_key, cage_key) = (key(1), key(2));
    register_table(&app, registration("R01", &table_key)).await;
    let (status, body) = post(&app, "/api/v1/tables", cage_registration("CAGE", &cage_key)).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["game"], "cage");

    let size = ledger_size(&url);
    submitted_record(&app, table_open("R01", 0), &table_key).await;
    submitted_record(&app, cage_open("CAGE", 0), &cage_key).await;
    assert_eq!(ledger_size(&url), size + 2);

    // A cage record from a table, a table's record from the cage, a round from the cage: refused.
    let mut from_table = cage_open("R01", 1);
    from_table["period_id"] = json!("D2");
    for (record, signer) in [(from_table, &table_key), (table_open("CAGE", 1), &cage_key)] {
        let (status, body) = call(&app, record_request(record, signer)).await;
        assert_error(status, &body, 422, "wrong_station");
    }
    let (status, body) = call(
        &app,
        record_request(spin("CAGE", 1, 3, json!([])), &cage_key),
    )
    .await;
    assert_error(status, &body, 422, "wrong_game");
    // A malformed count is refused with its field; an operation dated before the station
    // was registered too.
    let mut bad = table_open("R01", 1);
    bad["float"] = json!([{"denomination_h": -5, "count": 1}]);
    let (status, body) = call(&app, record_request(bad, &table_key)).await;
    assert_error(status, &body, 422, "invalid_record");
    assert!(
        message_of(&body).contains("float[0].denomination_h"),
        "{body}"
    );
    let mut early = table_open("R01", 1);
    early["at"] = json!("2026-10-01T00:00:00Z");
    let (status, body) = call(&app, record_request(early, &table_key)).await;
    assert_error(status, &body, 422, "played_before_registration");
    assert_eq!(body["details"]["field"], "at");
    assert_eq!(ledger_size(&url), size + 2, "nothing refused was appended");
}

/// A signed operation record that never passed ingest (written straight into the ledger by
/// someone holding the table's key and the database) is named by `verify`.
#[actix_web::test]
async fn verify_names_an_operation_record_that_does_not_read() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    register_table(&app, registration("R01", &k)).await;
    submitted_record(&app, table_open("R01", 1), &k).await;
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{report} {stderr}");

    let mut bad = table_open("R01", 2);
    bad["float"] = json!([{"denomination_h": -5, "count": 1}]);
    let envelope = dozor_log::Envelope::sign(bad, &k).unwrap();
    let canonical = dozor_log::canonical::canonical_text(&envelope.record).unwrap();
    let submission = ledger::storage::append::Submission::new(
        envelope.key_id,
        envelope.signature,
        canonical,
        "table_open".into(),
        "R01".into(),
        2,
        None,
    );
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::append::append_batch(&mut conn, &[submission], chrono::Utc::now()).unwrap();
    let index = ledger_size(&url) - 1;
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        stderr.contains(&format!("index {index}"))
            && stderr.contains("table_open record that does not read"),
        "{stderr}"
    );
}

/// A cage's record signed by a gaming table's key, written past ingest, is named by `verify`.
#[actix_web::test]
async fn verify_names_a_cage_record_from_a_gaming_table() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    register_table(&app, registration("R01", &k)).await;
    let envelope = dozor_log::Envelope::sign(cage_open("R01", 1), &k).unwrap();
    let canonical = dozor_log::canonical::canonical_text(&envelope.record).unwrap();
    let header = rules::RecordHeader::read(&envelope.record).unwrap();
    let submission = ledger::storage::append::Submission::with_header(
        envelope.key_id,
        envelope.signature,
        canonical,
        header,
        None,
    );
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::append::append_batch(&mut conn, &[submission], chrono::Utc::now()).unwrap();
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        stderr.contains("a cage_open record from `R01`, registered as `roulette`"),
        "{stderr}"
    );
}
