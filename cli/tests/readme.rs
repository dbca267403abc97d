#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The README's month of operations, run exactly as written in a fresh data directory: the
//! configuration copied from the example, `dozor serve` as configured, the month simulated
//! (every record accepted under the server's default limits, wherever the configuration says
//! the server listens), simulated again (nothing appended twice), and its Ministry package made
//! and validated.

mod common;

use common::python_czech_column;
use common::site::Site;
use common::Succeeds as _;
use serde_json::Value;

/// The arguments of the README's command that starts with `prefix` (after `cargo run
/// --release --`), split at spaces; comments dropped.
fn readme_command(prefix: &str) -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with(&format!("cargo run --release -- {prefix}")))
        .unwrap_or_else(|| panic!("the README has no `{prefix}` command"));
    let command = line.split('#').next().unwrap();
    command
        .split_whitespace()
        .skip(4)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readmes_month_is_accepted_whole_once_and_gives_a_valid_package() {
    let site = Site::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // `cp deploy/dozor.example.toml var/dozor.toml`, on a port of its own (the simulator must
    // find the server there without being told).
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/dozor.example.toml"
    ))
    .unwrap();
    assert!(example.contains("listen = \"127.0.0.1:8080\""));
    let config = example
        .replace(
            "listen = \"127.0.0.1:8080\"",
            &format!("listen = \"127.0.0.1:{port}\""),
        )
        .replace("nightly_at = \"06:30\"", "nightly_at = \"off\"");
    std::fs::write(site.path().join("dozor.toml"), config).unwrap();
    let server = site.serve_as_configured(port);

    let simulate = readme_command("simulate --month");
    assert!(simulate.contains(&"--month".to_owned()), "{simulate:?}");
    let run = || -> Value {
        let out = site.dozor().args(&simulate).output().unwrap();
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let first = run();
    let total = first["records_of_the_month"].as_u64().unwrap();
    assert!(total > 10_000, "{first}");
    assert_eq!(first["records_submitted"], total, "{first}");
    assert_eq!(
        first["http_status_counts"],
        serde_json::json!({"201": total}),
        "{first}"
    );
    // Again: the ledger holds the month already; nothing is submitted.
    let again = run();
    assert_eq!(
        (&again["already_in_the_ledger"], &again["records_submitted"]),
        (&Value::from(total), &Value::from(0)),
        "{again}"
    );

    // Another simulation of the same month is refused before anything is sent, in one line.
    let officer = site.apikey("officer", "compliance");
    // (Only the simulator's own API key, made and revoked, is recorded: no station's record.)
    let last_seq_nos = || -> Vec<Value> {
        ["R01", "BJ02", "ROOM01", "CAGE"]
            .iter()
            .map(|t| {
                let (status, table) = server
                    .http
                    .get(&format!("/api/v1/tables/{t}"), Some(&officer));
                assert_eq!(status, 200, "{table}");
                table["last_record"].clone()
            })
            .collect()
    };
    let before = last_seq_nos();
    let other = site
        .dozor()
        .args(&simulate)
        .args(["--seed", "7"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("dozor: R01 already holds records of this month or later")
            && stderr.lines().filter(|l| l.starts_with("dozor:")).count() == 1,
        "{stderr}"
    );
    assert_eq!(last_seq_nos(), before);

    // A day of the month for a Czech office, from the command line.
    let out_dir_for_sheets = tempfile::tempdir().unwrap();
    let daily = site
        .dozor()
        .args([
            "report",
            "daily",
            "--day",
            "2026-10-05",
            "--format",
            "csv-cz",
        ])
        .succeeds();
    let text = String::from_utf8(daily.stdout).unwrap();
    assert!(
        text.starts_with("\u{feff}Herní den;Hra;Stůl;") && text.contains(";Ruleta;R01;"),
        "{text}"
    );
    let no_file = site
        .dozor()
        .args(["report", "daily", "--day", "2026-10-05", "--format", "xlsx"])
        .output()
        .unwrap();
    assert_eq!(no_file.status.code(), Some(2));
    // The month's RTP for a Czech office: the month's line of roulette, as many rounds as the
    // JSON says.
    let rtp = |format: &str| {
        site.dozor()
            .args(["report", "rtp", "--month", "2026-10", "--game", "roulette"])
            .args(["--format", format])
            .succeeds()
            .stdout
    };
    let json: serde_json::Value = serde_json::from_slice(&rtp("json")).unwrap();
    let people = String::from_utf8(rtp("csv-cz")).unwrap();
    assert_eq!(
        python_czech_column(&people, "Kol")[0],
        json["rows"][0]["rounds"].to_string()
    );
    assert_eq!(python_czech_column(&people, "Hra")[0], "Ruleta");
    // The wheels of the month as a workbook.
    let workbook = out_dir_for_sheets.path().join("wheels.xlsx");
    site.dozor()
        .args([
            "report", "wheels", "--month", "2026-10", "--format", "xlsx", "--out",
        ])
        .arg(&workbook)
        .succeeds();
    assert!(std::fs::read(&workbook).unwrap().starts_with(b"PK"));
    // Every other report for a Czech office from the command line too: one line of the sheet
    // per line of the JSON, and a workbook.
    for (args, lines, heading) in [
        (["shoes", "--day", "2026-10-05"], "shoes", "Sáňky (shoe)"),
        (
            ["time-collection", "--day", "2026-10-05"],
            "uncollected",
            "Naposledy zaplaceno do",
        ),
        (
            ["table-audit", "--day", "2026-10-05"],
            "findings",
            "Porovnáno s kolem (seq_no)",
        ),
        (["periods", "--month", "2026-10"], "tables", "Rozdíl (Kč)"),
    ] {
        let report = |format: &[&str]| {
            site.dozor()
                .arg("report")
                .args(args)
                .args(format)
                .succeeds()
                .stdout
        };
        let json: serde_json::Value =
            serde_json::from_slice(&report(&["--format", "json"])).unwrap();
        let people = String::from_utf8(report(&["--format", "csv-cz"])).unwrap();
        assert_eq!(
            python_czech_column(&people, heading).len(),
            json[lines].as_array().unwrap().len(),
            "{args:?}: {people}"
        );
        let workbook = out_dir_for_sheets.path().join(format!("{}.xlsx", args[0]));
        report(&["--format", "xlsx", "--out", workbook.to_str().unwrap()]);
        assert!(
            std::fs::read(&workbook).unwrap().starts_with(b"PK"),
            "{args:?}"
        );
    }

    // The package of the month, and the validator's word on it.
    let out_dir = tempfile::tempdir().unwrap();
    let mut mf = readme_command("report mf --month");
    let at = mf.iter().position(|a| a == "--out").unwrap();
    mf[at + 1] = out_dir.path().display().to_string();
    site.dozor().args(&mf).succeeds();
    let package = std::fs::read_dir(out_dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "zip"))
        .unwrap();
    assert!(package
        .file_name()
        .unwrap()
        .to_string_lossy()
        .ends_with("-M-202610-Z-kasino_1-01.zip"));
    let out = site
        .dozor()
        .args(["report", "mf-validate"])
        .arg(&package)
        .succeeds();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("OK: "));
}
