#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A compliance officer resolves findings over the API; each resolution is a ledger entry that
//! `dozor verify` checks from the ledger alone.

mod common;

use std::path::Path;
use std::process::Command;

use actix_web::test;
use common::*;
use diesel::RunQueryDsl as _;
use dozor_log::access::Role;
use serde_json::{json, Value};

/// The daily report's findings of table R01 on 2026-11-20 (the round's gaming day): total, open,
/// escalated, confirmed, dismissed, settled amount.
fn daily_states(report: &Value) -> [i64; 6] {
    let row = daily_row(report, "R01");
    [
        "findings",
        "findings_open",
        "findings_escalated",
        "findings_confirmed",
        "findings_dismissed",
        "findings_settled_h",
    ]
    .map(|column| row[column].as_i64().unwrap())
}

fn exported(url: &str, from: chrono::NaiveDate, to: chrono::NaiveDate) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // The export seals its reports with the ledger's operator key.
    let operator_key = dir.path().join("operator.key");
    std::fs::write(&operator_key, operator().private_key()).unwrap();
    dozor()
        .arg("export")
        .arg("--operator-key")
        .arg(&operator_key)
        .args(["--from", &from.to_string(), "--to", &to.to_string()])
        .arg(dir.path().join("export"))
        .env("DATABASE_URL", url)
        .succeeds();
    dir
}

fn verify_export_cli(dir: &Path) -> (Option<i32>, Value, String) {
    let out = dozor()
        .arg("verify")
        .arg(dir)
        .args(["--operator-key", &operator().verifier().to_string()])
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each change to a resolution or its round in a copy of `original` (MANIFEST recomputed, as a
/// forger would) fails verification, naming the line.
fn tampered_exports_are_caught(original: &Path) {
    let tampered = |edit: &dyn Fn(&Path)| {
        let copy = tempfile::tempdir().unwrap();
        let status = Command::new("cp")
            .arg("-r")
            .arg(original)
            .arg(copy.path().join("export"))
            .status()
            .unwrap();
        assert!(status.success());
        let dir = copy.path().join("export");
        edit(&dir);
        fix_manifest(&dir);
        let failure = verify_exported(&dir).unwrap_err();
        (failure.item, failure.message)
    };
    let replace = |file: &'static str, from: &'static str, to: &'static str| {
        move |dir: &Path| {
            edit_lines(dir, file, |lines| {
                let line = lines.iter_mut().find(|l| l.contains(from)).unwrap();
                *line = line.replace(from, to);
            })
        }
    };

    // The amount recovered changed in the confirmation (entry 5): its signature fails.
    let (item, message) = tampered(&replace(
        "registry.jsonl",
        r#""amount_settled_h":10000"#,
        r#""amount_settled_h":100"#,
    ));
    assert!(item.starts_with("registry.jsonl line "), "{item}");
    assert!(item.ends_with("(index 5)"), "{item}");
    assert!(message.contains("signature does not verify"), "{message}");

    // The resolved round's payout changed (no overpayment left to resolve): its signature fails.
    let (item, message) = tampered(&replace(
        "resolved-rounds.jsonl",
        r#""paid_h":370000"#,
        r#""paid_h":360000"#,
    ));
    assert_eq!(item, "resolved-rounds.jsonl line 1 (index 3)");
    assert!(message.contains("signature does not verify"), "{message}");

    // The round left out: the first resolution of its findings is named.
    let (item, message) = tampered(&|dir: &Path| {
        std::fs::write(dir.join("resolved-rounds.jsonl"), "").unwrap();
        let proofs = dir.join("resolved-rounds-proofs.json");
        let mut file: Value = serde_json::from_slice(&std::fs::read(&proofs).unwrap()).unwrap();
        file["proofs"] = json!([]);
        std::fs::write(&proofs, serde_json::to_vec(&file).unwrap()).unwrap();
    });
    assert_eq!(
        (item.as_str(), message.as_str()),
        (
            "registry.jsonl (index 4)",
            "resolves a finding of entry 3, which resolved-rounds.jsonl does not hold"
        )
    );

    // The round's inclusion proof changed: the round is not shown to be in the ledger.
    let (item, message) = tampered(&|dir: &Path| {
        let proofs = dir.join("resolved-rounds-proofs.json");
        let mut file: Value = serde_json::from_slice(&std::fs::read(&proofs).unwrap()).unwrap();
        file["proofs"][0]["proof"][0] = json!(hex::encode([7u8; 32]));
        std::fs::write(&proofs, serde_json::to_vec(&file).unwrap()).unwrap();
    });
    assert_eq!(item, "resolved-rounds.jsonl line 1 (index 3)");
    assert!(message.contains("the inclusion proof fails"), "{message}");
}

#[actix_web::test]
async fn a_finding_is_resolved_in_the_ledger_and_verify_checks_each_resolution() {
    // Entries 0-1: the admin and compliance keys; 2: the table; 3: the round.
    let (_state, url, app) = api_app().await;
    let post = |uri: &str, role: Role, body: Value| {
        test::TestRequest::post()
            .uri(uri)
            .insert_header(bearer(role))
            .set_json(body)
            .to_request()
    };
    let get = |uri: &str| role_get(uri, Role::Compliance);
    let (s, _) = call(
        &app,
        post("/api/v1/tables", Role::Admin, registration("R01", &key(1))),
    )
    .await;
    assert_eq!(s, 201);
    // 17 wins: the straight should get 35 × 100 Kč + the stake = 360 000 h, got 370 000 h
    // (overpaid by 10 000 h); red 200 Kč on a black number should get 0, got 40 000 h (overpaid
    // by 40 000 h).
    let round = spin(
        "R01",
        1,
        17,
        json!([straight("b1", 17, 10_000, 370_000),
               {"bet_id": "b2", "player": "seat-2", "kind": "red", "stake_h": 20_000, "paid_h": 40_000}]),
    );
    let (s, receipt) = call(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/records")
            .set_json(signed(round, &key(1)))
            .to_request(),
    )
    .await;
    assert_eq!((s, receipt["index"].as_u64()), (201, Some(3)), "{receipt}");
    let (_, page) = call(&app, get("/api/v1/findings?state=open")).await;
    let ids: Vec<(&str, &str, i64)> = each(&page["items"], |f| {
        (
            f["id"].as_str().unwrap(),
            f["kind"].as_str().unwrap(),
            f["amount_h"].as_i64().unwrap(),
        )
    });
    assert_eq!(
        ids,
        vec![("3.0", "overpaid", 10_000), ("3.1", "overpaid", 40_000)]
    );

    let daily = "/api/v1/reports/daily?day=2026-11-20";
    let (_, report) = call(&app, get(daily)).await;
    assert_eq!(daily_states(&report), [2, 2, 0, 0, 0, 0]);

    // Refused: no comment, a dismissal without a reason, an amount on an escalation, an unknown
    // finding, a bad id. Nothing is appended.
    let size = ledger_size(&url);
    for (uri, body, status, code) in [
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "confirmed", "comment": " "}),
            422,
            "invalid_resolution",
        ),
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "dismissed", "comment": "x"}),
            422,
            "invalid_resolution",
        ),
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "escalated", "comment": "x", "amount_settled_h": 5}),
            422,
            "invalid_resolution",
        ),
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "open", "comment": "x"}),
            422,
            "invalid_resolution",
        ),
        (
            "/api/v1/findings/3.2/resolutions",
            json!({"state": "confirmed", "comment": "x"}),
            404,
            "unknown_finding",
        ),
        (
            "/api/v1/findings/2.0/resolutions",
            json!({"state": "confirmed", "comment": "x"}),
            404,
            "unknown_finding",
        ),
        (
            "/api/v1/findings/3-0/resolutions",
            json!({"state": "confirmed", "comment": "x"}),
            400,
            "invalid_path",
        ),
        // 3.0 is overpaid by 100 Kč: settling 5 000 000 Kč needs a reason.
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "confirmed", "comment": "x", "amount_settled_h": 500_000_000}),
            422,
            "invalid_resolution",
        ),
        (
            "/api/v1/findings/3.0/resolutions",
            json!({"state": "confirmed", "comment": "x", "amount_settled_h": "10 Kč"}),
            400,
            "malformed_json",
        ),
    ] {
        let (s, b) = call(&app, post(uri, Role::Compliance, body.clone())).await;
        assert_eq!((s, b["code"].as_str()), (status, Some(code)), "{body}: {b}");
    }
    assert_eq!(ledger_size(&url), size);
    // The refusals say what to do in words.
    let (_, above) = call(
        &app,
        post(
            "/api/v1/findings/3.0/resolutions",
            Role::Compliance,
            json!({"state": "confirmed", "comment": "x", "amount_settled_h": 500_000_000}),
        ),
    )
    .await;
    assert_eq!(above["details"]["field"], "reason", "{above}");
    let message = message_of(&above);
    assert!(
        message.contains("5 000 000,00 Kč") && message.contains("100,00 Kč"),
        "{message}"
    );
    let (_, text) = call(
        &app,
        post(
            "/api/v1/findings/3.0/resolutions",
            Role::Compliance,
            json!({"state": "confirmed", "comment": "x", "amount_settled_h": "10 Kč"}),
        ),
    )
    .await;
    assert!(
        text.to_string().contains("whole number of haléře")
            && !text.to_string().contains("untagged"),
        "{text}"
    );

    // 3.0: escalated, then confirmed with 10 000 h recovered from the player.
    let (s, escalated) = call(
        &app,
        post(
            "/api/v1/findings/3.0/resolutions",
            Role::Compliance,
            json!({"state": "escalated", "comment": "needs the pit boss"}),
        ),
    )
    .await;
    assert_eq!(s, 201, "{escalated}");
    assert_eq!(escalated["ledger_entry"]["index"], 4);
    assert_eq!(
        (
            escalated["key_name"].as_str(),
            escalated["key_role"].as_str()
        ),
        (Some("test-compliance"), Some("compliance"))
    );
    let (s, confirmed) = call(
        &app,
        post(
            "/api/v1/findings/3.0/resolutions",
            Role::Compliance,
            json!({"state": "confirmed", "amount_settled_h": 10_000, "comment": "player repaid 100 Kč at the cage"}),
        ),
    )
    .await;
    assert_eq!(s, 201, "{confirmed}");
    // Mid-way: 3.0 confirmed with 10 000 h settled, 3.1 still open.
    let (_, report) = call(&app, get(daily)).await;
    assert_eq!(daily_states(&report), [2, 1, 0, 1, 0, 10_000]);
    // Escalated → escalated is not a step.
    let (s, b) = call(
        &app,
        post(
            "/api/v1/findings/3.1/resolutions",
            Role::Compliance,
            json!({"state": "escalated", "comment": "a"}),
        ),
    )
    .await;
    assert_eq!(s, 201, "{b}");
    let (s, b) = call(
        &app,
        post(
            "/api/v1/findings/3.1/resolutions",
            Role::Compliance,
            json!({"state": "escalated", "comment": "b"}),
        ),
    )
    .await;
    assert_eq!(
        (s, b["code"].as_str(), b["details"]["state"].as_str()),
        (409, Some("resolution_not_allowed"), Some("escalated")),
        "{b}"
    );
    assert_eq!(b["details"]["allowed"], json!(["confirmed", "dismissed"]));
    assert!(
        message_of(&b).ends_with("(from escalated it can become confirmed or dismissed)"),
        "{b}"
    );
    // 3.1: dismissed.
    let (s, b) = call(
        &app,
        post("/api/v1/findings/3.1/resolutions", Role::Compliance, json!({"state": "dismissed", "reason": "a bonus chip, paid by the promotion", "comment": "see promotion 11/2026"})),
    )
    .await;
    assert_eq!(s, 201, "{b}");

    // The daily report: one confirmed (10 000 h recovered), one dismissed, none open; and its CSV.
    let (_, report) = call(&app, get(daily)).await;
    assert_eq!(daily_states(&report), [2, 0, 0, 1, 1, 10_000]);
    let csv = reports::daily::to_csv(
        &reports::daily::build(
            &mut ledger::storage::connect(&url).unwrap(),
            &rules::gaming_day::GamingDayClock::default(),
            "2026-11-20".parse().unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let table_line: Vec<&str> = lines
        .find(|l| l.contains(",R01,"))
        .unwrap()
        .split(',')
        .collect();
    let column = |name: &str| table_line[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        [
            "findings_open",
            "findings_confirmed",
            "findings_dismissed",
            "findings_settled_h"
        ]
        .map(column),
        ["0", "1", "1", "10000"]
    );

    // The history in order, and the states by filter.
    let (s, finding) = call(&app, get("/api/v1/findings/3.0")).await;
    assert_eq!(s, 200);
    assert_eq!(finding["state"], "confirmed");
    let steps: Vec<(&str, Option<i64>)> = each(&finding["history"], |r| {
        (r["state"].as_str().unwrap(), r["amount_settled_h"].as_i64())
    });
    assert_eq!(
        steps,
        vec![("escalated", None), ("confirmed", Some(10_000))]
    );
    for (state_filter, expected) in [
        ("open", 0),
        ("confirmed", 1),
        ("dismissed", 1),
        ("escalated", 0),
    ] {
        let (_, page) = call(&app, get(&format!("/api/v1/findings?state={state_filter}"))).await;
        assert_eq!(page["total"], expected, "{state_filter}");
    }
    let (s, b) = call(&app, get("/api/v1/findings?state=closed")).await;
    assert_eq!((s, b["code"].as_str()), (400, Some("invalid_query")));

    // The ledger holds each resolution, and verify checks them: 4 resolutions, both findings
    // found again by re-adjudicating the round.
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        (
            report["resolutions"].as_u64(),
            report["resolved_findings_readjudicated"].as_u64()
        ),
        (Some(4), Some(2))
    );

    // Signed into a checkpoint, the resolutions survive `dozor export` and offline `verify`:
    // in an export of the period that holds them, and in one of a day long before (the
    // registry and the resolved rounds come with every export).
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), 8, chrono::Utc::now()).unwrap();
    let today = chrono::Utc::now().date_naive();
    let around_now = exported(&url, today.pred_opt().unwrap(), today.succ_opt().unwrap());
    let long_before = exported(
        &url,
        "2020-01-01".parse().unwrap(),
        "2020-01-01".parse().unwrap(),
    );
    for dir in [&around_now, &long_before] {
        let (code, report, stderr) = verify_export_cli(&dir.path().join("export"));
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(
            counts(&report, ["resolutions", "resolved_findings_readjudicated"]),
            [Some(4), Some(2)],
            "{report}"
        );
    }
    tampered_exports_are_caught(&long_before.path().join("export"));

    // A resolution row changed behind the ledger's back (as superuser, past the trigger) is named.
    let mut conn = ledger::storage::connect(&url).unwrap();
    diesel::sql_query("SET session_replication_role = replica")
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query("UPDATE finding_resolutions SET amount_settled_h = 0 WHERE ledger_index = 5")
        .execute(&mut conn)
        .unwrap();
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1));
    assert_eq!(report["failure"]["index"], 5);
    assert!(
        report["failure"]["reason"]
            .as_str()
            .unwrap()
            .contains("resolution row of finding 3.0 differs"),
        "{report}"
    );
    diesel::sql_query(
        "UPDATE finding_resolutions SET amount_settled_h = 10000 WHERE ledger_index = 5",
    )
    .execute(&mut conn)
    .unwrap();
    // A resolution deleted from the table is missed too.
    diesel::sql_query("DELETE FROM finding_resolutions WHERE ledger_index = 7")
        .execute(&mut conn)
        .unwrap();
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1));
    assert_eq!(report["failure"]["index"], 7, "{report}");
}
