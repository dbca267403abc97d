#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The operator key rotated as docs/OPERATIONS.md says (`dozor log rotate`, the server
//! stopped), on a site with dozor's own cluster and the default key file: afterwards every
//! command finds the current key where it looks for it, with no variable set by hand.

mod common;

use std::os::unix::fs::PermissionsExt as _;

use common::site::Site;
use common::{key, registration, submit_spins, Succeeds as _};
use dozor_log::checkpoint::NoteSigner;
use serde_json::Value;

fn key_in(path: &std::path::Path) -> NoteSigner {
    NoteSigner::from_private_key(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The site's `dozor`, with no operator key named anywhere but its data directory.
fn dozor(site: &Site) -> std::process::Command {
    let mut command = site.dozor();
    command.env_remove("DOZOR_OPERATOR_KEY");
    command
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn after_a_rotation_every_command_finds_the_new_key_in_the_default_file_and_the_old_is_kept() {
    let site = Site::new();
    let key_file = site.path().join("operator.key");
    let server = site.serve();
    let admin = site.apikey("before", "admin");
    server
        .http
        .register_table(Some(&admin), &registration("T1", &key(11)));
    submit_spins(&server.http, 1..=3);
    server.stop();
    let old = key_in(&key_file);

    // A rotation that is refused (to the key holding the log) changes no file.
    let out = dozor(&site)
        .args(["log", "rotate", "--new-key"])
        .arg(&key_file)
        .args(["--reason", "mistake"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let files = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("operator.key"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(files(&site.path()), ["operator.key"]);
    assert_eq!(key_in(&key_file).verifier(), old.verifier());

    // The rotation as documented: no key named, none made beforehand.
    let out = dozor(&site)
        .args([
            "log",
            "rotate",
            "--reason",
            "seal device replaced (ticket 4711)",
        ])
        .succeeds();
    let rotated = json(&out);
    let new = key_in(&key_file);
    assert_ne!(new.verifier(), old.verifier());
    assert_eq!(rotated["from_key"], old.verifier().to_string(), "{rotated}");
    assert_eq!(rotated["to_key"], new.verifier().to_string(), "{rotated}");
    // The log's own origin, so a configuration naming it needs no change.
    assert_eq!(new.name(), old.name());
    let retired_name = format!(
        "operator.key.retired-{}",
        dozor_log::keys::key_id(&old.verifier().key)
    );
    assert_eq!(files(&site.path()), ["operator.key", retired_name.as_str()]);
    let retired = site.path().join(&retired_name);
    assert_eq!(key_in(&retired).private_key(), old.private_key());
    for file in [&key_file, &retired] {
        let mode = std::fs::metadata(file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{}", file.display());
    }

    // Every command, as it finds the key: an API key (a registry event the old key may no
    // longer sign), a table, the nightly seal, the server and the simulator, verify.
    let admin = site.apikey("after", "admin");
    let limits = json(&dozor(&site).args(["table", "limits", "T1"]).succeeds());
    assert!(limits.is_object(), "{limits}");
    dozor(&site)
        .args(["report", "nightly", "--day", "2026-11-20"])
        .succeeds();
    let server = site.serve();
    submit_spins(&server.http, 4..=6);
    let (status, _) = server.http.get("/api/v1/tables", Some(&admin));
    assert_eq!(status, 200);
    dozor(&site)
        .args(["simulate", "--server", &server.http.base])
        .args(["--tables", "1", "--rounds", "3", "--error-share", "0"])
        .succeeds();
    server.stop();
    let report = json(&dozor(&site).arg("verify").succeeds());
    assert!(report["failure"].is_null(), "{report}");
    // The weekly full walk's unit as systemd runs it (its first run walks, none having passed),
    // then the nightly unit's, whose check goes on from the walk's mark: both pass across the
    // rotation, and both record a mark.
    for (unit, report) in [
        (
            include_str!("../../deploy/systemd/dozor-full-walk.service"),
            "full-walk-",
        ),
        (
            include_str!("../../deploy/systemd/dozor-nightly.service"),
            "verify-",
        ),
    ] {
        run_unit(unit, &site.path());
        let verified = std::fs::read_dir(site.path().join("verify"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(report))
            .unwrap();
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(verified).unwrap()).unwrap();
        assert!(report["failure"].is_null(), "{report}");
        assert!(report["mark_index"].is_u64(), "{report}");
    }
    let keys = json(&dozor(&site).args(["log", "keys"]).succeeds());
    assert_eq!(
        keys[0]["verifier_key"],
        old.verifier().to_string(),
        "{keys}"
    );
    assert_eq!(
        keys[1]["verifier_key"],
        new.verifier().to_string(),
        "{keys}"
    );
}

/// Runs a systemd unit's `ExecStart` as systemd would (its escapes undone) in `site`, with the
/// data directory as dozor.env would give it and nothing else.
fn run_unit(unit: &str, site: &std::path::Path) {
    let exec = unit
        .split("ExecStart=")
        .nth(1)
        .unwrap()
        .split("\n")
        .scan(true, |going_on, line| {
            let take = std::mem::replace(going_on, line.ends_with('\\'));
            take.then(|| line.trim_end_matches('\\').to_owned())
        })
        .collect::<String>()
        .replace("$$", "$")
        .replace("%%", "%")
        .replace("/usr/local/bin/dozor", env!("CARGO_BIN_EXE_dozor"));
    let script = exec
        .strip_prefix("/bin/sh -c '")
        .and_then(|s| s.strip_suffix('\''))
        .unwrap();
    std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(site)
        .env("DOZOR_DATA_DIR", site)
        .env_remove("DATABASE_URL")
        .env_remove("DOZOR_OWNER_DATABASE_URL")
        .env_remove("DOZOR_OPERATOR_KEY")
        .env_remove("DOZOR_CHECKPOINT_WITNESS")
        .succeeds();
}
