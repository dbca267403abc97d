//! `{record, key_id, signature}`: a record signed by its table over its canonical bytes.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canonical::canonicalize;
use crate::keys::key_id;
use crate::LedgerError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    pub record: Value,
    pub key_id: String,
    /// base64 of the 64-byte ed25519 signature of the record's RFC 8785 canonical bytes.
    pub signature: String,
}

impl Envelope {
    pub fn sign(record: Value, key: &SigningKey) -> Result<Envelope, LedgerError> {
        let bytes = canonicalize(&record)?;
        let signature = key.sign(&bytes);
        Ok(Envelope {
            record,
            key_id: key_id(&key.verifying_key()),
            signature: BASE64.encode(signature.to_bytes()),
        })
    }

    pub fn signature(&self) -> Result<Signature, LedgerError> {
        decode_signature(self.signature.trim())
    }

    /// Verifies the signature with `key` and returns the record's canonical bytes.
    pub fn verify(&self, key: &VerifyingKey) -> Result<Vec<u8>, LedgerError> {
        let signature = self.signature()?;
        let bytes = canonicalize(&self.record)?;
        key.verify_strict(&bytes, &signature).map_err(|_| {
            LedgerError::Signature(format!(
                "signature does not verify with key {}",
                self.key_id
            ))
        })?;
        Ok(bytes)
    }
}

/// A base64 ed25519 signature, exactly as written (no surrounding whitespace).
pub fn decode_signature(text: &str) -> Result<Signature, LedgerError> {
    let bytes = BASE64
        .decode(text)
        .map_err(|e| LedgerError::Signature(format!("signature is not base64: {e}")))?;
    let bytes: [u8; 64] = bytes
        .try_into()
        .map_err(|_| LedgerError::Signature("an ed25519 signature is 64 bytes".into()))?;
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
    fn rejects_a_signature_by_another_key() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"a": 1}), &key).unwrap();
        let other = SigningKey::from_bytes(&[4u8; 32]).verifying_key();
        assert!(envelope.verify(&other).is_err());
    }
}
