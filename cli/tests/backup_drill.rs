#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The backup drill, run as docs/OPERATIONS.md ("Backups and restore") says: its `sh drill=…`
//! blocks and the backup unit's `ExecStart`, as they stand, with the paths of a machine
//! (`/usr/local/bin/`, `/etc/dozor/`, `/mnt/dozor-backups`, `/var/lib/dozor/var`, …) put under
//! temporary directories and the restore's moment set to the drill's. Once on the cluster
//! `dozor serve` runs itself and once on a PostgreSQL of its own: set up, archiving on, base
//! backups while records arrive, a restore point, more records; then restores into new
//! directories, full (verifies with every entry) and to the point (verify names the rollback),
//! and neither restored copy writes into the archive.

mod common;
mod drill;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::poll::wait_for_witnessed;
use common::site::Site;
use common::{key, registration, submit_spins};
use drill::{
    all_succeeded, archive_current_segment, block, only_the_primarys_timeline, succeeded, text,
    verify_report, Machine, StopOnDrop,
};
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;

const BACKUP_UNIT: &str = include_str!("../../deploy/systemd/dozor-basebackup.service");

fn unit_command() -> String {
    BACKUP_UNIT
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart in dozor-basebackup.service")
        .to_owned()
}

/// Records before and after a restore point, witnessed: (size at the point, the final size,
/// the point as PostgreSQL's timestamp). A base backup by the unit's command is taken after
/// the first five.
fn records_around_a_point(
    http: &common::site::Http,
    url: &str,
    machine: &Machine,
    witness: &Path,
) -> (u64, u64, String) {
    submit_spins(http, 1..=5);
    let out = machine.sh(&machine.place(&unit_command()));
    succeeded(&unit_command(), &out);
    let kept = submit_spins(http, 6..=10);
    wait_for_witnessed(witness, kept);
    let mut conn = ledger::storage::connect(url).unwrap();
    // After every commit so far, by the database's clock (which stamps what recovery compares).
    std::thread::sleep(Duration::from_millis(1100));
    let point = text(&mut conn, "SELECT now()::text AS text");
    let kept_size = ledger::storage::reads::size(&mut conn).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let lost = submit_spins(http, 11..=20);
    wait_for_witnessed(witness, lost);
    let final_size = ledger::storage::reads::size(&mut conn).unwrap();
    archive_current_segment(url, machine);
    (kept_size, final_size, point)
}

/// Every base backup kept passes `pg_verifybackup` on its own, and there are `count`.
fn backups_verify(machine: &Machine, bin_dir: &Path, count: usize) {
    let listed = machine.sh("dozor-backup list");
    succeeded("dozor-backup list", &listed);
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(names.len(), count, "{names:?}");
    for name in names {
        let dir = machine.backups().join("base").join(&name);
        let out = Command::new(bin_dir.join("pg_verifybackup"))
            .arg(&dir)
            .output()
            .unwrap();
        succeeded("pg_verifybackup", &out);
    }
}

#[test]
fn the_documented_backup_and_restore_of_the_cluster_dozor_runs_itself_restore_in_full_and_to_a_point(
) {
    let site = Site::new();
    let machine = Machine::new(&site.path());
    all_succeeded("install", &machine.run_block("install", None));
    machine.place_file("/usr/local/bin/dozor-backup");
    machine.place_file("/etc/dozor/backup.env");

    // dozor's own cluster, made by the first start; archiving on, then a restart.
    let server = site.serve();
    server.stop();
    all_succeeded(
        "archive-managed",
        &machine.run_block("archive-managed", None),
    );
    machine.place_file("/var/lib/dozor/var/pg/data/conf.d/dozor-archive.conf");
    let server = site.serve();
    let url = site.url_as("postgres");
    let mut conn = ledger::storage::connect(&url).unwrap();
    assert_eq!(
        text(&mut conn, "SELECT current_setting('archive_mode') AS text"),
        "on"
    );
    all_succeeded("backup", &machine.run_block("backup", None));

    let admin = site.apikey("drill", "admin");
    server
        .http
        .register_table(Some(&admin), &registration("T1", &key(11)));
    let witness = site.path().join("checkpoints.jsonl");
    let (kept_size, final_size, point) =
        records_around_a_point(&server.http, &url, &machine, &witness);
    let bin_dir = ledger::storage::cluster::postgres_bin_dir().unwrap();
    backups_verify(&machine, &bin_dir, 2);

    // In full, beside the running primary: every entry, and the copy is stopped again.
    let full = Site::new();
    let machine = machine.with(
        "/var/lib/dozor-restore/var",
        &full.path().display().to_string(),
    );
    let outs = machine.run_block("restore-managed", None);
    succeeded("dozor-backup restore", &outs[0]);
    let report = verify_report(&outs, true);
    assert!(report["failure"].is_null(), "{report}");
    assert_eq!(report["entries_checked"], final_size, "{report}");
    assert_eq!(
        full.postmaster(),
        None,
        "verify left the restored copy running"
    );
    let log = std::fs::read_to_string(full.path().join("pg/postgres.log")).unwrap();
    assert!(log.contains("archive recovery complete"), "{log}");

    // To the point: the records after it are gone, and verify names both sizes.
    let pitr = Site::new();
    let mut machine = machine;
    machine.places.remove(0);
    let machine = machine.with(
        "/var/lib/dozor-restore/var",
        &pitr.path().display().to_string(),
    );
    let outs = machine.run_block("restore-managed-pitr", Some(&point));
    succeeded("dozor-backup restore --time", &outs[0]);
    let report = verify_report(&outs, false);
    let reason = report["failure"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("rollback:")
            && reason.contains(&format!("covers {final_size} entries"))
            && reason.contains(&format!("the ledger holds {kept_size}")),
        "{report}"
    );
    assert_eq!(
        pitr.postmaster(),
        None,
        "a failed verify left the copy running"
    );

    // A copy that stays read-only (a standby of the archive): verify reads it as it is, with no
    // CREATE DATABASE, and stops it after.
    let standby = Site::new();
    let restored = standby.path().join("pg/data");
    let out = machine.sh(&format!("dozor-backup restore --to {}", restored.display()));
    succeeded("dozor-backup restore", &out);
    std::fs::rename(
        restored.join("recovery.signal"),
        restored.join("standby.signal"),
    )
    .unwrap();
    let out = standby
        .dozor()
        .args(["verify", "--operator-key"])
        .arg(site.path().join("operator.key"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert!(
        out.status.success() && report["failure"].is_null(),
        "{report} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        standby.postmaster(),
        None,
        "verify left the standby running"
    );

    // The primary went on archiving its own timeline only.
    archive_current_segment(&url, &machine);
    only_the_primarys_timeline(&machine);
    drop(conn);
    server.stop();
}

#[test]
fn the_documented_backup_and_restore_of_an_external_postgresql_restores_every_entry() {
    let cluster = LocalCluster::temporary_with_conf_d().unwrap();
    cluster.create_database("dozor").unwrap();
    let url = cluster.url("dozor");
    ledger::storage::migrate(&mut ledger::storage::connect(&url).unwrap()).unwrap();
    let socket = cluster.socket_directory().display().to_string();
    let conf_d = cluster
        .data_directory()
        .join("conf.d")
        .display()
        .to_string();

    let site = Site::new();
    // The admin names Debian's socket directory in backup.env, as its comment says.
    // (`with` puts each first: Debian's socket directory is named, then put where it is.)
    let machine = Machine::new(&site.path())
        .with("/var/run/postgresql", &socket)
        .with("/var/lib/dozor/var/pg/socket", "/var/run/postgresql")
        .with("/etc/postgresql/15/main/conf.d", &conf_d)
        .with(
            "/usr/lib/postgresql/15/bin",
            &cluster.bin_dir().display().to_string(),
        );
    all_succeeded("install", &machine.run_block("install", None));
    machine.place_file("/usr/local/bin/dozor-backup");
    machine.place_file("/etc/dozor/backup.env");
    all_succeeded(
        "archive-external",
        &machine.run_block("archive-external", None),
    );
    machine.place_file("/etc/postgresql/15/main/conf.d/dozor-archive.conf");
    cluster.restart().unwrap();
    let mut conn = ledger::storage::connect(&url).unwrap();
    assert_eq!(
        text(&mut conn, "SELECT current_setting('archive_mode') AS text"),
        "on"
    );
    all_succeeded("backup", &machine.run_block("backup", None));

    let server = site.serve_with(&[("DATABASE_URL", url.as_str())]);
    let admin = site.apikey_on(&url, "drill", "admin");
    server
        .http
        .register_table(Some(&admin), &registration("T1", &key(11)));
    let witness = site.path().join("checkpoints.jsonl");
    let (_, final_size, _) = records_around_a_point(&server.http, &url, &machine, &witness);
    server.stop();
    backups_verify(&machine, cluster.bin_dir(), 2);

    let _stop = StopOnDrop(
        machine.root.join("restored"),
        cluster.bin_dir().to_path_buf(),
    );
    let outs = machine.run_block("restore-external", None);
    for (line, out) in block("restore-external").iter().zip(&outs).take(1) {
        succeeded(line, out);
    }
    let verified = &outs[1..2];
    let report = verify_report(verified, true);
    assert!(report["failure"].is_null(), "{report}");
    assert_eq!(report["entries_checked"], final_size, "{report}");
    succeeded("pg_ctl stop", &outs[2]);
    let restored = machine.root.join("restored");
    assert!(!restored.join("postmaster.pid").exists());
    let auto = std::fs::read_to_string(restored.join("postgresql.auto.conf")).unwrap();
    assert!(auto.contains("archive_mode = off"), "{auto}");

    archive_current_segment(&url, &machine);
    only_the_primarys_timeline(&machine);
}

#[test]
fn the_archive_takes_a_segment_again_only_when_identical_and_a_restore_never_overwrites() {
    let data = tempfile::tempdir().unwrap();
    let machine = Machine::new(data.path());
    all_succeeded("install", &machine.run_block("install", None));
    machine.place_file("/usr/local/bin/dozor-backup");
    machine.place_file("/etc/dozor/backup.env");
    let segment = data.path().join("000000010000000000000007");
    std::fs::write(&segment, b"the segment's bytes").unwrap();
    let archive =
        |name: &str| machine.sh(&format!("dozor-backup wal {} {name}", segment.display()));
    let archived = machine.backups().join("wal/000000010000000000000007");
    succeeded("dozor-backup wal", &archive("000000010000000000000007"));
    assert_eq!(std::fs::read(&archived).unwrap(), b"the segment's bytes");
    // Again, as the archiver retries after a crash: the same bytes are success.
    succeeded("dozor-backup wal", &archive("000000010000000000000007"));
    // Other bytes under the same name are refused and the archived file kept.
    std::fs::write(&segment, b"other bytes").unwrap();
    let out = archive("000000010000000000000007");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("archived already with other content"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&archived).unwrap(), b"the segment's bytes");
    // A name that is not a WAL file's (a path) is refused.
    assert!(!archive("../escape").status.success());
    // A restore makes a new directory: one with anything in it is refused, untouched.
    let taken = data.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("PG_VERSION"), "15\n").unwrap();
    let out = machine.sh(&format!("dozor-backup restore --to {}", taken.display()));
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not empty"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&taken).unwrap().count(), 1);
}
