//! Witness cosignatures: C2SP `tlog-cosignature` v1 (Ed25519, signature type 0x04).
//!
//! A cosignature is a signed-note signature line `— <witness name> base64(key id ‖ timestamp ‖
//! signature)`: the key id is the first 4 bytes of SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key), the
//! timestamp 8 bytes big-endian (POSIX seconds), and the Ed25519 signature is over
//! `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's whole note text. Its
//! statement: at that time, the witness had seen no tree head of that log larger than this one,
//! and every one it had seen is consistent with it.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, VerifyingKey};

use crate::checkpoint::{key_id_of, KeySigner, KeyVerifier, NamedSigningKey, NoteError};
use crate::signed_note::{SignatureLine, SignedNote, SIG_PREFIX};

/// Signature type byte of an Ed25519 `cosignature/v1` key.
pub use crate::checkpoint::ALG_COSIGNATURE_V1;

/// Key id of a cosigner key under `name`.
pub fn key_id(name: &str, key: &VerifyingKey) -> u32 {
    key_id_of(name, ALG_COSIGNATURE_V1, key)
}

/// The message a cosignature signs: the header line, the time line and the note text (which
/// ends in a newline and holds no signatures).
pub fn message(timestamp: u64, note_text: &str) -> Vec<u8> {
    format!("cosignature/v1\ntime {timestamp}\n{note_text}").into_bytes()
}

/// A witness's signing key.
pub type CosignatureSigner = KeySigner<ALG_COSIGNATURE_V1>;

impl CosignatureSigner {
    /// The cosignature line (ending in a newline) over `note_text` at `timestamp`.
    pub fn cosign(&self, note_text: &str, timestamp: u64) -> String {
        let NamedSigningKey { name, key, id } = &self.0;
        let signature = key.sign(&message(timestamp, note_text));
        let mut blob = id.to_be_bytes().to_vec();
        blob.extend_from_slice(&timestamp.to_be_bytes());
        blob.extend_from_slice(&signature.to_bytes());
        format!("{SIG_PREFIX}{name} {}\n", BASE64.encode(blob))
    }
}

/// A witness's public key: `<name>+<hex id>+<base64(0x04 ‖ public key)>`.
pub type CosignatureVerifier = KeyVerifier<ALG_COSIGNATURE_V1>;

/// A cosignature that verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cosigned {
    pub witness: String,
    pub timestamp: u64,
    /// The signature line as it stands in the note.
    pub line: String,
}

/// The cosignatures on `note` by `witnesses` that verify, at most one per witness. Lines by
/// other keys are ignored; a line by a known witness key that does not verify is an error (the
/// note is malformed, as signed-note says).
pub fn cosignatures(
    note: &str,
    witnesses: &[CosignatureVerifier],
) -> Result<Vec<Cosigned>, NoteError> {
    let note = SignedNote::split(note)?;
    let mut found: Vec<Cosigned> = Vec::new();
    for signature in note.signatures() {
        let SignatureLine {
            line,
            name,
            key_id,
            blob,
        } = signature?;
        let Some(witness) = witnesses.iter().find(|w| w.name == name && w.id == key_id) else {
            continue;
        };
        let bad = || NoteError::BadSignature {
            name: name.to_owned(),
        };
        if blob.len() != 4 + 8 + 64 {
            return Err(bad());
        }
        let mut timestamp = [0u8; 8];
        timestamp.copy_from_slice(&blob[4..12]);
        let timestamp = u64::from_be_bytes(timestamp);
        let mut signature = [0u8; 64];
        signature.copy_from_slice(&blob[12..]);
        witness
            .key
            .verify_strict(
                &message(timestamp, note.text),
                &Signature::from_bytes(&signature),
            )
            .map_err(|_| bad())?;
        if !found.iter().any(|c| c.witness == witness.name) {
            found.push(Cosigned {
                witness: witness.name.clone(),
                timestamp,
                line: format!("{line}\n"),
            });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    /// The witness key of the test vector: seed 31ffc2…b34f, public key 64848a…8e50.
    fn witness() -> CosignatureSigner {
        let seed: [u8; 32] =
            hex::decode("31ffc2116ecbe003acaa800ab70757bd7d53206e3febef6a6d0796d95530b34f")
                .unwrap()
                .try_into()
                .unwrap();
        CosignatureSigner::new("example.com/witness", SigningKey::from_bytes(&seed)).unwrap()
    }

    const CHECKPOINT: &str = "sigsum.org/v1/tree/4d6d8825a6bb689d459628312889dfbb0bcd41b5211d9e1ce768b0ff0309e562\n5\nQrtXrQZCCvpIgsSmOsah7HdICzMLLyDfxToMql9WTjY=\n";

    /// Computed by hand from tlog-cosignature's byte layout:
    /// key id = SHA-256("example.com/witness" ‖ 0x0A ‖ 0x04 ‖ 64848a…8e50)[:4] = 10a1c019;
    /// timestamp 1 700 000 000 = 0x000000006553f100;
    /// signed message = "cosignature/v1\ntime 1700000000\n" ‖ the checkpoint's three lines;
    /// the line is "— example.com/witness " ‖ base64(10a1c019 ‖ 000000006553f100 ‖ signature).
    const LINE: &str = "\u{2014} example.com/witness EKHAGQAAAABlU/EAlI35wCPypA3E9QobqYNABOzIiyvxpuLMSKmmVzm38Qc0lojEd2oeslC6/SnNNwkzx9F6htfOMmv3WST7CXdBDA==\n";

    #[test]
    fn the_key_id_and_vkey_follow_the_spec() {
        let w = witness();
        assert_eq!(w.verifier().id, 0x10a1_c019);
        assert_eq!(
            w.verifier().to_string(),
            "example.com/witness+10a1c019+BGSEitir7W6FmBs7OHWyUrh2frtLAvcDrKOx5xu9ao5Q"
        );
        // The same public key as a note (0x01) key has another id: the type byte is hashed.
        assert_ne!(
            crate::checkpoint::key_id("example.com/witness", &w.verifier().key),
            0x10a1_c019
        );
        // A key id published by another implementation (transparency-dev/formats).
        let remora = CosignatureVerifier::parse(
            "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2",
        )
        .unwrap();
        assert_eq!(remora.id, 0xda77_ade7);
        let round_trip = CosignatureSigner::from_private_key(&w.private_key()).unwrap();
        assert_eq!(round_trip.verifier(), w.verifier());
    }

    #[test]
    fn the_cosignature_is_byte_for_byte_the_hand_computed_vector() {
        assert_eq!(
            message(1_700_000_000, CHECKPOINT),
            format!("cosignature/v1\ntime 1700000000\n{CHECKPOINT}").into_bytes()
        );
        assert_eq!(witness().cosign(CHECKPOINT, 1_700_000_000), LINE);
    }

    #[test]
    fn cosignatures_on_a_note_are_found_and_a_bad_one_by_a_known_key_is_an_error() {
        let log_signature = "\u{2014} sigsum.org/v1/tree/4d6d8825a6bb689d459628312889dfbb0bcd41b5211d9e1ce768b0ff0309e562 UgIomw/EOJmWi0i1FQsOj+etB7F8IccFam/jgd6wzRns4QPVmyEZtdvl1U2KEmLOZ/ASRcWJi0tW90dJWAShei7sDww=\n";
        let note = format!("{CHECKPOINT}\n{log_signature}{LINE}");
        let w = witness().verifier();
        let found = cosignatures(&note, std::slice::from_ref(&w)).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].timestamp, 1_700_000_000);
        // Another witness's key: ignored, not an error.
        let other = CosignatureSigner::new("example.com/other", SigningKey::from_bytes(&[3; 32]))
            .unwrap()
            .verifier();
        assert!(cosignatures(&note, std::slice::from_ref(&other))
            .unwrap()
            .is_empty());
        // The checkpoint changed under the cosignature: a known key's bad signature.
        let tampered = note.replacen("\n5\n", "\n6\n", 1);
        assert_eq!(
            cosignatures(&tampered, std::slice::from_ref(&w)),
            Err(NoteError::BadSignature {
                name: "example.com/witness".into()
            })
        );
    }
}
