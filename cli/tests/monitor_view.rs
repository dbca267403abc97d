#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The regulator's view as the monitor serves it: a casino (`dozor serve` publishing tiles into
//! a folder, cosigned by the regulator's witness, served by Debian's nginx) followed by
//! `dozor monitor` with `[http] listen` set. Over the monitor's own listener every route is 401
//! without a token and 403 with another; with the token the month's figures per game are the
//! casino's own month report's; a round with a finding is proven from the casino's tiles;
//! `--view-out` writes the page, which headless Chromium renders with the network off.

mod common;

use std::io::BufRead as _;
use std::process::{Child, Stdio};
use std::time::Duration;

use common::casinos::{Casino, Witness};
use common::nginx::Nginx;
use common::Succeeds as _;
use ledger::storage::cluster::LocalCluster;
use serde_json::Value;
use sha2::Digest as _;

const TOKEN: &str = "the-regulator's-view-token";

/// `GET url` with `token`: the status and the body.
fn get(url: &str, token: Option<&str>) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut request = agent.get(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let mut answer = request.call().unwrap();
    let status = answer.status().as_u16();
    (status, answer.body_mut().read_to_string().unwrap())
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_view_is_served_behind_its_token_with_the_casino_s_own_figures_and_rounds_proven() {
    let work = tempfile::tempdir().unwrap();
    let mut casino = Casino::new("casino-v");
    let witness = Witness::start(work.path(), &[&casino.vkey]);
    casino.configure(&witness);
    casino.start();
    casino.play(11, 2, 80);
    let size = casino.wait_published();
    let nginx = Nginx::serve_tiles(&casino.folder, "casino-v");

    let cluster = LocalCluster::temporary().unwrap();
    cluster.create_database("monitor").unwrap();
    let url = cluster.url("monitor");
    let hash = hex::encode(sha2::Sha256::digest(TOKEN.as_bytes()));
    let config = work.path().join("monitor.toml");
    std::fs::write(
        &config,
        format!(
            "[follow]\npoll_seconds = 1\ntimeout_seconds = 5\n\n\
             [http]\nlisten = \"127.0.0.1:0\"\nbearer_token_sha256 = [\"{hash}\"]\n\n\
             [[casino]]\nname = \"casino-v\"\ntiles_url = \"{}\"\noperator_keys = [\"{}\"]\n\
             witnesses = [\"{}\"]\nquorum = 1\n",
            nginx.url_of("casino-v"),
            casino.vkey,
            witness.verifier
        ),
    )
    .unwrap();
    let dozor = || {
        let mut command = common::dozor();
        command
            .env_remove("DATABASE_URL")
            .args(["monitor", "--config"])
            .arg(&config)
            .args(["--database-url", &url]);
        command
    };
    let mut child = dozor()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let monitor = Killed(child);
    let mut first = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut first)
        .unwrap();
    let line: Value = serde_json::from_str(&first).unwrap();
    let base = format!("http://{}", line["view_listening"].as_str().unwrap());

    // Followed to everything published.
    common::poll::poll_until(Duration::from_secs(120), Duration::from_millis(200), || {
        let (status, body) = get(&format!("{base}/view.json"), Some(TOKEN));
        let view: Value = serde_json::from_str(&body).map_err(|e| e.to_string())?;
        match view["casinos"][0]["entries_followed"].as_u64() {
            Some(n) if status == 200 && n == size => Ok(()),
            other => Err(format!("{status}: followed {other:?} of {size}")),
        }
    });

    for route in [
        "/",
        "/view.json",
        "/view.csv",
        "/metrics",
        "/casino/casino-v/round/1",
    ] {
        let (status, body) = get(&format!("{base}{route}"), None);
        assert_eq!(status, 401, "{route}: {body}");
        let (status, body) = get(&format!("{base}{route}"), Some("another-token"));
        assert_eq!(status, 403, "{route}: {body}");
        assert!(!body.contains(TOKEN));
    }

    // The month's figures per game are the casino's own month report's.
    let month = chrono::Utc::now()
        .with_timezone(&chrono_tz::Europe::Prague)
        .format("%Y-%m")
        .to_string();
    let (_, body) = get(&format!("{base}/view.json?month={month}"), Some(TOKEN));
    let view: Value = serde_json::from_str(&body).unwrap();
    let report = casino.month_report();
    let games = view["casinos"][0]["games"].as_array().unwrap();
    assert!(!games.is_empty());
    for game in games {
        let code = game["game"].as_str().unwrap();
        let theirs = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["game"] == code && r["gaming_day"].is_null() && r["table_id"].is_null())
            .unwrap_or_else(|| panic!("{code} is in the casino's report"));
        for (ours, field) in [
            ("rounds", "rounds"),
            ("void_rounds", "void_rounds"),
            ("stakes_h", "stakes_h"),
            ("returned_h", "returned_stakes_h"),
            ("payouts_h", "payouts_h"),
        ] {
            assert_eq!(game[ours], theirs[field], "{code} {field}");
        }
        assert_eq!(
            game["findings"], theirs["findings"]["count"],
            "{code} findings"
        );
        // Nothing is resolved yet: every finding of the month is open.
        assert_eq!(game["findings_open"], game["findings"], "{code}");
        assert_eq!(
            game["theoretical_rtp_pct"], theirs["theoretical_rtp_pct"],
            "{code} theoretical RTP"
        );
        // Actual RTP and z counted as the month page counts them (payouts of played rounds
        // over the stakes less those void rounds handed back), each rounded on its own side.
        let close = |a: &Value, b: &Value, within: f64| match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) => (a - b).abs() <= within,
            _ => a.is_null() && b.is_null(),
        };
        assert!(
            close(&game["actual_rtp_pct"], &theirs["actual_rtp_pct"], 0.000_11),
            "{code} actual RTP {} against {}",
            game["actual_rtp_pct"],
            theirs["actual_rtp_pct"]
        );
        assert!(
            close(
                &game["deviation_sd"],
                &theirs["deviation"]["deviation_sd"],
                0.011
            ),
            "{code} z {} against {}",
            game["deviation_sd"],
            theirs["deviation"]["deviation_sd"]
        );
    }

    // A round with a finding, proven from the casino's tiles.
    let mut conn = dozor_monitor::store::connection::connect(&url).unwrap();
    let finding = dozor_monitor::store::status::findings(&mut conn)
        .unwrap()
        .remove(0);
    let index = finding.ledger_index;
    let (status, body) = get(
        &format!("{base}/casino/casino-v/round/{index}.json"),
        Some(TOKEN),
    );
    assert_eq!(status, 200, "{body}");
    let round: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(round["proof"]["verified"], true);
    assert_eq!(round["findings"][0]["kind"], finding.kind.as_str());
    let (status, page) = get(
        &format!("{base}/casino/casino-v/round/{index}"),
        Some(TOKEN),
    );
    assert_eq!(status, 200);
    assert!(page.contains(&format!("Záznam č. {index} je v kontrolním bodě velikosti")));
    assert!(page.contains("ověřeno"));
    let (status, body) = get(&format!("{base}/view.json?month=2026-13"), Some(TOKEN));
    assert_eq!(status, 400, "{body}");
    drop(monitor);

    // --view-out: the same page as a file, rendered offline.
    let out = work.path().join("view");
    dozor()
        .arg("--view-out")
        .arg(&out)
        .args(["--month", &month])
        .succeeds();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let rendered = common::browser::render_offline(&html, "monitor-view");
    assert!(rendered.dom.contains("Dozor nad kasiny"));
    assert!(rendered.dom.contains("casino-v"));
    assert!(rendered.screenshot_bytes > 10_000);
    let csv = std::fs::read(out.join("view.csv")).unwrap();
    assert!(csv.starts_with("\u{feff}Kasino;Stav;".as_bytes()));
    let refused = dozor()
        .arg("--view-out")
        .arg(&out)
        .args(["--month", "2026-13"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--month `2026-13`"), "{stderr}");
}
