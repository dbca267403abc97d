//! Verification marks: each covers entries before it, an incremental one goes on from where the
//! last passing check ended, and its subtree roots make its root.

use super::*;
use crate::merkle::{Frontier, MemoryTree};
use crate::registry_event::{VerificationFailure, VerificationScope, VerifiedTree};

/// The leaves of a ledger of `n` entries (any distinct hashes do for the tree).
fn tree(n: u8) -> MemoryTree {
    let leaves: Vec<_> = (0..n).map(|i| [i; 32]).collect();
    MemoryTree::from_leaves(&leaves)
}

/// A mark of `scope` over `[from, to)` of `tree`, by `actor`, failing if `failure` is given.
fn mark(
    previous: u64,
    scope: VerificationScope,
    (from, to): (u64, u64),
    actor: &str,
    failure: Option<VerificationFailure>,
) -> RegistryEvent {
    let frontier = Frontier::at(&tree(40), to).unwrap();
    let verified = failure.is_none().then(|| VerifiedTree {
        root: hex::encode(frontier.root()),
        frontier: frontier.subtree_roots().iter().map(hex::encode).collect(),
        last_leaf_hash: hex::encode([(to - 1) as u8; 32]),
    });
    RegistryEvent::LedgerVerified {
        previous: Some(previous),
        scope,
        from,
        to,
        checks: vec!["hashes".into(), "signatures".into()],
        verified,
        failure,
        started_at: "2026-11-21T03:00:00.000000Z".into(),
        finished_at: "2026-11-21T03:00:09.000000Z".into(),
        actor: actor.into(),
    }
}

#[test]
fn an_incremental_check_goes_on_from_the_last_passing_one() {
    use VerificationScope::{Full, Incremental};
    let mut history = RegistryHistory::default();
    history.applied(0, &registered(None));
    assert_eq!(history.verified_to(), 0);
    // The first check, of entries 0..10, comes after them.
    let err = history.refused(5, &mark(0, Incremental, (0, 10), "cli:root", None));
    assert!(err.contains("entries before the mark"), "{err}");
    history.applied(10, &mark(0, Incremental, (0, 10), "server:nightly", None));
    assert_eq!(history.verified_to(), 10);
    // The next incremental check starts at 10, no earlier and no later.
    for from in [9, 11] {
        let err = history.refused(20, &mark(10, Incremental, (from, 20), "cli:root", None));
        assert!(err.contains("must start at 10"), "{err}");
    }
    // A failing check is recorded and moves nothing on.
    let failure = VerificationFailure {
        index: 14,
        reason: "prev_hash does not match the hash of the previous entry".into(),
    };
    history.applied(
        20,
        &mark(10, Incremental, (10, 20), "cli:root", Some(failure)),
    );
    assert_eq!(history.verified_to(), 10);
    // A full walk starts at the first entry held, and passing, it moves the start on.
    let err = history.refused(30, &mark(20, Full, (10, 30), "cli:root", None));
    assert!(err.contains("must start at 0"), "{err}");
    history.applied(30, &mark(20, Full, (0, 30), "cli:root", None));
    assert_eq!(history.verified_to(), 30);
    let marks = history.verification_marks();
    assert_eq!(marks.len(), 3);
    assert!(!marks[1].passed());
    assert!(
        marks[1].describe().contains("FAILED at index 14"),
        "{}",
        marks[1].describe()
    );
    let last = history.last_verified().unwrap();
    assert_eq!((last.index, last.from, last.to), (30, 0, 30));
    let (frontier, last_leaf_hash) = last.end.clone().unwrap();
    assert_eq!(frontier.root(), Frontier::at(&tree(40), 30).unwrap().root());
    assert_eq!(frontier.size(), 30);
    assert_eq!(last_leaf_hash, [29; 32]);
}

#[test]
fn a_mark_is_refused_unless_its_subtree_roots_make_its_root_and_a_verifier_signed_it() {
    let mut history = RegistryHistory::default();
    history.applied(0, &registered(None));
    let good = mark(0, VerificationScope::Incremental, (0, 13), "cli:root", None);
    // 13 = 8 + 4 + 1: three subtree roots; one dropped, or another root, is refused.
    let mut fewer = good.clone();
    if let RegistryEvent::LedgerVerified {
        verified: Some(tree),
        ..
    } = &mut fewer
    {
        assert_eq!(tree.frontier.len(), 3);
        tree.frontier.pop();
    }
    let err = history.refused(13, &fewer);
    assert!(err.contains("a tree of 13 entries has 3"), "{err}");
    let mut other_root = good.clone();
    if let RegistryEvent::LedgerVerified {
        verified: Some(tree),
        ..
    } = &mut other_root
    {
        tree.root = hex::encode([7u8; 32]);
    }
    let err = history.refused(13, &other_root);
    assert!(err.contains("do not make its root"), "{err}");
    // Only the command line or the nightly job records a check.
    let by_officer = mark(0, VerificationScope::Incremental, (0, 13), "officer", None);
    let err = history.refused(13, &by_officer);
    assert!(
        err.contains("only the command line or the nightly job"),
        "{err}"
    );
    // A failure outside what was covered is refused.
    let outside = VerificationFailure {
        index: 20,
        reason: "missing".into(),
    };
    let err = history.refused(
        13,
        &mark(
            0,
            VerificationScope::Incremental,
            (0, 13),
            "cli:root",
            Some(outside),
        ),
    );
    assert!(err.contains("an entry it covers"), "{err}");
    // A passing check gives the tree it verified; a failing one does not.
    let mut neither = good.clone();
    if let RegistryEvent::LedgerVerified { verified, .. } = &mut neither {
        *verified = None;
    }
    let err = history.refused(13, &neither);
    assert!(
        err.contains("either the tree it verified or its failure"),
        "{err}"
    );
    history.applied(13, &good);
    assert_eq!(history.verified_to(), 13);
}
