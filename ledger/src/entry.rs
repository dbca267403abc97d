//! Ledger entries and their hashes.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::canonical::canonicalize;
use crate::{Envelope, LedgerError};

/// `prev_hash` of the first entry.
pub const GENESIS_PREV_HASH: [u8; 32] = [0u8; 32];

/// RFC 6962 leaf hash: SHA-256(0x00 ‖ entry). Also the entry's hash in the chain.
pub fn leaf_hash(entry: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update([0u8]);
    hasher.update(entry);
    hasher.finalize().into()
}

/// SHA-256 of a record's canonical bytes, used to recognise a resubmission.
pub fn record_hash(canonical_record: &[u8]) -> [u8; 32] {
    Sha256::digest(canonical_record).into()
}

/// `received_at` as written in entries: RFC 3339, UTC, microseconds (PostgreSQL's precision).
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Truncates to microseconds, so that the stored time and the entry's text agree.
pub fn to_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.timestamp_micros()).unwrap_or(t)
}

/// One ledger entry, built or read back.
#[derive(Debug, Clone)]
pub struct Entry {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    pub prev_hash: [u8; 32],
    pub bytes: Vec<u8>,
    pub hash: [u8; 32],
}

impl Entry {
    pub fn build(
        index: u64,
        received_at: DateTime<Utc>,
        prev_hash: [u8; 32],
        envelope: &Envelope,
    ) -> Result<Entry, LedgerError> {
        let value = json!({
            "index": index,
            "received_at": format_time(received_at),
            "prev_hash": hex::encode(prev_hash),
            "envelope": envelope,
        });
        let bytes = canonicalize(&value)?;
        let hash = leaf_hash(&bytes);
        Ok(Entry {
            index,
            received_at,
            prev_hash,
            bytes,
            hash,
        })
    }

    /// Reads the fields back from an entry's bytes, checking that they are canonical.
    pub fn parse(bytes: &[u8]) -> Result<(u64, String, String, Envelope), LedgerError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| LedgerError::Corrupt(format!("entry is not JSON: {e}")))?;
        if canonicalize(&value)? != bytes {
            return Err(LedgerError::Corrupt("entry bytes are not canonical".into()));
        }
        let object = value
            .as_object()
            .filter(|o| o.len() == 4)
            .ok_or_else(|| LedgerError::Corrupt("entry must have exactly 4 fields".into()))?;
        let index = object
            .get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| LedgerError::Corrupt("entry index missing".into()))?;
        let text = |name: &str| {
            object
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| LedgerError::Corrupt(format!("entry {name} missing")))
        };
        let envelope: Envelope = object
            .get("envelope")
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| LedgerError::Corrupt(format!("entry envelope: {e}")))?
            .ok_or_else(|| LedgerError::Corrupt("entry envelope missing".into()))?;
        Ok((index, text("received_at")?, text("prev_hash")?, envelope))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    #[test]
    fn entry_bytes_are_canonical_and_hash_with_the_leaf_prefix() {
        let key = SigningKey::from_bytes(&[1u8; 32]);
        let envelope = Envelope::sign(json!({"type": "round", "seq_no": 1}), &key).unwrap();
        let t = DateTime::parse_from_rfc3339("2026-11-21T18:00:00.123456789Z")
            .unwrap()
            .with_timezone(&Utc);
        let entry = Entry::build(0, to_micros(t), GENESIS_PREV_HASH, &envelope).unwrap();
        let text = String::from_utf8(entry.bytes.clone()).unwrap();
        assert!(text.starts_with("{\"envelope\":{\"key_id\":"), "{text}");
        assert!(text.contains("\"received_at\":\"2026-11-21T18:00:00.123456Z\""));
        let mut prefixed = vec![0u8];
        prefixed.extend_from_slice(&entry.bytes);
        assert_eq!(entry.hash.as_slice(), Sha256::digest(&prefixed).as_slice());
        let (index, received_at, prev, back) = Entry::parse(&entry.bytes).unwrap();
        assert_eq!(
            (index, received_at.as_str()),
            (0, "2026-11-21T18:00:00.123456Z")
        );
        assert_eq!(prev, "0".repeat(64));
        assert_eq!(back, envelope);
    }
}
