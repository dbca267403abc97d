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

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::poll::poll_until;
use common::site::Site;
use common::{key, registration, submit_spins};
use diesel::prelude::*;
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;

const DOCS: &str = include_str!("../../docs/OPERATIONS.md");
const BACKUP_UNIT: &str = include_str!("../../deploy/systemd/dozor-basebackup.service");
/// The moment the documentation's point-in-time restore names.
const DOCUMENTED_MOMENT: &str = "2026-11-27 13:05:00+01";

/// The lines of the documentation's block `sh drill=<name>`.
fn block(name: &str) -> Vec<String> {
    let opening = format!("```sh drill={name}");
    let mut lines = DOCS.lines().skip_while(|l| l.trim() != opening);
    assert!(
        lines.next().is_some(),
        "no `{opening}` block in OPERATIONS.md"
    );
    let found: Vec<String> = lines
        .take_while(|l| l.trim() != "```")
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    assert!(!found.is_empty(), "the block `{opening}` is empty");
    found
}

/// The backup unit's command, as systemd runs it.
fn unit_command() -> String {
    BACKUP_UNIT
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart in dozor-basebackup.service")
        .to_owned()
}

/// A machine's paths put under a temporary directory: what is replaced, in order, by what.
struct Machine {
    _dir: std::sync::Arc<tempfile::TempDir>,
    root: PathBuf,
    places: Vec<(String, String)>,
}

impl Machine {
    /// `/usr/local/bin`, `/etc/dozor` and `/mnt` under a new directory, with `dozor` installed;
    /// the data directory `/var/lib/dozor/var` is `data_dir`.
    fn new(data_dir: &Path) -> Machine {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["usr/local/bin", "etc/dozor", "mnt"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dozor"), dir.join("usr/local/bin/dozor"))
            .unwrap();
        let under = |p: &str| format!("{}{p}", dir.display());
        let mut places = vec![
            ("/usr/local/bin/".to_owned(), under("/usr/local/bin/")),
            ("/etc/dozor/".to_owned(), under("/etc/dozor/")),
            ("/mnt/dozor-backups".to_owned(), under("/mnt/dozor-backups")),
            (
                "/var/lib/dozor/var".to_owned(),
                data_dir.display().to_string(),
            ),
            (
                "/var/lib/postgresql/15/restored".to_owned(),
                under("/restored"),
            ),
        ];
        if !running_as_root() {
            // PostgreSQL runs as this user then.
            places.push(("-o postgres -g postgres ".to_owned(), String::new()));
            places.push(("runuser -u postgres -- ".to_owned(), String::new()));
        }
        Machine {
            _dir: std::sync::Arc::new(temp),
            root: dir,
            places,
        }
    }

    fn with(mut self, from: &str, to: &str) -> Machine {
        self.places.insert(0, (from.to_owned(), to.to_owned()));
        self
    }

    fn place(&self, text: &str) -> String {
        self.places
            .iter()
            .fold(text.to_owned(), |t, (from, to)| t.replace(from, to))
    }

    fn backups(&self) -> PathBuf {
        self.root.join("mnt/dozor-backups")
    }

    /// A file installed by a documented command, with the machine's paths in it.
    fn place_file(&self, path: &str) {
        let path = PathBuf::from(self.place(path));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, self.place(&text)).unwrap();
    }

    /// Runs each line of the documentation's block as written, with the machine's paths, from
    /// the repository (the commands name `deploy/…`); each line's output.
    fn run_block(&self, name: &str, moment: Option<&str>) -> Vec<Output> {
        block(name)
            .iter()
            .map(|line| {
                let mut line = self.place(line);
                if let Some(moment) = moment {
                    line = line.replace(DOCUMENTED_MOMENT, moment);
                }
                self.sh(&line)
            })
            .collect()
    }

    fn sh(&self, line: &str) -> Output {
        let path = format!(
            "{}:{}",
            self.root.join("usr/local/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Command::new("sh")
            .args(["-c", line])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .env("PATH", path)
            .env_remove("DATABASE_URL")
            .env_remove("DOZOR_DATA_DIR")
            .env_remove("DOZOR_CHECKPOINT_WITNESS")
            .output()
            .unwrap()
    }
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

use std::os::unix::fs::MetadataExt as _;

fn succeeded(line: &str, out: &Output) {
    assert!(
        out.status.success(),
        "`{line}` failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn all_succeeded(name: &str, outs: &[Output]) {
    for (line, out) in block(name).iter().zip(outs) {
        succeeded(line, out);
    }
}

#[derive(QueryableByName)]
struct Text {
    #[diesel(sql_type = diesel::sql_types::Text)]
    text: String,
}

fn text(conn: &mut PgConnection, sql: &str) -> String {
    diesel::sql_query(sql)
        .get_result::<Text>(conn)
        .unwrap()
        .text
}

/// Waits until the witness file's latest checkpoint covers more than `index` entries.
fn wait_for_witnessed(file: &Path, index: u64) {
    poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let latest = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|c| c["size"].as_u64())
            .next_back()
            .unwrap_or(0);
        if latest > index {
            return Ok(());
        }
        Err(format!("no witnessed checkpoint past {index}: {text}"))
    });
}

/// The WAL segment being written finished and archived (into the machine's `wal/`).
fn archive_current_segment(url: &str, machine: &Machine) {
    let mut conn = ledger::storage::connect(url).unwrap();
    let segment = text(&mut conn, "SELECT pg_walfile_name(pg_switch_wal()) AS text");
    let archived = machine.backups().join("wal").join(&segment);
    poll_until(Duration::from_secs(30), Duration::from_millis(100), || {
        if archived.is_file() {
            return Ok(());
        }
        Err(format!("{} not archived", archived.display()))
    });
}

/// Nothing but the primary's timeline in the archive: no restored copy wrote its own there.
fn only_the_primarys_timeline(machine: &Machine) {
    let names: Vec<String> = std::fs::read_dir(machine.backups().join("wal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.is_empty());
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !n.starts_with("00000001") || n.ends_with(".history"))
        .collect();
    assert!(foreign.is_empty(), "a restored copy archived {foreign:?}");
}

/// `dozor verify`'s report (the last line's output), which passed or failed as `passes` says.
fn verify_report(outs: &[Output], passes: bool) -> Value {
    let out = outs.last().unwrap();
    assert_eq!(
        out.status.success(),
        passes,
        "verify: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
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

/// Stops a restored copy left running by a failed drill.
struct StopOnDrop(PathBuf, PathBuf);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if self.0.join("postmaster.pid").exists() {
            let pg_ctl = self.1.join("pg_ctl");
            let mut command = if running_as_root() {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(pg_ctl);
                c
            } else {
                Command::new(pg_ctl)
            };
            let _ = command
                .args(["stop", "-m", "immediate", "-D"])
                .arg(&self.0)
                .output();
        }
    }
}
