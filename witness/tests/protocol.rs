#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The witness against a log, with the exchange of the litewitness test script (FiloSottile/
//! torchwood, `cmd/litewitness/testdata/litewitness.txt`): a sigsum log's checkpoints of sizes
//! 1, 3 and 5 with its signatures, and the consistency proofs between them. Its leaves are
//! synthetic, h_i = 0x2a ‖ i ‖ 30 zero bytes, so each proof hash below is one leaf or a root.

use dozor_log::checkpoint::{Checkpoint, NoteSigner, NoteVerifier};
use dozor_log::cosignature::{self, CosignatureSigner};
use dozor_log::merkle::{self, Hash, MemoryTree};
use dozor_log::tlog_witness::body;
use dozor_witness::{Refusal, Store, Witness};
use ed25519_dalek::SigningKey;

const ORIGIN: &str =
    "sigsum.org/v1/tree/4d6d8825a6bb689d459628312889dfbb0bcd41b5211d9e1ce768b0ff0309e562";
/// The log's key (Ed25519 pub ffdc2d…100f), as a note verifier key.
const LOG_VKEY: &str = "sigsum.org/v1/tree/4d6d8825a6bb689d459628312889dfbb0bcd41b5211d9e1ce768b0ff0309e562+5202289b+Af/cLU2Y5BJNP+r3iMDC+av9eWCD0fBJVDfzAux5zxAP";

const ROOT_1: &str = "KgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
const ROOT_3: &str = "RcCI1Nk56ZcSmIEfIn0SleqtV7uvrlXNccFx595Iwl0=";
const ROOT_5: &str = "QrtXrQZCCvpIgsSmOsah7HdICzMLLyDfxToMql9WTjY=";
const SIG_1: &str =
    "UgIom7fPZTqpxWWhyjWduBvTvGVqsokMbqTArsQilegKoFBJQjUFAmQ0+YeSPM3wfUQMFSzVnnNuWRTYrajXpNUbIQY=";
const SIG_3: &str =
    "UgIom2VbtIcdFbwFAy1n7s6IkAxIY6J/GQOTuZF2ORV39d75cbAj2aQYwyJre36kezNobZs4SUUdrcawfAB8WVrx6go=";
const SIG_5: &str =
    "UgIomw/EOJmWi0i1FQsOj+etB7F8IccFam/jgd6wzRns4QPVmyEZtdvl1U2KEmLOZ/ASRcWJi0tW90dJWAShei7sDww=";

fn note(size: u64, root: &str, signature: &str) -> String {
    format!("{ORIGIN}\n{size}\n{root}\n\n\u{2014} {ORIGIN} {signature}\n")
}

/// Leaf i of the log: 0x2a, i, then 30 zero bytes.
fn leaf(i: u8) -> Hash {
    let mut h = [0u8; 32];
    h[0] = 0x2a;
    h[1] = i;
    h
}

fn tree(size: u8) -> MemoryTree {
    MemoryTree::from_leaves(&(0..size).map(leaf).collect::<Vec<_>>())
}

fn proof(from: u64, to: u8) -> Vec<Hash> {
    merkle::consistency_proof(&tree(to), from, u64::from(to)).unwrap()
}

struct Fixture {
    witness: Witness,
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

fn witness_key() -> CosignatureSigner {
    CosignatureSigner::new(
        "witness.example/regulator",
        SigningKey::from_bytes(&[5; 32]),
    )
    .unwrap()
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("witness.redb");
    let witness = Witness::new(
        witness_key(),
        &[NoteVerifier::parse(LOG_VKEY).unwrap()],
        Store::open(&path).unwrap(),
    );
    Fixture {
        witness,
        _dir: dir,
        path,
    }
}

fn add(w: &Witness, old: u64, proof: &[Hash], note: &str) -> Result<String, Refusal> {
    w.add_checkpoint(
        body(old, proof, note).as_bytes(),
        1_700_000_000,
        "2026-11-27T08:00:00Z",
    )
}

fn status(r: Result<String, Refusal>) -> u16 {
    match r {
        Ok(_) => 200,
        Err(e) => e.status(),
    }
}

#[test]
fn the_proofs_are_those_the_litewitness_script_sends() {
    // The roots of the synthetic leaves are those the log signed, and the 1 → 3 proof is the
    // script's: h1, h2.
    use base64::Engine as _;
    let b64 = |h: &Hash| base64::engine::general_purpose::STANDARD.encode(h);
    assert_eq!(b64(&merkle::root(&tree(1), 1).unwrap()), ROOT_1);
    assert_eq!(b64(&merkle::root(&tree(3), 3).unwrap()), ROOT_3);
    assert_eq!(b64(&merkle::root(&tree(5), 5).unwrap()), ROOT_5);
    assert_eq!(
        proof(1, 3).iter().map(b64).collect::<Vec<_>>(),
        [
            "KgEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            "KgIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        ]
    );
}

#[test]
fn consistent_growth_is_cosigned_and_every_refusal_has_its_code() {
    let f = fixture();
    let w = &f.witness;
    let n1 = note(1, ROOT_1, SIG_1);
    let n3 = note(3, ROOT_3, SIG_3);
    let n5 = note(5, ROOT_5, SIG_5);

    // First contact: old 0, no proof.
    assert_eq!(status(add(w, 0, &[], &n1)), 200);
    // The log's signature broken: 403.
    assert_eq!(
        status(add(w, 1, &proof(1, 3), &n3.replace("6go=", "6gx="))),
        403
    );
    // Signed by no key the witness knows for the origin: 403.
    let stranger = NoteSigner::new(ORIGIN, SigningKey::from_bytes(&[9; 32])).unwrap();
    let forged = stranger
        .sign(
            &Checkpoint {
                origin: ORIGIN.into(),
                size: 3,
                root: merkle::root(&tree(3), 3).unwrap(),
            }
            .text(),
        )
        .unwrap();
    assert_eq!(status(add(w, 1, &proof(1, 3), &forged)), 403);
    // An origin the witness does not follow: 404.
    assert_eq!(
        status(add(w, 1, &proof(1, 3), &n3.replace("e562\n3", "e563\n3"))),
        404
    );
    // No proof, and a proof with one hash changed: 422.
    assert_eq!(status(add(w, 1, &[], &n3)), 422);
    let mut bad = proof(1, 3);
    bad[1][30] = 0x40;
    assert_eq!(status(add(w, 1, &bad, &n3)), 422);
    // A malformed body: 400; an old size above the checkpoint's: 400.
    assert_eq!(
        status(w.add_checkpoint(b"old 1\nnot base64\n\nx", 1, "t")),
        400
    );
    assert_eq!(status(add(w, 5, &[], &n3)), 400);
    // The consistent 1 → 3: cosigned.
    let line = add(w, 1, &proof(1, 3), &n3).unwrap();
    // A stale old size: 409 with the latest cosigned size.
    assert!(matches!(
        add(w, 1, &proof(1, 5), &n5),
        Err(Refusal::Conflict(3))
    ));
    assert!(matches!(add(w, 0, &[], &n5), Err(Refusal::Conflict(3))));
    // 3 → 5 with its proof.
    assert_eq!(status(add(w, 3, &proof(3, 5), &n5)), 200);
    assert_eq!(f.witness.store().latest(ORIGIN).unwrap().unwrap().size, 5);

    // The cosignature verifies per tlog-cosignature on the checkpoint it was given for.
    let on_note = format!("{n3}{line}");
    let found = cosignature::cosignatures(&on_note, &[witness_key().verifier()]).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].timestamp, 1_700_000_000);
    // Every checkpoint cosigned is kept, with its cosignature.
    let kept = f.witness.store().cosigned(Some(ORIGIN)).unwrap();
    assert_eq!(
        kept.iter().map(|(_, s, _)| *s).collect::<Vec<_>>(),
        [1, 3, 5]
    );
    assert_eq!(kept[1].2, on_note);
    // The refused proofs were validly signed by the log: kept as evidence (inconsistent).
    let evidence = f.witness.store().evidence().unwrap();
    assert_eq!(
        evidence.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
        ["inconsistent", "inconsistent"]
    );
}

#[test]
fn a_fork_at_the_cosigned_size_is_refused_and_kept_and_the_same_head_is_cosigned_again() {
    let f = fixture();
    let w = &f.witness;
    let n1 = note(1, ROOT_1, SIG_1);
    assert_eq!(status(add(w, 0, &[], &n1)), 200);
    // The same head again (a client that lost the answer): cosigned again.
    assert_eq!(status(add(w, 1, &[], &n1)), 200);
    // A fork needs a second head signed by the log; the sigsum key's private half is not
    // published, so a log with a test key stands in.
    let (_dir, log, w) = casino_witness();
    let head = |root: Hash| casino_head(&log, 2, root);
    assert_eq!(status(add(&w, 0, &[], &head([1; 32]))), 200);
    let fork = head([2; 32]);
    assert_eq!(status(add(&w, 2, &[], &fork)), 422);
    let evidence = w.store().evidence().unwrap();
    assert_eq!(evidence.len(), 1);
    assert_eq!(evidence[0].kind, "fork");
    assert_eq!(evidence[0].note, fork);
    // The state did not move.
    assert_eq!(
        w.store()
            .latest("example.org/casino")
            .unwrap()
            .unwrap()
            .root,
        [1; 32]
    );
    // A size-0 checkpoint must carry the empty tree's root.
    let dir = tempfile::tempdir().unwrap();
    let w = witness_of(&dir.path().join("w.redb"), &[log.verifier()]);
    let empty = |root: Hash| casino_head(&log, 0, root);
    assert_eq!(status(add(&w, 0, &[], &empty([3; 32]))), 422);
    assert_eq!(status(add(&w, 0, &[], &empty(merkle::empty_root()))), 200);
    // A proof from size 0 must be empty.
    let grown = casino_head(&log, 1, leaf(0));
    assert_eq!(status(add(&w, 0, &[[1; 32]], &grown)), 422);
    assert_eq!(status(add(&w, 0, &[], &grown)), 200);
}

#[test]
fn the_state_survives_reopening_the_store() {
    let f = fixture();
    assert_eq!(
        status(add(&f.witness, 0, &[], &note(1, ROOT_1, SIG_1))),
        200
    );
    assert_eq!(
        status(add(&f.witness, 1, &proof(1, 3), &note(3, ROOT_3, SIG_3))),
        200
    );
    let path = f.path.clone();
    drop(f.witness);
    let w = Witness::new(
        witness_key(),
        &[NoteVerifier::parse(LOG_VKEY).unwrap()],
        Store::open(&path).unwrap(),
    );
    assert!(matches!(
        add(&w, 1, &proof(1, 5), &note(5, ROOT_5, SIG_5)),
        Err(Refusal::Conflict(3))
    ));
    assert_eq!(
        status(add(&w, 3, &proof(3, 5), &note(5, ROOT_5, SIG_5))),
        200
    );
    drop(f._dir);
}

/// A log of this witness's own under `origin`, signed with key `seed`: its signer and the signed
/// checkpoint of the first `size` synthetic leaves, handing the log to `rotate_to` if given.
fn own_log(seed: u8, origin: &str) -> NoteSigner {
    NoteSigner::new(origin, SigningKey::from_bytes(&[seed; 32])).unwrap()
}

fn signed(log: &NoteSigner, size: u8, rotate_to: Option<&NoteVerifier>) -> String {
    let body = Checkpoint {
        origin: log.name().to_owned(),
        size: u64::from(size),
        root: merkle::root(&tree(size), u64::from(size)).unwrap(),
    };
    let text = match rotate_to {
        Some(next) => body.rotation_text(next),
        None => body.text(),
    };
    log.sign(&text).unwrap()
}

/// A witness (its store in the directory) following a log with a test key under
/// example.org/casino.
fn casino_witness() -> (tempfile::TempDir, NoteSigner, Witness) {
    let log = own_log(4, "example.org/casino");
    let dir = tempfile::tempdir().unwrap();
    let w = witness_of(&dir.path().join("w.redb"), &[log.verifier()]);
    (dir, log, w)
}

/// The test log's (see [`own_log`]) checkpoint of `size` with `root`, signed.
fn casino_head(log: &NoteSigner, size: u64, root: Hash) -> String {
    log.sign(
        &Checkpoint {
            origin: "example.org/casino".into(),
            size,
            root,
        }
        .text(),
    )
    .unwrap()
}

fn witness_of(path: &std::path::Path, logs: &[NoteVerifier]) -> Witness {
    Witness::new(witness_key(), logs, Store::open(path).unwrap())
}

/// Before a rotation: a witness (its store `witness.redb` in the directory) following the log of
/// the old key, which has cosigned its first checkpoint, and the new key under `new_origin`.
fn before_rotation(new_origin: &str) -> (tempfile::TempDir, NoteSigner, NoteSigner, Witness) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("witness.redb");
    let old = own_log(7, "casino.example/ledger");
    let new = own_log(8, new_origin);
    let w = witness_of(&path, &[old.verifier()]);
    assert_eq!(status(add(&w, 0, &[], &signed(&old, 1, None))), 200);
    (dir, old, new, w)
}

#[test]
fn a_rotation_cosigned_hands_the_log_to_the_new_key_and_retires_the_old_one() {
    let (dir, old, new, w) = before_rotation("casino.example/ledger-2027");
    let path = dir.path().join("witness.redb");
    // Before the rotation the new origin is no log of this witness.
    assert_eq!(
        status(add(&w, 1, &proof(1, 3), &signed(&new, 3, None))),
        404
    );
    // The old key hands the log over in the checkpoint of size 3: cosigned as any checkpoint
    // (the cosignature covers the extension line).
    let rotation = signed(&old, 3, Some(&new.verifier()));
    let line = add(&w, 1, &proof(1, 3), &rotation).unwrap();
    let found =
        cosignature::cosignatures(&format!("{rotation}{line}"), &[witness_key().verifier()])
            .unwrap();
    assert_eq!(found.len(), 1);
    // The new key's log goes on from that tree, under its own origin...
    assert!(matches!(
        add(&w, 0, &[], &signed(&new, 5, None)),
        Err(Refusal::Conflict(3))
    ));
    assert_eq!(
        status(add(&w, 3, &proof(3, 5), &signed(&new, 5, None))),
        200
    );
    // ...and the old key signs nothing beyond its last tree: refused and kept.
    assert_eq!(
        status(add(&w, 3, &proof(3, 5), &signed(&old, 5, None))),
        403
    );
    let evidence = w.store().evidence().unwrap();
    assert_eq!(evidence.len(), 1);
    assert_eq!(evidence[0].kind, "after_rotation");
    assert_eq!(evidence[0].origin, "casino.example/ledger");
    // The old key cannot hand the log to a second key at the same tree either.
    let stranger = own_log(9, "casino.example/ledger-x");
    assert_eq!(
        status(add(
            &w,
            3,
            &[],
            &signed(&old, 3, Some(&stranger.verifier()))
        )),
        422
    );
    assert_eq!(w.store().evidence().unwrap()[1].kind, "second_rotation");
    // Reopened, the witness still follows the new key's log at size 5.
    drop(w);
    let w = witness_of(&path, &[old.verifier()]);
    assert!(w.follows("casino.example/ledger-2027").unwrap());
    assert!(matches!(
        add(&w, 3, &proof(3, 5), &signed(&new, 5, None)),
        Err(Refusal::Conflict(5))
    ));
}

#[test]
fn a_rotation_to_a_new_key_under_the_same_origin_retires_the_old_key() {
    let (_dir, old, new, w) = before_rotation("casino.example/ledger");
    // The new key is not the log's before the rotation.
    assert_eq!(
        status(add(&w, 1, &proof(1, 3), &signed(&new, 3, None))),
        403
    );
    assert_eq!(
        status(add(
            &w,
            1,
            &proof(1, 3),
            &signed(&old, 3, Some(&new.verifier()))
        )),
        200
    );
    assert_eq!(
        status(add(&w, 3, &proof(3, 5), &signed(&new, 5, None))),
        200
    );
    assert_eq!(status(add(&w, 5, &[], &signed(&old, 5, None))), 403);
}

#[test]
fn an_empty_note_is_a_bad_request_and_evidence_is_bounded_per_log() {
    let f = fixture();
    assert_eq!(status(f.witness.add_checkpoint(b"old 0\n\n", 1, "t")), 400);
    assert_eq!(
        status(f.witness.add_checkpoint(b"old 0\n\n\n3\nroot\n", 1, "t")),
        400
    );

    // A log whose key signs forks without end: each kept once, at most the bound kept.
    let (_dir, log, w) = casino_witness();
    let head = |root: Hash| casino_head(&log, 2, root);
    assert_eq!(status(add(&w, 0, &[], &head([1; 32]))), 200);
    let fork = head([2; 32]);
    for _ in 0..3 {
        assert_eq!(status(add(&w, 2, &[], &fork)), 422);
    }
    assert_eq!(
        w.store().evidence().unwrap().len(),
        1,
        "the same fork is kept once"
    );
    let extra = 5;
    for i in 0..dozor_witness::store::MAX_EVIDENCE_PER_LOG - 1 + extra {
        let mut root = [0u8; 32];
        root[..8].copy_from_slice(&(i + 10).to_be_bytes());
        assert_eq!(status(add(&w, 2, &[], &head(root))), 422);
    }
    let kept = w.store().evidence().unwrap();
    assert_eq!(
        kept.len() as u64,
        dozor_witness::store::MAX_EVIDENCE_PER_LOG
    );
    assert_eq!(kept[0].note, fork, "the first fork is kept");
    assert_eq!(
        w.store().evidence_not_kept("example.org/casino").unwrap(),
        extra
    );
}
