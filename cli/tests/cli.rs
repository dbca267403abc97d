#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The `dozor` binary as integrators and operators use it.

mod common;

use actix_web::test as web_test;
use common::*;
use serde_json::{json, Value};

#[test]
fn keygen_sign_and_adjudicate_a_record_file() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("table.key");
    let out = dozor().args(["keygen", "--out"]).arg(&key_file).succeeds();
    let keygen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keygen["key_id"].as_str().unwrap().len(), 16);
    // Refuses to overwrite a key by accident.
    assert!(!dozor()
        .args(["keygen", "--out"])
        .arg(&key_file)
        .status()
        .unwrap()
        .success());

    // Overpaid by 10 Kč: 100 Kč on 17 pays 3 600 Kč, the table paid 3 610 Kč.
    let record_file = dir.path().join("round.json");
    let record = spin("R01", 1, 17, json!([straight("b1", 17, 10_000, 361_000)]));
    std::fs::write(&record_file, record.to_string()).unwrap();
    let envelope_file = dir.path().join("envelope.json");
    dozor()
        .args(["sign", "--key"])
        .arg(&key_file)
        .arg(&record_file)
        .arg("--out")
        .arg(&envelope_file)
        .succeeds();
    let envelope: Value =
        serde_json::from_str(&std::fs::read_to_string(&envelope_file).unwrap()).unwrap();
    assert_eq!(envelope["key_id"], keygen["key_id"]);
    let parsed: dozor_log::Envelope = serde_json::from_value(envelope).unwrap();
    let public = dozor_log::keys::parse_public_key(keygen["public_key"].as_str().unwrap()).unwrap();
    assert!(parsed.verify(&public).is_ok());

    for file in [&record_file, &envelope_file] {
        let out = dozor().arg("adjudicate").arg(file).output().unwrap();
        assert!(out.status.success());
        let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(verdict["findings"][0]["kind"], "overpaid");
        assert_eq!(verdict["findings"][0]["amount_h"], 1_000);
    }
    let status = dozor()
        .args(["adjudicate", "--fail-on-findings"])
        .arg(&record_file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));

    // A record that cannot be read as a round (a negative stake): one line on stderr,
    // non-zero exit.
    let negative = spin("R01", 1, 17, json!([straight("b1", 17, -100, 0)]));
    std::fs::write(&record_file, negative.to_string()).unwrap();
    let stderr = dozor().arg("adjudicate").arg(&record_file).fails();
    assert!(stderr.contains("stake_h"), "{stderr}");
    // One that reads but cannot have happened (pocket 37): a verdict with the finding.
    std::fs::write(&record_file, spin("R01", 1, 37, json!([])).to_string()).unwrap();
    let out = dozor()
        .args(["adjudicate", "--fail-on-findings"])
        .arg(&record_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let verdict: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["findings"][0]["kind"], "record_impossible");
}

/// A money wheel spin is judged by the table's own segment order, which the record does not
/// carry: offline, `adjudicate` takes it as the table's configuration.
#[test]
fn a_wheel_spin_is_adjudicated_offline_with_the_tables_layout() {
    let dir = tempfile::tempdir().unwrap();
    let record_file = dir.path().join("spin.json");
    // The pointer stopped on segment 0; 100 Kč on 25x_black was paid 2 600 Kč (25:1 + stake).
    let record = json!({
        "type": "round", "game": "money_wheel_1", "table_id": "W1", "seq_no": 1,
        "plan_id": "69games-ziva-hra", "played_at": "2026-11-21T22:10:03Z",
        "outcome": {"result": "segment", "segment": 0, "turns": 4},
        "bets": [{"bet_id": "b1", "player": "seat-1", "box": "25x_black",
                  "stake_h": 10_000, "paid_h": 260_000}]
    });
    std::fs::write(&record_file, record.to_string()).unwrap();
    // Wheel I of the plan: 17 × 1x, 10 × 2x, 5 × 5x, 2 × 10x, 25x_black, 25x_pink (36 segments).
    let mut rest: Vec<&str> = Vec::new();
    for (label, count) in [("1x", 17), ("2x", 10), ("5x", 5), ("10x", 2)] {
        rest.extend(std::iter::repeat_n(label, count));
    }
    let black_first = [vec!["25x_black"], rest.clone(), vec!["25x_pink"]].concat();
    let black_last = [rest, vec!["25x_pink", "25x_black"]].concat();

    // Without the layout the spin cannot be judged: one line, non-zero exit.
    let stderr = dozor().arg("adjudicate").arg(&record_file).fails();
    assert!(stderr.contains("segment layout"), "{stderr}");

    // Segment 0 is 25x_black: the bet wins 25:1, 10 000 h × 26 = 260 000 h back, as paid.
    let out = dozor()
        .arg("adjudicate")
        .arg(&record_file)
        .arg("--wheel-layout")
        .arg(black_first.join(","))
        .succeeds();
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["findings"], json!([]), "{verdict}");
    assert_eq!(verdict["segment_label"], "25x_black", "{verdict}");

    // Segment 0 is 1x on another table: 25x_black loses, so all 260 000 h paid is overpaid.
    let config = dir.path().join("table.json");
    std::fs::write(&config, json!({ "wheel_layout": black_last }).to_string()).unwrap();
    let out = dozor()
        .arg("adjudicate")
        .arg(&record_file)
        .arg("--table-config")
        .arg(&config)
        .succeeds();
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verdict["findings"][0]["kind"], "overpaid", "{verdict}");
    assert_eq!(verdict["findings"][0]["amount_h"], 260_000, "{verdict}");

    // A layout the plan does not allow (one segment short) is refused.
    let stderr = dozor()
        .arg("adjudicate")
        .arg(&record_file)
        .arg("--wheel-layout")
        .arg(black_first[1..].join(","))
        .fails();
    assert!(stderr.contains("table configuration"), "{stderr}");
}

#[actix_web::test]
async fn verify_walks_the_ledger_and_names_a_tampered_index() {
    let (_state, url, app) = admin_app().await;
    let k = key(8);
    let operator_key = operator().verifier().to_string();
    register_table(&app, registration("R01", &k)).await;
    for seq in 1..=4 {
        let record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        let req = record_request(record, &k);
        assert_eq!(
            web_test::call_service(&app, req).await.status().as_u16(),
            201
        );
    }
    // The operator's own key file, as `serve` is given it, works too.
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("operator.key");
    std::fs::write(&key_file, operator().private_key()).unwrap();
    let out = dozor()
        .arg("verify")
        .env("DATABASE_URL", &url)
        .env("DOZOR_OPERATOR_KEY", &key_file)
        .succeeds();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The admin key, the registration and four rounds.
    assert_eq!(report["entries_checked"], 6);
    assert_eq!(report["registry_events"], 2);
    assert_eq!(report["api_keys"], 1);

    // Without the operator's key the registry events are not trusted.
    let out = dozor()
        .args([
            "verify",
            "--operator-key",
            &common::operator_with(7).verifier().to_string(),
        ])
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BROKEN at index 0"));

    // As superuser, bypass the append-only trigger and change a payout inside entry 3.
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::testing::rewrite_entry(
        &mut conn,
        3,
        "\"paid_h\":360000",
        "\"paid_h\":3600000",
    )
    .unwrap();
    let out = dozor()
        .args(["verify", "--operator-key", &operator_key])
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["failure"]["index"], 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("BROKEN at index 3"));
}

#[test]
fn rtp_prints_the_computed_table_of_the_plan_and_refuses_an_unknown_plan() {
    let out = dozor().arg("rtp").succeeds();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |bet: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(bet))
            .unwrap_or_else(|| panic!("no {bet} line in\n{text}"))
            .to_owned()
    };
    // 36/37; 268/311 (Perfect Pairs, 6 decks); 129 104 860 / 133 784 560 reduced (Trips).
    assert!(line("straight").contains("36/37"));
    assert!(line("perfect_pairs").contains("86.1736%"));
    assert!(line("perfect_pairs").contains("268/311"));
    assert!(line("trips").contains("96.5021%"));
    assert!(line("trips").contains("6455243/6689228"));

    let out = dozor()
        .args(["rtp", "--plan-id", "nonesuch"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no bundled plan `nonesuch`"));
}

/// `dozor serve` with a bad configuration stops before touching anything: one line naming the
/// key and where the value came from, exit status 2, no database started.
#[test]
fn a_bad_configuration_stops_the_server_with_one_line_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("dozor.toml");
    let serve = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = dozor();
        command
            .env_remove("DATABASE_URL")
            .envs(env.iter().copied())
            .arg("--data-dir")
            .arg(dir.path())
            .arg("serve")
            .args(args);
        command.fails()
    };
    std::fs::write(&config, "[ledger]\ncheckpoint_every = \"often\"\n").unwrap();
    let line = serve(&[], &[]);
    assert!(line.contains("key `ledger.checkpoint_every`"), "{line}");
    assert!(line.contains("dozor.toml"), "{line}");
    std::fs::write(&config, "[server]\nlissen = \"0.0.0.0:80\"\n").unwrap();
    let line = serve(&[], &[]);
    assert!(line.contains("lissen"), "{line}");
    // The environment and the flags are read by the same loader, and name their source.
    std::fs::write(&config, "[server]\nlisten = \"127.0.0.1:0\"\n").unwrap();
    let line = serve(&[("DOZOR_API_KEY_RATE", "many")], &[]);
    assert!(line.contains("key `limits.api_key_rate`"), "{line}");
    assert!(line.contains("DOZOR_API_KEY_RATE"), "{line}");
    let line = serve(&[], &["--nightly-at", "7pm"]);
    assert!(line.contains("key `reports.nightly_at`"), "{line}");
    let line = serve(&[], &["--config", "/nonexistent/dozor.toml"]);
    assert!(line.contains("does not exist"), "{line}");
    // Nothing was started: no cluster, no operator key.
    assert!(!dir.path().join("pg").exists());
    assert!(!dir.path().join("operator.key").exists());
}

#[test]
fn the_operator_key_is_printed_with_a_fingerprint_sha256sum_gives_too() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("operator.key");
    ledger::operator_key::write_private(&key, &operator().private_key()).unwrap();
    let out = dozor()
        .args(["operator-key", "--json", "--operator-key"])
        .arg(&key)
        .succeeds();
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let verifier = operator().verifier().to_string();
    assert_eq!(printed["verifier_key"], verifier.as_str());
    // The fingerprint is what coreutils' sha256sum gives for the key as written, in fours.
    let mut sum = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(sum.stdin.as_mut().unwrap(), verifier.as_bytes()).unwrap();
    let digest = String::from_utf8(sum.wait_with_output().unwrap().stdout).unwrap();
    let digest = digest.split_whitespace().next().unwrap();
    assert_eq!(
        printed["fingerprint"].as_str().unwrap().replace(' ', ""),
        digest
    );
    // An inspector's copy of the key, checked and fingerprinted without the server's files.
    let copy = dozor()
        .args(["operator-key", "--verifier", &verifier])
        .output()
        .unwrap();
    assert!(copy.status.success());
    assert!(
        String::from_utf8_lossy(&copy.stdout).contains(printed["fingerprint"].as_str().unwrap())
    );
    // A key whose id does not match its name and key: one line, exit 2.
    let forged = verifier.replacen('+', "x+", 1);
    let refused = dozor()
        .args(["operator-key", "--verifier", &forged])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr)
            .trim()
            .lines()
            .count(),
        1
    );
}
