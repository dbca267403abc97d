#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Ingest over HTTP: receipts, idempotency, conflicts, gaps — and every kind of bad input,
//! each answered with a clear 4xx `{code, message, details}` and nothing appended.

mod common;

use actix_web::test;
use common::*;
use serde_json::{json, Value};

async fn post_raw<S>(app: &S, uri: &str, body: Vec<u8>) -> (u16, Value)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
    >,
{
    let request = test::TestRequest::post()
        .uri(uri)
        .insert_header(("content-type", "application/json"))
        .set_payload(body)
        .to_request();
    call(app, request).await
}

/// POST of the revocation of R01's key `k` as an admin, saying `reason`.
async fn revoke_r01_key(
    app: &impl TestApp,
    k: &ed25519_dalek::SigningKey,
    reason: &str,
) -> (u16, Value) {
    let key_id = dozor_log::keys::key_id(&k.verifying_key());
    post(
        app,
        &format!("/api/v1/tables/R01/keys/{key_id}/revoke"),
        json!({"reason": reason}),
    )
    .await
}

#[actix_web::test]
async fn receipt_idempotency_conflict_and_gaps() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    let (status, table) = post(&app, "/api/v1/tables", registration("R01", &k)).await;
    assert_eq!(status, 201, "{table}");
    assert_eq!(table["plan_id"], "69games-ziva-hra");
    // The registration itself is ledger entry 2 (after the tests' two API keys), signed by the
    // operator.
    assert_eq!(table["ledger_entry"]["index"], 2);

    let record = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let receipt = posted_record(&app, record.clone(), &k).await;
    assert_eq!(receipt["index"], 3);
    assert_eq!(receipt["entry_hash"].as_str().unwrap().len(), 64);

    // Same record again: the same receipt, nothing appended.
    let (status, again) = post(&app, "/api/v1/records", signed(record.clone(), &k)).await;
    assert_eq!(status, 200);
    assert_eq!(again, receipt);
    // Written another way (indented, not canonical), it is still the same record.
    let pretty = serde_json::to_vec_pretty(&signed(record, &k)).unwrap();
    let (status, again) = post_raw(&app, "/api/v1/records", pretty).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, receipt);

    // A different record under seq_no 1: 409, and a significant event with the evidence.
    let other = spin("R01", 1, 5, json!([straight("b1", 17, 10_000, 0)]));
    let (status, body) = post(&app, "/api/v1/records", signed(other, &k)).await;
    assert_error(status, &body, 409, "seq_no_conflict");
    assert_eq!(body["details"]["existing"], receipt);
    let (_, events) = get(
        &app,
        "/api/v1/significant-events?table_id=R01&kind=seq_no_conflict",
    )
    .await;
    assert_eq!(events.as_array().unwrap().len(), 1);
    assert_eq!(events[0]["kind"], "seq_no_conflict");
    assert_eq!(
        events[0]["details"]["rejected_envelope"]["record"]["outcome"]["number"],
        5
    );
    assert_eq!(ledger_size(&url), 4);

    // seq_no 2 and 3 never arrive. seq_no 4 comes indented: the ledger keeps its canonical form.
    let fourth = spin("R01", 4, 0, json!([]));
    let pretty = serde_json::to_vec_pretty(&signed(fourth.clone(), &k)).unwrap();
    let (status, receipt_4) = post_raw(&app, "/api/v1/records", pretty).await;
    assert_eq!(status, 201, "{receipt_4}");
    let (_, entry) = get(
        &app,
        &format!("/api/v1/ledger/entries/{}", receipt_4["index"]),
    )
    .await;
    let canonical =
        String::from_utf8(dozor_log::canonical::canonicalize(&fourth).unwrap()).unwrap();
    assert!(
        entry["entry"]
            .as_str()
            .unwrap()
            .contains(&format!("\"record\":{canonical},")),
        "{entry}"
    );
    let (_, gaps) = get(&app, "/api/v1/tables/R01/gaps").await;
    assert_eq!(
        gaps,
        json!([{"table_id": "R01", "after_seq_no": 1, "before_seq_no": 4, "missing": 2}])
    );
    let (_, view) = get(&app, "/api/v1/tables/R01").await;
    assert_eq!(view["last_seq_no"], 4);

    // The stored entry carries the envelope and the verdict.
    let (status, entry) = get(&app, "/api/v1/ledger/entries/3").await;
    assert_eq!(status, 200);
    assert_eq!(entry["entry_hash"], receipt["entry_hash"]);
    assert_eq!(entry["verdict"]["expected_paid_h"], 360_000);
    assert_eq!(entry["prev_hash"], table["ledger_entry"]["entry_hash"]);
    // Entry 2: the registration, signed by the operator; entry 0 the first API key.
    let (status, entry) = get(&app, "/api/v1/ledger/entries/0").await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["prev_hash"], "0".repeat(64));
    let inner: Value = serde_json::from_str(entry["entry"].as_str().unwrap()).unwrap();
    assert_eq!(inner["envelope"]["record"]["type"], "api_key_created");
    let (status, entry) = get(&app, "/api/v1/ledger/entries/2").await;
    assert_eq!(status, 200, "{entry}");
    let inner: Value = serde_json::from_str(entry["entry"].as_str().unwrap()).unwrap();
    assert_eq!(inner["envelope"]["record"]["type"], "table_registered");
    assert_eq!(
        inner["envelope"]["key_id"],
        dozor_log::keys::key_id(&operator().verifier().key)
    );
    let (_, head) = get(&app, "/api/v1/ledger/head").await;
    assert_eq!(head["size"], 5);
}

#[actix_web::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let (_state, url, app) = api_app().await;
    let k = key(2);
    assert_eq!(
        post(&app, "/api/v1/tables", registration("R01", &k))
            .await
            .0,
        201
    );
    let good = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));

    // Malformed JSON.
    let (s, b) = post_raw(&app, "/api/v1/records", b"{\"record\": {".to_vec()).await;
    assert_error(s, &b, 400, "malformed_json");
    // Unknown field in the envelope; missing signature.
    let mut extra = signed(good.clone(), &k);
    extra["comment"] = json!("hi");
    let (s, b) = post(&app, "/api/v1/records", extra).await;
    assert_error(s, &b, 400, "invalid_envelope");
    let mut unsigned = signed(good.clone(), &k);
    unsigned.as_object_mut().unwrap().remove("signature");
    let (s, b) = post(&app, "/api/v1/records", unsigned).await;
    assert_error(s, &b, 400, "invalid_envelope");
    // Unknown field inside a (validly signed) record.
    let mut odd = good.clone();
    odd["croupier"] = json!("Jana");
    let (s, b) = post(&app, "/api/v1/records", signed(odd, &k)).await;
    assert_error(s, &b, 422, "invalid_record");
    // Bad signature: the signature of another record.
    let mut forged = signed(good.clone(), &k);
    forged["record"]["bets"][0]["paid_h"] = json!(3_600_000);
    let (s, b) = post(&app, "/api/v1/records", forged).await;
    assert_error(s, &b, 422, "bad_signature");
    let mut garbage = signed(good.clone(), &k);
    garbage["signature"] = json!("not-base64!!");
    let (s, b) = post(&app, "/api/v1/records", garbage).await;
    assert_error(s, &b, 422, "bad_signature");
    // Unknown key.
    let (s, b) = post(&app, "/api/v1/records", signed(good.clone(), &key(99))).await;
    assert_error(s, &b, 422, "unknown_key");
    // A record for an unregistered table.
    let (s, b) = post(
        &app,
        "/api/v1/records",
        signed(spin("R99", 1, 1, json!([])), &k),
    )
    .await;
    assert_error(s, &b, 422, "unknown_table");
    // Wrong game for the table.
    let mut blackjack = good.clone();
    blackjack["game"] = json!("blackjack");
    let (s, b) = post(&app, "/api/v1/records", signed(blackjack, &k)).await;
    assert_error(s, &b, 422, "wrong_game");
    // Negative and absurd amounts.
    for amount in [
        json!(-100),
        json!(1e30),
        json!(9_223_372_036_854_775_807i64),
        json!(200_000_000_000_000i64),
    ] {
        let bad = spin(
            "R01",
            1,
            17,
            json!([{"bet_id": "b1", "player": "p", "kind": "straight",
                                             "numbers": [17], "stake_h": amount, "paid_h": 0}]),
        );
        // Numbers JCS cannot canonicalize cannot be signed either: send them with some signature.
        let envelope = match dozor_log::Envelope::sign(bad.clone(), &k) {
            Ok(e) => serde_json::to_value(e).unwrap(),
            Err(_) => json!({"record": bad, "key_id": dozor_log::keys::key_id(&k.verifying_key()),
                             "signature": signed(good.clone(), &k)["signature"]}),
        };
        let (s, b) = post(&app, "/api/v1/records", envelope).await;
        assert_error(s, &b, 422, "invalid_record");
    }
    // Winning number 300: not even a number a pocket could have (37 is readable, and kept
    // with a `record_impossible` finding).
    let mut n300 = spin("R01", 1, 1, json!([]));
    n300["outcome"]["number"] = json!(300);
    let (s, b) = post(&app, "/api/v1/records", signed(n300, &k)).await;
    assert_error(s, &b, 422, "invalid_record");
    // A round "played" tomorrow.
    let mut future = good.clone();
    future["played_at"] = json!((chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339());
    let (s, b) = post(&app, "/api/v1/records", signed(future, &k)).await;
    assert_error(s, &b, 422, "played_at_in_future");
    // A body over the size limit (64 KiB in this test).
    let huge = signed(
        spin("R01", 1, 1, json!([{"bet_id": "x".repeat(70_000)}])),
        &k,
    );
    let (s, b) = post(&app, "/api/v1/records", huge).await;
    assert_error(s, &b, 413, "payload_too_large");
    assert_eq!(
        ledger_size(&url),
        3,
        "nothing may be appended after the keys and the registration"
    );

    // A revoked key: refused from the revocation on.
    let (s, b) = revoke_r01_key(&app, &k, "terminal stolen").await;
    assert_eq!(s, 200, "{b}");
    assert!(b["revoked_at"].is_string());
    assert_eq!(b["ledger_entry"]["index"], 3, "the revocation is entry 3");
    let (s, b) = post(&app, "/api/v1/records", signed(good.clone(), &k)).await;
    assert_error(s, &b, 422, "key_not_valid");
    assert_eq!(ledger_size(&url), 4);

    // A rotated key works; the table registry rejects junk too.
    let (s, b) = post(
        &app,
        "/api/v1/tables/R01/keys",
        json!({"public_key": dozor_log::keys::encode_public_key(&key(3).verifying_key()),
               "valid_from": PLAYS_FROM}),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(
        post(&app, "/api/v1/records", signed(good, &key(3))).await.0,
        201
    );
    let (s, b) = post(&app, "/api/v1/tables", registration("R01", &key(4))).await;
    assert_error(s, &b, 409, "already_exists");
    let bad_table = registration_of("R02", "bingo", &key(5));
    let (s, b) = post(&app, "/api/v1/tables", bad_table).await;
    assert_error(s, &b, 422, "invalid_table");
    let mut bad_key = registration("R02", &key(5));
    bad_key["public_key"] = json!("AAAA");
    let (s, b) = post(&app, "/api/v1/tables", bad_key).await;
    assert_error(s, &b, 422, "invalid_public_key");
    let (s, b) = get(&app, "/api/v1/findings?kind=nonsense").await;
    assert_error(s, &b, 400, "invalid_query");
    let (s, b) = get(&app, "/api/v1/reports/daily?day=2026-13-01").await;
    assert_error(s, &b, 400, "invalid_query");
}

/// A roulette spin on R01 of `seq_no` whose canonical record is 65 165 + `padding` bytes: 844
/// losing red bets, the ids of the last two `padding` characters longer between them (an id is
/// at most 64 characters).
fn spin_of_size(seq_no: u64, padding: usize) -> Value {
    let mut bets: Vec<Value> = (1..=844)
        .map(|n| {
            json!({"bet_id": format!("b{n:04}"), "kind": "red", "paid_h": 0, "player": "seat-1",
                   "stake_h": 10_000})
        })
        .collect();
    bets[842]["bet_id"] = json!(format!("b0843{}", "x".repeat(padding / 2)));
    bets[843]["bet_id"] = json!(format!("b0844{}", "x".repeat(padding - padding / 2)));
    spin("R01", seq_no, 17, Value::Array(bets))
}

#[actix_web::test]
async fn a_record_whose_entry_would_be_over_65_535_bytes_is_refused_and_nothing_is_appended() {
    let (_state, url, app) = api_app().await;
    let k = key(4);
    assert_eq!(
        post(&app, "/api/v1/tables", registration("R01", &k))
            .await
            .0,
        201
    );
    // The record without bets is 178 bytes of canonical JSON
    // (`{"bets":[],"game":"roulette","outcome":{"number":17,"result":"number"},…,"type":"round"}`);
    // a bet `{"bet_id":"b0001","kind":"red","paid_h":0,"player":"seat-1","stake_h":10000}` is 76,
    // with a comma between two: 844 bets make 178 + 844 · 76 + 843 = 65 165 bytes. Its entry adds
    // 86 bytes of fixed JSON, the quoted key id 18, the quoted signature 90, 64 hex digits of
    // prev_hash and the quoted time 29 (287), and the index: at most 19 digits before the index
    // is known. So 65 535 − 287 − 19 = 65 229 bytes fit: the last two ids 64 characters longer.
    let fits = spin_of_size(1, 64);
    let over = spin_of_size(1, 65);
    for (record, size) in [(&fits, 65_229), (&over, 65_230)] {
        let canonical = dozor_log::canonical::canonical_text(record).unwrap();
        assert_eq!(canonical.len(), size);
    }
    let before = ledger_size(&url);
    assert_eq!(before, 3, "two API keys and the registration");

    let (s, b) = post(&app, "/api/v1/records", signed(over.clone(), &k)).await;
    assert_error(s, &b, 413, "entry_too_large");
    // 65 230 + 287 + 19 = 65 536 bytes at the largest index; 65 230 − 1 fit.
    assert_eq!(b["details"]["entry_bytes"], 65_536, "{b}");
    assert_eq!(b["details"]["limit_bytes"], 65_535, "{b}");
    assert_eq!(b["details"]["record_bytes"], 65_230, "{b}");
    assert_eq!(b["details"]["record_limit_bytes"], 65_229, "{b}");
    let message = b["message"].as_str().unwrap();
    assert!(
        message.contains("65536 bytes") && message.contains("65535 bytes"),
        "{message}"
    );
    // In a batch: that record's result, the other record appended.
    let (s, b) = post(
        &app,
        "/api/v1/records/batch",
        json!([signed(over, &k), signed(spin("R01", 2, 17, json!([])), &k)]),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(batch_statuses(&b), vec![413, 201]);
    assert_eq!(b["results"][0]["error"]["code"], "entry_too_large");
    assert_eq!(
        ledger_size(&url),
        before + 1,
        "nothing appended for the record over the limit"
    );

    // Its sequence number was not used: the record that fits takes it.
    let receipt = posted_record(&app, fits, &k).await;
    assert_eq!(receipt["seq_no"], 1);
    let index = receipt["index"].as_u64().unwrap();
    assert_eq!(index, 4);
    // Stored at index 4 (one digit): 65 229 + 287 + 1 = 65 517 bytes.
    let mut conn = ledger::storage::connect(&url).unwrap();
    let row = ledger::storage::reads::entry(&mut conn, index)
        .unwrap()
        .unwrap();
    assert_eq!(row.entry.len(), 65_517);
    assert_eq!(ledger_size(&url), before + 2);
}

#[actix_web::test]
async fn a_batch_is_handled_record_by_record() {
    let (_state, url, app) = api_app().await;
    let k = key(3);
    let (status, _) = post(&app, "/api/v1/tables", registration("R01", &k)).await;
    assert_eq!(status, 201);
    let first = signed(
        spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)])),
        &k,
    );
    let mut forged = signed(spin("R01", 2, 17, json!([])), &k);
    forged["record"]["outcome"]["number"] = json!(18);
    let batch = json!([
        first.clone(),
        signed(spin("R01", 2, 5, json!([])), &k),
        first,
        forged,
        signed(spin("R01", 1, 9, json!([])), &k),
        {"record": 1},
    ]);
    let (status, body) = post(&app, "/api/v1/records/batch", batch).await;
    assert_eq!(status, 200, "{body}");
    let statuses = batch_statuses(&body);
    // New, new, the same record again, a broken signature, another record under seq_no 1, junk.
    assert_eq!(statuses, vec![201, 201, 200, 422, 409, 400]);
    assert_eq!(body["results"][0]["receipt"]["index"], 3);
    assert_eq!(body["results"][2]["receipt"], body["results"][0]["receipt"]);
    assert_eq!(body["results"][3]["error"]["code"], "bad_signature");
    assert_eq!(body["results"][4]["error"]["code"], "seq_no_conflict");
    assert_eq!(body["results"][5]["error"]["code"], "invalid_envelope");
    assert_eq!(
        ledger_size(&url),
        5,
        "two API keys, the registration and two rounds"
    );

    // Not an array, or too many: refused as a whole.
    let (status, body) = post(&app, "/api/v1/records/batch", json!({"record": 1})).await;
    assert_error(status, &body, 400, "malformed_json");
    let too_many = Value::Array(vec![json!({}); 1_001]);
    let (status, body) = post(&app, "/api/v1/records/batch", too_many).await;
    assert_error(status, &body, 400, "batch_too_large");
    assert_eq!(ledger_size(&url), 5);
}

#[actix_web::test]
async fn a_blackjack_round_is_adjudicated_from_its_cards() {
    let (_state, _url, app) = api_app().await;
    let k = key(7);
    let table = registration_of("BJ1", "blackjack", &k);
    register_table(&app, table).await;
    // Box T♣ 8♦ = 18 stands; the dealer 9♣ draws 9♦ = 18: a push returns the 100 Kč stake,
    // but the table paid 200 Kč: overpaid by 100 Kč = 10 000 h.
    let round = json!({
        "type": "round", "game": "blackjack", "table_id": "BJ1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T20:00:00Z", "shoe_id": "S1",
        "deal": ["Tc", "9c", "8d", "9d"],
        "boxes": [{"box": 1, "hands": [["stand"]],
                   "bets": [{"bet_id": "b1", "player": "p1", "kind": "main",
                             "stake_h": 10_000, "paid_h": 20_000}]}]
    });
    posted_record(&app, round.clone(), &k).await;
    let (status, page) = get(&app, "/api/v1/findings?table_id=BJ1").await;
    assert_eq!(status, 200, "{page}");
    let findings = page["items"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{page}");
    assert_eq!(findings[0]["kind"], "overpaid");
    assert_eq!(findings[0]["amount_h"], 10_000);
    // The daily report prices the round by basic strategy's house edge (about 0.52 % on six
    // decks, docs/RTP.md): a 100 Kč main bet is expected to return about 99.48 Kč.
    let (status, report) = get(&app, "/api/v1/reports/daily?day=2026-11-20&format=json").await;
    assert_eq!(status, 200, "{report}");
    let row = daily_row(&report, "BJ1");
    let theoretical = row["theoretical_rtp_pct"].as_f64().unwrap();
    assert!((99.4..99.6).contains(&theoretical), "{row}");
    assert_eq!(row["actual_rtp_pct"].as_f64(), Some(200.0), "{row}");
    // An impossible card is refused and appends nothing.
    let mut bad = round;
    bad["seq_no"] = json!(2);
    bad["deal"][1] = json!("1X");
    let (status, body) = post(&app, "/api/v1/records", signed(bad.clone(), &k)).await;
    assert_eq!(status, 422, "{body}");
    assert!(message_of(&body).contains("1X"), "{body}");
    let (_, table) = get(&app, "/api/v1/tables/BJ1").await;
    assert_eq!(table["last_seq_no"], 1, "{table}");
    // A deal too short for what the box did cannot have happened, but the table signed it:
    // it is appended, with a finding saying what is impossible.
    bad["deal"] = json!(["Tc", "9c", "8d"]);
    bad["boxes"][0]["hands"] = json!([["hit", "stand"]]);
    posted_record(&app, bad, &k).await;
    let (_, page) = get(&app, "/api/v1/findings?table_id=BJ1&kind=record_impossible").await;
    assert_eq!(page["total"], 1, "{page}");
    assert!(
        message_of(&page["items"][0]).contains("no card left"),
        "{page}"
    );
}

#[actix_web::test]
async fn the_shoe_audit_finds_a_seventh_ace_over_several_rounds() {
    let (_state, _url, app) = api_app().await;
    let k = key(8);
    let table = registration_of("BJ2", "blackjack", &k);
    assert_eq!(post(&app, "/api/v1/tables", table).await.0, 201);
    // A♠ comes out 2 + 2 + 3 = 7 times in shoe S1 of six decks: each round is possible on its
    // own; the third is where the shoe runs over.
    let deals: [(&[&str], Value); 3] = [
        (&["As", "Ts", "As", "7d"], json!([["stand"]])),
        (&["As", "Ts", "As", "7d"], json!([["stand"]])),
        (&["As", "Ts", "As", "As", "7d"], json!([["hit", "stand"]])),
    ];
    // Round 3 reaches the ledger before round 2: the audit follows the dealing order.
    let mut deals: Vec<(u64, (&[&str], Value))> = (1..).zip(deals).collect();
    deals.swap(1, 2);
    for (seq_no, (deal, hands)) in deals {
        let mut round = json!({
            "type": "round", "game": "blackjack", "table_id": "BJ2", "seq_no": seq_no,
            "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T20:00:00Z", "shoe_id": "S1",
            "deal": deal,
            "boxes": [{"box": 1, "hands": hands,
                       "bets": [{"bet_id": "b1", "player": "p1", "kind": "main",
                                 "stake_h": 10_000, "paid_h": 0}]}]
        });
        if seq_no == 1 {
            round["shuffled"] = json!(true);
            round["burned"] = json!(["2c", "3c", "4c"]);
        }
        posted_record(&app, round, &k).await;
    }
    let (status, audit) = get(&app, "/api/v1/reports/shoes?day=2026-11-20").await;
    assert_eq!(status, 200, "{audit}");
    let shoes = audit["shoes"].as_array().unwrap();
    assert_eq!(shoes.len(), 1, "{audit}");
    assert_eq!(shoes[0]["shoe_id"], "S1");
    assert_eq!(shoes[0]["from_shuffle"], true);
    assert_eq!(shoes[0]["rounds"], 3);
    // 3 burned + 4 + 4 + 5 dealt.
    assert_eq!(shoes[0]["cards"], 16);
    assert_eq!(shoes[0]["excess"], json!(["As ×7 (round 3)"]));
    // For people: the same shoe, its headings and yes or no in Czech.
    let (status, people) =
        get_text(&app, "/api/v1/reports/shoes?day=2026-11-20&format=csv-cz").await;
    assert_eq!(status, 200, "{people}");
    assert_eq!(
        python_czech_column(&people, "Karty rozdané vícekrát, než jich sáňky mají"),
        ["As ×7 (round 3)"]
    );
    assert_eq!(python_czech_column(&people, "Od zamíchání"), ["ano"]);
    assert_eq!(python_czech_column(&people, "Karet"), ["16"]);
    // The day before has no shoes; a bad format is a 400.
    let (_, empty) = get(&app, "/api/v1/reports/shoes?day=2026-11-19").await;
    assert_eq!(empty["shoes"], json!([]));
    let (status, body) = get(&app, "/api/v1/reports/shoes?day=2026-11-20&format=xml").await;
    assert_error(status, &body, 400, "invalid_query");
}

/// Wheel I's 36 segments in a physical order: the 1x segments spread round the wheel.
fn wheel_1_layout() -> Vec<String> {
    let mut labels: Vec<&str> = Vec::new();
    let others = [
        "2x",
        "5x",
        "2x",
        "10x",
        "2x",
        "5x",
        "2x",
        "25x_black",
        "2x",
        "5x",
        "2x",
        "10x",
        "2x",
        "5x",
        "2x",
        "25x_pink",
        "2x",
        "5x",
        "2x",
    ];
    for (i, other) in others.iter().enumerate() {
        // 17 `1x`, each followed by one of the others; the last two others end the wheel.
        if i < 17 {
            labels.push("1x");
        }
        labels.push(other);
    }
    labels.into_iter().map(str::to_owned).collect()
}

#[actix_web::test]
async fn a_money_wheel_is_registered_with_its_layout_and_judged_by_it() {
    let (_state, _url, app) = api_app().await;
    let k = key(9);
    let layout = wheel_1_layout();
    assert_eq!(layout.len(), 36);
    let mut table = registration_of("W1", "money_wheel_1", &k);
    // No layout, a layout one `1x` short, a layout on a roulette table: 422, nothing registered.
    let (status, body) = post(&app, "/api/v1/tables", table.clone()).await;
    assert_error(status, &body, 422, "invalid_table");
    assert_eq!(body["details"]["field"], "wheel_layout");
    let mut short = layout.clone();
    short[0] = "2x".into();
    table["wheel_layout"] = json!(short);
    let (status, body) = post(&app, "/api/v1/tables", table.clone()).await;
    assert_error(status, &body, 422, "invalid_table");
    assert!(message_of(&body).contains("17 segments `1x`"), "{body}");
    let mut roulette = registration("R9", &key(10));
    roulette["wheel_layout"] = json!(layout);
    let (status, body) = post(&app, "/api/v1/tables", roulette).await;
    assert_error(status, &body, 422, "invalid_table");
    table["wheel_layout"] = json!(layout);
    let (status, view) = post(&app, "/api/v1/tables", table).await;
    assert_eq!(status, 201, "{view}");
    assert_eq!(view["wheel_layout"], json!(layout));

    // Segment 15 of this layout is `25x_black`: 100 Kč on it gets 2 600 Kč; 100 Kč on the
    // pink 25x loses but was paid 2 600 Kč: overpaid by 2 600 Kč = 260 000 h.
    assert_eq!(layout[15], "25x_black");
    let spin = json!({
        "type": "round", "game": "money_wheel_1", "table_id": "W1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T20:00:00Z",
        "outcome": {"result": "segment", "segment": 15, "turns": 4},
        "bets": [
            {"bet_id": "b1", "player": "p1", "box": "25x_black", "stake_h": 10_000, "paid_h": 260_000},
            {"bet_id": "b2", "player": "p2", "box": "25x_pink", "stake_h": 10_000, "paid_h": 260_000}
        ]
    });
    let receipt = posted_record(&app, spin.clone(), &k).await;
    let (_, entry) = get(
        &app,
        &format!("/api/v1/ledger/entries/{}", receipt["index"]),
    )
    .await;
    assert_eq!(entry["verdict"]["segment_label"], "25x_black", "{entry}");
    assert_eq!(entry["verdict"]["expected_paid_h"], 260_000);
    let (_, page) = get(&app, "/api/v1/findings?table_id=W1").await;
    let findings = page["items"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{page}");
    assert_eq!(findings[0]["kind"], "overpaid");
    assert_eq!(findings[0]["amount_h"], 260_000);
    // A segment off the wheel cannot have happened, but the table signed it: appended, with a
    // finding saying so.
    let mut bad = spin;
    bad["seq_no"] = json!(2);
    bad["outcome"]["segment"] = json!(36);
    posted_record(&app, bad, &k).await;
    let (_, page) = get(&app, "/api/v1/findings?table_id=W1&kind=record_impossible").await;
    assert_eq!(page["total"], 1, "{page}");
}

#[actix_web::test]
async fn the_wheel_statistics_flag_a_wheel_that_lands_unevenly() {
    let (_state, _url, app) = api_app().await;
    let layout = wheel_1_layout();
    for (table_id, seed, tilted) in [("W-FAIR", 11, false), ("W-TILT", 12, true)] {
        let k = key(seed);
        let mut table = registration_of(table_id, "money_wheel_1", &k);
        table["wheel_layout"] = json!(layout);
        register_table(&app, table).await;
        // 216 spins: the fair wheel goes round the segments evenly (6 each); the tilted one
        // stops on segment 0 for the first 108 spins, then goes round evenly (3 each).
        for i in 0..216u64 {
            let segment = if tilted && i < 108 { 0 } else { i % 36 };
            let spin = json!({
                "type": "round", "game": "money_wheel_1", "table_id": table_id,
                "seq_no": i + 1, "plan_id": "69games-ziva-hra",
                "played_at": "2026-11-20T20:00:00Z",
                "outcome": {"result": "segment", "segment": segment, "turns": 4},
                "bets": []
            });
            posted_record(&app, spin, &k).await;
        }
    }
    let (status, report) = get(&app, "/api/v1/reports/wheels?month=2026-11").await;
    assert_eq!(status, 200, "{report}");
    let wheels = report["wheels"].as_array().unwrap();
    assert_eq!(wheels.len(), 2, "{report}");
    let fair = &wheels[0];
    assert_eq!(fair["table_id"], "W-FAIR");
    assert_eq!(fair["spins"], 216);
    assert_eq!(fair["counts"], json!(vec![6; 36]));
    assert_eq!(fair["chi_square"], 0.0);
    assert_eq!(fair["uneven"], false);
    // Tilted: segment 0 comes up 108 + 3 = 111 times, every other segment 3 times (108 spins
    // going round 3 times). Expected 6 each: (111 − 6)²/6 + 35 × (3 − 6)²/6 = 1 837.5 + 52.5
    // = 1 890 on 35 degrees of freedom.
    let tilted = &wheels[1];
    assert_eq!(tilted["counts"][0], 111);
    assert_eq!(tilted["counts"][1], 3);
    assert!((tilted["chi_square"].as_f64().unwrap() - 1_890.0).abs() < 1e-9);
    assert_eq!(tilted["degrees_of_freedom"], 35);
    assert!(tilted["p_value"].as_f64().unwrap() < 1e-100);
    assert_eq!(tilted["enough_spins"], true);
    assert_eq!(tilted["uneven"], true);
    assert_eq!(tilted["most_frequent"], format!("0 {} ×111", layout[0]));
    let (status, body) = get(&app, "/api/v1/reports/wheels?month=2026-13").await;
    assert_error(status, &body, 400, "invalid_query");
}

#[actix_web::test]
async fn a_roulette_wheel_whose_neighbours_come_up_too_often_is_flagged_by_its_sector() {
    let (_state, _url, app) = api_app().await;
    let k = key(13);
    let table = registration_of("R-SECT", "roulette", &k);
    register_table(&app, table).await;
    // 370 spins going round the numbers (10 each), then 8 more on each of 0, 32, 15, 19 and 4,
    // five neighbours on the wheel: 410 spins.
    let numbers = (0..370u64).map(|i| (i % 37) as u8).chain(
        [0u8, 32, 15, 19, 4]
            .into_iter()
            .flat_map(|n| std::iter::repeat_n(n, 8)),
    );
    for (i, number) in numbers.enumerate() {
        let mut record = spin("R-SECT", i as u64 + 1, number, json!([]));
        record["played_at"] = json!("2026-11-20T20:00:00Z");
        posted_record(&app, record, &k).await;
    }
    let (status, report) = get(&app, "/api/v1/reports/wheels?month=2026-11").await;
    assert_eq!(status, 200, "{report}");
    let wheel = &report["wheels"][0];
    assert_eq!(
        (wheel["table_id"].as_str(), wheel["game"].as_str()),
        (Some("R-SECT"), Some("roulette"))
    );
    assert_eq!(
        (wheel["spins"].as_u64(), wheel["segments"].as_u64()),
        (Some(410), Some(37))
    );
    // Chi-square: expected 410/37 = 11.0811 a number; 5 × (18 − 11.0811)²/11.0811 = 21.600,
    // 32 × (10 − 11.0811)²/11.0811 = 3.375: 24.975 on 36 degrees of freedom, p ≈ 0.91 — the
    // numbers alone look even.
    assert!(
        (wheel["chi_square"].as_f64().unwrap() - 24.975).abs() < 1e-3,
        "{wheel}"
    );
    assert_eq!(wheel["uneven"], false);
    // The sector 0 32 15 19 4: 90 spins; p = 5/37, expected 410 × 5/37 = 55.405, sd
    // √(410 × 5/37 × 32/37) = 6.9223; z = (90 − 55.405)/6.9223 = 4.998 ≥ 4.2: flagged.
    let sector = &wheel["sector"];
    assert_eq!(
        sector["pockets"],
        json!(["0", "32", "15", "19", "4"]),
        "{wheel}"
    );
    assert_eq!(sector["spins"], 90);
    assert!(
        (sector["z"].as_f64().unwrap() - 4.998).abs() < 1e-3,
        "{sector}"
    );
    assert_eq!(wheel["sector_bias"], true);
    assert_eq!(wheel["most_frequent"], "0 ×18");
}

#[actix_web::test]
async fn a_poker_hand_is_replayed_and_the_report_counts_the_rake_as_revenue() {
    let (_state, _url, app) = api_app().await;
    let k = key(13);
    let table = registration_of("P1", "poker_cash", &k);
    register_table(&app, table).await;
    // Heads-up Hold'em, blinds 25/50 Kč, button 2. Seat 2 raises to 150 Kč, seat 1 calls;
    // checked down, seat 1's kings beat seat 2's queens: pot 300 Kč, rake 5 % = 15 Kč, 285 Kč
    // to seat 1. The table took 20 Kč: 5 Kč too much rake, 5 Kč short to the winner.
    let hand = heads_up_kings_over_queens("2026-11-20T21:00:00Z", 28_000, 2_000);
    posted_record(&app, hand, &k).await;
    let (_, page) = get(&app, "/api/v1/findings?table_id=P1").await;
    let mut found: Vec<(String, i64)> = kinds_and_amounts(&page["items"]);
    found.sort();
    assert_eq!(
        found,
        [
            ("rake_wrong".to_owned(), 500),
            ("underpaid".to_owned(), 500)
        ]
    );
    let (_, report) = get(&app, "/api/v1/reports/daily?day=2026-11-20&format=json").await;
    let row = daily_row(&report, "P1");
    // Pots 300 Kč, paid out 280 Kč: the casino's revenue is the 20 Kč rake, 6.67 % of the pots.
    assert_eq!(row["ggr_basis"], "rake", "{row}");
    assert_eq!(row["stakes_h"], 30_000);
    assert_eq!(row["ggr_h"], 2_000);
    assert_eq!(row["rake_share_pct"], 6.6667);
    assert!(row["actual_rtp_pct"].is_null(), "{row}");
    // Time collection instead of rake: 200 Kč per player and half hour from two players.
    let collection = json!({
        "type": "time_collection", "game": "poker_cash", "table_id": "P1", "seq_no": 2,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-20T21:30:00Z",
        "period_minutes": 30, "per_player_h": 20_000,
        "players": [{"seat": 1, "player": "anna", "paid_h": 20_000},
                    {"seat": 2, "player": "bert", "paid_h": 20_000}]
    });
    let receipt = posted_record(&app, collection, &k).await;
    let (_, entry) = get(
        &app,
        &format!("/api/v1/ledger/entries/{}", receipt["index"]),
    )
    .await;
    assert_eq!(entry["verdict"]["stakes_h"], 40_000, "{entry}");
    assert_eq!(entry["verdict"]["findings"], json!([]));
}

#[actix_web::test]
async fn open_face_chinese_and_a_tournament_reach_the_daily_report() {
    let (_state, _url, app) = api_app().await;
    let (ofc_key, room_key) = (key(21), key(22));
    for (table_id, game, k) in [
        ("OFC1", "open_face_chinese", &ofc_key),
        ("ROOM", "poker_tournament", &room_key),
    ] {
        let table = registration_of(table_id, game, k);
        register_table(&app, table).await;
    }
    // Three players, C fouled, A scoops B (rules::ofc tests give the arithmetic): A +2 050 Kč,
    // B −820 Kč, C −1 230 Kč, rake 25 Kč each.
    let hand = ofc_scoop_hand();
    posted_record(&app, hand.clone(), &ofc_key).await;
    // A's queens in front earned 14 cards at once; the next hand deals A normally.
    let mut next = hand;
    next["seq_no"] = json!(2);
    next["played_at"] = json!("2026-11-20T21:04:00Z");
    posted_record(&app, next, &ofc_key).await;
    let (status, audit) = get(&app, "/api/v1/reports/fantasy?day=2026-11-20").await;
    assert_eq!(status, 200, "{audit}");
    assert_eq!(audit["hands"], 2);
    assert_eq!(
        audit["mismatches"],
        json!([{"table_id": "OFC1", "previous_seq_no": 1, "seq_no": 2,
                "message": "A: earned fantasy land with 14 cards in the previous hand, dealt a normal hand"}])
    );
    let (status, people) = get_text(
        &app,
        "/api/v1/reports/fantasy?day=2026-11-20&format=csv-cz&lang=en",
    )
    .await;
    assert_eq!(status, 200, "{people}");
    assert_eq!(
        python_czech_column(&people, "Mismatch"),
        ["A: earned fantasy land with 14 cards in the previous hand, dealt a normal hand"]
    );
    assert_eq!(
        python_czech_column(&people, "Previous hand (seq_no)"),
        ["1"]
    );
    // A freezeout of 5 entries at 2 000 Kč: moneypool 10 000 Kč, fee 10 % = 1 000 Kč, 9 000 Kč
    // under the 12 000 Kč guarantee: overlay 3 000 Kč. 5 entries: the winner takes 100 %.
    let mut tournament = tournament_record_with_prize(1_200_000);
    tournament["tournament_id"] = json!("friday-freezeout");
    posted_record(&app, tournament, &room_key).await;
    let (_, page) = get(&app, "/api/v1/findings?table_id=ROOM").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 0, "{page}");

    let (_, report) = get(&app, "/api/v1/reports/daily?day=2026-11-20&format=json").await;
    let row = |table: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["table_id"] == table)
            .unwrap()
            .clone()
    };
    // OFC, per hand: the losers' 820 + 1 230 Kč and the rake 3 × 25 Kč in, A's 2 050 Kč out:
    // 75 Kč; two hands.
    let ofc = row("OFC1");
    assert_eq!(ofc["ggr_basis"], "rake", "{ofc}");
    assert_eq!(ofc["stakes_h"], 2 * 212_500);
    assert_eq!(ofc["payouts_h"], 2 * 205_000);
    assert_eq!(ofc["ggr_h"], 2 * 7_500);
    // The tournament: 10 000 Kč in, 12 000 Kč out: −2 000 Kč = fee 1 000 − overlay 3 000.
    let room = row("ROOM");
    assert_eq!(room["ggr_basis"], "fee_less_overlay", "{room}");
    assert_eq!(room["stakes_h"], 1_000_000);
    assert_eq!(room["payouts_h"], 1_200_000);
    assert_eq!(room["ggr_h"], -200_000);
    assert_eq!(room["tournament_fees_h"], 100_000);
    assert_eq!(room["tournament_overlay_h"], 300_000);
    assert!(ofc["tournament_fees_h"].is_null());

    // A tournament whose prizes exceed the pool, and an OFC hand with a row of 4: the hand is
    // refused (422, nothing appended); the tournament is recorded with its findings.
    let mut greedy = tournament_record_with_prize(1_300_000);
    greedy["seq_no"] = json!(2);
    posted_record(&app, greedy, &room_key).await;
    let (_, page) = get(&app, "/api/v1/findings?table_id=ROOM").await;
    let kinds: Vec<&str> = finding_kinds(&page);
    assert_eq!(kinds.len(), 2, "{page}");
    assert!(kinds.contains(&"overpaid") && kinds.contains(&"chips_not_conserved"));
    let mut bad = ofc_scoop_hand();
    bad["seq_no"] = json!(3);
    bad["played_at"] = json!("2026-11-20T21:05:00Z");
    bad["players"] = json!([
        ofc_player(
            "A",
            OFC_DEALS[0],
            ["Qh Qd 2c 5h", "9s 9h 9c 4d", "As Ks 8s 6s 3s"],
            "2s 3h 4s 5s",
            0
        ),
        ofc_player(
            "B",
            OFC_DEALS[1],
            ["Jc Jh 3d", "Td Tc 7h 7s 2d", "5c 6d 7c 8h 9d"],
            "5d 6h 7d 8d",
            0
        )
    ]);
    bad["point_values"] = json!([{"players": ["A", "B"], "point_h": 10_000}]);
    // A four-card front cannot have happened, but the table signed it: appended, with a
    // finding naming the row.
    posted_record(&app, bad, &ofc_key).await;
    let (_, page) = get(
        &app,
        "/api/v1/findings?table_id=OFC1&kind=record_impossible",
    )
    .await;
    assert_eq!(page["total"], 1, "{page}");
    assert!(
        message_of(&page["items"][0]).contains("players[0].front"),
        "{page}"
    );
}

/// The freezeout above with the winner paid `prize_h`.
fn tournament_record_with_prize(prize_h: i64) -> Value {
    freezeout_of_five(
        "friday-freezeout-2",
        "2026-11-20",
        "2026-11-01T12:00:00Z",
        prize_h,
    )
}

/// Time sanity: a round played before its table plays under dozor, or before the key that
/// signed it became valid, is refused and changes nothing; a round older than the late-record
/// window is stored, logged as `late_record`, and its day's report says it changed after the
/// day closed, and when.
#[actix_web::test]
async fn rounds_before_registration_are_refused_and_late_ones_flagged() {
    let (_state, url, app) = api_app().await;
    let now = chrono::Utc::now();
    let at =
        |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let plays_from = now - chrono::Duration::days(10);
    let k = key(1);
    let mut table = registration("R01", &k);
    table["valid_from"] = json!(at(plays_from));
    register_table(&app, table).await;
    let head = ledger_size(&url);

    let round = |seq: u64, played: chrono::DateTime<chrono::Utc>| {
        let mut r = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        r["played_at"] = json!(at(played));
        r
    };
    // 1970 and one second before the table's start: refused, nothing appended.
    for played in [
        "1970-01-01T00:00:00Z".parse().unwrap(),
        plays_from - chrono::Duration::seconds(1),
    ] {
        let (status, body) = post(&app, "/api/v1/records", signed(round(1, played), &k)).await;
        assert_error(status, &body, 422, "played_before_registration");
        assert_eq!(ledger_size(&url), head);
    }

    // A second key valid only from two days ago: its records from before then are refused.
    let k2 = key(2);
    let key_from = now - chrono::Duration::days(2);
    let (status, body) = post(
        &app,
        "/api/v1/tables/R01/keys",
        json!({"public_key": dozor_log::keys::encode_public_key(&k2.verifying_key()),
               "valid_from": at(key_from)}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let head = ledger_size(&url);
    let early = round(1, key_from - chrono::Duration::minutes(1));
    let (status, body) = post(&app, "/api/v1/records", signed(early, &k2)).await;
    assert_error(status, &body, 422, "played_before_key");
    assert_eq!(ledger_size(&url), head);

    // Played 73 hours ago (window 72 h): stored, and flagged. Played an hour ago: not late.
    let late_played = now - chrono::Duration::hours(73);
    let late = posted_record(&app, round(1, late_played), &k).await;
    posted_record(&app, round(2, now - chrono::Duration::hours(1)), &k).await;
    let (_, events) = get(&app, "/api/v1/significant-events?kind=late_record").await;
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["ledger_index"], late["index"]);
    assert_eq!(events[0]["seq_no"], 1);
    let late_by = events[0]["details"]["late_by_seconds"].as_i64().unwrap();
    assert!((73 * 3600..73 * 3600 + 60).contains(&late_by), "{late_by}");

    let day = rules::gaming_day::GamingDayClock::default().day_of(late_played);
    let (status, report) = get(
        &app,
        &format!("/api/v1/reports/daily?day={day}&format=json"),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["late_after_hours"], 72);
    assert_eq!(report["late_rounds"], 1, "{report}");
    assert_eq!(
        report["last_late_received_at"], late["received_at"],
        "{report}"
    );
    let row = &report["rows"][0];
    assert_eq!(
        (row["table_id"].as_str(), row["late_rounds"].as_i64()),
        (Some("R01"), Some(1))
    );
    // The fresh round's day has nothing late.
    let today =
        rules::gaming_day::GamingDayClock::default().day_of(now - chrono::Duration::hours(1));
    let (_, report) = get(
        &app,
        &format!("/api/v1/reports/daily?day={today}&format=json"),
    )
    .await;
    assert_eq!(report["late_rounds"], 0, "{report}");
    assert_eq!(report["last_late_received_at"], Value::Null);
}

/// Free text people type (a revocation's reason, a table's location) cannot hold NUL, which
/// PostgreSQL refuses, or other control characters: a 422 naming the field, never a 500, and
/// nothing appended.
#[actix_web::test]
async fn control_characters_in_free_text_are_refused_before_the_database() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    register_table(&app, registration("R01", &k)).await;
    let (s, spare) = post(
        &app,
        "/api/v1/apikeys",
        json!({"name": "spare", "role": "reporter"}),
    )
    .await;
    assert_eq!(s, 201, "{spare}");
    let size = ledger_size(&url);

    let mut table = registration("R02", &key(2));
    table["location"] = json!("Praha\u{0}, sál 2");
    let (s, b) = post(&app, "/api/v1/tables", table).await;
    assert_error(s, &b, 422, "invalid_table");
    assert_eq!(b["details"]["field"], "location", "{b}");

    let key_id = dozor_log::keys::key_id(&k.verifying_key());
    let revoke_key = format!("/api/v1/tables/R01/keys/{key_id}/revoke");
    for reason in ["stolen\u{0}", "stolen\u{1b}[31m", " ", &"x".repeat(501)] {
        let (s, b) = post(&app, &revoke_key, json!({ "reason": reason })).await;
        assert_error(s, &b, 422, "invalid_revocation");
        assert_eq!(b["details"]["field"], "reason", "{b}");
    }
    let revoke_api_key = format!(
        "/api/v1/apikeys/{}/revoke",
        spare["key_id"].as_str().unwrap()
    );
    let (s, b) = post(&app, &revoke_api_key, json!({"reason": "left\u{0}"})).await;
    assert_eq!(s, 422, "{b}");
    assert_eq!(b["details"]["field"], "reason", "{b}");
    assert_eq!(ledger_size(&url), size, "nothing was appended");

    // A reason over two lines is a reason.
    let (s, b) = post(
        &app,
        &revoke_key,
        json!({"reason": "terminal stolen\nreported"}),
    )
    .await;
    assert_eq!(s, 200, "{b}");
}

/// A round is recorded once: the same table's `round_id` under another `seq_no` is refused
/// (409) and kept as a significant event, alone or in a batch, and counted once in reports;
/// another table may use the same id, and `verify` checks the ids the ledger keeps.
#[actix_web::test]
async fn a_round_reported_twice_under_another_seq_no_is_refused_and_kept_as_evidence() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    for (table, k) in [("R01", &k), ("R02", &key(2))] {
        register_table(&app, registration(table, k)).await;
    }
    let with_id = |table: &str, seq_no: u64, round_id: &str, paid_h: i64| {
        let mut round = spin(
            table,
            seq_no,
            17,
            json!([straight("b1", 17, 10_000, paid_h)]),
        );
        round["round_id"] = json!(round_id);
        round
    };
    // Straight on 17 wins 35:1: 10 000 × 36 = 360 000 paid back.
    let first = with_id("R01", 1, "R01-2026-11-20-0001", 360_000);
    let receipt = posted_record(&app, first.clone(), &k).await;
    // The same record again is the same round: its receipt, not a conflict.
    let (status, again) = post(&app, "/api/v1/records", signed(first, &k)).await;
    assert_eq!((status, &again), (200, &receipt));
    // The round again under seq_no 2 (the table resent it with a new number).
    let twice = with_id("R01", 2, "R01-2026-11-20-0001", 360_000);
    let (status, body) = post(&app, "/api/v1/records", signed(twice, &k)).await;
    assert_error(status, &body, 409, "round_id_conflict");
    assert_eq!(body["details"]["existing"], receipt, "{body}");
    assert_eq!(body["details"]["round_id"], "R01-2026-11-20-0001");
    let (_, events) = get(
        &app,
        "/api/v1/significant-events?table_id=R01&kind=round_id_conflict",
    )
    .await;
    assert_eq!(events.as_array().unwrap().len(), 1, "{events}");
    assert_eq!(events[0]["seq_no"], 2);
    assert_eq!(events[0]["ledger_index"], receipt["index"]);
    assert_eq!(
        events[0]["details"]["rejected_envelope"]["record"]["seq_no"],
        2
    );
    // In one batch: a new round, then the same id again — the second is refused.
    let batch = json!([
        signed(with_id("R01", 3, "R01-2026-11-20-0002", 0), &k),
        signed(with_id("R01", 4, "R01-2026-11-20-0002", 0), &k),
        signed(with_id("R02", 1, "R01-2026-11-20-0001", 360_000), &key(2)),
    ]);
    let (status, body) = post(&app, "/api/v1/records/batch", batch).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(batch_statuses(&body), [201, 409, 201], "{body}");
    assert_eq!(body["results"][1]["error"]["code"], "round_id_conflict");
    // A blank id names no round: two rounds under it are two rounds.
    for (seq_no, blank) in [(5, ""), (6, "  "), (7, "")] {
        posted_record(&app, with_id("R01", seq_no, blank, 0), &k).await;
    }
    // Counted once: R01 has five rounds (seq_no 1, 3, 5, 6 and 7), 50 000 staked.
    let (_, daily) = get(&app, "/api/v1/reports/daily?day=2026-11-20").await;
    let row = daily_row(&daily, "R01");
    assert_eq!(
        (row["rounds"].as_i64(), row["stakes_h"].as_i64()),
        (Some(5), Some(50_000)),
        "{row}"
    );
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{report} {stderr}");
}

#[actix_web::test]
async fn a_record_sent_again_after_its_key_was_revoked_gets_its_receipt() {
    let (_state, url, app) = api_app().await;
    let k = key(1);
    register_table(&app, registration("R01", &k)).await;
    let record = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let receipt = posted_record(&app, record.clone(), &k).await;

    let (s, b) = revoke_r01_key(&app, &k, "terminal replaced").await;
    assert_eq!(s, 200, "{b}");
    let size = ledger_size(&url);

    // The table's terminal sends its last record again (it never saw the first answer): the
    // receipt it was given before the revocation, alone and in a batch.
    let (status, again) = post(&app, "/api/v1/records", signed(record.clone(), &k)).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again, receipt);
    let (status, batch) = post(
        &app,
        "/api/v1/records/batch",
        json!([signed(record.clone(), &k)]),
    )
    .await;
    assert_eq!(status, 200, "{batch}");
    assert_eq!(batch["results"][0]["receipt"], receipt, "{batch}");

    // A new record of the revoked key is still refused, and nothing is appended.
    let next = spin("R01", 2, 5, json!([straight("b1", 17, 10_000, 0)]));
    let (s, b) = post(&app, "/api/v1/records", signed(next, &k)).await;
    assert_error(s, &b, 422, "key_not_valid");
    // A different record under the revoked key's old sequence number is refused as well.
    let other = spin("R01", 1, 5, json!([straight("b1", 17, 10_000, 0)]));
    let (s, _) = post(&app, "/api/v1/records", signed(other, &k)).await;
    assert!(s == 409 || s == 422, "{s}");
    assert_eq!(
        ledger_size(&url),
        size,
        "nothing appended after the revocation"
    );
}
