#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The README's promises. Every command of its code blocks, read from README.md and run by
//! `sh` in order in a fresh directory, the simulations twice (a second `simulate` adds rounds
//! at the same tables; a second month run sends nothing). The month of operations in a fresh
//! data directory: the configuration copied from the example, `dozor serve` as configured, the
//! month simulated (every record accepted under the server's default limits, wherever the
//! configuration says the server listens), simulated again (nothing appended twice), and its
//! Ministry package made and validated. A month run again after later ones, an earlier month
//! refused, and a second simulation beside another seed's tables.

mod common;

use common::site::Site;
use common::Succeeds as _;
use common::{free_port, python_czech_column};
use serde_json::{json, Value};
use std::process::{Command, Stdio};

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

/// The example configuration as shipped, listening on `port`, and without the server's own
/// nightly run (which would race the README's `report nightly` and the tests' counts).
fn example_config(port: u16) -> String {
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/dozor.example.toml"
    ))
    .unwrap();
    for setting in ["listen = \"127.0.0.1:8080\"", "nightly_at = \"06:30\""] {
        assert!(example.contains(setting), "{setting}");
    }
    example
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"))
        .replace("nightly_at = \"06:30\"", "nightly_at = \"off\"")
}

#[test]
fn the_readmes_month_is_accepted_whole_once_and_gives_a_valid_package() {
    let site = Site::new();
    let port = free_port();
    // `cp deploy/dozor.example.toml var/dozor.toml`, on a port of its own (the simulator must
    // find the server there without being told).
    let config = example_config(port);
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

/// The README's shell commands in order: each code block's lines, a line ending in `\` joined
/// with the next, comments dropped; with the number of the block each is in.
fn readme_script() -> Vec<(usize, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let (mut lines, mut block, mut in_sh, mut pending) = (Vec::new(), 0, false, String::new());
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            block += usize::from(in_sh);
            continue;
        }
        if !in_sh {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                let command = without_comment(&pending).trim().to_owned();
                if !command.is_empty() {
                    lines.push((block, command));
                }
                pending.clear();
            }
        }
    }
    lines
}

/// `line` up to its comment: a `#` after a space, outside quotes.
fn without_comment(line: &str) -> &str {
    let (mut quote, mut previous) = (None, ' ');
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => return &line[..i],
            _ => {}
        }
        previous = c;
    }
    line
}

/// A README walked through as a person does, in a fresh directory holding what the README
/// reads from the source tree (`deploy/dozor.example.toml`): every command run by `sh`, with
/// `cargo run --release --` and `dozor` meaning the binary under test.
struct Walk {
    dir: tempfile::TempDir,
    port: u16,
    /// The variables the README sets (`OFFICER=dzr_…`), from the output they refer to.
    variables: Vec<(String, String)>,
    /// What the last command printed (standard output, then standard error).
    last: String,
    servers: Vec<common::site::Server>,
}

impl Walk {
    fn new() -> Walk {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        // PostgreSQL (the `postgres` user when the tests run as root) must reach var/pg.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let port = free_port();
        // The example configuration as shipped, on a port of the test's own (the README's
        // `127.0.0.1:8080` is that port throughout).
        let example = example_config(port);
        std::fs::create_dir_all(dir.path().join("deploy")).unwrap();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        std::fs::write(dir.path().join("deploy/dozor.example.toml"), example).unwrap();
        Walk {
            dir,
            port,
            variables: Vec::new(),
            last: String::new(),
            servers: Vec::new(),
        }
    }

    /// The README's line as `sh` runs it here: the binary under test for `cargo run --release
    /// --` and `dozor`, the test's port for 8080, its own `tmp` for `/tmp`, and each
    /// `<placeholder>` filled from the output before (`<IČO>`: the configuration's).
    fn shell(&self, line: &str) -> String {
        let mut text = line
            .replace("cargo run --release --", "\"$DOZOR\"")
            .replace("127.0.0.1:8080", &format!("127.0.0.1:{}", self.port))
            .replace(" /tmp", &format!(" {}/tmp", self.dir.path().display()));
        if let Some(rest) = text.strip_prefix("dozor ") {
            text = format!("\"$DOZOR\" {rest}");
        }
        while let Some(start) = text.find('<') {
            let Some(length) = text[start..].find('>') else {
                break;
            };
            let name = &text[start + 1..start + length];
            let value = if name == "IČO" {
                let config =
                    std::fs::read_to_string(self.dir.path().join("var/dozor.toml")).unwrap();
                field_after(&config, "ico = \"").unwrap()
            } else {
                field_after(&self.last, &format!("\"{name}\":\""))
                    .unwrap_or_else(|| panic!("`{line}`: no {name} in:\n{}", self.last))
            };
            text.replace_range(start..=start + length, &value);
        }
        text
    }

    fn sh(&self, script: &str) -> Command {
        let mut command = Command::new("sh");
        command
            .args(["-c", script])
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .envs(
                ["USER", "LOGNAME"]
                    .iter()
                    .filter_map(|k| Some((k, std::env::var(k).ok()?))),
            )
            .env("DOZOR", env!("CARGO_BIN_EXE_dozor"))
            // The README's 127.0.0.1:8080 is the test's port, also before the configuration
            // (which says so too) is copied.
            .env("DOZOR_BIND", format!("127.0.0.1:{}", self.port))
            .envs(self.variables.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Starts `script` (a `serve`) and waits until it answers.
    fn start(&mut self, script: &str) -> common::site::Server {
        let log = self
            .dir
            .path()
            .join(format!("serve-{}.log", self.servers.len()));
        let file = std::fs::File::create(&log).unwrap();
        let child = self
            .sh(&format!("exec {script}"))
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap();
        let mut server = common::site::Server {
            child,
            log,
            http: common::site::Http::new(self.port),
        };
        server.wait_until_healthy();
        server
    }

    /// Runs one README line; its standard output.
    fn run(&mut self, line: &str) -> String {
        if let Some((name, "dzr_…")) = line.split_once('=') {
            // `OFFICER=dzr_…`: the token the line above printed.
            let token = self
                .last
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .rfind(|w| w.starts_with("dzr_"))
                .unwrap_or_else(|| panic!("`{line}`: no token in:\n{}", self.last))
                .to_owned();
            self.variables.push((name.to_owned(), token));
            return String::new();
        }
        let script = self.shell(line);
        if let Some(background) = script.strip_suffix('&') {
            let server = self.start(background.trim());
            self.servers.push(server);
            return String::new();
        }
        if script.starts_with("\"$DOZOR\" serve") {
            // In the foreground, as in a terminal of its own: it answers, and stops on SIGTERM
            // (Ctrl-C's twin) as it should.
            self.start(&script).stop();
            return String::new();
        }
        let out = self.sh(&script).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert!(
            out.status.success(),
            "`{line}` failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        // An answer of dozor's API that is an error (`{code, message, details, request_id}`)
        // does not make curl fail: it is a failure of the README all the same.
        assert!(
            !(stdout.contains("\"request_id\":") && stdout.contains("\"code\":")),
            "`{line}` was answered with an error:\n{stdout}"
        );
        self.last = format!("{stdout}\n{stderr}");
        stdout
    }
}

/// The text after `prefix` in `text` up to the next `"`.
fn field_after(text: &str, prefix: &str) -> Option<String> {
    let start = text.find(prefix)? + prefix.len();
    let length = text[start..].find('"')?;
    Some(text[start..start + length].to_owned())
}

#[test]
fn every_readme_command_runs_in_order_on_a_fresh_directory_the_simulations_twice() {
    let mut walk = Walk::new();
    let script = readme_script();
    assert!(script.len() > 25, "{script:?}");
    let mut simulated = 0;
    for (block, line) in &script {
        // The first block's second line runs the workspace's tests, this one among them.
        if line == "cargo test --workspace" {
            assert_eq!(*block, 1);
            continue;
        }
        let out = walk.run(line);
        if line.contains(" simulate --tables ") {
            // Again: the same tables, 200 more rounds at each, every one accepted.
            let first: Value = serde_json::from_str(&out).unwrap();
            let again: Value = serde_json::from_str(&walk.run(line)).unwrap();
            for run in [&first, &again] {
                assert_eq!(
                    run["tables"],
                    json!(["SIM-R01", "SIM-R02", "SIM-R03"]),
                    "{run}"
                );
                assert_eq!(run["tables_passed_over"], json!([]), "{run}");
                assert_eq!(run["http_status_counts"], json!({"201": 600}), "{run}");
            }
            simulated += 1;
        }
        if line.contains(" simulate --month ") {
            // Again: the month is in the ledger whole; nothing is sent.
            let first: Value = serde_json::from_str(&out).unwrap();
            let total = first["records_of_the_month"].clone();
            assert_eq!(
                first["http_status_counts"],
                json!({"201": total}),
                "{first}"
            );
            let again: Value = serde_json::from_str(&walk.run(line)).unwrap();
            assert_eq!(
                (&again["already_in_the_ledger"], &again["records_submitted"]),
                (&total, &json!(0)),
                "{again}"
            );
            simulated += 1;
        }
        if line.contains("findings?kind=overpaid") {
            assert!(out.contains("\"kind\":\"overpaid\""), "{out}");
        }
        if line.contains("/resolutions") {
            assert!(out.contains("\"confirmed\""), "{out}");
        }
        if line.contains("mf-validate") {
            assert!(out.starts_with("OK: "), "{out}");
        }
        if line.contains("api/v1/records ") {
            assert!(out.contains("\"entry_hash\""), "{out}");
        }
    }
    assert_eq!(simulated, 2);
    // What the README's lines wrote is what they say.
    let tmp = walk.dir.path().join("tmp");
    for (file, starts) in [
        ("2026-10.html", "<!doctype html>"),
        ("page.html", "<!doctype html>"),
        ("2026-10.csv", "\u{feff}"),
    ] {
        let text = std::fs::read_to_string(tmp.join(file)).unwrap();
        assert!(
            text.to_lowercase().starts_with(starts),
            "{file}: {}",
            text.chars().take(200).collect::<String>()
        );
    }
    assert!(std::fs::read(walk.dir.path().join("today.xlsx"))
        .unwrap()
        .starts_with(b"PK"));
    // The month's report a person reads on a terminal (a terminal of `script`'s): a table in
    // Czech, its first line the month's roulette as the JSON gives it.
    let json: Value = serde_json::from_str(
        &walk
            .run("cargo run --release -- report rtp --month 2026-10 --game roulette --format json"),
    )
    .unwrap();
    let terminal = walk
        .sh("script -qec \"$DOZOR report rtp --month 2026-10 --game roulette\" /dev/null")
        .output()
        .unwrap();
    assert!(terminal.status.success(), "{terminal:?}");
    let table = String::from_utf8(terminal.stdout)
        .unwrap()
        .replace('\r', "");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "RTP 2026-10", "{table}");
    assert!(
        lines[2].starts_with("Herní den") && lines[2].contains("Vsazeno (Kč)"),
        "{table}"
    );
    let month = &json["rows"][0];
    assert!(month["gaming_day"].is_null(), "{month}");
    let cells: Vec<&str> = lines[4]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    // The whole month's line: its words, then the rounds and the stakes as a Czech reader
    // writes them (thousands apart by a space, a decimal comma).
    assert_eq!(&cells[..3], ["celý měsíc", "Ruleta", "celkem"], "{table}");
    assert_eq!(
        cells[3],
        czech(month["rounds"].as_i64().unwrap() * 100, false),
        "{table}"
    );
    assert_eq!(
        cells[4],
        czech(month["stakes_h"].as_i64().unwrap(), true),
        "{table}"
    );
    for server in walk.servers.drain(..) {
        server.stop();
    }
}

/// `h` haléře as koruny with two decimals (or, `with_halere` false, `h / 100` as a whole
/// number), thousands apart by a space: groups of three cut from the right.
fn czech(h: i64, with_halere: bool) -> String {
    let digits: Vec<char> = (h.abs() / 100).to_string().chars().collect();
    let groups: Vec<String> = digits
        .rchunks(3)
        .rev()
        .map(|g| g.iter().collect())
        .collect();
    let sign = if h < 0 { "-" } else { "" };
    let whole = format!("{sign}{}", groups.join(" "));
    if with_halere {
        format!("{whole},{:02}", h.abs() % 100)
    } else {
        whole
    }
}

#[test]
fn months_run_again_after_later_ones_send_nothing_and_an_earlier_month_is_refused_naming_the_station(
) {
    let site = Site::new();
    let server = site.serve();
    let simulate = |month: &str, days: &str, seed: &str| {
        site.dozor()
            .args(["simulate", "--server", &server.http.base, "--month", month])
            .args(["--days", days, "--seed", seed])
            .args(["--game", "roulette", "--tables", "1", "--rounds", "4"])
            .output()
            .unwrap()
    };
    let summary = |out: std::process::Output| -> Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let officer = site.apikey("officer", "compliance");
    let last_of = |table: &str| {
        let (status, view) = server
            .http
            .get(&format!("/api/v1/tables/{table}"), Some(&officer));
        assert_eq!(status, 200, "{view}");
        view["last_record"].clone()
    };
    // September's first two days, then October's: R01 plays 2 × (open, 4 rounds, fill,
    // credit, tips, drop, close) = 2 × 10 = 20 records a month.
    let september = summary(simulate("2026-09", "2", "42"));
    let october = summary(simulate("2026-10", "2", "42"));
    for month in [&september, &october] {
        assert_eq!(month["already_in_the_ledger"], 0, "{month}");
        assert!(month["records_submitted"].as_u64().unwrap() > 20, "{month}");
    }
    assert_eq!(last_of("R01")["seq_no"], 40);
    // September again, after October: found whole where it starts, nothing sent.
    let again = summary(simulate("2026-09", "2", "42"));
    assert_eq!(again["records_submitted"], 0, "{again}");
    assert_eq!(
        again["already_in_the_ledger"],
        september["records_of_the_month"]
    );
    // August cannot go before September's records; a month of another seed cannot go over
    // September; a longer September cannot follow its two days with October after them.
    // Each is refused in one line naming the station, and nothing is sent.
    let (r01, cage) = (last_of("R01"), last_of("CAGE"));
    for (month, days, seed, says) in [
        ("2026-08", "2", "42", "R01 holds records played after 2026-08 (from seq_no 1,"),
        ("2026-09", "2", "7", "R01 already holds records of this month or later that are not this simulation's 2026-09 (seq_no 1 to 40,"),
        ("2026-09", "3", "42", "R01 already holds records of this month or later that are not this simulation's 2026-09 (seq_no 1 to 40,"),
    ] {
        let out = simulate(month, days, seed);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("dozor:")).collect();
        assert!(
            lines.len() == 1 && lines[0].starts_with(&format!("dozor: {says}")),
            "{stderr}"
        );
    }
    assert_eq!((last_of("R01"), last_of("CAGE")), (r01, cage));
    // The key each run made to read the stations' records is revoked.
    let keys = site.dozor().args(["apikey", "list"]).succeeds();
    let keys = String::from_utf8_lossy(&keys.stdout).into_owned();
    let readers: Vec<&str> = keys
        .lines()
        .filter(|l| l.contains("simulator-reader-"))
        .collect();
    assert!(!readers.is_empty(), "{keys}");
    assert!(readers.iter().all(|l| l.contains("revoked")), "{keys}");
}

#[test]
fn a_second_simulation_deals_on_at_its_tables_and_passes_over_those_of_another_seed() {
    let site = Site::new();
    let server = site.serve();
    let simulate = |seed: &str| -> Value {
        let out = site
            .dozor()
            .args(["simulate", "--server", &server.http.base, "--seed", seed])
            .args(["--tables", "2", "--rounds", "5"])
            .succeeds();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let first = simulate("42");
    let again = simulate("42");
    let other = simulate("7");
    for (run, tables, passed_over) in [
        (&first, json!(["SIM-R01", "SIM-R02"]), json!([])),
        (&again, json!(["SIM-R01", "SIM-R02"]), json!([])),
        (
            &other,
            json!(["SIM-R03", "SIM-R04"]),
            json!(["SIM-R01", "SIM-R02"]),
        ),
    ] {
        assert_eq!(run["tables"], tables, "{run}");
        assert_eq!(run["tables_passed_over"], passed_over, "{run}");
        // 2 tables × 5 rounds, each appended.
        assert_eq!(run["http_status_counts"], json!({"201": 10}), "{run}");
    }
    // The second run went on from the first's last seq_no: 5 + 5 rounds at SIM-R01.
    let officer = site.apikey("officer", "compliance");
    let (status, table) = server.http.get("/api/v1/tables/SIM-R01", Some(&officer));
    assert_eq!(status, 200, "{table}");
    assert_eq!(table["last_seq_no"], 10, "{table}");
}
