//! `{record, key_id, signature}`: a record signed by its table over its canonical bytes.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::canonical::canonicalize;
use crate::error::LogError;
use crate::keys::key_id;
use crate::strict_signature::StrictKey;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub record: Value,
    pub key_id: String,
    /// base64 of the 64-byte ed25519 signature of the record's RFC 8785 canonical bytes.
    pub signature: String,
}

impl Envelope {
    pub fn sign(record: Value, key: &SigningKey) -> Result<Envelope, LogError> {
        let bytes = canonicalize(&record)?;
        let signature = key.sign(&bytes);
        Ok(Envelope {
            record,
            key_id: key_id(&key.verifying_key()),
            signature: BASE64.encode(signature.to_bytes()),
        })
    }

    pub fn signature(&self) -> Result<Signature, LogError> {
        decode_signature(self.signature.trim())
    }

    /// Verifies the signature with `key` and returns the record's canonical bytes.
    pub fn verify(&self, key: &VerifyingKey) -> Result<Vec<u8>, LogError> {
        let bytes = canonicalize(&self.record)?;
        verify_signature(key, &self.key_id, &self.signature, &bytes)?;
        Ok(bytes)
    }
}

/// An envelope as submitted, its record still the JSON text it arrived in: a record that is
/// canonical already (as tables send them) is signed, stored and parsed from that text, without
/// first building a tree of it and writing the tree out again.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeText<'a> {
    #[serde(borrow)]
    pub record: &'a RawValue,
    pub key_id: String,
    /// base64 of the 64-byte ed25519 signature of the record's RFC 8785 canonical bytes.
    pub signature: String,
}

impl EnvelopeText<'_> {
    /// Verifies the signature with `key` over `canonical`, the record's canonical bytes, as
    /// strictly as `verify_strict` ([`crate::strict_signature`]).
    pub fn verify_canonical(&self, key: &StrictKey, canonical: &[u8]) -> Result<(), LogError> {
        let signature = decode_signature(self.signature.trim())?;
        if key.verify(canonical, &signature) {
            Ok(())
        } else {
            Err(LogError::Signature(format!(
                "signature does not verify with key {}",
                self.key_id
            )))
        }
    }
}

/// Checks `signature` (base64, as written in an envelope) over `canonical` with `key`, strictly
/// (ed25519-dalek's `verify_strict`: no small-order points, canonical `s`).
fn verify_signature(
    key: &VerifyingKey,
    key_id: &str,
    signature: &str,
    canonical: &[u8],
) -> Result<(), LogError> {
    let signature = decode_signature(signature.trim())?;
    key.verify_strict(canonical, &signature)
        .map_err(|_| LogError::Signature(format!("signature does not verify with key {key_id}")))
}

/// A base64 ed25519 signature, exactly as written (no surrounding whitespace).
pub fn decode_signature(text: &str) -> Result<Signature, LogError> {
    let bytes = BASE64
        .decode(text)
        .map_err(|e| LogError::Signature(format!("signature is not base64: {e}")))?;
    let bytes: [u8; 64] = bytes
        .try_into()
        .map_err(|_| LogError::Signature("an ed25519 signature is 64 bytes".into()))?;
    Ok(Signature::from_bytes(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signs_canonical_bytes_so_key_order_does_not_matter() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"b": 1, "a": "x"}), &key).unwrap();
        let reordered: Value = serde_json::from_str(r#"{"a":"x","b":1}"#).unwrap();
        let other = Envelope {
            record: reordered,
            ..envelope.clone()
        };
        assert!(other.verify(&key.verifying_key()).is_ok());
        let changed = Envelope {
            record: json!({"b": 2, "a": "x"}),
            ..envelope
        };
        assert!(changed.verify(&key.verifying_key()).is_err());
    }

    #[test]
    fn an_envelope_read_as_text_verifies_over_the_canonical_bytes() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"b": 1, "a": "x"}), &key).unwrap();
        let text = serde_json::to_string(&envelope).unwrap();
        let submitted: EnvelopeText = serde_json::from_str(&text).unwrap();
        assert_eq!(submitted.record.get(), r#"{"a":"x","b":1}"#);
        let canonical = canonicalize(&envelope.record).unwrap();
        assert!(submitted
            .verify_canonical(&StrictKey::new(&key.verifying_key()), &canonical)
            .is_ok());
        let changed = canonicalize(&json!({"b": 2, "a": "x"})).unwrap();
        assert!(submitted
            .verify_canonical(&StrictKey::new(&key.verifying_key()), &changed)
            .is_err());
        // Fields other than record, key_id and signature are refused.
        let extra = text.replacen('{', r#"{"note":1,"#, 1);
        assert!(serde_json::from_str::<EnvelopeText>(&extra).is_err());
    }

    #[test]
    fn rejects_a_signature_by_another_key() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"a": 1}), &key).unwrap();
        let other = SigningKey::from_bytes(&[4u8; 32]).verifying_key();
        assert!(envelope.verify(&other).is_err());
    }
}
