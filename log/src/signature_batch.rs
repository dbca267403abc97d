//! Ed25519 verification for the verifiers (the offline verify of an export and the database
//! verify), in batches grouped by key.
//!
//! **What is accepted.** A signature (R, s) by key A on message M is valid when `s` is a
//! canonical scalar (below ℓ), R and A decode to curve points (any encoding, as written), and
//! RFC 8032's cofactored equation holds: [8][s]B = [8]R + [8][h]A with h = SHA-512(R ‖ A ‖ M) as
//! bytes were given. That is exactly ZIP 215's definition of validity; the one addition is that
//! A must be a key dozor registers: canonically encoded, not of small order and torsion-free
//! (registration refuses others, `keys::parse_public_key`; this module checks each key again,
//! once per batch).
//!
//! Ingest is stricter: it refuses whatever `verify_strict` refuses (an R with a torsion
//! component, a non-canonical R). A verifier may accept more, and this is sound for an audit:
//! with A = [a]B torsion-free, the equation says R = [s]B − [h]A + T for a torsion point T, and
//! finding such an `s` for an h fixed by R, A and M is as hard as forging an Ed25519 signature
//! (T adds at most eight candidates). So a valid signature still proves that the holder of the
//! key signed these very bytes, and the entry's bytes are fixed anyway by the hash chain and the
//! signed, witnessed tree. What verifiers no longer check is only that the signer's software
//! produced the canonical R it always produces.
//!
//! **The batch.** For random 128-bit zᵢ it checks
//! [8]([−Σ zᵢsᵢ]B + Σ [zᵢ]Rᵢ + Σₖ [Σ_{i by k} zᵢhᵢ]Aₖ) = 0: n signatures by k keys cost one
//! multiscalar multiplication of n + k + 1 points. The factor 8 removes every torsion component
//! before the random combination, so the batch holds exactly when each signature's own
//! cofactored equation holds, but for a probability of about 2⁻¹²⁸ (ZIP 215's argument). The zᵢ
//! are derived from every input (each H(R‖A‖M) and `s`): whoever chose the signatures cannot
//! predict them without breaking SHA-512. `tests/signature_differential.rs` compares the batch
//! with [`verify_one`] signature by signature, and both with `verify_strict`, on batches with
//! adversarial signatures at random positions.

use std::cell::RefCell;
use std::collections::HashMap;

use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use ed25519_dalek::{Signature, VerifyingKey};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha512};

/// Separates these coefficients from any other use of the same hashes.
const DOMAIN: &[u8] = b"dozor ed25519 batch verification v2 (cofactored)";

/// A key's point, if it is one dozor registers: canonically encoded, not of small order,
/// torsion-free.
pub fn registered_key_point(key: &VerifyingKey) -> Option<EdwardsPoint> {
    let point = key.to_edwards();
    let canonical = point.compress().as_bytes() == key.as_bytes();
    (canonical && !point.is_small_order() && point.is_torsion_free()).then_some(point)
}

thread_local! {
    /// The points of keys this thread found to be registered keys: checking a key costs a
    /// scalar multiplication (torsion-freeness), and the same few table keys sign batch after
    /// batch. A key's bytes decide its point, so what is kept is what would be found again.
    static REGISTERED: RefCell<HashMap<[u8; 32], EdwardsPoint>> = RefCell::new(HashMap::new());
}

/// How many keys a thread keeps found: past it, it forgets them all and starts again.
const REGISTERED_KEPT: usize = 4096;

/// [`registered_key_point`], once per key and thread.
fn registered_key_point_kept(key: &VerifyingKey) -> Option<EdwardsPoint> {
    REGISTERED.with(|kept| {
        if let Some(point) = kept.borrow().get(key.as_bytes()) {
            return Some(*point);
        }
        let point = registered_key_point(key)?;
        let mut kept = kept.borrow_mut();
        if kept.len() >= REGISTERED_KEPT {
            kept.clear();
        }
        kept.insert(key.to_bytes(), point);
        Some(point)
    })
}

fn challenge(signature: &Signature, key: &VerifyingKey, message: &[u8]) -> Scalar {
    let hram: [u8; 64] = Sha512::new()
        .chain_update(signature.r_bytes())
        .chain_update(key.as_bytes())
        .chain_update(message)
        .finalize()
        .into();
    Scalar::from_bytes_mod_order_wide(&hram)
}

/// Whether one signature is valid by the rule above (what the batch decides for each).
pub fn verify_one(message: &[u8], signature: &Signature, key: &VerifyingKey) -> bool {
    let Some(a) = registered_key_point(key) else {
        return false;
    };
    let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(*signature.s_bytes())) else {
        return false;
    };
    let Some(r) = CompressedEdwardsY(*signature.r_bytes()).decompress() else {
        return false;
    };
    let h = challenge(signature, key, message);
    // [s]B − [h]A − R, which must be a torsion point.
    let residue = EdwardsPoint::vartime_double_scalar_mul_basepoint(&-h, &a, &s) - r;
    residue.mul_by_cofactor().is_identity()
}

/// Whether every signature is valid (see the module documentation). `messages`, `signatures`
/// and `keys` are parallel; slices of different lengths never verify.
pub fn verify(messages: &[&[u8]], signatures: &[Signature], keys: &[VerifyingKey]) -> bool {
    let n = signatures.len();
    if messages.len() != n || keys.len() != n {
        return false;
    }
    verify_each(n, |i| (messages[i], &signatures[i], &keys[i]))
}

/// [`verify`] of `n` signatures, the `i`-th given by `signed(i)` as message, signature and key,
/// so that callers need not gather them into slices first.
pub fn verify_each<'a>(
    n: usize,
    signed: impl Fn(usize) -> (&'a [u8], &'a Signature, &'a VerifyingKey),
) -> bool {
    let mut transcript = Sha512::new_with_prefix(DOMAIN);
    let mut challenges = Vec::with_capacity(n);
    for i in 0..n {
        let (message, signature, key) = signed(i);
        let h = challenge(signature, key, message);
        transcript.update(h.as_bytes());
        transcript.update(signature.r_bytes());
        transcript.update(signature.s_bytes());
        challenges.push(h);
    }
    let seed: [u8; 64] = transcript.finalize().into();
    let mut seed32 = [0u8; 32];
    seed32.copy_from_slice(&seed[..32]);
    let mut rng = ChaCha20Rng::from_seed(seed32);

    // Scalar 0 is the base point's, −Σ zᵢsᵢ, filled in at the end; then each zᵢ (of Rᵢ).
    let mut scalars: Vec<Scalar> = Vec::with_capacity(n + 1);
    scalars.push(Scalar::ZERO);
    let mut r_points: Vec<EdwardsPoint> = Vec::with_capacity(n);
    let mut base = Scalar::ZERO;
    let mut key_slot: HashMap<[u8; 32], usize> = HashMap::new();
    let mut key_scalars: Vec<Scalar> = Vec::new();
    let mut key_points: Vec<EdwardsPoint> = Vec::new();
    for (i, h) in challenges.iter().enumerate() {
        let (_, signature, key) = signed(i);
        let slot = match key_slot.get(key.as_bytes()) {
            Some(slot) => *slot,
            None => {
                let Some(point) = registered_key_point_kept(key) else {
                    return false;
                };
                key_scalars.push(Scalar::ZERO);
                key_points.push(point);
                key_slot.insert(key.to_bytes(), key_points.len() - 1);
                key_points.len() - 1
            }
        };
        let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(*signature.s_bytes()))
        else {
            return false;
        };
        let Some(r) = CompressedEdwardsY(*signature.r_bytes()).decompress() else {
            return false;
        };
        let z = Scalar::from(rng.gen::<u128>());
        base += z * s;
        scalars.push(z);
        r_points.push(r);
        key_scalars[slot] += z * h;
    }
    scalars[0] = -base;
    let points = std::iter::once(&ED25519_BASEPOINT_POINT)
        .chain(&r_points)
        .chain(&key_points);
    EdwardsPoint::vartime_multiscalar_mul(scalars.iter().chain(&key_scalars), points)
        .mul_by_cofactor()
        .is_identity()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};
    use rand::RngCore;

    struct Batch {
        messages: Vec<Vec<u8>>,
        signatures: Vec<Signature>,
        keys: Vec<VerifyingKey>,
    }

    impl Batch {
        /// `n` signatures over random messages by `k` keys, keys interleaved.
        fn new(rng: &mut (impl RngCore + rand::CryptoRng), n: usize, k: usize) -> Batch {
            let signers: Vec<SigningKey> = (0..k).map(|_| SigningKey::generate(rng)).collect();
            let messages: Vec<Vec<u8>> = (0..n)
                .map(|i| {
                    let mut m = vec![0u8; 1 + i % 300];
                    rng.fill_bytes(&mut m);
                    m
                })
                .collect();
            let signatures = messages
                .iter()
                .enumerate()
                .map(|(i, m)| signers[i % k].sign(m))
                .collect();
            let keys = (0..n).map(|i| signers[i % k].verifying_key()).collect();
            Batch {
                messages,
                signatures,
                keys,
            }
        }

        fn grouped(&self) -> bool {
            let m: Vec<&[u8]> = self.messages.iter().map(Vec::as_slice).collect();
            verify(&m, &self.signatures, &self.keys)
        }

        fn dalek(&self) -> bool {
            let m: Vec<&[u8]> = self.messages.iter().map(Vec::as_slice).collect();
            ed25519_dalek::verify_batch(&m, &self.signatures, &self.keys).is_ok()
        }
    }

    fn with_signature_byte(signature: &Signature, at: usize, flip: u8) -> Signature {
        let mut bytes = signature.to_bytes();
        bytes[at] ^= flip;
        Signature::from_bytes(&bytes)
    }

    #[test]
    fn valid_batches_verify_whatever_the_number_of_keys() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for (n, k) in [
            (0, 1),
            (1, 1),
            (2, 2),
            (64, 1),
            (64, 3),
            (256, 16),
            (100, 100),
        ] {
            let batch = Batch::new(&mut rng, n, k);
            assert!(batch.grouped(), "{n} signatures by {k} keys");
            assert!(batch.dalek());
        }
    }

    #[test]
    fn any_single_change_fails_the_batch() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let batch = Batch::new(&mut rng, 48, 4);
        for victim in [0, 17, 47] {
            // a message byte
            let mut b = clone(&batch);
            b.messages[victim][0] ^= 0x01;
            assert!(!b.grouped() && !b.dalek(), "message {victim}");
            // R, then s
            for at in [3, 40] {
                let mut b = clone(&batch);
                b.signatures[victim] = with_signature_byte(&b.signatures[victim], at, 0x04);
                assert!(
                    !b.grouped() && !b.dalek(),
                    "signature byte {at} of {victim}"
                );
            }
            // signed by another key of the batch
            let mut b = clone(&batch);
            b.keys[victim] = b.keys[(victim + 1) % 48];
            assert!(!b.grouped() && !b.dalek(), "key of {victim}");
        }
        // two signatures swapped between messages by the same key
        let mut b = clone(&batch);
        b.signatures.swap(0, 4);
        assert!(!b.grouped() && !b.dalek());
    }

    #[test]
    fn a_non_canonical_s_is_refused_as_dalek_refuses_it() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut batch = Batch::new(&mut rng, 8, 2);
        // s + ℓ satisfies the equation but is not the canonical scalar (malleability).
        let mut bytes = batch.signatures[5].to_bytes();
        // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
        const ELL: [u8; 32] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        let mut carry = 0u16;
        for i in 0..32 {
            let sum = u16::from(bytes[32 + i]) + u16::from(ELL[i]) + carry;
            bytes[32 + i] = sum as u8;
            carry = sum >> 8;
        }
        batch.signatures[5] = Signature::from_bytes(&bytes);
        assert!(!batch.grouped());
        assert!(!batch.dalek());
    }

    #[test]
    fn an_r_that_is_not_a_curve_point_fails_the_batch_in_any_position() {
        // y = 2 has no x on the curve (x² = (y² − 1)/(dy² + 1) is not a square mod p).
        let mut not_a_point = [0u8; 32];
        not_a_point[0] = 2;
        assert!(CompressedEdwardsY(not_a_point).decompress().is_none());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        // Below and above the size where the multiplication switches to Pippenger's method.
        for (n, at) in [(1, 0), (8, 7), (300, 0), (300, 150), (300, 299)] {
            let mut batch = Batch::new(&mut rng, n, 3);
            let mut bytes = batch.signatures[at].to_bytes();
            bytes[..32].copy_from_slice(&not_a_point);
            batch.signatures[at] = Signature::from_bytes(&bytes);
            assert!(!batch.grouped(), "{n} signatures, bad R at {at}");
            assert!(!batch.dalek());
        }
    }

    #[test]
    fn slices_of_different_lengths_never_verify() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let batch = Batch::new(&mut rng, 4, 1);
        let m: Vec<&[u8]> = batch.messages.iter().map(Vec::as_slice).collect();
        assert!(!verify(&m[..3], &batch.signatures, &batch.keys));
        assert!(!verify(&m, &batch.signatures[..3], &batch.keys));
    }

    #[test]
    fn agrees_with_each_signature_alone_and_with_dalek_on_random_batches_with_random_damage() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for round in 0..40 {
            let n = 1 + (rng.next_u32() % 40) as usize;
            let k = 1 + (rng.next_u32() % 5) as usize;
            let mut batch = Batch::new(&mut rng, n, k);
            if round % 2 == 1 {
                let victim = (rng.next_u32() as usize) % n;
                let at = (rng.next_u32() as usize) % 64;
                batch.signatures[victim] =
                    with_signature_byte(&batch.signatures[victim], at, 1 << (rng.next_u32() % 8));
            }
            assert_eq!(batch.grouped(), batch.dalek(), "round {round}");
            assert_eq!(batch.grouped(), round % 2 == 0, "round {round}");
            let each = (0..n)
                .all(|i| verify_one(&batch.messages[i], &batch.signatures[i], &batch.keys[i]));
            assert_eq!(batch.grouped(), each, "round {round}");
        }
    }

    #[test]
    fn a_non_canonical_r_is_read_as_written_and_the_challenge_hashes_its_bytes() {
        use curve25519_dalek::constants::ED25519_BASEPOINT_TABLE;
        let a = Scalar::from(7u64);
        let key =
            VerifyingKey::from_bytes((&a * ED25519_BASEPOINT_TABLE).compress().as_bytes()).unwrap();
        let message = b"round";
        // R written as y = p + 1, a non-canonical encoding of the identity, and s = h·a:
        // [s]B − [h]A − R = 0, so the cofactored equation holds (ZIP 215 accepts it);
        // verify_strict refuses a non-canonical or small-order R.
        let mut r = [0xff; 32];
        r[0] = 0xee;
        r[31] = 0x7f;
        let sign = |r: [u8; 32]| {
            let mut bytes = [0u8; 64];
            bytes[..32].copy_from_slice(&r);
            let h = challenge(&Signature::from_bytes(&bytes), &key, message);
            bytes[32..].copy_from_slice((h * a).as_bytes());
            Signature::from_bytes(&bytes)
        };
        let signature = sign(r);
        assert!(verify_one(message, &signature, &key));
        assert!(verify(&[message], &[signature], &[key]));
        assert!(key.verify_strict(message, &signature).is_err());
        // The same point written canonically is another R: the s made for the other bytes
        // fails, because h hashes R as written.
        let mut canonical = signature.to_bytes();
        let mut identity = [0u8; 32];
        identity[0] = 1;
        canonical[..32].copy_from_slice(&identity);
        let moved = Signature::from_bytes(&canonical);
        assert!(!verify_one(message, &moved, &key));
        assert!(!verify(&[message], &[moved], &[key]));
    }

    #[test]
    fn keys_dozor_would_not_register_fail_the_batch() {
        use curve25519_dalek::constants::{ED25519_BASEPOINT_TABLE, EIGHT_TORSION};
        let message = b"round";
        // A mixed-order key (a prime-order point plus a torsion point), whose holder signs
        // validly: the batch refuses the key, whatever the signature.
        let a = Scalar::from(11u64);
        let mixed = &a * ED25519_BASEPOINT_TABLE + EIGHT_TORSION[1];
        let key = VerifyingKey::from_bytes(mixed.compress().as_bytes()).unwrap();
        let r = Scalar::from(5u64);
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice((&r * ED25519_BASEPOINT_TABLE).compress().as_bytes());
        let h = challenge(&Signature::from_bytes(&bytes), &key, message);
        bytes[32..].copy_from_slice((r + h * a).as_bytes());
        let signature = Signature::from_bytes(&bytes);
        assert!(registered_key_point(&key).is_none());
        assert!(!verify_one(message, &signature, &key));
        assert!(!verify(&[message], &[signature], &[key]));
        // A small-order key.
        let weak = VerifyingKey::from_bytes(EIGHT_TORSION[2].compress().as_bytes()).unwrap();
        assert!(registered_key_point(&weak).is_none());
    }

    #[test]
    fn keys_found_once_are_kept_and_keys_refused_are_refused_every_time() {
        use curve25519_dalek::constants::{ED25519_BASEPOINT_TABLE, EIGHT_TORSION};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let batch = Batch::new(&mut rng, 8, 2);
        assert!(batch.grouped());
        assert!(batch.grouped(), "verified again with the keys kept");
        let point = registered_key_point_kept(&batch.keys[0]);
        assert_eq!(point, registered_key_point(&batch.keys[0]));
        // A batch with a bad signature fails though its keys are kept.
        let mut bad = clone(&batch);
        bad.signatures[3] = with_signature_byte(&bad.signatures[3], 40, 1);
        assert!(!bad.grouped());
        // A mixed-order key is never kept: refused again and again.
        let mixed = &Scalar::from(11u64) * ED25519_BASEPOINT_TABLE + EIGHT_TORSION[1];
        let key = VerifyingKey::from_bytes(mixed.compress().as_bytes()).unwrap();
        for _ in 0..2 {
            assert!(registered_key_point_kept(&key).is_none());
        }
        assert!(!REGISTERED.with(|kept| kept.borrow().contains_key(key.as_bytes())));
    }

    fn clone(batch: &Batch) -> Batch {
        Batch {
            messages: batch.messages.clone(),
            signatures: batch.signatures.clone(),
            keys: batch.keys.clone(),
        }
    }
}
