#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor monitor` following a casino the way a regulator does: `dozor serve` publishes its
//! ledger as tiles into a folder while `simulate` plays, nginx serves the folder, and the monitor
//! follows it over HTTP with its own PostgreSQL. Every round the casino published appears in the
//! monitor's figures, a monitor killed while following resumes where it was and counts nothing
//! twice, and a changed byte of a published tile is caught and named.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::nginx::Nginx;
use common::Succeeds as _;
use dozor_log::checkpoint::NoteSigner;
use dozor_monitor::store::status::{status, CasinoStatus};
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;

fn size_of(note: &[u8]) -> Option<u64> {
    std::str::from_utf8(note).ok()?.lines().nth(1)?.parse().ok()
}

/// Every file under `dir` whose path (relative to it) starts with `prefix`.
fn files_under(dir: &Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
                if name.starts_with(prefix) {
                    found.push((name, std::fs::read(&path).unwrap()));
                }
            }
        }
    }
    found
}

/// The rounds and findings the casino published, counted from its verdict lines: of each
/// bundle's index, the widest file (a partial one may stay beside a wider or the full one).
fn published_rounds_and_findings(folder: &Path) -> (i64, i64, i64, i64) {
    let mut widest: std::collections::BTreeMap<u64, (u16, Vec<u8>)> = Default::default();
    for (name, bytes) in files_under(folder, "verdicts/") {
        let rest = name.strip_prefix("verdicts/").unwrap();
        let tile = dozor_log::tiles::Tile::parse(&format!("tile/entries/{rest}")).unwrap();
        if widest.get(&tile.index).is_none_or(|(w, _)| *w < tile.width) {
            widest.insert(tile.index, (tile.width, bytes));
        }
    }
    let (mut rounds, mut findings, mut stakes_h, mut paid_h) = (0, 0, 0, 0);
    for (_, bytes) in widest.values() {
        for line in std::str::from_utf8(bytes).unwrap().lines() {
            let line: Value = serde_json::from_str(line).unwrap();
            if let Some(verdict) = line["verdict"].as_object() {
                rounds += 1;
                findings += verdict["findings"].as_array().unwrap().len() as i64;
                stakes_h += verdict["stakes_h"].as_i64().unwrap();
                paid_h += verdict["paid_h"].as_i64().unwrap();
            }
        }
    }
    (rounds, findings, stakes_h, paid_h)
}

/// The casino: a server that published 4 tables × 250 rounds, stopped (its final checkpoint
/// published), and nginx serving the folder. The folder, the operator's verifier key, nginx.
fn casino(site: &common::site::Site) -> (std::path::PathBuf, String, Nginx) {
    std::fs::write(
        site.path().join("dozor.toml"),
        "[tiles]\npublish_dir = \"site/tiles\"\n",
    )
    .unwrap();
    let folder = site.path().join("site/tiles");
    let server = site.serve();
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--seed", "11"])
        .args(["--tables", "4", "--rounds", "250", "--error-share", "0.1"])
        .succeeds();
    assert!(server.terminate().success());
    let operator = std::fs::read_to_string(site.path().join("operator.key")).unwrap();
    let vkey = NoteSigner::from_private_key(&operator)
        .unwrap()
        .verifier()
        .to_string();
    let nginx = Nginx::serve_tiles(&folder, "casino-1");
    (folder, vkey, nginx)
}

/// `openssl s_server -WWW` serving a folder over TLS with the casino's server certificate,
/// demanding a client certificate under the regulator's (here: the Ministry's) CA.
struct TlsFolder {
    child: std::process::Child,
    url: String,
}

impl TlsFolder {
    /// A port found free may be bound by another test before openssl binds it: openssl then
    /// exits, and the folder is served on another port.
    fn serve(folder: &Path, pki: &common::pki::Pki) -> TlsFolder {
        for _ in 0..5 {
            if let Some(served) = TlsFolder::serve_on(folder, pki, common::free_port()) {
                return served;
            }
        }
        panic!("openssl s_server exited at once on five ports");
    }

    /// The folder served on `port`, or `None` if openssl exited before accepting there.
    fn serve_on(folder: &Path, pki: &common::pki::Pki, port: u16) -> Option<TlsFolder> {
        let mut child = Command::new("openssl")
            .current_dir(folder)
            .args(["s_server", "-quiet", "-WWW", "-accept", &port.to_string()])
            .arg("-cert")
            .arg(pki.path("operator-server.pem"))
            .arg("-key")
            .arg(pki.path("operator-server.key"))
            .arg("-CAfile")
            .arg(pki.path("ministry-ca.pem"))
            .args(["-Verify", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let exited = common::poll_until(Duration::from_secs(10), Duration::from_millis(50), || {
            if child.try_wait().unwrap().is_some() {
                return Ok(true);
            }
            std::net::TcpStream::connect(("127.0.0.1", port))
                .map(|_| false)
                .map_err(|e| e.to_string())
        });
        // Accepting, and its own: openssl is still running.
        (!exited && child.try_wait().unwrap().is_none()).then(|| TlsFolder {
            child,
            url: format!("https://127.0.0.1:{port}/"),
        })
    }
}

impl Drop for TlsFolder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Monitor {
    config: std::path::PathBuf,
    url: String,
}

impl Monitor {
    /// A monitor of the casino at `tiles_url` keeping its state in database `name` of `cluster`.
    fn new(dir: &Path, cluster: &LocalCluster, name: &str, tiles_url: &str, vkey: &str) -> Monitor {
        Monitor::with(dir, cluster, name, tiles_url, vkey, "")
    }

    /// [`Monitor::new`] with more settings of the casino.
    fn with(
        dir: &Path,
        cluster: &LocalCluster,
        name: &str,
        tiles_url: &str,
        vkey: &str,
        more: &str,
    ) -> Monitor {
        cluster.create_database(name).unwrap();
        // A casino of these tests has no witness unless `more` names one.
        let unwitnessed = if more.contains("witnesses") {
            ""
        } else {
            "allow_no_witness = true\n"
        };
        let config = dir.join(format!("{name}.toml"));
        std::fs::write(
            &config,
            format!(
                "[follow]\npoll_seconds = 1\n\n[[casino]]\nname = \"casino-1\"\n\
                 tiles_url = \"{tiles_url}\"\noperator_keys = [\"{vkey}\"]\n{more}{unwitnessed}"
            ),
        )
        .unwrap();
        Monitor {
            config,
            url: cluster.url(name),
        }
    }

    fn command(&self, site: &common::site::Site) -> Command {
        let mut command = site.dozor();
        command
            .args(["monitor", "--config"])
            .arg(&self.config)
            .args(["--database-url", &self.url]);
        command
    }

    fn status(&self) -> CasinoStatus {
        let mut conn = dozor_monitor::store::connection::connect(&self.url).unwrap();
        status(&mut conn).unwrap().remove(0)
    }
}

#[test]
fn the_monitor_follows_published_tiles_resumes_after_a_kill_and_names_a_changed_tile() {
    let site = common::site::Site::new();
    let (folder, vkey, nginx) = casino(&site);
    let size = size_of(&std::fs::read(folder.join("checkpoint")).unwrap()).unwrap();
    let (rounds, findings, stakes_h, paid_h) = published_rounds_and_findings(&folder);
    // 4 tables × 250 rounds and their registrations: three full bundles of 256 and a partial.
    assert_eq!(rounds, 4 * 250, "{size} entries");
    assert!(size > 3 * 256, "{size} entries");
    let cluster = LocalCluster::temporary().unwrap();
    let work = tempfile::tempdir().unwrap();

    // Following for ever, killed (SIGKILL) as soon as it has committed part of the log.
    let monitor = Monitor::new(work.path(), &cluster, "monitor_a", &nginx.url, &vkey);
    let mut child = monitor
        .command(&site)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::poll_until(Duration::from_secs(120), Duration::from_millis(2), || {
        let conn = dozor_monitor::store::connection::connect(&monitor.url);
        let followed = conn
            .ok()
            .and_then(|mut c| status(&mut c).ok())
            .and_then(|s| s.first().map(|s| s.size));
        match followed {
            Some(s) if s > 0 => Ok(()),
            other => Err(format!("followed {other:?}")),
        }
    });
    child.kill().unwrap();
    let killed = child.wait_with_output().unwrap();
    let before = monitor.status();
    let (at_kill, rounds_before) = (before.size as u64, before.rounds);
    assert!(at_kill > 0, "{}", String::from_utf8_lossy(&killed.stderr));
    // One pass resumes from there and judges the rest: with what was counted before the kill,
    // every round once.
    let out = monitor.command(&site).arg("--once").succeeds();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let expected = if at_kill < size {
        format!(
            "casino-1: followed from {at_kill} to {size} entries ({} rounds judged)",
            rounds - rounds_before
        )
    } else {
        format!("casino-1: up to date at {size} entries")
    };
    assert_eq!(said.trim(), expected);
    let s = monitor.status();
    assert_eq!(
        (s.size as u64, s.checkpoint_size.map(|c| c as u64)),
        (size, Some(size))
    );
    assert_eq!(s.rounds, rounds, "every round the casino published, once");
    assert_eq!(
        s.findings, findings,
        "the monitor finds what the casino found"
    );
    assert_eq!((s.mismatched_rounds, s.alerts), (0, 0), "{s:?}");
    let out = monitor.command(&site).arg("--once").succeeds();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("casino-1: up to date at {size} entries")
    );
    // Its tallies by gaming day and game add up to the money the casino's verdicts state.
    let out = monitor
        .command(&site)
        .args(["--show", "tallies"])
        .succeeds();
    let tallies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sum = |field: &str| {
        tallies
            .iter()
            .map(|t| t[field].as_i64().unwrap())
            .sum::<i64>()
    };
    assert_eq!(
        (sum("rounds"), sum("stakes_h"), sum("paid_h")),
        (rounds, stakes_h, paid_h)
    );

    // Over mutual TLS: Debian's openssl serving the folder, asking for a client certificate
    // under the regulator's CA; the monitor trusts the casino's CA only.
    let pki = common::pki::Pki::new();
    let tls = TlsFolder::serve(&folder, &pki);
    std::fs::write(
        work.path().join("tls.toml.part"),
        format!(
            "client_certificate = \"{}\"\nclient_key = \"{}\"\nca_certificates = \"{}\"\n",
            pki.path("ministry-client.pem").display(),
            pki.path("ministry-client.key").display(),
            pki.path("operator-ca.pem").display()
        ),
    )
    .unwrap();
    let identity = std::fs::read_to_string(work.path().join("tls.toml.part")).unwrap();
    let mutual = Monitor::with(
        work.path(),
        &cluster,
        "monitor_tls",
        &tls.url,
        &vkey,
        &identity,
    );
    let out = mutual.command(&site).arg("--once").succeeds();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("casino-1: followed from 0 to {size} entries ({rounds} rounds judged)")
    );
    // Without the client certificate the server refuses the connection.
    let anonymous = format!(
        "ca_certificates = \"{}\"\n",
        pki.path("operator-ca.pem").display()
    );
    let refused = Monitor::with(
        work.path(),
        &cluster,
        "monitor_anon",
        &tls.url,
        &vkey,
        &anonymous,
    );
    let out = refused.command(&site).arg("--once").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("cannot be reached"), "{said}");
    drop(tls);

    // Another monitor, from nothing, on a folder whose first hash tile has a changed byte.
    let tile = folder.join("tile/0/000");
    let mut bytes = std::fs::read(&tile).unwrap();
    bytes[77] ^= 0x20;
    std::fs::write(&tile, &bytes).unwrap();
    let fresh = Monitor::new(work.path(), &cluster, "monitor_b", &nginx.url, &vkey);
    let out = fresh.command(&site).arg("--once").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.starts_with("casino-1: failed: ") && said.contains("tile/0/000"),
        "{said}"
    );
    let out = fresh.command(&site).args(["--show", "alerts"]).succeeds();
    let alerts: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["kind"], "tiles");
    assert!(
        alerts[0]["message"]
            .as_str()
            .unwrap()
            .contains("tile/0/000"),
        "{alerts:?}"
    );
    assert_eq!(
        fresh.status().size,
        0,
        "nothing of a log whose tiles are wrong is followed"
    );
    // The status view names the casino, its entries and its alert.
    let out = fresh.command(&site).arg("--status").succeeds();
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        table
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("casino-1") && l.contains("failing (1)")),
        "{table}"
    );
}

#[test]
fn the_monitor_follows_a_running_server_s_tiles_route_with_a_regulator_key_and_none_without() {
    let site = common::site::Site::new();
    let server = site.serve();
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--seed", "5"])
        .args(["--tables", "2", "--rounds", "150", "--error-share", "0.1"])
        .succeeds();
    let work = tempfile::tempdir().unwrap();
    let token = site.apikey("monitor", "regulator");
    std::fs::write(work.path().join("regulator.token"), format!("{token}\n")).unwrap();
    let operator = std::fs::read_to_string(site.path().join("operator.key")).unwrap();
    let vkey = NoteSigner::from_private_key(&operator)
        .unwrap()
        .verifier()
        .to_string();
    let route = format!("{}/api/v1/tiles/", server.http.base);
    let cluster = LocalCluster::temporary().unwrap();
    let keyed = Monitor::with(
        work.path(),
        &cluster,
        "monitor_keyed",
        &route,
        &vkey,
        "bearer_token_file = \"regulator.token\"\n",
    );
    // The server signs a checkpoint every second while it runs: passes until one covers every
    // round (2 tables × 150 = 300), each pass following from where the last one stopped.
    common::poll_until(Duration::from_secs(60), Duration::from_millis(200), || {
        let out = keyed.command(&site).arg("--once").output().unwrap();
        let s = keyed.status();
        match s.rounds {
            300 => Ok(()),
            _ => Err(format!("{s:?}: {}", String::from_utf8_lossy(&out.stdout))),
        }
    });
    let s = keyed.status();
    assert_eq!((s.mismatched_rounds, s.alerts), (0, 0), "{s:?}");
    assert!(
        s.findings > 0,
        "an error share of 0.1 makes findings: {s:?}"
    );
    // Without a key the route is refused, and the monitor says so.
    let bare = Monitor::new(work.path(), &cluster, "monitor_bare", &route, &vkey);
    let out = bare.command(&site).arg("--once").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.starts_with("casino-1: failed: checkpoint: the casino answers 401"),
        "{said}"
    );
    server.stop();
}

#[test]
fn the_monitor_follows_only_checkpoints_its_witness_cosigned() {
    let site = common::site::Site::new();
    let operator_file = site.path().join("operator.key");
    site.dozor()
        .args([
            "keygen",
            "--operator",
            "--name",
            "casino.test/ledger",
            "--out",
        ])
        .arg(&operator_file)
        .succeeds();
    let operator = std::fs::read_to_string(&operator_file).unwrap();
    let vkey = NoteSigner::from_private_key(&operator)
        .unwrap()
        .verifier()
        .to_string();
    let work = tempfile::tempdir().unwrap();
    let mut witness = common::casinos::Witness::start(work.path(), &[&vkey]);
    let (wkey, wurl) = (witness.verifier.clone(), witness.url.clone());
    std::fs::write(
        site.path().join("dozor.toml"),
        format!(
            "[tiles]\npublish_dir = \"site/tiles\"\n\n[[witness]]\nurl = \"{wurl}/\"\nkey = \"{wkey}\"\n"
        ),
    )
    .unwrap();
    let folder = site.path().join("site/tiles");
    let server = site.serve();
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--seed", "7"])
        .args(["--tables", "1", "--rounds", "60", "--error-share", "0.1"])
        .succeeds();
    // The published checkpoint, once it covers every round and carries the witness's line.
    common::poll_until(Duration::from_secs(60), Duration::from_millis(100), || {
        let note = std::fs::read_to_string(folder.join("checkpoint")).unwrap_or_default();
        let cosigned = note.contains("\u{2014} witness.regulator.test ");
        match size_of(note.as_bytes()) {
            Some(size) if size > 60 && cosigned => Ok(()),
            other => Err(format!("{other:?} cosigned {cosigned}:\n{note}")),
        }
    });
    let nginx = Nginx::serve_tiles(&folder, "casino-1");
    let cluster = LocalCluster::temporary().unwrap();
    let trusted = format!("witnesses = [\"{wkey}\"]\nquorum = 1\n");
    let monitor = Monitor::with(
        work.path(),
        &cluster,
        "witnessed",
        &nginx.url,
        &vkey,
        &trusted,
    );
    let out = monitor.command(&site).arg("--once").succeeds();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.starts_with("casino-1: followed from 0 to "), "{said}");
    assert_eq!(monitor.status().rounds, 60);
    // A witness the casino never showed its checkpoints to: nothing is followed.
    let other = dozor_log::cosignature::CosignatureSigner::new(
        "other.regulator.test",
        ed25519_dalek::SigningKey::from_bytes(&[3; 32]),
    )
    .unwrap()
    .verifier()
    .to_string();
    let strict = format!("witnesses = [\"{other}\"]\nquorum = 1\n");
    let waiting = Monitor::with(
        work.path(),
        &cluster,
        "unwitnessed",
        &nginx.url,
        &vkey,
        &strict,
    );
    let out = waiting.command(&site).arg("--once").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("waits for its witnesses: 0 of the 1 witness cosignatures needed"),
        "{said}"
    );
    assert_eq!(waiting.status().size, 0);
    server.stop();
    witness.stop();
}
