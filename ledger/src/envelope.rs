//! `{record, key_id, signature}`: a record signed by its table over its canonical bytes.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::canonical::canonicalize;
use crate::canonical_scan::is_canonical;
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
    /// The record's RFC 8785 bytes: its text when that is canonical, otherwise its canonical form.
    pub fn canonical_record(&self) -> Result<Vec<u8>, LedgerError> {
        let text = self.record.get();
        if is_canonical(text) {
            return Ok(text.as_bytes().to_vec());
        }
        let value: Value = serde_json::from_str(text)
            .map_err(|e| LedgerError::Canonical(format!("record is not JSON: {e}")))?;
        canonicalize(&value)
    }

    /// Verifies the signature with `key` and returns the record's canonical bytes.
    pub fn verify(&self, key: &VerifyingKey) -> Result<Vec<u8>, LedgerError> {
        let bytes = self.canonical_record()?;
        verify_signature(key, &self.key_id, &self.signature, &bytes)?;
        Ok(bytes)
    }
}

/// Checks `signature` (base64, as written in an envelope) over `canonical` with `key`, strictly
/// (ed25519-dalek's `verify_strict`: no small-order points, canonical `s`).
fn verify_signature(
    key: &VerifyingKey,
    key_id: &str,
    signature: &str,
    canonical: &[u8],
) -> Result<(), LedgerError> {
    let signature = decode_signature(signature.trim())?;
    key.verify_strict(canonical, &signature)
        .map_err(|_| LedgerError::Signature(format!("signature does not verify with key {key_id}")))
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
    fn a_record_sent_as_text_is_signed_over_its_canonical_form() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"b": 1, "a": ["x", {"d": 2, "c": 3}]}), &key).unwrap();
        let signature = &envelope.signature;
        let canonical = r#"{"a":["x",{"c":3,"d":2}],"b":1}"#;
        // The canonical text as it is, and the same record written in another order and spacing.
        for record in [
            canonical,
            r#"{ "b" : 1, "a" : [ "x", { "d" : 2, "c" : 3 } ] }"#,
        ] {
            let text = format!(
                r#"{{"record":{record},"key_id":"{}","signature":"{signature}"}}"#,
                envelope.key_id
            );
            let submitted: EnvelopeText = serde_json::from_str(&text).unwrap();
            let bytes = submitted.verify(&key.verifying_key()).unwrap();
            assert_eq!(String::from_utf8(bytes).unwrap(), canonical);
        }
        // One value changed: the signature no longer verifies.
        let text = format!(
            r#"{{"record":{{"a":["x",{{"c":3,"d":2}}],"b":2}},"key_id":"k","signature":"{signature}"}}"#
        );
        let changed: EnvelopeText = serde_json::from_str(&text).unwrap();
        assert!(matches!(
            changed.verify(&key.verifying_key()),
            Err(LedgerError::Signature(_))
        ));
        // A record that has no canonical form (a fraction) is refused as such.
        let text = format!(r#"{{"record":{{"a":1.5}},"key_id":"k","signature":"{signature}"}}"#);
        let fraction: EnvelopeText = serde_json::from_str(&text).unwrap();
        assert!(matches!(
            fraction.verify(&key.verifying_key()),
            Err(LedgerError::Canonical(_))
        ));
    }

    #[test]
    fn rejects_a_signature_by_another_key() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let envelope = Envelope::sign(json!({"a": 1}), &key).unwrap();
        let other = SigningKey::from_bytes(&[4u8; 32]).verifying_key();
        assert!(envelope.verify(&other).is_err());
    }
}
