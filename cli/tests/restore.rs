#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The restore drill: a base backup and the archived WAL of the cluster `dozor serve` runs on,
//! restored into a fresh cluster to a point in time before the last records. `dozor verify
//! --witness` names what the restore lost (the witnessed checkpoint's size and the ledger's),
//! and `dozor serve` refuses to append to the restored ledger until the operator accepts the
//! loss, on the record (`dozor log accept-rollback`).

mod common;

use std::os::unix::fs::PermissionsExt as _;
use std::time::Duration;

use common::poll::wait_for_witnessed;
use common::site::Site;
use common::{key, registration, submit_spins, Succeeds as _};
use diesel::prelude::*;
use ledger::storage::cluster::LocalCluster;
use serde_json::{json, Value};

/// A directory PostgreSQL's user (`postgres` when the tests run as root) may write.
fn shared_dir(parent: &std::path::Path, name: &str) -> std::path::PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    dir
}

#[derive(QueryableByName)]
struct Text {
    #[diesel(sql_type = diesel::sql_types::Text)]
    text: String,
}

/// `dozor verify --witness` of the ledger at `url`, which must pass: its report and stderr.
fn verified(site: &Site, url: &str, witness: &str) -> (Value, String) {
    let out = site
        .dozor()
        .env("DATABASE_URL", url)
        .args(["verify", "--witness", witness])
        .succeeds();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["failure"].is_null(), "{report}");
    (report, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_restore_to_an_earlier_point_is_named_by_verify_and_refused_by_the_server_until_accepted_on_the_record(
) {
    let work = tempfile::tempdir().unwrap();
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let archive = shared_dir(work.path(), "wal-archive");
    let backups = shared_dir(work.path(), "backups");
    let backup = backups.join("base");

    // The cluster archives its WAL; the base backup is taken before dozor's first record.
    let primary = LocalCluster::temporary_archiving(&archive).unwrap();
    primary.create_database("dozor").unwrap();
    let url = primary.tcp_url("postgres", "dozor").unwrap();
    ledger::storage::migrate(&mut ledger::storage::connect(&url).unwrap()).unwrap();
    primary.base_backup(&backup).unwrap();

    let site = Site::new();
    let witness = site.path().join("checkpoints.jsonl");
    let witness_text = witness.to_str().unwrap().to_owned();
    let server = site.serve_with(&[
        ("DATABASE_URL", url.as_str()),
        ("DOZOR_CHECKPOINT_WITNESS", witness_text.as_str()),
    ]);
    let http = &server.http;
    let admin = site.apikey_on(&url, "drill", "admin");
    http.register_table(Some(&admin), &registration("T1", &key(11)));

    // Records before the restore point, witnessed; then the point; then more, witnessed too.
    let kept = submit_spins(http, 1..=10);
    wait_for_witnessed(&witness, kept);
    let mut conn = ledger::storage::connect(&url).unwrap();
    // Everything up to here is committed; the restore point is after it, by the database's
    // clock (which stamps the commits that recovery compares with it).
    std::thread::sleep(Duration::from_millis(300));
    let point: Text = diesel::sql_query("SELECT now()::text AS text")
        .get_result(&mut conn)
        .unwrap();
    let kept_size = ledger::storage::reads::size(&mut conn).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let lost = submit_spins(http, 11..=20);
    wait_for_witnessed(&witness, lost);
    server.stop();
    let mut conn = ledger::storage::connect(&url).unwrap();
    let final_size = ledger::storage::reads::size(&mut conn).unwrap();
    drop(conn);
    primary.switch_wal().unwrap();
    // The archiver copies the finished segment.
    std::thread::sleep(Duration::from_secs(2));

    // Restored to the point: the records after it are gone.
    let restored = LocalCluster::temporary_restored(&backup, &archive, Some(&point.text)).unwrap();
    let restored_url = restored.tcp_url("postgres", "dozor").unwrap();
    let size = ledger::storage::reads::size(&mut ledger::storage::connect(&restored_url).unwrap())
        .unwrap();
    assert_eq!(size, kept_size, "restored to {}", point.text);
    assert!(final_size > size);

    // verify names the rollback: the largest witnessed checkpoint and the ledger's size.
    let out = site
        .dozor()
        .env("DATABASE_URL", &restored_url)
        .args(["verify", "--witness", &witness_text])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let reason = report["failure"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        reason.starts_with("rollback:")
            && reason.contains(&format!("covers {final_size} entries"))
            && reason.contains(&format!("the ledger holds {size}")),
        "{report} {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The server refuses to start on it.
    let out = site
        .dozor()
        .env("DATABASE_URL", &restored_url)
        .env("DOZOR_CHECKPOINT_WITNESS", &witness_text)
        .args(["serve", "--nightly-at", "off", "--bind", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the ledger was rolled back"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "covers {final_size} entries, but the ledger holds {size}"
        )),
        "{stderr}"
    );

    // Restored in full (the whole archive), nothing is lost and verify passes (before the
    // restored ledger grows on: the witness file then holds the new timeline's checkpoints).
    let whole = LocalCluster::temporary_restored(&backup, &archive, None).unwrap();
    let whole_url = whole.tcp_url("postgres", "dozor").unwrap();
    let (report, _) = verified(&site, &whole_url, &witness_text);
    assert_eq!(report["entries_checked"], final_size, "{report}");

    // The operator accepts the loss, on the record: a signed entry at the restored size names
    // the lost checkpoints.
    let reason = "disk failure; restored from the base backup to the last good point";
    let out = site
        .dozor()
        .env("DATABASE_URL", &restored_url)
        .args(["log", "accept-rollback", "--witness", &witness_text])
        .args(["--reason", reason])
        .succeeds();
    let accepted: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(accepted["ledger_index"], size, "{accepted}");
    assert_eq!(accepted["lost_size"], final_size, "{accepted}");
    let lost = accepted["lost_checkpoints"].as_array().unwrap();
    assert!(
        !lost.is_empty() && lost.iter().all(|c| c["size"].as_u64().unwrap() > size),
        "{accepted}"
    );
    // Once is enough: nothing is left to accept.
    let out = site
        .dozor()
        .env("DATABASE_URL", &restored_url)
        .args(["log", "accept-rollback", "--witness", &witness_text])
        .args(["--reason", reason])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no rollback to accept"), "{stderr}");
    // verify passes and reports the accepted loss.
    let (report, stderr) = verified(&site, &restored_url, &witness_text);
    let notice = &report["accepted_rollbacks"][0];
    assert_eq!(
        (
            &notice["restored_size"],
            &notice["lost_size"],
            &notice["reason"]
        ),
        (&json!(size), &json!(final_size), &json!(reason)),
        "{report}"
    );
    assert!(
        stderr.contains(&format!("rollback ACCEPTED at index {size}")),
        "{stderr}"
    );

    // The server starts on it and the ledger grows past the lost size again: the lost records
    // sent again are appended after the acceptance, and the new checkpoints of the lost sizes
    // (other roots) are witnessed and verified.
    let server = site.serve_with(&[
        ("DATABASE_URL", restored_url.as_str()),
        ("DOZOR_CHECKPOINT_WITNESS", witness_text.as_str()),
    ]);
    let regrown = submit_spins(&server.http, 11..=20);
    assert_eq!(
        regrown, final_size,
        "one entry more than before: the acceptance"
    );
    wait_for_witnessed(&witness, regrown);
    server.stop();
    let (report, _) = verified(&site, &restored_url, &witness_text);
    assert_eq!(report["entries_checked"], final_size + 1, "{report}");
    assert_eq!(report["accepted_rollbacks"][0]["index"], size, "{report}");
}
