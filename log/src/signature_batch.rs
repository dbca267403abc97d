//! Batch ed25519 verification with signatures grouped by key. A batch verifies exactly when every
//! signature passes ed25519-dalek's `verify_strict`, ingest's check.
//!
//! For random 128-bit zᵢ it checks [−Σ zᵢsᵢ]B + Σ [zᵢ]Rᵢ + Σ [zᵢhᵢ]Aᵢ = 0 (cofactorless), with
//! signatures by the same key sharing that key's term, [Σ zᵢhᵢ]A: n signatures by k keys cost a
//! multiscalar multiplication of n + k + 1 points instead of 2n + 1.
//!
//! That equation settles each signature's own equation only up to the curve's 8-torsion: torsion
//! components cancel between signatures (an even zᵢ removes one of order 2), and the reductions
//! mod ℓ change them. On its own it accepted signatures with a small-order key or R, or with an R
//! having a torsion component, which `verify_strict` refuses; and it refused signatures by a
//! mixed-order key which `verify_strict` accepts. So, as `verify_strict` does:
//!
//! * a non-canonical `s`, an R that is no curve point, or a key or R of small order fails the
//!   batch: `verify_strict` refuses these outright;
//! * under a torsion-free key, an R with a torsion component fails it: [s]B − [h]A is then
//!   torsion-free and never equals R. Every non-canonical encoding of R (refused by
//!   `verify_strict`, which compares bytes) decodes to such a point or to one of small order;
//! * a mixed-order key's signature passes `verify_strict` when its own torsion happens to cancel,
//!   which no random combination reproduces, so such signatures are checked alone with
//!   `verify_strict`. Honest keys are never mixed-order.
//!
//! What is left has only prime-order points, where the equation holds exactly when every
//! signature's does, but for a probability of about 2⁻¹²⁸. `tests/signature_differential.rs`
//! compares the two signature by signature, on batches of up to 512 with each of these cases
//! (and wrong keys, swapped messages, s + ℓ) at random positions.
//!
//! Cost: the torsion check of each R is a scalar multiplication, which makes this about as slow as
//! `verify_strict` one by one (the grouped equation alone took about a quarter of that). It cannot
//! be folded into the equation: a random combination misses a torsion component of order 2 with
//! probability 1/2. A key's checks are paid once per key.
//!
//! The zᵢ are derived, as ed25519-dalek derives them, from every input (each H(R‖A‖M) and `s`):
//! whoever chose the signatures cannot predict them without breaking SHA-512.

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
const DOMAIN: &[u8] = b"dozor ed25519 batch verification v1";

/// Whether every signature passes `verify_strict` (see the module documentation). `messages`, `signatures`
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
        let hram: [u8; 64] = Sha512::new()
            .chain_update(signature.r_bytes())
            .chain_update(key.as_bytes())
            .chain_update(message)
            .finalize()
            .into();
        transcript.update(hram);
        transcript.update(signature.s_bytes());
        challenges.push(Scalar::from_bytes_mod_order_wide(&hram));
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
    // A key's slot among the key terms; `None` for a mixed-order key, whose signatures are
    // checked alone.
    let mut key_slot: HashMap<[u8; 32], Option<usize>> = HashMap::new();
    let mut key_scalars: Vec<Scalar> = Vec::new();
    let mut key_points: Vec<EdwardsPoint> = Vec::new();
    for (i, challenge) in challenges.iter().enumerate() {
        let (message, signature, key) = signed(i);
        let slot = match key_slot.get(key.as_bytes()) {
            Some(slot) => *slot,
            None => {
                let point = key.to_edwards();
                if point.is_small_order() {
                    return false;
                }
                let slot = point.is_torsion_free().then(|| {
                    key_scalars.push(Scalar::ZERO);
                    key_points.push(point);
                    key_points.len() - 1
                });
                key_slot.insert(key.to_bytes(), slot);
                slot
            }
        };
        let Some(slot) = slot else {
            if key.verify_strict(message, signature).is_err() {
                return false;
            }
            continue;
        };
        let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(*signature.s_bytes()))
        else {
            return false;
        };
        let Some(r) = strict_r(signature.r_bytes()) else {
            return false;
        };
        let z = Scalar::from(rng.gen::<u128>());
        base += z * s;
        scalars.push(z);
        r_points.push(r);
        key_scalars[slot] += z * challenge;
    }
    scalars[0] = -base;
    let points = std::iter::once(&ED25519_BASEPOINT_POINT)
        .chain(&r_points)
        .chain(&key_points);
    EdwardsPoint::vartime_multiscalar_mul(scalars.iter().chain(&key_scalars), points).is_identity()
}

/// R, if `verify_strict` could accept a signature with it under a torsion-free key: a curve
/// point neither of small order nor with a torsion component. That also refuses every
/// non-canonical encoding (which `verify_strict` refuses by comparing bytes): each decodes to a
/// small-order or mixed-order point (see the tests).
fn strict_r(bytes: &[u8; 32]) -> Option<EdwardsPoint> {
    let r = CompressedEdwardsY(*bytes).decompress()?;
    (!r.is_small_order() && r.is_torsion_free()).then_some(r)
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
    fn agrees_with_dalek_on_random_batches_with_random_damage() {
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
        }
    }

    #[test]
    fn every_non_canonical_r_is_refused() {
        // y ≥ p = 2²⁵⁵ − 19, with either sign bit; then x = 0 with the sign bit set (y = ±1).
        let mut encodings: Vec<[u8; 32]> = (0..19u8)
            .flat_map(|y| {
                [0x7f, 0xff].map(|top| {
                    let mut bytes = [0xff; 32];
                    bytes[0] = 0xed + y;
                    bytes[31] = top;
                    bytes
                })
            })
            .collect();
        let mut minus_one = [0xff; 32];
        minus_one[0] = 0xec;
        let mut one = [0; 32];
        one[0] = 1;
        for mut bytes in [one, minus_one] {
            bytes[31] |= 0x80;
            encodings.push(bytes);
        }
        for bytes in encodings {
            let point = CompressedEdwardsY(bytes).decompress();
            assert_ne!(point.map(|p| p.compress().0), Some(bytes));
            assert_eq!(strict_r(&bytes), None, "{bytes:02x?}");
        }
    }

    fn clone(batch: &Batch) -> Batch {
        Batch {
            messages: batch.messages.clone(),
            signatures: batch.signatures.clone(),
            keys: batch.keys.clone(),
        }
    }
}
