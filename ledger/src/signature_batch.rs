//! Batch ed25519 verification with signatures grouped by key.
//!
//! It checks the same equation as ed25519-dalek's `verify_batch` and accepts exactly what that
//! accepts: for random 128-bit zᵢ, [−Σ zᵢsᵢ]B + Σ [zᵢ]Rᵢ + Σ [zᵢhᵢ]Aᵢ = 0 (cofactorless), with
//! every `s` canonical and every `R` a curve point. The one change: signatures by the same key
//! share that key's term, [Σ zᵢhᵢ]A, so n signatures by k keys cost a multiscalar
//! multiplication of n + k + 1 points instead of 2n + 1. A ledger holds many records from few
//! table keys, so this nearly halves the curve arithmetic of verifying it.
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

/// Whether every signature verifies (see the module documentation). `messages`, `signatures`
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
    let mut base = Scalar::ZERO;
    let mut key_slot: HashMap<[u8; 32], usize> = HashMap::new();
    let mut key_scalars: Vec<Scalar> = Vec::new();
    let mut key_points: Vec<EdwardsPoint> = Vec::new();
    for (i, challenge) in challenges.iter().enumerate() {
        let (_, signature, key) = signed(i);
        let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(*signature.s_bytes()))
        else {
            return false;
        };
        let z = Scalar::from(rng.gen::<u128>());
        base += z * s;
        scalars.push(z);
        let slot = *key_slot.entry(key.to_bytes()).or_insert_with(|| {
            key_scalars.push(Scalar::ZERO);
            key_points.push(key.to_edwards());
            key_points.len() - 1
        });
        key_scalars[slot] += z * challenge;
    }
    scalars[0] = -base;
    // The Rᵢ are decompressed as the multiplication takes them (one fails: no point, `None`),
    // instead of being gathered into a vector of their own first.
    let r_points = (0..n).map(|i| CompressedEdwardsY(*signed(i).1.r_bytes()).decompress());
    let points = std::iter::once(Some(ED25519_BASEPOINT_POINT))
        .chain(r_points)
        .chain(key_points.iter().map(|p| Some(*p)));
    EdwardsPoint::optional_multiscalar_mul(scalars.iter().chain(&key_scalars), points)
        .is_some_and(|sum| sum.is_identity())
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

    fn clone(batch: &Batch) -> Batch {
        Batch {
            messages: batch.messages.clone(),
            signatures: batch.signatures.clone(),
            keys: batch.keys.clone(),
        }
    }
}
