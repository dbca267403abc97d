#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The witness a regulator runs (`dozor witness serve`, C2SP tlog-witness) against dozor's
//! ledger: its state survives a kill, the server shows it every checkpoint and keeps its
//! cosignatures, an export verified with `--quorum 2` needs both witnesses, and a rewritten
//! ledger signed with the operator's own key is refused by the witness and fails verification.

mod common;

use reports::inspection::{ExportRequest, ExportWitnesses};
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use api::server;
use api::witnessing::WitnessEndpoint;
use common::*;
use dozor_log::checkpoint::{Checkpoint, NoteSigner};
use dozor_log::cosignature::{self, CosignatureVerifier};
use dozor_log::merkle::{self, Hash, MemoryTree};
use ledger::ingest::CheckpointPolicy;
use serde_json::{json, Value};

/// An HTTP client that reads every answer, 4xx included.
fn http() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// A witness process: its key, store, address and the process itself.
struct WitnessProcess {
    key_file: PathBuf,
    store: PathBuf,
    log: String,
    verifier: CosignatureVerifier,
    url: String,
    child: Option<Child>,
}

impl WitnessProcess {
    fn new(dir: &Path, name: &str, log: &NoteSigner) -> WitnessProcess {
        let key_file = dir.join(format!("{}.key", name.replace('/', "_")));
        let out = dozor()
            .args(["witness", "key", "--name", name, "--out"])
            .arg(&key_file)
            .succeeds();
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        let verifier =
            CosignatureVerifier::parse(printed["verifier_key"].as_str().unwrap()).unwrap();
        let mut w = WitnessProcess {
            key_file,
            store: dir.join(format!("{}.redb", name.replace('/', "_"))),
            log: log.verifier().to_string(),
            verifier,
            url: String::new(),
            child: None,
        };
        w.start("127.0.0.1:0");
        w
    }

    /// Starts the witness on `bind`; its first line says where it listens.
    fn start(&mut self, bind: &str) {
        let mut child = dozor()
            .args(["witness", "serve", "--key"])
            .arg(&self.key_file)
            .args(["--log", &self.log, "--store"])
            .arg(&self.store)
            .args(["--bind", bind])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let printed: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line:?}"));
        self.url = format!("http://{}", printed["listening"].as_str().unwrap());
        self.child = Some(child);
    }

    /// `kill -9`: no chance to write anything more.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Started again on the same address, from its store.
    fn restart(&mut self) {
        let address = self.url.trim_start_matches("http://").to_owned();
        self.start(&address);
    }

    fn endpoint(&self) -> WitnessEndpoint {
        WitnessEndpoint {
            url: self.url.clone(),
            key: self.verifier.clone(),
            ca_certificates: None,
        }
    }

    fn post(&self, body: &str) -> (u16, String, String) {
        let mut answer = http()
            .post(&format!("{}/add-checkpoint", self.url))
            .send(body.as_bytes())
            .unwrap();
        let status = answer.status().as_u16();
        let content_type = answer
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        (
            status,
            content_type,
            answer.body_mut().read_to_string().unwrap(),
        )
    }

    fn get(&self, path: &str) -> (u16, String) {
        let mut answer = http().get(&format!("{}{path}", self.url)).call().unwrap();
        (
            answer.status().as_u16(),
            answer.body_mut().read_to_string().unwrap(),
        )
    }
}

impl Drop for WitnessProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A tree of `n` made-up leaf hashes (`salt`, i, zeroes): another salt, another history.
fn leaves(n: u8, salt: u8) -> MemoryTree {
    let leaf = |i: u8| -> Hash {
        let mut h = [0u8; 32];
        h[0] = salt;
        h[1] = i;
        h
    };
    MemoryTree::from_leaves(&(0..n).map(leaf).collect::<Vec<_>>())
}

fn signed_head(log: &NoteSigner, tree: &MemoryTree) -> String {
    let size = tree.size();
    log.sign(
        &Checkpoint {
            origin: log.name().to_owned(),
            size,
            root: merkle::root(tree, size).unwrap(),
        }
        .text(),
    )
    .unwrap()
}

#[::core::prelude::v1::test]
fn the_witness_answers_the_protocol_and_a_kill_never_loses_what_it_cosigned() {
    let dir = tempfile::tempdir().unwrap();
    let log = operator();
    let mut witness = WitnessProcess::new(dir.path(), "witness.test/one", &log);
    let tree = leaves(5, 7);
    let head = |n: u8| signed_head(&log, &leaves(n, 7));
    let proof = |from: u64, to: u64| merkle::consistency_proof(&tree, from, to).unwrap();
    let body = dozor_log::tlog_witness::body;

    let (status, _, line) = witness.post(&body(0, &[], &head(2)));
    assert_eq!(status, 200, "{line}");
    // The answer is one cosignature line that verifies over the checkpoint per tlog-cosignature.
    let found =
        cosignature::cosignatures(&format!("{}{line}", head(2)), &[witness.verifier.clone()])
            .unwrap();
    assert_eq!(found.len(), 1);
    let (status, _, _) = witness.post(&body(2, &proof(2, 3), &head(3)));
    assert_eq!(status, 200);
    witness.kill();
    witness.restart();
    // After the kill: a client that does not know the size learns it from a 409.
    let (status, content_type, size) = witness.post(&body(0, &[], &head(5)));
    assert_eq!(
        (status, content_type.as_str(), size.as_str()),
        (409, "text/x.tlog.size", "3\n")
    );
    let (status, _, _) = witness.post(&body(3, &proof(3, 5), &head(5)));
    assert_eq!(status, 200);
    // An unknown log, a bad signature, a malformed body.
    let stranger = NoteSigner::new("dozor.test/other", key(9)).unwrap();
    assert_eq!(
        witness
            .post(&body(0, &[], &signed_head(&stranger, &tree)))
            .0,
        404
    );
    let forged = signed_head(&operator_with(43), &tree);
    assert_eq!(witness.post(&body(5, &[], &forged)).0, 403);
    assert_eq!(witness.post("old x\n\nnothing").0, 400);
    // A fork at the cosigned size: 422, kept as evidence.
    let fork = signed_head(&log, &leaves(5, 8));
    assert_eq!(witness.post(&body(5, &[], &fork)).0, 422);
    // What it cosigned last, for anyone who asks.
    use sha2::Digest as _;
    let origin_hash = hex::encode(sha2::Sha256::digest(log.name().as_bytes()));
    let (status, served) = witness.get(&format!("/{origin_hash}/checkpoint"));
    assert_eq!(status, 200, "{served}");
    assert!(served.starts_with(&head(5)), "{served}");
    assert_eq!(
        cosignature::cosignatures(&served, &[witness.verifier.clone()])
            .unwrap()
            .len(),
        1
    );
    assert_eq!(witness.get("/nothing/here").0, 404);
    witness.kill();
    // The regulator reads every cosigned checkpoint and the evidence from the store.
    let printed = |command: &str| -> Vec<Value> {
        let out = dozor()
            .args(["witness", command, "--store"])
            .arg(&witness.store)
            .succeeds();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let sizes: Vec<u64> = printed("checkpoints")
        .iter()
        .map(|c| c["size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [2, 3, 5]);
    let evidence = printed("evidence");
    assert_eq!(evidence.len(), 1);
    assert_eq!(evidence[0]["kind"], "fork");
    assert_eq!(evidence[0]["note"], fork);
}

/// The signatures on `note` by `vkeys` (the operator's note key, witnesses' cosignature keys)
/// that verify, as someone else's code reads them: a Python script written from the C2SP specs
/// (signed-note, tlog-cosignature) with the PyPI library `cryptography` for Ed25519. `Err` with
/// Python's complaint when a known key's signature fails.
fn python_verified(note: &str, vkeys: &[String]) -> Result<Vec<String>, String> {
    let packages = pypi("cryptography", "cryptography==43.0.3");
    const SCRIPT: &str = r#"
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
note = sys.stdin.read()
text, signatures = note.rsplit("\n\n", 1)
text += "\n"
keys = {}
for vkey in sys.argv[1:]:
    name, key_id, key = vkey.split("+", 2)
    raw = base64.b64decode(key)
    keys[(name, int(key_id, 16))] = (raw[0], raw[1:])
verified = []
for line in signatures.rstrip("\n").split("\n"):
    assert line.startswith("\u2014 "), line
    name, blob = line[2:].split(" ")
    blob = base64.b64decode(blob)
    key_id = int.from_bytes(blob[:4], "big")
    if (name, key_id) not in keys:
        continue
    algorithm, public = keys[(name, key_id)]
    assert hashlib.sha256(name.encode() + b"\n" + bytes([algorithm]) + public).digest()[:4] == blob[:4]
    if algorithm == 1:
        message, signature = text.encode(), blob[4:]
    elif algorithm == 4:
        timestamp = int.from_bytes(blob[4:12], "big")
        message = ("cosignature/v1\ntime %d\n" % timestamp).encode() + text.encode()
        signature = blob[12:]
    else:
        raise SystemExit("unknown signature type %d" % algorithm)
    Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    verified.append(name)
print(json.dumps(verified))
"#;
    let mut child = std::process::Command::new("python3")
        .env("PYTHONPATH", &packages)
        .arg("-c")
        .arg(SCRIPT)
        .args(vkeys)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(note.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Waits until `done` holds, or fails after `limit`.
fn wait_for(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A server whose checkpoints are signed after every batch and shown to `witnesses`.
fn witnessed_state(witnesses: Vec<WitnessEndpoint>) -> (api::state::AppState, String) {
    state_with(|s| {
        s.checkpoints = Some(CheckpointPolicy {
            every_entries: 1,
            every: Duration::from_millis(200),
            witness: None,
        });
        s.witnesses = witnesses;
    })
}

/// The server's witness clients, started as `dozor serve` starts them.
fn witness_clients(state: &api::state::AppState) -> api::witnessing::WitnessClients {
    api::witnessing::spawn(
        state.pool.clone(),
        state.witnesses.clone(),
        state.metrics.clone(),
    )
    .unwrap()
}

/// Spins `seq` of `table` (registered before its first spin), through the API.
async fn ingest_spins(
    state: &api::state::AppState,
    url: &str,
    table: &str,
    seq: std::ops::Range<u64>,
) {
    let table_key = key(1);
    let app = test_app(state).await;
    if seq.start == 1 {
        let mut conn = ledger::storage::connect(url).unwrap();
        register_roulette(
            &mut conn,
            table,
            &table_key,
            "2026-11-20T10:00:00Z".parse().unwrap(),
        );
    }
    for n in seq {
        let record = spin(
            table,
            n,
            (n % 37) as u8,
            json!([straight("b1", 17, 10_000, 0)]),
        );
        posted_record(&app, record, &table_key).await;
    }
}

fn latest_size(url: &str) -> u64 {
    let mut conn = ledger::storage::connect(url).unwrap();
    ledger::storage::checkpoints::latest(&mut conn)
        .unwrap()
        .map_or(0, |c| c.size as u64)
}

fn export_day(
    url: &str,
    sealer: &NoteSigner,
    keys: Vec<CosignatureVerifier>,
    quorum: usize,
    wait: Duration,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = ledger::storage::connect(url).unwrap();
    let clock = rules::gaming_day::GamingDayClock::default();
    let day = "2026-11-20".parse().unwrap();
    let out = dir.path().join("export");
    let request = ExportRequest {
        witnesses: ExportWitnesses { keys, quorum, wait },
        ..ExportRequest::new(
            &clock,
            sealer,
            "cli:tests",
            (day, day),
            &out,
            chrono::Utc::now(),
        )
    };
    reports::inspection::write_export(&mut conn, &request, &mut |_, _| {}).unwrap();
    dir
}

fn verify_with_witnesses(
    dir: &Path,
    witnesses: &[&CosignatureVerifier],
    quorum: usize,
) -> (bool, String) {
    verify_with_keys(dir, &[&operator()], witnesses, quorum)
}

/// `dozor verify` of the export under `dir` with these operator and witness keys.
fn verify_with_keys(
    dir: &Path,
    operators: &[&NoteSigner],
    witnesses: &[&CosignatureVerifier],
    quorum: usize,
) -> (bool, String) {
    let mut command = dozor();
    command.arg("verify").arg(dir.join("export"));
    for o in operators {
        command.args(["--operator-key", &o.verifier().to_string()]);
    }
    for w in witnesses {
        command.args(["--witness-key", &w.to_string()]);
    }
    let out = command
        .args(["--quorum", &quorum.to_string()])
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[actix_web::test]
async fn two_witnesses_cosign_the_ledger_one_catches_up_after_a_restart_and_an_export_needs_both() {
    let dir = tempfile::tempdir().unwrap();
    let one = WitnessProcess::new(dir.path(), "witness.test/one", &operator());
    let mut two = WitnessProcess::new(dir.path(), "witness.test/two", &operator());
    let (state, url) = witnessed_state(vec![one.endpoint(), two.endpoint()]);
    let clients = witness_clients(&state);
    ingest_spins(&state, &url, "R01", 1..6).await;
    let caught_up = |state: &api::state::AppState, who: usize| {
        let size = latest_size(&url);
        let p = &state.witnesses.progress()[who];
        size > 0 && p.cosigned_size == Some(size)
    };
    wait_for(Duration::from_secs(30), "both witnesses", || {
        caught_up(&state, 0) && caught_up(&state, 1)
    });

    // Witness two goes down: records are taken and witness one goes on cosigning.
    two.kill();
    ingest_spins(&state, &url, "R01", 6..11).await;
    wait_for(Duration::from_secs(30), "witness one", || {
        caught_up(&state, 0)
    });
    wait_for(Duration::from_secs(30), "witness two's failure", || {
        state.witnesses.progress()[1].last_error.is_some()
    });
    let progress = state.witnesses.progress();
    assert!(progress[1].lag_entries > 0, "{progress:?}");
    // Readiness is still 200 and shows the lag.
    let app = test_app(&state).await;
    let (status, ready) = get(&app, "/readyz").await;
    assert_eq!(status, 200, "{ready}");
    assert!(
        ready["witnesses"][1]["lag_entries"].as_u64().unwrap() > 0,
        "{ready}"
    );
    // The served checkpoint with two cosignatures is an older one than the latest.
    let (status, note) = get_text(&app, "/api/v1/ledger/checkpoint?cosignatures=2").await;
    assert_eq!(status, 200, "{note}");
    let keys = [one.verifier.clone(), two.verifier.clone()];
    assert_eq!(cosignature::cosignatures(&note, &keys).unwrap().len(), 2);
    let (_, latest) = get_text(&app, "/api/v1/ledger/checkpoint").await;
    assert_eq!(cosignature::cosignatures(&latest, &keys).unwrap().len(), 1);

    // Back up: it is shown the latest checkpoint with a proof from where it stopped.
    two.restart();
    wait_for(Duration::from_secs(90), "witness two to catch up", || {
        caught_up(&state, 1)
    });
    let (_, latest) = get_text(&app, "/api/v1/ledger/checkpoint").await;
    assert_eq!(cosignature::cosignatures(&latest, &keys).unwrap().len(), 2);
    // Someone else's code reads the served note the same way: the operator's signature and
    // both cosignatures verify; a changed tree size makes them fail.
    let vkeys = [
        operator().verifier().to_string(),
        one.verifier.to_string(),
        two.verifier.to_string(),
    ];
    assert_eq!(
        python_verified(&latest, &vkeys).unwrap(),
        [
            operator().name().to_owned(),
            one.verifier.name.clone(),
            two.verifier.name.clone()
        ]
    );
    let size = latest.lines().nth(1).unwrap().to_owned();
    let changed = latest.replacen(
        &format!("\n{size}\n"),
        &format!("\n{}\n", size.parse::<u64>().unwrap() + 1),
        1,
    );
    assert!(python_verified(&changed, &vkeys).is_err());

    // An export carries both cosignatures; verification with --quorum 2 passes, and fails
    // with a third witness key required.
    let export = export_day(&url, &operator(), keys.to_vec(), 2, Duration::from_secs(30));
    let (ok, stderr) = verify_with_witnesses(export.path(), &[&one.verifier, &two.verifier], 2);
    assert!(ok, "{stderr}");
    let three = dozor_log::cosignature::CosignatureSigner::new("witness.test/three", key(30))
        .unwrap()
        .verifier();
    let (ok, stderr) =
        verify_with_witnesses(export.path(), &[&one.verifier, &two.verifier, &three], 3);
    assert!(!ok);
    assert!(
        stderr.contains("cosigned by 2 of the 3 witness keys given"),
        "{stderr}"
    );
    // The database verify can require the same.
    let (code, printed, stderr) = verify_database_with(
        &url,
        &[
            "--witness-key",
            &one.verifier.to_string(),
            "--witness-key",
            &two.verifier.to_string(),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        printed["witnessed_size"].as_u64().unwrap() >= 10,
        "{printed}"
    );
    clients.stop();
}

#[actix_web::test]
async fn a_rewritten_ledger_signed_with_the_operators_key_is_refused_by_the_witness() {
    let dir = tempfile::tempdir().unwrap();
    let witness = WitnessProcess::new(dir.path(), "witness.test/one", &operator());
    // The ledger as it was: witnessed at its latest checkpoint.
    let (state, url) = witnessed_state(vec![witness.endpoint()]);
    let clients = witness_clients(&state);
    ingest_spins(&state, &url, "R01", 1..6).await;
    wait_for(Duration::from_secs(30), "the witness", || {
        state.witnesses.progress()[0].cosigned_size == Some(latest_size(&url))
            && latest_size(&url) > 0
    });
    let witnessed = latest_size(&url);
    clients.stop();

    // The same operator's key signs a ledger rebuilt from scratch (its entries received at
    // other times, so other hashes) and grown past the size the witness cosigned.
    let (rewritten, rewritten_url) = witnessed_state(vec![witness.endpoint()]);
    ingest_spins(&rewritten, &rewritten_url, "R01", 1..13).await;
    assert!(latest_size(&rewritten_url) > witnessed);
    let clients = witness_clients(&rewritten);
    wait_for(Duration::from_secs(30), "the witness's refusal", || {
        rewritten.witnesses.progress()[0]
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("422"))
    });
    let progress = rewritten.witnesses.progress();
    assert_eq!(progress[0].cosigned_size, Some(witnessed), "{progress:?}");
    clients.stop();
    // Its export carries no cosignature: verification with the witness's key fails.
    let export = export_day(
        &rewritten_url,
        &operator(),
        vec![witness.verifier.clone()],
        1,
        Duration::from_secs(1),
    );
    let (ok, stderr) = verify_with_witnesses(export.path(), &[&witness.verifier], 1);
    assert!(!ok);
    assert!(
        stderr.contains("cosigned by 0 of the 1 witness keys given"),
        "{stderr}"
    );
}

#[::core::prelude::v1::test]
fn every_new_operator_key_names_a_log_of_its_own_and_the_name_never_changes_silently() {
    let dir = tempfile::tempdir().unwrap();
    let made = |sub: &str, origin: Option<&str>| {
        ledger::operator_key::load_or_create(&dir.path().join(sub), None, origin)
    };
    // Two casinos that configure nothing still have logs of different names, each derived
    // from its own key: dozor.local/ and 16 hex digits of the key's SHA-256.
    let first = made("a", None).unwrap();
    let second = made("b", None).unwrap();
    assert_ne!(first.name(), second.name());
    assert_eq!(
        first.name(),
        ledger::operator_key::default_origin(&first.verifier().key)
    );
    assert!(first.name().starts_with("dozor.local/") && first.name().len() == 28);
    // A configured origin names a new key; the same key read again under another is refused.
    let named = made("c", Some("ledger.casino.example/praha")).unwrap();
    assert_eq!(named.name(), "ledger.casino.example/praha");
    let refused = made("c", Some("ledger.casino.example/brno")).unwrap_err();
    assert!(refused.to_string().contains("rotation"), "{refused}");
    assert!(made("c", None).is_ok());
}

#[::core::prelude::v1::test]
fn a_server_refuses_an_operator_key_other_than_the_one_that_signed_the_ledger() {
    let (_, url) = state();
    let mut conn = ledger::storage::connect(&url).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), 0, chrono::Utc::now()).unwrap();
    let mut settings = server::Settings::new(url.clone(), operator_with(43));
    settings.body_limit = 64 * 1024;
    let refused = server::state(&settings).err().unwrap();
    assert!(refused.to_string().contains("rotation"), "{refused}");
    let settings = server::Settings::new(url, operator());
    assert!(server::state(&settings).is_ok());
}

/// `dozor` with the test database, and the operator key file `key`.
fn dozor_on(url: &str, key: &Path) -> std::process::Command {
    let mut command = dozor();
    command
        .env("DATABASE_URL", url)
        .env("DOZOR_OPERATOR_KEY", key);
    command
}

#[actix_web::test]
async fn a_recorded_rotation_hands_the_log_to_a_new_key_and_origin_that_the_witness_and_verifiers_follow(
) {
    let dir = tempfile::tempdir().unwrap();
    let old = operator();
    let old_file = dir.path().join("old.key");
    ledger::operator_key::write_private(&old_file, &old.private_key()).unwrap();
    let witness = WitnessProcess::new(dir.path(), "witness.test/one", &old);
    let (state, url) = witnessed_state(vec![witness.endpoint()]);
    let clients = witness_clients(&state);
    ingest_spins(&state, &url, "R01", 1..6).await;
    wait_for(Duration::from_secs(30), "the witness", || {
        latest_size(&url) > 0
            && state.witnesses.progress()[0].cosigned_size == Some(latest_size(&url))
    });
    clients.stop();

    // The operator makes a key under a new origin and hands the log to it.
    let new_file = dir.path().join("new.key");
    dozor()
        .args([
            "keygen",
            "--operator",
            "--name",
            "casino.test/ledger-2027",
            "--out",
        ])
        .arg(&new_file)
        .succeeds();
    let new = NoteSigner::from_private_key(&std::fs::read_to_string(&new_file).unwrap()).unwrap();
    // A rotation needs a reason, and a key to hand to that is not the one holding the log.
    let out = dozor_on(&url, &old_file)
        .args(["log", "rotate", "--new-key"])
        .arg(&old_file)
        .args(["--reason", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = dozor_on(&url, &old_file)
        .args(["log", "rotate", "--new-key"])
        .arg(&new_file)
        .args(["--reason", "the seal device was replaced"])
        .succeeds();
    let rotated: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rotated["origin"], "casino.test/ledger-2027", "{rotated}");
    let rotation_size = rotated["checkpoint_size"].as_u64().unwrap();
    assert_eq!(latest_size(&url), rotation_size);
    // The rotation's checkpoint, signed by the old key, names the new one.
    let mut conn = ledger::storage::connect(&url).unwrap();
    let row = ledger::storage::checkpoints::latest(&mut conn)
        .unwrap()
        .unwrap();
    assert!(
        row.note
            .contains(&format!("\ndozor-rotated-to {}\n", new.verifier())),
        "{}",
        row.note
    );
    // The old key signs nothing more, even from a server still running with it.
    let refused =
        ledger::storage::checkpoints::create(&mut conn, &old, rotation_size, chrono::Utc::now())
            .unwrap_err();
    assert!(refused.to_string().contains("handed to"), "{refused}");
    let refused = server::state(&server::Settings::new(url.clone(), old.clone()))
        .err()
        .unwrap();
    assert!(refused.to_string().contains("handed to"), "{refused}");
    // `dozor log keys` lists both keys and where each began.
    let out = dozor_on(&url, &new_file).args(["log", "keys"]).succeeds();
    let keys: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        keys,
        json!([
            {"verifier_key": old.verifier().to_string(), "from_size": 0},
            {"verifier_key": new.verifier().to_string(), "from_size": rotation_size,
             "rotation_index": rotation_size - 1},
        ])
    );

    // The server starts with the new key; the witness is shown the rotation, then the new
    // origin's checkpoints, and cosigns them.
    drop(state);
    let mut settings = server::Settings::new(url.clone(), new.clone());
    settings.body_limit = 64 * 1024;
    settings.checkpoints = Some(CheckpointPolicy {
        every_entries: 1,
        every: Duration::from_millis(200),
        witness: None,
    });
    settings.witnesses = vec![witness.endpoint()];
    let state = server::state(&settings).unwrap();
    let clients = witness_clients(&state);
    ingest_spins(&state, &url, "R01", 6..11).await;
    wait_for(
        Duration::from_secs(60),
        "the witness to follow the new key",
        || {
            let size = latest_size(&url);
            size > rotation_size && state.witnesses.progress()[0].cosigned_size == Some(size)
        },
    );
    let new_origin_hash = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(b"casino.test/ledger-2027"))
    };
    let (status, cosigned) = witness.get(&format!("/{new_origin_hash}/checkpoint"));
    assert_eq!(status, 200, "{cosigned}");
    assert!(
        cosigned.starts_with("casino.test/ledger-2027\n"),
        "{cosigned}"
    );
    // The old origin's last cosigned checkpoint is the rotation's; someone else's code reads
    // the note with its extension line: the old key's signature and the cosignature verify.
    let old_origin_hash = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(old.name().as_bytes()))
    };
    let (status, rotation_note) = witness.get(&format!("/{old_origin_hash}/checkpoint"));
    assert_eq!(status, 200, "{rotation_note}");
    assert!(
        rotation_note.contains("\ndozor-rotated-to "),
        "{rotation_note}"
    );
    assert_eq!(
        python_verified(
            &rotation_note,
            &[old.verifier().to_string(), witness.verifier.to_string()]
        )
        .unwrap(),
        [old.name().to_owned(), witness.verifier.name.clone()]
    );

    // Verification across the rotation: both keys given, each checkpoint checked against the
    // key that held the log at its size; the old key alone does not open the latest.
    let export = export_day(
        &url,
        &new,
        vec![witness.verifier.clone()],
        1,
        Duration::from_secs(30),
    );
    clients.stop();
    let (ok, stderr) = verify_with_keys(export.path(), &[&old, &new], &[&witness.verifier], 1);
    assert!(ok, "{stderr}");
    let (ok, stderr) = verify_with_keys(export.path(), &[&old], &[], 0);
    assert!(!ok, "{stderr}");
    // The database verify with the server's own key follows the chain of keys by itself.
    dozor_on(&url, &new_file).arg("verify").succeeds();
}
