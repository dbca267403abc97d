#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every finding a simulated month of wrongly settled rounds gives, in every game, reads in
//! Czech on the workbench, the round page and in `csv-cz`: the rules' catalogue knows its
//! English template, and nothing of the English is left.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Duration, TimeZone as _, Utc};
use reports::sheet::Language;
use simulator::games::table::Slot;

/// English that must not be left in a Czech description.
const ENGLISH: [&str; 10] = [
    " the ", " must ", "paid", " plan ", "requires", " was ", "bet ", "stake", "seat ", "player ",
];

#[test]
fn every_finding_of_simulated_error_rounds_reads_in_czech() {
    let plan = rules::PlanBook::builtin()
        .unwrap()
        .get(rules::plan::DEFAULT_PLAN)
        .cloned()
        .unwrap();
    let start = Utc.with_ymd_and_hms(2026, 10, 1, 18, 0, 0).unwrap();
    let mut kinds: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut templates = BTreeSet::new();
    let mut unread = Vec::new();
    for game in [
        "roulette",
        "blackjack",
        "ultimate_texas_holdem",
        "poker_cash",
        "poker_omaha",
        "open_face_chinese",
        "poker_tournament",
        "money_wheel_1",
        "money_wheel_2",
    ] {
        let mut table = simulator::games::table_of(game, 7, plan.clone(), 0.0).unwrap();
        let code = match game {
            "poker_omaha" => rules::GameCode::PokerCash,
            other => rules::GameCode::parse(other).unwrap(),
        };
        let limits = table
            .post_limits()
            .map(|l| serde_json::from_value::<rules::TableLimits>(l).unwrap());
        let setup =
            rules::TableSetup::for_table(&plan, code, table.wheel_layout(), limits.as_ref())
                .unwrap();
        // Every round dealt wrongly: each of the simulator's errors, many times over.
        for seq_no in 1..=600u64 {
            let slot = Slot {
                table_id: "T1",
                seq_no,
                played_at: start + Duration::minutes(seq_no as i64),
            };
            let (record, _) = table.next_record(slot, 1.0).unwrap();
            let Ok(round) = rules::Round::parse(&record) else {
                continue;
            };
            let Ok(verdict) = rules::adjudicate_at(&plan, &setup, &round) else {
                continue;
            };
            for f in &verdict.findings {
                *kinds.entry(f.kind.as_str()).or_default() += 1;
                let Some(czech) =
                    rules::messages::czech(&f.message, &rules::bet_kinds::czech_bet_kind)
                else {
                    unread.push(format!("{game}: no Czech for `{}`", f.message));
                    continue;
                };
                // The message's shape: its digits masked.
                let shape: String = f
                    .message
                    .chars()
                    .map(|c| if c.is_ascii_digit() { '#' } else { c })
                    .collect();
                templates.insert(shape);
                assert_eq!(
                    reports::words::finding_message(&f.message, Language::Czech),
                    czech
                );
                for word in ENGLISH {
                    if czech.contains(word) {
                        unread.push(format!(
                            "{game}: `{word}` left in `{czech}` ({})",
                            f.message
                        ));
                    }
                }
            }
        }
    }
    assert!(unread.is_empty(), "{}", unread.join("\n"));
    // The simulator's errors give findings of many kinds and shapes, not a few.
    assert!(kinds.len() >= 10, "{kinds:?}");
    assert!(
        templates.len() >= 25,
        "{} shapes: {templates:?}",
        templates.len()
    );
}
