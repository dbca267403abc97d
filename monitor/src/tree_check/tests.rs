#![allow(clippy::unwrap_used)]
use super::*;
use crate::test_log::{TestLog, ORIGIN};
use dozor_log::merkle::empty_root;

fn frontier(log: &TestLog, size: u64) -> Frontier {
    let mut f = Frontier::default();
    for leaf in &log.leaves[..size as usize] {
        f.push(*leaf);
    }
    f
}

/// Walks from `from` (held there too) to `size` over the published files, `edit` applied first.
fn walk(
    log: &TestLog,
    from: u64,
    size: u64,
    edit: impl FnOnce(&mut std::collections::HashMap<String, Vec<u8>>),
) -> Result<WalkedTree, TreeProblem> {
    let mut files = log.publish(size);
    edit(&mut files);
    let held = Held {
        size: from,
        root: if from == 0 {
            empty_root()
        } else {
            log.root(from)
        },
    };
    let target = Checkpoint {
        origin: ORIGIN.into(),
        size,
        root: log.root(size),
    };
    let mut walk = TreeWalk::new(frontier(log, from), held, target);
    let (level0, higher) = tiles_to_fetch(from, size);
    for tile in &level0 {
        walk.push_level0(tile, &files[&tile.path()])?;
    }
    for tile in &higher {
        walk.check_higher(tile, &files[&tile.path()])?;
    }
    walk.finish()
}

fn big_log() -> TestLog {
    let mut log = TestLog::new();
    // 600 entries: two full level-0 tiles and a partial one of 88; level 1 of width 2.
    log.spins(599);
    log
}

#[test]
fn tiles_from_nothing_and_from_inside_a_tile_reach_the_checkpoint_s_root() {
    let log = big_log();
    let walked = walk(&log, 0, 600, |_| {}).unwrap();
    assert_eq!(walked.frontier.root(), log.root(600));
    // One summary per level-0 tile: 256 + 256 + 88 leaves.
    let froms: Vec<u64> = walked.summaries.iter().map(|s| s.from).collect();
    assert_eq!(froms, vec![0, 256, 512]);
    assert_eq!(
        walked.summaries[2].root,
        crate::tile_math::run_root(&log.leaves[512..600])
    );
    // From 300 (inside tile 1): its first 44 leaves are checked against the held frontier.
    let walked = walk(&log, 300, 600, |_| {}).unwrap();
    assert_eq!(walked.summaries[0].from, 300);
    assert_eq!(
        walked.summaries[0].root,
        crate::tile_math::run_root(&log.leaves[300..512])
    );
}

#[test]
fn a_changed_byte_of_a_full_level0_tile_names_that_tile() {
    let log = big_log();
    let problem = walk(&log, 0, 600, |files| {
        files.get_mut("tile/0/001").unwrap()[40] ^= 1;
    })
    .unwrap_err();
    // Node (8, 1) is the root of tile 1; the level-1 tile (width 2) publishes the right one.
    assert!(
        matches!(&problem, TreeProblem::LeafTile { path, level: 8, index: 1, higher, .. }
            if path == "tile/0/001" && higher == "tile/1/000.p/2"),
        "{problem}"
    );
}

#[test]
fn a_changed_partial_tile_fails_the_root_and_a_changed_higher_tile_is_named() {
    let log = big_log();
    let problem = walk(&log, 0, 600, |files| {
        files.get_mut("tile/0/002.p/88").unwrap()[0] ^= 1;
    })
    .unwrap_err();
    assert!(matches!(problem, TreeProblem::Root { .. }), "{problem}");
    let problem = walk(&log, 0, 600, |files| {
        files.get_mut("tile/1/000.p/2").unwrap()[33] ^= 1;
    })
    .unwrap_err();
    assert!(
        matches!(&problem, TreeProblem::HigherTile { path, level: 8, index: 1, .. } if path == "tile/1/000.p/2"),
        "{problem}"
    );
}

#[test]
fn a_tree_that_rewrites_a_verified_leaf_is_refused() {
    let log = big_log();
    // Held at 300; the tile from 256 changes leaf 260, which the held tree covers.
    let problem = walk(&log, 300, 600, |files| {
        files.get_mut("tile/0/001").unwrap()[4 * 32] ^= 1;
    })
    .unwrap_err();
    // 300 − 256 = 44 = 32 + 8 + 4 leaves before the held size; leaf 260 is in the run of 32.
    assert_eq!(
        problem,
        TreeProblem::Rewritten {
            path: "tile/0/001".into(),
            position: 256
        }
    );
}

#[test]
fn a_signed_tree_that_does_not_contain_the_held_one_is_not_an_extension() {
    let log = big_log();
    // Another log of the same origin whose entry 1 differs: its leaves differ from 1 on.
    let mut forked = TestLog::new();
    forked.spin(1, 0);
    forked.spins(598);
    let held = Held {
        size: 300,
        root: log.root(300),
    };
    // Followed up to 0 only (a restart before the first bundle); the target is the fork's.
    let target = Checkpoint {
        origin: ORIGIN.into(),
        size: 600,
        root: forked.root(600),
    };
    let mut w = TreeWalk::new(Frontier::default(), held, target);
    let files = forked.publish(600);
    let (level0, higher) = tiles_to_fetch(0, 600);
    for tile in &level0 {
        w.push_level0(tile, &files[&tile.path()]).unwrap();
    }
    for tile in &higher {
        w.check_higher(tile, &files[&tile.path()]).unwrap();
    }
    assert_eq!(
        w.finish().unwrap_err(),
        TreeProblem::NotExtending {
            held: 300,
            size: 600
        }
    );
}
