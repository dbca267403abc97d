#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Merkle proofs over HTTP, checked with the verifier an inspector would use.

mod common;

use actix_web::test;
use common::*;
use dozor_log::access::Role;
use dozor_log::merkle::{verify_consistency, verify_inclusion, Hash};
use serde_json::{json, Value};

fn hash(v: &Value) -> Hash {
    hex::decode(v.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

/// GET of `uri` without a key, the body as JSON.
async fn unauthenticated_json(app: &impl TestApp, uri: &str) -> Value {
    test::call_and_read_body_json(app, test::TestRequest::get().uri(uri).to_request()).await
}

#[actix_web::test]
async fn inclusion_and_consistency_proofs_verify() {
    let (_state, _url, app) = admin_app().await;
    // Entry 0: the admin key that registers the table (entry 1).
    let k = key(6);
    register_table(&app, registration("R01", &k)).await;
    let mut receipts = Vec::new();
    for seq in 1..=7 {
        let record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        let req = record_request(record, &k);
        let receipt: Value = test::call_and_read_body_json(&app, req).await;
        receipts.push(receipt);
    }
    let get = |uri: String| test::TestRequest::get().uri(&uri).to_request();

    let body: Value =
        unauthenticated_json(&app, "/api/v1/ledger/proof/inclusion?index=2&size=5").await;
    let proof: Vec<Hash> = body["proof"].as_array().unwrap().iter().map(hash).collect();
    // Entries 0 and 1 are the admin key and the table's registration, so entry 2 is the first
    // round.
    assert_eq!(body["leaf_hash"], receipts[0]["entry_hash"]);
    assert!(verify_inclusion(
        2,
        5,
        &hash(&body["leaf_hash"]),
        &proof,
        &hash(&body["root"])
    ));

    // Against the current size when none is given.
    let body: Value = unauthenticated_json(&app, "/api/v1/ledger/proof/inclusion?index=6").await;
    assert_eq!(body["size"], 9);

    let body: Value =
        unauthenticated_json(&app, "/api/v1/ledger/proof/consistency?first=3&second=7").await;
    let proof: Vec<Hash> = body["proof"].as_array().unwrap().iter().map(hash).collect();
    assert!(verify_consistency(
        3,
        7,
        &proof,
        &hash(&body["first_root"]),
        &hash(&body["second_root"])
    ));

    // Well-formed, about a leaf or tree the ledger does not have: 404.
    for uri in [
        "/api/v1/ledger/proof/inclusion?index=5&size=5",
        "/api/v1/ledger/proof/inclusion?index=1&size=99",
        "/api/v1/ledger/proof/consistency?first=6&second=5",
        "/api/v1/ledger/proof/consistency?first=2&second=10",
    ] {
        let response = test::call_service(&app, get(uri.into())).await;
        assert_eq!(response.status().as_u16(), 404, "{uri}");
        let body: Value = test::read_body_json(response).await;
        assert_eq!(body["code"], "no_such_proof", "{uri}");
    }
    // Outside what the document allows (tree sizes start at 1): 400.
    for uri in [
        "/api/v1/ledger/proof/consistency?first=0&second=5",
        "/api/v1/ledger/proof/inclusion?index=0&size=0",
    ] {
        let response = test::call_service(&app, get(uri.into())).await;
        assert_eq!(response.status().as_u16(), 400, "{uri}");
    }
    let response =
        test::call_service(&app, get("/api/v1/ledger/proof/inclusion?index=-1".into())).await;
    assert_eq!(response.status().as_u16(), 400);
}

#[actix_web::test]
async fn checkpoints_cover_every_receipt_within_the_bound() {
    use dozor_log::checkpoint::{open, Checkpoint, NoteVerifier};
    use ledger::ingest::CheckpointPolicy;
    let witness_dir = tempfile::tempdir().unwrap();
    let witness = ledger::witness::Witness::new(witness_dir.path().join("witness.jsonl"));
    let (state, url) = state_with(|s| {
        s.checkpoints = Some(CheckpointPolicy {
            every_entries: 4,
            every: std::time::Duration::from_millis(300),
            witness: Some(witness.clone()),
        })
    });
    create_key(&url, Role::Admin);
    let app = test_app(&state).await;
    let k = key(7);
    register_table(&app, registration("R01", &k)).await;
    for seq in 1..=6 {
        let record = spin("R01", seq, 3, json!([straight("b1", 3, 10_000, 360_000)]));
        let req = record_request(record, &k);
        assert_eq!(test::call_service(&app, req).await.status().as_u16(), 201);
    }
    // Within the 300 ms bound (plus slack for a loaded machine) a checkpoint covers all 8 entries
    // (the admin key, the registration and six rounds).
    let mut note = String::new();
    let mut verifier_key = String::new();
    for _ in 0..50 {
        let response = test::call_service(
            &app,
            test::TestRequest::get()
                .uri("/api/v1/ledger/checkpoint")
                .to_request(),
        )
        .await;
        if response.status().as_u16() == 200 {
            verifier_key = response
                .headers()
                .get("X-Dozor-Verifier-Key")
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            note = String::from_utf8(test::read_body(response).await.to_vec()).unwrap();
            if note.contains("\n8\n") {
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(verifier_key, operator().verifier().to_string());
    let verifier = NoteVerifier::parse(&verifier_key).unwrap();
    let (text, signers) = open(&note, &[verifier]).unwrap();
    assert_eq!(signers, vec!["dozor.test/ledger".to_owned()]);
    let checkpoint = Checkpoint::parse(text).unwrap();
    assert_eq!(
        (checkpoint.origin.as_str(), checkpoint.size),
        ("dozor.test/ledger", 8),
        "{note}"
    );
    // The checkpoint's root is the tree's root at that size.
    let body = unauthenticated_json(&app, "/api/v1/ledger/proof/inclusion?index=0&size=8").await;
    assert_eq!(hash(&body["root"]), checkpoint.root);
    // Every checkpoint the writer signed is in the witness file too, outside the database.
    let witnessed = witness.read(&[operator().verifier()]).unwrap();
    let last = witnessed.last().unwrap();
    assert_eq!((last.size, last.root), (8, checkpoint.root));
    // The fourth entry made one due: signed in the transaction that appended it, its root from
    // the writer's frontier, which must be the stored tree's.
    let at_4 = witnessed.iter().find(|c| c.size == 4).unwrap();
    let body = unauthenticated_json(&app, "/api/v1/ledger/proof/inclusion?index=0&size=4").await;
    assert_eq!(hash(&body["root"]), at_4.root);
}
