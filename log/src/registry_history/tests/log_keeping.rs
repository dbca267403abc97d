//! The operator's keeping of the log: rotations of its key, accepted rollbacks, archived ranges.

use super::*;

/// The operator key of the tests' rotations: the verifier key under `origin` and its key id.
fn operator_key(seed: u8, origin: &str) -> (String, String) {
    let signer =
        crate::checkpoint::NoteSigner::new(origin, SigningKey::from_bytes(&[seed; 32])).unwrap();
    let verifier = signer.verifier();
    (verifier.to_string(), key_id(&verifier.key))
}

fn rotated(previous: u64, from: &str, to: &str, actor: &str) -> RegistryEvent {
    RegistryEvent::LogRotated {
        previous: Some(previous),
        from_key: from.to_owned(),
        to_key: to.to_owned(),
        reason: "the seal's HSM replaced".into(),
        actor: actor.to_owned(),
    }
}

#[test]
fn only_the_key_holding_the_log_signs_and_only_a_recorded_rotation_changes_it() {
    let (old, old_id) = operator_key(1, "casino.example/ledger");
    let (new, new_id) = operator_key(2, "casino.example/ledger-2027");
    let (_, stranger_id) = operator_key(3, "casino.example/ledger");
    let mut history = RegistryHistory::default();
    history.apply(0, at0(), &old_id, &registered(None)).unwrap();
    assert_eq!(history.operator(), Some(old_id.as_str()));
    // Another key cannot sign the log's events...
    let err = history
        .apply(1, at0(), &stranger_id, &rotated(0, &old, &new, "cli:root"))
        .unwrap_err();
    assert!(err.contains("recorded rotation"), "{err}");
    // ...nor hand over a key it does not hold, and only from the command line, with a reason.
    let mut other = history.clone();
    let err = other
        .apply(1, at0(), &old_id, &rotated(0, &new, &old, "cli:root"))
        .unwrap_err();
    assert!(err.contains("only the key that holds the log"), "{err}");
    let err = other
        .apply(1, at0(), &old_id, &rotated(0, &old, &new, "officer"))
        .unwrap_err();
    assert!(err.contains("only the command line"), "{err}");
    let err = other
        .apply(1, at0(), &old_id, &rotated(0, &old, &old, "cli:root"))
        .unwrap_err();
    assert!(err.contains("to the key that holds it"), "{err}");
    // The holder hands it over: from then on only the new key signs.
    history
        .apply(1, at0(), &old_id, &rotated(0, &old, &new, "cli:root"))
        .unwrap();
    assert_eq!(history.operator(), Some(new_id.as_str()));
    let [rotation] = history.rotations() else {
        panic!("one rotation: {:?}", history.rotations())
    };
    assert_eq!((rotation.index, rotation.size()), (1, 2));
    assert_eq!(rotation.to_key.name, "casino.example/ledger-2027");
    let (old, new) = (rotation.from_key.clone(), rotation.to_key.clone());
    let revoke = RegistryEvent::ApiKeyRevoked {
        previous: Some(1),
        key_id: "nobody".into(),
        name: "nobody".into(),
        revoked_by: "cli:root".into(),
        reason: "test".into(),
    };
    let err = history.apply(2, at0(), &old_id, &revoke).unwrap_err();
    assert!(err.contains("is signed by operator key"), "{err}");
    assert_eq!(history.last_event(), Some(1));
    // Checkpoints: the old key up to the tree ending with the rotation (size 2), the new
    // key from that tree on.
    let (old, new) = (&old, &new);
    for (key, size, holds) in [
        (old, 1, true),
        (old, 2, true),
        (old, 3, false),
        (new, 1, false),
        (new, 2, true),
        (new, 9, true),
    ] {
        let checked = history.check_checkpoint_signer(key, size);
        assert_eq!(
            checked.is_ok(),
            holds,
            "{} at {size}: {checked:?}",
            key.name
        );
    }
}

fn rollback_accepted(
    previous: u64,
    restored_size: u64,
    lost: &[(u64, &str)],
    actor: &str,
) -> RegistryEvent {
    RegistryEvent::RollbackAccepted {
        previous: Some(previous),
        restored_size,
        restored_root: "cc".repeat(32),
        lost: lost
            .iter()
            .map(|(size, root)| crate::registry_event::LostCheckpoint {
                size: *size,
                root: (*root).to_owned(),
            })
            .collect(),
        reason: "restored from last night's backup after the disk failed".into(),
        actor: actor.to_owned(),
    }
}

#[test]
fn an_accepted_rollback_names_what_was_lost_from_the_size_it_stands_at() {
    let (_, operator_id) = operator_key(1, "casino.example/ledger");
    let root_a = "aa".repeat(32);
    let root_b = "bb".repeat(32);
    let mut history = RegistryHistory::default();
    history
        .apply(0, at0(), &operator_id, &registered(None))
        .unwrap();
    // Refused: a size other than its own index, a "lost" checkpoint the ledger still
    // holds, no checkpoint, out of order, an upper-case root, an actor not on the command
    // line, no reason.
    for (event, wanted) in [
        (
            rollback_accepted(0, 4, &[(9, &root_a)], "cli:root"),
            "must be the first entry after the restore",
        ),
        (
            rollback_accepted(0, 5, &[(5, &root_a)], "cli:root"),
            "the ledger still holds them",
        ),
        (
            rollback_accepted(0, 5, &[], "cli:root"),
            "names no lost checkpoint",
        ),
        (
            rollback_accepted(0, 5, &[(9, &root_a), (7, &root_b)], "cli:root"),
            "out of order",
        ),
        (
            rollback_accepted(0, 5, &[(9, &root_a.to_uppercase())], "cli:root"),
            "lower-case hex",
        ),
        (
            rollback_accepted(0, 5, &[(9, &root_a)], "officer"),
            "only the command line",
        ),
    ] {
        let err = history
            .clone()
            .apply(5, at0(), &operator_id, &event)
            .unwrap_err();
        assert!(err.contains(wanted), "{wanted}: {err}");
    }
    let mut no_reason = rollback_accepted(0, 5, &[(9, &root_a)], "cli:root");
    if let RegistryEvent::RollbackAccepted { reason, .. } = &mut no_reason {
        *reason = " ".into();
    }
    let err = history
        .clone()
        .apply(5, at0(), &operator_id, &no_reason)
        .unwrap_err();
    assert!(err.contains("gives no reason"), "{err}");
    // Accepted at index 5 (the ledger restored to 5 entries), two checkpoints lost.
    history
        .apply(
            5,
            at0(),
            &operator_id,
            &rollback_accepted(0, 5, &[(7, &root_b), (9, &root_a)], "cli:root"),
        )
        .unwrap();
    let [rollback] = history.accepted_rollbacks() else {
        panic!("one rollback: {:?}", history.accepted_rollbacks())
    };
    assert_eq!((rollback.index, rollback.lost_size()), (5, 9));
    // Exactly the named checkpoints are excused: same size, same root.
    assert!(history.lost_in_accepted_rollback(7, &[0xbb; 32]));
    assert!(history.lost_in_accepted_rollback(9, &[0xaa; 32]));
    assert!(!history.lost_in_accepted_rollback(9, &[0xbb; 32]));
    assert!(!history.lost_in_accepted_rollback(8, &[0xaa; 32]));
}

fn range_archived(previous: u64, from: u64, to: u64, roots: usize, actor: &str) -> RegistryEvent {
    RegistryEvent::RangeArchived {
        previous: Some(previous),
        from,
        to,
        frontier: vec!["ab".repeat(32); roots],
        last_leaf_hash: "cd".repeat(32),
        registry_events: 1,
        registry_digest: "ef".repeat(32),
        export_first_day: "2026-10-01".into(),
        export_last_day: "2026-10-31".into(),
        export_manifest_sha256: "01".repeat(32),
        reason: "October kept as its export".into(),
        actor: actor.into(),
    }
}

#[test]
fn archived_ranges_follow_one_another_before_their_event() {
    let (_, operator_id) = operator_key(1, "casino.example/ledger");
    let mut history = RegistryHistory::default();
    history
        .apply(0, at0(), &operator_id, &registered(None))
        .unwrap();
    // Refused: a range not starting at 0, one reaching past its own event, 48 entries
    // named by one subtree root (48 = 32 + 16 has two), an actor not on the command line.
    for (index, event, wanted) in [
        (70, range_archived(0, 16, 32, 1, "cli:root"), "starts at 16"),
        (
            40,
            range_archived(0, 0, 48, 2, "cli:root"),
            "a range before the event",
        ),
        (
            70,
            range_archived(0, 0, 48, 1, "cli:root"),
            "names 1 subtree roots",
        ),
        (
            70,
            range_archived(0, 0, 32, 1, "officer"),
            "only the command line",
        ),
    ] {
        let err = history
            .clone()
            .apply(index, at0(), &operator_id, &event)
            .unwrap_err();
        assert!(err.contains(wanted), "{wanted}: {err}");
    }
    history
        .apply(
            70,
            at0(),
            &operator_id,
            &range_archived(0, 0, 48, 2, "cli:root"),
        )
        .unwrap();
    assert_eq!(history.archived_below(), 48);
    // The next one starts where it ended.
    let err = history
        .clone()
        .apply(
            90,
            at0(),
            &operator_id,
            &range_archived(70, 0, 64, 1, "cli:root"),
        )
        .unwrap_err();
    assert!(err.contains("the archived entries end at 48"), "{err}");
    history
        .apply(
            90,
            at0(),
            &operator_id,
            &range_archived(70, 48, 64, 1, "cli:root"),
        )
        .unwrap();
    let archived: Vec<(u64, u64, u64)> = history
        .archived_ranges()
        .iter()
        .map(|a| (a.index, a.from, a.to))
        .collect();
    assert_eq!(archived, [(70, 0, 48), (90, 48, 64)]);
}
