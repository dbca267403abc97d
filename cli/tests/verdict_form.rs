#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Verdicts serialize straight into RFC 8785 canonical JSON, which the offline verifier relies on
//! to compare its own re-adjudication with an export byte for byte.

use chrono::{TimeZone as _, Utc};
use simulator::games::roulette::RouletteSimulator;

#[test]
fn serde_output_of_verdicts_is_already_canonical() {
    let plan = rules::PlanBook::builtin()
        .unwrap()
        .get(rules::plan::DEFAULT_PLAN)
        .cloned()
        .unwrap();
    // A high error share, so that findings of every kind and void spins are among them.
    let mut simulator = RouletteSimulator::new(3, plan.clone(), 0.5);
    let played_at = Utc.with_ymd_and_hms(2026, 11, 20, 18, 0, 0).unwrap();
    let mut with_findings = 0;
    for seq_no in 1..=3_000 {
        let (record, _) = simulator.spin("R01", seq_no, played_at);
        let round = rules::Round::parse(&record).unwrap();
        let verdict = rules::adjudicate(&plan, &round).unwrap();
        with_findings += usize::from(!verdict.findings.is_empty());
        let direct = serde_json::to_vec(&verdict).unwrap();
        let canonical =
            dozor_log::canonical::canonicalize(&serde_json::to_value(&verdict).unwrap()).unwrap();
        assert_eq!(
            String::from_utf8(direct).unwrap(),
            String::from_utf8(canonical).unwrap()
        );
        // Parsing from text and from a tree give the same round.
        assert_eq!(
            rules::Round::parse_json(&record.to_string()).unwrap(),
            round
        );
    }
    assert!(with_findings > 500, "{with_findings}");
}
