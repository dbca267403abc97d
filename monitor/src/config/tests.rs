#![allow(clippy::unwrap_used)]
use super::*;

const OPERATOR: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const WITNESS: &str = "example.com/witness+10a1c019+BGSEitir7W6FmBs7OHWyUrh2frtLAvcDrKOx5xu9ao5Q";

fn casino(extra: &str) -> String {
    format!(
        "[[casino]]\nname = \"casino-1\"\ntiles_url = \"https://tiles.example/ledger\"\n\
         operator_keys = [\"{OPERATOR}\"]\nwitnesses = [\"{WITNESS}\"]\n{extra}"
    )
}

#[test]
fn a_casino_is_read_with_its_keys_and_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), "secret-token\n").unwrap();
    let text = casino("bearer_token_file = \"token\"\n");
    let config = MonitorConfig::parse(&text, dir.path()).unwrap();
    let c = &config.casinos[0];
    assert_eq!(c.tiles_url, "https://tiles.example/ledger/");
    assert_eq!(c.credentials.bearer_token.as_deref(), Some("secret-token"));
    // Every witness given unless a quorum is.
    assert_eq!(c.quorum, 1);
    assert_eq!(c.operator_keys[0].to_string(), OPERATOR);
    assert_eq!(config.poll, Duration::from_secs(30));
    assert_eq!(c.commit_entries, crate::config::DEFAULT_COMMIT_ENTRIES);
    assert_eq!(config.data_dir, dir.path().join("var"));
    assert!(c.plans.get("69games-ziva-hra").is_some());
    // The token never shows in debug output.
    assert!(!format!("{config:?}").contains("secret-token"));
}

#[test]
fn each_wrong_setting_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), "secret\n").unwrap();
    let refused = |text: &str| MonitorConfig::parse(text, dir.path()).unwrap_err();
    assert_eq!(refused(""), "no [[casino]] to follow");
    assert!(
        refused(&casino("quorum = 2\n")).ends_with("quorum 2 is more than the 1 witnesses given")
    );
    assert!(refused(&casino("colour = 1\n")).contains("unknown field `colour`"));
    // No witness cosigns: refused unless the casino is allowed to go without.
    let unwitnessed = casino("").replace(&format!("witnesses = [\"{WITNESS}\"]\n"), "");
    assert!(refused(&unwitnessed).contains("set allow_no_witness = true"));
    assert!(refused(&casino("quorum = 0\n")).contains("no witness cosigns its checkpoints"));
    let allowed = format!("{unwitnessed}allow_no_witness = true\n");
    assert_eq!(
        MonitorConfig::parse(&allowed, dir.path()).unwrap().casinos[0].quorum,
        0
    );
    assert_eq!(
        MonitorConfig::parse(&casino("quorum = 0\nallow_no_witness = true\n"), dir.path())
            .unwrap()
            .casinos[0]
            .quorum,
        0
    );
    let plain = casino("bearer_token_file = \"token\"\n")
        .replace("https://tiles.example", "http://tiles.example");
    assert!(
        refused(&plain).ends_with("a bearer token is sent only over https (or to this machine)")
    );
    let local = plain.replace("http://tiles.example", "http://127.0.0.1:8080/api/v1/tiles");
    assert!(MonitorConfig::parse(&local, dir.path()).is_ok());
    let two = format!("{}{}", casino(""), casino(""));
    assert_eq!(refused(&two), "two casinos are named `casino-1`");
    assert!(refused(&casino("").replace("casino-1", "casino 1")).contains("name must be"));
    assert!(refused(&casino("").replace(OPERATOR, "nonsense")).contains("operator key `nonsense`"));
    let slow = format!(
        "[follow]\npoll_seconds = 60\nbackoff_max_seconds = 10\n{}",
        casino("")
    );
    assert_eq!(
        refused(&slow),
        "[follow] backoff_max_seconds must be at least poll_seconds"
    );
    let none_committed = format!("[follow]\ncommit_entries = 0\n{}", casino(""));
    assert_eq!(
        refused(&none_committed),
        "[follow] commit_entries must be at least 1"
    );
    let per_bundle = format!("[follow]\ncommit_entries = 256\n{}", casino(""));
    let config = MonitorConfig::parse(&per_bundle, dir.path()).unwrap();
    assert_eq!(config.casinos[0].commit_entries, 256);
}

#[test]
fn a_plan_file_is_added_to_the_built_in_plans_and_one_of_the_same_id_refused() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = rules::PlanBook::builtin_source("69games-ziva-hra").unwrap();
    let renamed = builtin.replacen("69games-ziva-hra", "casino-1-special", 1);
    assert_ne!(renamed, builtin);
    std::fs::write(dir.path().join("special.toml"), renamed).unwrap();
    std::fs::write(dir.path().join("same.toml"), builtin).unwrap();
    let config = MonitorConfig::parse(&casino("plans = [\"special.toml\"]\n"), dir.path()).unwrap();
    let plans = &config.casinos[0].plans;
    assert!(plans.get("casino-1-special").is_some() && plans.get("69games-ziva-hra").is_some());
    let refused =
        MonitorConfig::parse(&casino("plans = [\"same.toml\"]\n"), dir.path()).unwrap_err();
    assert!(refused.contains("plan same.toml"), "{refused}");
}

#[test]
fn the_example_configuration_reads_with_the_files_it_names() {
    // deploy/monitor.example.toml, with the credential files it names put beside it.
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in [
        ("webhook.token", "webhook-secret\n"),
        ("casino-2.token", "dzr_regulator\n"),
        ("monitor.crt", "-----BEGIN CERTIFICATE-----\n"),
        ("monitor.key", "-----BEGIN PRIVATE KEY-----\n"),
        ("casino-1-ca.pem", "-----BEGIN CERTIFICATE-----\n"),
    ] {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let text = include_str!("../../../deploy/monitor.example.toml");
    let config = MonitorConfig::parse(text, dir.path()).unwrap();
    let names: Vec<&str> = config.casinos.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["casino-1", "casino-2"]);
    assert_eq!(config.casinos[0].quorum, 1);
    assert_eq!(
        config.casinos[1].credentials.bearer_token.as_deref(),
        Some("dzr_regulator")
    );
    assert!(
        config.alerts.is_some(),
        "the example checks beside following"
    );
    assert!(config.http.is_some(), "the example serves the view");
}
