#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The verifiers' batch check (`signature_batch`, and `verify_signatures` in batch mode) against
//! the rule it implements, signature by signature: RFC 8032's cofactored equation (ZIP 215
//! validity) under keys dozor registers. Each adversarial case has its expected outcome written
//! out here; large batches of valid signatures with adversarial ones at random positions must be
//! accepted exactly when every signature is valid, and a rejected batch must name the first
//! invalid one. Whatever ingest's `verify_strict` accepts under a registrable key, the
//! verifiers accept too: a verifier never calls a record ingest took forged.

use std::collections::BTreeMap;

use chrono::Utc;
use curve25519_dalek::constants::{ED25519_BASEPOINT_TABLE, EIGHT_TORSION};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use dozor_log::entry_check::{verify_signatures, CheckedEntry, SignatureCheck, Subject};
use dozor_log::signature_batch;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha512};

/// ℓ, the order of the base point, little-endian.
const ELL: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// A key whose secret scalar is known, with any torsion point added: A = [a]B + T.
struct RawKey {
    a: Scalar,
    key: VerifyingKey,
}

impl RawKey {
    fn new(rng: &mut ChaCha20Rng, torsion: EdwardsPoint) -> RawKey {
        let a = random_scalar(rng);
        let point = &a * ED25519_BASEPOINT_TABLE + torsion;
        let key = VerifyingKey::from_bytes(point.compress().as_bytes()).unwrap();
        RawKey { a, key }
    }

    /// s = r + H(R‖A‖M)·a with R = [r]B + `torsion`: valid exactly when both torsions cancel.
    fn sign(&self, rng: &mut ChaCha20Rng, torsion: EdwardsPoint, message: &[u8]) -> Signature {
        let r = random_scalar(rng);
        let big_r = (&r * ED25519_BASEPOINT_TABLE + torsion).compress();
        let s = r + challenge(big_r.as_bytes(), &self.key, message) * self.a;
        signature(big_r.as_bytes(), s.as_bytes())
    }
}

fn random_scalar(rng: &mut ChaCha20Rng) -> Scalar {
    let mut wide = [0u8; 64];
    rng.fill(&mut wide[..]);
    Scalar::from_bytes_mod_order_wide(&wide)
}

fn challenge(r: &[u8; 32], key: &VerifyingKey, message: &[u8]) -> Scalar {
    let hram: [u8; 64] = Sha512::new()
        .chain_update(r)
        .chain_update(key.as_bytes())
        .chain_update(message)
        .finalize()
        .into();
    Scalar::from_bytes_mod_order_wide(&hram)
}

fn signature(r: &[u8; 32], s: &[u8; 32]) -> Signature {
    let mut bytes = [0u8; 64];
    bytes[..32].copy_from_slice(r);
    bytes[32..].copy_from_slice(s);
    Signature::from_bytes(&bytes)
}

fn torsion(j: usize) -> EdwardsPoint {
    EIGHT_TORSION[j % 8]
}

/// A torsion point other than the identity.
fn some_torsion(rng: &mut ChaCha20Rng) -> EdwardsPoint {
    torsion(rng.gen_range(1..8))
}

fn small_order_key(bytes: [u8; 32]) -> VerifyingKey {
    let key = VerifyingKey::from_bytes(&bytes).unwrap();
    assert!(key.is_weak());
    key
}

/// y = p + `y` (p = 2²⁵⁵ − 19), a non-canonical encoding of the point with that y.
fn non_canonical_y(y: u8, sign: bool) -> [u8; 32] {
    let mut bytes = [0xff; 32];
    bytes[0] = 0xed + y;
    bytes[31] = if sign { 0xff } else { 0x7f };
    bytes
}

#[derive(Clone)]
struct Item {
    message: String,
    signature: Signature,
    key: VerifyingKey,
    case: &'static str,
}

/// A random record-like message.
fn message(rng: &mut ChaCha20Rng) -> String {
    let len = rng.gen_range(1..200);
    let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    format!("{{\"type\":\"round\",\"x\":\"{}\"}}", hex::encode(bytes))
}

/// The signers of the valid part of a batch: ed25519-dalek's own keys and keys made here.
struct Signers {
    dalek: Vec<SigningKey>,
    raw: Vec<RawKey>,
}

impl Signers {
    fn new(rng: &mut ChaCha20Rng) -> Signers {
        Signers {
            dalek: (0..3).map(|_| SigningKey::from_bytes(&rng.gen())).collect(),
            raw: (0..2)
                .map(|_| RawKey::new(rng, EdwardsPoint::default()))
                .collect(),
        }
    }

    fn valid(&self, rng: &mut ChaCha20Rng) -> Item {
        let message = message(rng);
        let k = rng.gen_range(0..self.dalek.len() + self.raw.len());
        let (signature, key) = match self.dalek.get(k) {
            Some(signer) => (signer.sign(message.as_bytes()), signer.verifying_key()),
            None => {
                let raw = &self.raw[k - self.dalek.len()];
                let sig = raw.sign(rng, EdwardsPoint::default(), message.as_bytes());
                (sig, raw.key)
            }
        };
        Item {
            message,
            signature,
            key,
            case: "valid",
        }
    }

    fn raw(&self, rng: &mut ChaCha20Rng) -> &RawKey {
        &self.raw[rng.gen_range(0..self.raw.len())]
    }
}

/// The adversarial cases, each a function making one or more items (some in several variants).
/// The first six are never accepted by any verifier, and are kept first: the comparison's
/// last check takes them by their place.
const CASES: &[&str] = &[
    "non-canonical s (s + ℓ)",
    "small-order R (each torsion point, s = h·a)",
    "identity R",
    "small-order R, non-canonical encoding",
    "small-order A (each torsion point, s = r)",
    "identity A",
    "small-order A, non-canonical encoding",
    "mixed-order R (valid point + torsion), torsion-free A",
    "mixed-order A, torsion-free R",
    "mixed-order A, torsion-free R, passing verify_strict",
    "mixed-order A and R",
    "mixed-order A and R, passing verify_strict",
    "mixed-order A, several signatures by the key",
    "wrong key",
    "swapped messages",
    "R not on the curve",
    "R non-canonical encoding of a large-order point",
];

fn adversarial(case: &'static str, rng: &mut ChaCha20Rng, signers: &Signers) -> Vec<Item> {
    let mut item = signers.valid(rng);
    item.case = case;
    let msg = item.message.clone();
    let m = msg.as_bytes();
    match case {
        "non-canonical s (s + ℓ)" => {
            let mut bytes = item.signature.to_bytes();
            let mut carry = 0u16;
            for i in 0..32 {
                let sum = u16::from(bytes[32 + i]) + u16::from(ELL[i]) + carry;
                bytes[32 + i] = sum as u8;
                carry = sum >> 8;
            }
            item.signature = Signature::from_bytes(&bytes);
        }
        "small-order R (each torsion point, s = h·a)" | "identity R" => {
            // R = T and s = h·a: [s]B − [h]A = 0, so the equation is off by T alone.
            let t = if case == "identity R" {
                torsion(0)
            } else {
                torsion(rng.gen())
            };
            let raw = signers.raw(rng);
            let r = t.compress();
            let s = challenge(r.as_bytes(), &raw.key, m) * raw.a;
            item.signature = signature(r.as_bytes(), s.as_bytes());
            item.key = raw.key;
        }
        "small-order R, non-canonical encoding" => {
            // y = p + 1 is the identity, y = p a point of order 4; also x = 0 with the sign set.
            let r = match rng.gen_range(0..4) {
                0 => non_canonical_y(1, false),
                1 => non_canonical_y(0, false),
                2 => non_canonical_y(0, true),
                _ => {
                    let mut b = [0u8; 32];
                    b[0] = 1;
                    b[31] = 0x80;
                    b
                }
            };
            assert!(CompressedEdwardsY(r).decompress().unwrap().is_small_order());
            let raw = signers.raw(rng);
            let s = challenge(&r, &raw.key, m) * raw.a;
            item.signature = signature(&r, s.as_bytes());
            item.key = raw.key;
        }
        "small-order A (each torsion point, s = r)" | "identity A" => {
            // A = T and R = [r]B, s = r: off by [h]T only, which vanishes for T = identity.
            let t = if case == "identity A" {
                torsion(0)
            } else {
                torsion(rng.gen())
            };
            item.key = small_order_key(t.compress().to_bytes());
            let r = random_scalar(rng);
            let big_r = (&r * ED25519_BASEPOINT_TABLE).compress();
            item.signature = signature(big_r.as_bytes(), r.as_bytes());
        }
        "small-order A, non-canonical encoding" => {
            item.key = small_order_key(non_canonical_y(1, rng.gen()));
            let r = random_scalar(rng);
            let big_r = (&r * ED25519_BASEPOINT_TABLE).compress();
            item.signature = signature(big_r.as_bytes(), r.as_bytes());
        }
        "mixed-order R (valid point + torsion), torsion-free A" => {
            let t = some_torsion(rng);
            let raw = signers.raw(rng);
            item.signature = raw.sign(rng, t, m);
            item.key = raw.key;
        }
        "mixed-order A, torsion-free R" => {
            let t = some_torsion(rng);
            let raw = RawKey::new(rng, t);
            item.signature = raw.sign(rng, EdwardsPoint::default(), m);
            item.key = raw.key;
        }
        "mixed-order A and R" => {
            let (t_a, t_r) = (some_torsion(rng), some_torsion(rng));
            let raw = RawKey::new(rng, t_a);
            item.signature = raw.sign(rng, t_r, m);
            item.key = raw.key;
        }
        "mixed-order A, torsion-free R, passing verify_strict"
        | "mixed-order A and R, passing verify_strict" => {
            // Signs until [h]T_A + T_R = 0, so the cofactorless equation holds exactly.
            let t = some_torsion(rng);
            let raw = RawKey::new(rng, t);
            loop {
                let t_r = if case.contains("and R") {
                    some_torsion(rng)
                } else {
                    EdwardsPoint::default()
                };
                let sig = raw.sign(rng, t_r, m);
                if raw.key.verify_strict(m, &sig).is_ok() {
                    item.signature = sig;
                    break;
                }
            }
            item.key = raw.key;
        }
        "mixed-order A, several signatures by the key" => {
            // The batch sums one key's terms; some of these pass verify_strict, some not.
            let t = some_torsion(rng);
            let raw = RawKey::new(rng, t);
            return (0..rng.gen_range(2..6))
                .map(|_| {
                    let message = message(rng);
                    let t_r = if rng.gen() {
                        EdwardsPoint::default()
                    } else {
                        some_torsion(rng)
                    };
                    Item {
                        signature: raw.sign(rng, t_r, message.as_bytes()),
                        message,
                        key: raw.key,
                        case,
                    }
                })
                .collect();
        }
        "wrong key" => {
            let other = signers.valid(rng);
            if other.key == item.key {
                item.key = signers.dalek[0].verifying_key();
                if other.key == item.key {
                    item.key = signers.raw[0].key;
                }
            } else {
                item.key = other.key;
            }
        }
        "swapped messages" => {
            let mut other = signers.valid(rng);
            other.case = case;
            std::mem::swap(&mut item.message, &mut other.message);
            return vec![item, other];
        }
        "R not on the curve" => {
            // y = 2 has no x on the curve.
            let mut r = [0u8; 32];
            r[0] = 2;
            assert!(CompressedEdwardsY(r).decompress().is_none());
            let mut bytes = item.signature.to_bytes();
            bytes[..32].copy_from_slice(&r);
            item.signature = Signature::from_bytes(&bytes);
        }
        "R non-canonical encoding of a large-order point" => {
            let r = (3..19)
                .map(|y| non_canonical_y(y, rng.gen()))
                .find(|b| {
                    CompressedEdwardsY(*b)
                        .decompress()
                        .is_some_and(|p| !p.is_small_order())
                })
                .unwrap();
            let mut bytes = item.signature.to_bytes();
            bytes[..32].copy_from_slice(&r);
            item.signature = Signature::from_bytes(&bytes);
        }
        other => panic!("no case {other}"),
    }
    vec![item]
}

/// `n` valid signatures with the `cases` put at random positions (replacing valid ones).
fn batch(rng: &mut ChaCha20Rng, signers: &Signers, n: usize, cases: &[&'static str]) -> Vec<Item> {
    let mut items: Vec<Item> = (0..n).map(|_| signers.valid(rng)).collect();
    for &case in cases {
        for item in adversarial(case, rng, signers) {
            let at = rng.gen_range(0..items.len());
            items[at] = item;
        }
    }
    items
}

/// Compares every form of the batch check with the rule, signature by signature
/// ([`signature_batch::verify_one`]), on `items`; `None` when they agree, else what differed.
fn disagreement(items: &[Item]) -> Option<String> {
    let valid: Vec<bool> = items
        .iter()
        .map(|i| signature_batch::verify_one(i.message.as_bytes(), &i.signature, &i.key))
        .collect();
    // Never stricter than ingest: what verify_strict accepts under a registrable key is valid.
    for (i, item) in items.iter().enumerate() {
        let strict = item
            .key
            .verify_strict(item.message.as_bytes(), &item.signature)
            .is_ok();
        if strict && signature_batch::registered_key_point(&item.key).is_some() && !valid[i] {
            return Some(format!(
                "{i}: {} passes verify_strict but not the rule",
                item.case
            ));
        }
    }
    let all = valid.iter().all(|&ok| ok);
    let messages: Vec<&[u8]> = items.iter().map(|i| i.message.as_bytes()).collect();
    let signatures: Vec<Signature> = items.iter().map(|i| i.signature).collect();
    let keys: Vec<VerifyingKey> = items.iter().map(|i| i.key).collect();
    let batch = signature_batch::verify(&messages, &signatures, &keys);
    let each = signature_batch::verify_each(items.len(), |i| {
        (items[i].message.as_bytes(), &signatures[i], &keys[i])
    });
    let entries: Vec<CheckedEntry<'_>> = items
        .iter()
        .enumerate()
        .map(|(n, i)| CheckedEntry {
            index: n as u64,
            received_at: Utc::now(),
            prev_hash: [0; 32],
            key_id: "k",
            key: i.key,
            signature: i.signature,
            record: &i.message,
            subject: Subject::Record(rules::RecordHeader {
                record_type: "round".into(),
                table_id: "R1".into(),
                seq_no: n as u64,
                plan_id: "p".into(),
                game: None,
            }),
        })
        .collect();
    let by_batch = verify_signatures(&entries, SignatureCheck::Batch);
    let first_invalid = valid.iter().position(|&ok| !ok);
    let rejected: Vec<String> = valid
        .iter()
        .zip(items)
        .enumerate()
        .filter(|(_, (&ok, i))| !ok || i.case != "valid")
        .map(|(n, (&ok, i))| format!("{n}: {} ({})", i.case, if ok { "valid" } else { "invalid" }))
        .collect();
    (batch != all || each != all || by_batch.as_ref().err().map(|e| e.0) != first_invalid).then(
        || {
            format!(
                "{} signatures: all valid: {all}; verify: {batch}; verify_each: {each}; \
                 verify_signatures {by_batch:?}; items {rejected:?}",
                items.len()
            )
        },
    )
}

/// What the rule says of each adversarial case, worked out from the equation, not from the
/// code under test: `Some(valid)`, or `None` where the case's variants differ.
fn expected(case: &str) -> Option<bool> {
    Some(match case {
        // s must be canonical (malleability).
        "non-canonical s (s + ℓ)" => false,
        // [s]B − R − [h]A = −T, a torsion point: the factor 8 removes it (ZIP 215 accepts).
        "small-order R (each torsion point, s = h·a)"
        | "identity R"
        | "small-order R, non-canonical encoding"
        | "mixed-order R (valid point + torsion), torsion-free A" => true,
        // Keys dozor never registers: small-order or mixed-order.
        "small-order A (each torsion point, s = r)"
        | "identity A"
        | "small-order A, non-canonical encoding"
        | "mixed-order A, torsion-free R"
        | "mixed-order A, torsion-free R, passing verify_strict"
        | "mixed-order A and R"
        | "mixed-order A and R, passing verify_strict"
        | "mixed-order A, several signatures by the key" => false,
        // The equation fails outright.
        "wrong key" | "swapped messages" | "R not on the curve" => false,
        "R non-canonical encoding of a large-order point" => false,
        _ => return None,
    })
}

#[test]
fn each_adversarial_case_is_judged_as_the_rule_says() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5157_0001);
    let signers = Signers::new(&mut rng);
    let mut failures: BTreeMap<&str, (usize, String)> = BTreeMap::new();
    let trials = 16;
    for &case in CASES {
        let want = expected(case).unwrap();
        for _ in 0..trials {
            for item in adversarial(case, &mut rng, &signers) {
                let got = signature_batch::verify_one(
                    item.message.as_bytes(),
                    &item.signature,
                    &item.key,
                );
                if got != want {
                    failures
                        .entry(case)
                        .or_insert((0, format!("alone: {got}, expected {want}")))
                        .0 += 1;
                }
            }
            let n = rng.gen_range(64..=80);
            let items = batch(&mut rng, &signers, n, &[case]);
            if let Some(d) = disagreement(&items) {
                failures.entry(case).or_insert((0, d)).0 += 1;
            }
        }
    }
    let report: Vec<String> = failures
        .iter()
        .map(|(case, (count, first))| format!("{case}: {count} failures, e.g. {first}"))
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn large_batches_with_several_adversarial_signatures_agree_with_the_rule() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5157_0002);
    let signers = Signers::new(&mut rng);
    let mut failures = Vec::new();
    for round in 0..24 {
        let n = [64, 128, 256, 512][round % 4];
        let cases: Vec<&'static str> = (0..rng.gen_range(0..=4))
            .map(|_| CASES[rng.gen_range(0..CASES.len())])
            .collect();
        let items = batch(&mut rng, &signers, n, &cases);
        if let Some(d) = disagreement(&items) {
            failures.push(format!("round {round}: {d}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn batches_of_signatures_verify_strict_refuses_but_the_rule_accepts_verify() {
    // A torsion component in R (or R written non-canonically) under a registrable key: refused
    // by ingest, valid for the verifiers. A batch of only these must pass.
    let mut rng = ChaCha20Rng::seed_from_u64(0x5157_0003);
    let signers = Signers::new(&mut rng);
    for n in [1, 2, 64, 200] {
        let cases = [
            "mixed-order R (valid point + torsion), torsion-free A",
            "small-order R (each torsion point, s = h·a)",
            "small-order R, non-canonical encoding",
        ];
        let items: Vec<Item> = (0..n)
            .flat_map(|i| adversarial(cases[i % 3], &mut rng, &signers))
            .collect();
        assert!(items.iter().any(|i| i
            .key
            .verify_strict(i.message.as_bytes(), &i.signature)
            .is_err()));
        assert_eq!(disagreement(&items), None, "{n} signatures");
        let messages: Vec<&[u8]> = items.iter().map(|i| i.message.as_bytes()).collect();
        let signatures: Vec<Signature> = items.iter().map(|i| i.signature).collect();
        let keys: Vec<VerifyingKey> = items.iter().map(|i| i.key).collect();
        assert!(signature_batch::verify(&messages, &signatures, &keys));
    }
}

/// Ingest's check (`strict_signature`) must decide exactly as ed25519-dalek's `verify_strict`,
/// on valid signatures and on every adversarial case, under any key (registrable or not).
#[test]
fn ingest_strict_check_agrees_with_verify_strict_on_every_case() {
    use dozor_log::strict_signature::StrictKey;
    let mut rng = ChaCha20Rng::seed_from_u64(0x5157_0004);
    let signers = Signers::new(&mut rng);
    let mut accepted: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut judge = |item: &Item| {
        let m = item.message.as_bytes();
        let strict = item.key.verify_strict(m, &item.signature).is_ok();
        let ours = StrictKey::new(&item.key).verify(m, &item.signature);
        if strict != ours {
            failures.push(format!(
                "{}: verify_strict {strict}, strict_signature {ours}",
                item.case
            ));
        }
        let seen = accepted.entry(item.case).or_default();
        seen.0 += usize::from(ours);
        seen.1 += 1;
    };
    for _ in 0..64 {
        let item = signers.valid(&mut rng);
        judge(&item);
        // One bit changed anywhere in the signature or the message.
        let mut damaged = item.clone();
        damaged.case = "one bit changed";
        if rng.gen() {
            let at = rng.gen_range(0..64);
            let mut bytes = damaged.signature.to_bytes();
            bytes[at] ^= 1 << rng.gen_range(0..8);
            damaged.signature = Signature::from_bytes(&bytes);
        } else {
            let mut bytes = damaged.message.into_bytes();
            let at = rng.gen_range(0..bytes.len());
            bytes[at] ^= 1 << rng.gen_range(0..7);
            damaged.message = String::from_utf8(bytes).unwrap();
        }
        judge(&damaged);
    }
    for &case in CASES {
        for _ in 0..16 {
            for item in adversarial(case, &mut rng, &signers) {
                judge(&item);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every signature made validly passes; these cases pass verify_strict by construction
    // (the torsion terms cancel), and these never can.
    assert_eq!(accepted["valid"], (64, 64));
    assert_eq!(accepted["one bit changed"].0, 0);
    let (passed, all) = accepted["mixed-order A, torsion-free R, passing verify_strict"];
    assert_eq!(passed, all);
    // Never: the first six cases (a non-canonical s; a small-order or identity R, either
    // encoding; a small-order or identity A, canonically encoded), and these.
    let never = [
        "mixed-order R (valid point + torsion), torsion-free A",
        "R not on the curve",
        "R non-canonical encoding of a large-order point",
        "wrong key",
    ];
    for &refused in CASES[..6].iter().chain(&never) {
        assert_eq!(accepted[refused].0, 0, "{refused}");
    }
}
