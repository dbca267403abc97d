#![allow(clippy::unwrap_used)]
use super::*;
use crate::checkpoint_check::Held;
use crate::test_log::{TestLog, ORIGIN};
use crate::tree_check::{tiles_to_fetch, TreeWalk};
use crate::verdict_lines::parse_verdict_lines;
use dozor_log::checkpoint::Checkpoint;
use dozor_log::merkle::empty_root;
use dozor_log::tiles::TileKind;

fn operators(log: &TestLog) -> HashMap<String, VerifyingKey> {
    let key = log.operator.signing_key().verifying_key();
    HashMap::from([(dozor_log::keys::key_id(&key), key)])
}

/// Follows `log` from nothing to `size` bundle by bundle over its published files (`edit`ed):
/// the outcomes, or the first problem.
fn follow(
    log: &TestLog,
    size: u64,
    edit: impl FnOnce(&mut HashMap<String, Vec<u8>>),
) -> Result<Vec<BundleOutcome>, BundleProblem> {
    let mut files = log.publish(size);
    edit(&mut files);
    let target = Checkpoint {
        origin: ORIGIN.into(),
        size,
        root: log.root(size),
    };
    let mut walk = TreeWalk::new(
        Frontier::default(),
        Held {
            size: 0,
            root: empty_root(),
        },
        target,
    );
    let (level0, higher) = tiles_to_fetch(0, size);
    for tile in &level0 {
        walk.push_level0(tile, &files[&tile.path()]).unwrap();
    }
    for tile in &higher {
        walk.check_higher(tile, &files[&tile.path()]).unwrap();
    }
    let walked = walk.finish().unwrap();
    let plans = rules::PlanBook::builtin().unwrap();
    let clock = GamingDayClock::default();
    let context = Context {
        plans: &plans,
        clock: &clock,
        signatures: SignatureCheck::Batch,
    };
    let mut followed = Followed {
        operators: operators(log),
        ..Followed::default()
    };
    let mut outcomes = Vec::new();
    for summary in &walked.summaries {
        let bundle = Tile {
            kind: TileKind::Entries,
            ..summary.tile
        };
        let lines = parse_verdict_lines(
            &files[&crate::tile_math::verdicts_path(&bundle)],
            bundle.index * 256,
            u64::from(bundle.width),
        )
        .unwrap();
        let outcome = check_bundle(
            &bundle,
            &files[&bundle.path()],
            summary,
            &followed,
            Some(&lines),
            context,
        )?;
        followed = outcome.followed.clone();
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

#[test]
fn every_round_is_judged_counted_and_found_as_the_casino_found_it() {
    let mut log = TestLog::new();
    log.spins(299);
    let outcomes = follow(&log, 300, |_| {}).unwrap();
    assert_eq!(outcomes.len(), 2);
    let rounds: u64 = outcomes.iter().map(|o| o.evidence.rounds).sum();
    assert_eq!(rounds, 299);
    assert_eq!(outcomes[0].evidence.events.len(), 1);
    assert!(outcomes[0].evidence.events[0]
        .event
        .contains("\"table_registered\""));
    // Spins k = 3, 13, …, 293 are overpaid by 10 000 h: 30 findings, all the casino's too.
    let findings: Vec<&OwnFinding> = outcomes.iter().flat_map(|o| &o.evidence.findings).collect();
    assert_eq!(findings.len(), 30);
    assert!(findings
        .iter()
        .all(|f| f.kind == "overpaid" && f.amount_h == 10_000));
    assert!(outcomes.iter().all(|o| o.evidence.mismatches.is_empty()));
    // Every spin stakes 10 000 h: 299 × 10 000 = 2 990 000 h. Paid: the 30 overpaid straights
    // at 370 000 h, and the spins k ≡ 17 (mod 37), k not ≡ 3 (mod 10), at 360 000 h:
    // k = 17, 54, 91, 128, 165, 202, 239, 276 (none ends in 3): 8 × 360 000.
    let mut total = crate::tally::Tally::default();
    for outcome in &outcomes {
        for tally in outcome.evidence.tallies.0.values() {
            total.rounds += tally.rounds;
            total.stakes_h += tally.stakes_h;
            total.paid_h += tally.paid_h;
        }
    }
    assert_eq!(total.rounds, 299);
    assert_eq!(total.stakes_h, 2_990_000);
    assert_eq!(total.paid_h, 30 * 370_000 + 8 * 360_000);
    let last = &outcomes[1].followed;
    assert_eq!((last.size, last.frontier.root()), (300, log.root(300)));
}

#[test]
fn a_verdict_the_casino_softened_is_a_mismatch_named_by_its_round() {
    let mut log = TestLog::new();
    log.spins(20);
    // Entry 4 (spin k = 3) is overpaid; the casino's verdict says it was paid as due.
    log.verdicts[4] = Some(serde_json::json!({"plan_id": crate::test_log::PLAN,
        "rules_version": rules::RULES_VERSION, "void": false, "stakes_h": 10_000,
        "expected_paid_h": 370_000, "paid_h": 370_000,
        "findings": []}));
    // And a verdict for entry 0, which registers the table: not a round.
    log.verdicts[0] = Some(serde_json::json!({"paid_h": 0}));
    let outcomes = follow(&log, 21, |_| {}).unwrap();
    let mismatches: Vec<(u64, &str)> = outcomes[0]
        .evidence
        .mismatches
        .iter()
        .map(|m| (m.index, m.difference.field))
        .collect();
    assert_eq!(
        mismatches,
        vec![(0, "verdict"), (4, "expected_paid_h"), (4, "findings")]
    );
}

#[test]
fn an_entry_changed_in_its_bundle_is_caught_and_a_forged_one_named() {
    let mut log = TestLog::new();
    log.spins(20);
    // A byte of entry 5 changed in the bundle: it no longer hashes to the signed tree's leaf.
    let problem = follow(&log, 21, |files| {
        let bundle = files.get_mut("tile/entries/000.p/21").unwrap();
        let at = bundle
            .windows(10)
            .position(|w| w == b"\"seq_no\":5")
            .unwrap();
        bundle[at + 9] = b'6';
    })
    .unwrap_err();
    assert_eq!(
        problem,
        BundleProblem::Leaves {
            path: "tile/entries/000.p/21".into(),
            first: None
        }
    );
    // first_difference names it once the level-0 tile is at hand.
    let mut leaves = log.leaves[..21].to_vec();
    leaves[5][0] ^= 1;
    assert_eq!(first_difference(&leaves, &log.leaves[..21]), Some(5));
}
