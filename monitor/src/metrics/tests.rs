#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The metrics of two casinos, read back by an independent parser: Python's
//! `prometheus_client` (Debian's python3-prometheus-client, installed when missing).

use std::collections::BTreeMap;
use std::process::Command;

use super::render_metrics;
use crate::alerts::db_tests::{at, config, database_at, published};
use crate::follow::follow_once;
use crate::store::alerts::{raise, NewAlert};
use crate::store::state;
use crate::test_log::TestLog;

/// Debian's interpreter, where Debian's package of the parser goes.
const PYTHON: &str = "/usr/bin/python3";

const PARSER: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append({"family": family.name, "type": family.type, "name": s.name,
                    "labels": s.labels, "value": s.value})
print(json.dumps(out))
"#;

fn parser_at_hand() -> bool {
    Command::new(PYTHON)
        .args(["-c", "import prometheus_client"])
        .status()
        .is_ok_and(|s| s.success())
}

/// Every sample as the Python parser reads it: (name, sorted labels) → value; and each
/// family's type.
fn parse(text: &str) -> (BTreeMap<(String, String), f64>, BTreeMap<String, String>) {
    if !parser_at_hand() {
        let _ = Command::new("apt-get")
            .args([
                "-y",
                "-q",
                "install",
                "--no-install-recommends",
                "python3-prometheus-client",
            ])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status();
    }
    assert!(
        parser_at_hand(),
        "python3-prometheus-client is needed to read the metrics"
    );
    let mut child = Command::new(PYTHON)
        .args(["-c", PARSER])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the parser refused the text:\n{text}");
    let samples: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut values = BTreeMap::new();
    let mut types = BTreeMap::new();
    for s in samples {
        let labels: BTreeMap<String, String> = serde_json::from_value(s["labels"].clone()).unwrap();
        let labels = labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        values.insert(
            (s["name"].as_str().unwrap().to_owned(), labels),
            s["value"].as_f64().unwrap(),
        );
        types.insert(
            s["family"].as_str().unwrap().to_owned(),
            s["type"].as_str().unwrap().to_owned(),
        );
    }
    (values, types)
}

#[test]
fn two_casinos_metrics_read_back_by_prometheus_client() {
    let (_, mut conn) = database_at();
    let mut log = TestLog::new();
    log.spins(19);
    let config = config(&log, &["casino-1", "casino-2"], "");
    let (one, two) = (&config.casinos[0], &config.casinos[1]);
    // casino-1: 10 entries (9 spins), cosigned at 11:00; its last attempt succeeded.
    follow_once(
        &mut conn,
        one,
        &published(&log, 10, at("2026-11-21T11:00:00Z")),
    )
    .unwrap();
    state::record_attempt(&mut conn, "casino-1", None, at("2026-11-21T11:00:00Z")).unwrap();
    // casino-2: 20 entries (19 spins), cosigned at 10:00; then two failed attempts, an alert.
    follow_once(
        &mut conn,
        two,
        &published(&log, 20, at("2026-11-21T10:00:00Z")),
    )
    .unwrap();
    for _ in 0..2 {
        state::record_attempt(
            &mut conn,
            "casino-2",
            Some("unreachable"),
            at("2026-11-21T11:00:00Z"),
        )
        .unwrap();
    }
    let alert = NewAlert {
        kind: "verdicts_missing",
        key: "verdicts:0".into(),
        message: "m".into(),
        evidence: serde_json::json!({}),
    };
    raise(&mut conn, "casino-2", &alert, at("2026-11-21T11:00:00Z")).unwrap();
    state::halt(&mut conn, "casino-2", "fork").unwrap();

    let text = render_metrics(&mut conn, &config, at("2026-11-21T12:00:00Z")).unwrap();
    let (values, types) = parse(&text);
    let value = |name: &str, labels: &str| {
        *values
            .get(&(name.to_owned(), labels.to_owned()))
            .unwrap_or_else(|| panic!("no {name}{{{labels}}} in\n{text}"))
    };
    let (c1, c2) = ("casino=casino-1", "casino=casino-2");
    assert_eq!(
        (
            value("dozor_monitor_entries", c1),
            value("dozor_monitor_entries", c2)
        ),
        (10.0, 20.0)
    );
    // Cosigned at 11:00 and 10:00, scraped at 12:00.
    assert_eq!(value("dozor_monitor_checkpoint_age_seconds", c1), 3600.0);
    assert_eq!(value("dozor_monitor_checkpoint_age_seconds", c2), 7200.0);
    assert_eq!(value("dozor_monitor_rounds_total", c1), 9.0);
    assert_eq!(value("dozor_monitor_rounds_total", c2), 19.0);
    // Overpaid spins k = 3 (and 13): none resolved in the log.
    assert_eq!(value("dozor_monitor_findings_open", c1), 1.0);
    assert_eq!(value("dozor_monitor_findings_open", c2), 2.0);
    assert_eq!(value("dozor_monitor_mismatches_total", c1), 0.0);
    assert_eq!(value("dozor_monitor_up", c1), 1.0);
    assert_eq!(value("dozor_monitor_up", c2), 0.0);
    assert_eq!(value("dozor_monitor_failures_in_a_row", c1), 0.0);
    assert_eq!(value("dozor_monitor_failures_in_a_row", c2), 2.0);
    assert_eq!(
        (
            value("dozor_monitor_halted", c1),
            value("dozor_monitor_halted", c2)
        ),
        (0.0, 1.0)
    );
    assert_eq!(
        value(
            "dozor_monitor_alerts_total",
            "casino=casino-2,kind=verdicts_missing"
        ),
        1.0
    );
    assert!(!values
        .keys()
        .any(|(n, l)| n == "dozor_monitor_alerts_total" && l.contains("casino-1")));
    assert_eq!(value("dozor_monitor_webhook_pending", c2), 1.0);
    assert_eq!(value("dozor_monitor_webhook_pending", c1), 0.0);
    // 9 straight-ups of 10 000 h, k = 0..8: one overpaid win (k = 3) of 370 000 h. Expected
    // 9 × 9 729.729 h = 87 567.561 h; variance 9 × 10 000² × 1 296 × 36/1 369 = 30 672 315 559
    // h², σ = 175 135.7 h; z = (370 000 − 87 567.561) / 175 135.7 = 1.6126.
    let z = value(
        "dozor_monitor_rtp_z",
        "casino=casino-1,game=roulette,month=2026-11",
    );
    assert!((z - 1.6126).abs() < 0.0001, "{z}");
    assert_eq!(types["dozor_monitor_rounds"], "counter");
    assert_eq!(types["dozor_monitor_entries"], "gauge");
    assert_eq!(types["dozor_monitor_alerts"], "counter");
    // The help of each family is there, once.
    assert_eq!(text.matches("# HELP dozor_monitor_up ").count(), 1);
}
