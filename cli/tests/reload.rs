#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor serve` re-reads its configuration on SIGHUP: a configuration copied into the data
//! directory after the start (as the README's order of commands does) puts the operator and its
//! premises in force without a restart; a broken file leaves the one in force; a key that only a
//! restart applies is named in the log, its old value kept.

mod common;

use std::time::Duration;

use common::poll::poll_until;
use common::site::{Server, Site};
use common::{Succeeds as _, OPERATOR_CONFIG};

const PACKAGE: &str = "/api/v1/reports/mf?month=2026-10&misto=kasino_1";

fn hang_up(server: &Server) {
    let status = std::process::Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until the log holds `text` (once more than `seen` times) and returns how many it holds.
fn wait_for_log(server: &Server, text: &str, seen: usize) -> usize {
    poll_until(Duration::from_secs(20), Duration::from_millis(50), || {
        let count = server.log().matches(text).count();
        if count > seen {
            Ok(count)
        } else {
            Err(format!("no new `{text}` in the log:\n{}", server.log()))
        }
    })
}

#[test]
fn a_configuration_copied_after_the_start_is_in_force_after_sighup() {
    let site = Site::new();
    let mut server = site.serve();
    let officer = site.apikey("officer", "compliance");

    // Started with no dozor.toml: the Ministry's package has no operator to name.
    let (status, body) = server.http.get(PACKAGE, Some(&officer));
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "not_configured", "{body}");

    // The configuration copied in, then `kill -HUP`: the same request now makes the package.
    std::fs::write(site.path().join("dozor.toml"), OPERATOR_CONFIG).unwrap();
    hang_up(&server);
    let reloaded = wait_for_log(&server, "configuration re-read", 0);
    let (status, body) = server.http.get(PACKAGE, Some(&officer));
    assert_eq!(status, 200, "{body}");

    // A broken file is refused whole, named in the log; the operator stays configured.
    std::fs::write(
        site.path().join("dozor.toml"),
        format!("{OPERATOR_CONFIG}\n[gaming_day]\nstart_hour = \"early\"\n"),
    )
    .unwrap();
    hang_up(&server);
    wait_for_log(&server, "configuration not re-read", 0);
    assert!(
        server.log().contains("gaming_day.start_hour"),
        "{}",
        server.log()
    );
    assert_eq!(server.http.get(PACKAGE, Some(&officer)).0, 200);

    // A key only a restart applies: named, and the server goes on as it started.
    std::fs::write(
        site.path().join("dozor.toml"),
        format!("{OPERATOR_CONFIG}\n[gaming_day]\nstart_hour = 7\n"),
    )
    .unwrap();
    hang_up(&server);
    wait_for_log(&server, "configuration re-read", reloaded);
    let log = server.log();
    assert!(log.contains("only a restart applies"), "{log}");
    assert!(log.contains("gaming_day.start_hour"), "{log}");
    // The data directory's key is not among them: nothing else changed.
    assert!(!log.contains("keys=database"), "{log}");
    server.wait_until_healthy();
    assert_eq!(server.http.get(PACKAGE, Some(&officer)).0, 200);

    // The log went to a file: no colour codes in it.
    assert!(!server.log().contains('\u{1b}'), "{}", server.log());
    server.stop();
}

#[test]
fn a_command_other_than_serve_logs_only_when_asked() {
    let site = Site::new();
    let create = |name: &str, verbose: bool| {
        let mut dozor = site.dozor();
        if verbose {
            dozor.arg("--verbose");
        }
        let out = dozor
            .args(["apikey", "create", "--name", name, "--role", "admin"])
            .succeeds();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The first command makes the cluster, the database and the operator key: said nothing.
    let quiet = create("first", false);
    assert!(!quiet.contains("INFO"), "{quiet}");
    let verbose = create("second", true);
    assert!(verbose.contains("INFO"), "{verbose}");
    assert!(verbose.contains("checkpoints are signed with"), "{verbose}");
    assert!(!verbose.contains('\u{1b}'), "{verbose}");
}
