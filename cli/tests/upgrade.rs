#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Upgrading as docs/OPERATIONS.md ("Upgrading") says, its `sh drill=…` blocks run as they
//! stand: the database the previous release left (`fixtures/previous-release`, a `pg_dump`
//! made by `fixtures/make-previous-release.sh`) migrated by this dozor and verified, then served
//! and appended to; and the cluster dozor runs itself moved to a new data directory by
//! `pg_upgrade`, verified after.

mod common;
mod drill;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::poll::wait_for_witnessed;
use common::site::Site;
use common::{key, registration, submit_spins, Succeeds as _};
use drill::{all_succeeded, as_user, succeeded, verify_report, Machine};
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/previous-release")
}

/// The number of this dozor's migrations (the directories of `migrations/`).
fn migrations() -> usize {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().join("up.sql").is_file())
        .count()
}

/// The migrations the previous release's database holds, as its `RELEASE` file records them.
fn released_migrations() -> usize {
    let release = std::fs::read_to_string(fixture().join("RELEASE")).unwrap();
    release
        .lines()
        .find_map(|l| l.strip_prefix("migrations "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn applied(url: &str) -> usize {
    use diesel::RunQueryDsl as _;
    let found: Count = diesel::sql_query("SELECT count(*) AS n FROM __diesel_schema_migrations")
        .get_result(&mut ledger::storage::connect(url).unwrap())
        .unwrap();
    usize::try_from(found.n).unwrap()
}

/// The user a cluster's files belong to.
fn owner(path: &Path) -> String {
    let out = Command::new("stat").args(["-c", "%U"]).arg(path).succeeds();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The previous release's dump restored into `database` of `cluster` (its role first: the
/// dump grants the ledger's privileges to `dozor_writer`, and roles are not in a database's dump).
fn load_previous_release(cluster: &LocalCluster, database: &str) {
    use diesel::RunQueryDsl as _;
    cluster.create_database(database).unwrap();
    diesel::sql_query("CREATE ROLE dozor_writer NOLOGIN")
        .execute(&mut ledger::storage::connect(&cluster.url("postgres")).unwrap())
        .unwrap();
    let out = as_user("postgres", cluster.bin_dir().join("pg_restore"))
        .arg("-h")
        .arg(cluster.socket_directory())
        .args([
            "-U",
            "postgres",
            "-d",
            database,
            "--no-owner",
            "--exit-on-error",
        ])
        .stdin(Stdio::from(
            std::fs::File::open(fixture().join("dozor.dump")).unwrap(),
        ))
        .output()
        .unwrap();
    succeeded("pg_restore", &out);
}

#[test]
fn the_previous_releases_database_upgrades_as_documented_verifies_and_takes_records() {
    let cluster = LocalCluster::temporary().unwrap();
    load_previous_release(&cluster, "dozor");
    let url = cluster.url("dozor");
    let before = applied(&url);
    assert!(before > 0 && before <= migrations(), "{before} migrations");
    // The dump is the release its RELEASE file names: it holds that release's migrations.
    assert_eq!(
        before,
        released_migrations(),
        "the fixture is not the release RELEASE names"
    );

    // The server's data directory holds what the previous release's did: its key, its witness.
    let site = Site::new();
    for file in ["operator.key", "checkpoints.jsonl"] {
        std::fs::copy(fixture().join(file), site.path().join(file)).unwrap();
    }
    let machine = Machine::new(&site.path())
        .with(
            "/var/run/postgresql",
            &cluster.socket_directory().display().to_string(),
        )
        .with("/var/lib/dozor/var/pg/socket", "/var/run/postgresql");
    all_succeeded("install", &machine.run_block("install", None));
    machine.place_file("/usr/local/bin/dozor-backup");
    machine.place_file("/etc/dozor/backup.env");

    let outs = machine.run_block_with("upgrade", &[("DATABASE_URL", url.as_str())]);
    all_succeeded("upgrade", &outs[..2]);
    let migrated = String::from_utf8_lossy(&outs[1].stdout).into_owned();
    assert!(migrated.contains("migrations applied"), "{migrated}");
    assert_eq!(applied(&url), migrations());
    ledger::storage::connection::require_migrated(&mut ledger::storage::connect(&url).unwrap())
        .unwrap();
    let size = ledger::storage::reads::size(&mut ledger::storage::connect(&url).unwrap()).unwrap();
    let report = verify_report(&outs, true);
    assert!(report["failure"].is_null(), "{report}");
    assert_eq!(report["entries_checked"], size, "{report}");
    // A ledger with the simulator's tables and rounds, not an empty one.
    assert!(size > 20, "{size} entries");

    // The upgraded ledger is served and grows under the same key and witness file.
    let server = site.serve_with(&[("DATABASE_URL", url.as_str())]);
    let admin = site.apikey_on(&url, "after-upgrade", "admin");
    server
        .http
        .register_table(Some(&admin), &registration("T1", &key(11)));
    let last = submit_spins(&server.http, 1..=3);
    wait_for_witnessed(&site.path().join("checkpoints.jsonl"), last);
    server.stop();
    let out = site
        .dozor()
        .env("DATABASE_URL", &url)
        .args(["verify", "--witness"])
        .arg(site.path().join("checkpoints.jsonl"))
        .succeeds();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["failure"].is_null(), "{report}");
    // Three rounds, an API key and a table more: 5 entries.
    assert_eq!(report["entries_checked"], size + 5, "{report}");
}

#[test]
fn the_cluster_dozor_runs_itself_moves_to_a_new_data_directory_by_pg_upgrade_as_documented() {
    let site = Site::new();
    let server = site.serve();
    let admin = site.apikey("before", "admin");
    server
        .http
        .register_table(Some(&admin), &registration("T1", &key(11)));
    let witness = site.path().join("checkpoints.jsonl");
    let last = submit_spins(&server.http, 1..=5);
    wait_for_witnessed(&witness, last);
    server.stop();

    // The machine has one PostgreSQL: the documented versions are both it.
    let bin = ledger::storage::cluster::postgres_bin_dir()
        .unwrap()
        .display()
        .to_string();
    let machine = Machine::new(&site.path())
        .with("/usr/lib/postgresql/15/bin", &bin)
        .with("/usr/lib/postgresql/16/bin", &bin);
    let data = site.path().join("pg/data");
    let out = machine.run_script_as("pg-upgrade", &owner(&data));
    succeeded("the pg-upgrade block", &out);
    assert!(site.path().join("pg/data.old/PG_VERSION").is_file());
    let conf = std::fs::read_to_string(data.join("postgresql.conf")).unwrap();
    assert!(conf.contains("include_dir = 'conf.d'"), "{conf}");

    // dozor starts the upgraded cluster; the ledger verifies and takes records.
    let out = site
        .dozor()
        .args(["verify", "--witness"])
        .arg(&witness)
        .succeeds();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["failure"].is_null(), "{report}");
    assert_eq!(report["entries_checked"], last + 1, "{report}");
    let server = site.serve();
    let again = submit_spins(&server.http, 6..=7);
    assert_eq!(again, last + 2);
    server.stop();
}
