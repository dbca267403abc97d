//! Ledger entries and their hashes.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::json;
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
        Ok(Entry::from_bytes(
            index,
            received_at,
            prev_hash,
            canonicalize(&value)?,
        ))
    }

    fn from_bytes(
        index: u64,
        received_at: DateTime<Utc>,
        prev_hash: [u8; 32],
        bytes: Vec<u8>,
    ) -> Entry {
        let hash = leaf_hash(&bytes);
        Entry {
            index,
            received_at,
            prev_hash,
            bytes,
            hash,
        }
    }

    /// [`Entry::build`] from the record's canonical bytes, already computed to check its signature:
    /// the same bytes without canonicalizing the record again (the single writer's hot path).
    pub fn build_canonical(
        index: u64,
        received_at: DateTime<Utc>,
        prev_hash: [u8; 32],
        key_id: &str,
        signature: &str,
        canonical_record: &str,
    ) -> Entry {
        let out = write_entry(
            index,
            &format_time(received_at),
            &prev_hash,
            key_id,
            canonical_record,
            signature,
        );
        Entry::from_bytes(index, received_at, prev_hash, out)
    }
}

/// The canonical bytes of an entry from its parts, the record already canonical. Keys in JCS
/// order: envelope{key_id, record, signature}, index, prev_hash, received_at.
pub(crate) fn write_entry(
    index: u64,
    received_at: &str,
    prev_hash: &[u8; 32],
    key_id: &str,
    canonical_record: &str,
    signature: &str,
) -> Vec<u8> {
    let mut out = String::with_capacity(canonical_record.len() + 256);
    out.push_str("{\"envelope\":{\"key_id\":");
    crate::canonical::write_string(key_id, &mut out);
    out.push_str(",\"record\":");
    out.push_str(canonical_record);
    out.push_str(",\"signature\":");
    crate::canonical::write_string(signature, &mut out);
    out.push_str("},\"index\":");
    out.push_str(&index.to_string());
    out.push_str(",\"prev_hash\":\"");
    out.push_str(&hex::encode(prev_hash));
    out.push_str("\",\"received_at\":");
    crate::canonical::write_string(received_at, &mut out);
    out.push('}');
    out.into_bytes()
}

/// Parses a time written in the ledger's form ([`format_time`]), refusing any other form.
pub fn parse_ledger_time(text: &str) -> Result<DateTime<Utc>, String> {
    let at = DateTime::parse_from_rfc3339(text)
        .map_err(|e| format!("time `{text}`: {e}"))?
        .with_timezone(&Utc);
    if format_time(at) != text {
        return Err(format!(
            "time `{text}` is not in the ledger's form (UTC, microseconds)"
        ));
    }
    Ok(at)
}

/// A table key as a verifier knows it: whose it is and when it is valid.
#[derive(Debug, Clone, Copy)]
pub struct KeyWindow<'a> {
    pub table_id: &'a str,
    pub key: &'a ed25519_dalek::VerifyingKey,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    #[test]
    fn the_fast_entry_is_byte_for_byte_the_canonical_one() {
        let key = SigningKey::from_bytes(&[2u8; 32]);
        let records = [
            json!({"type": "round", "seq_no": 1, "z": [1, {"b": "\u{1}\"\\ž€😀", "a": null}], "a": true}),
            json!({}),
            json!({"\u{fb33}": 1, "\u{20ac}": 2, "\r": 3, "1": 4}),
        ];
        for (i, record) in records.into_iter().enumerate() {
            let envelope = Envelope::sign(record, &key).unwrap();
            let canonical = crate::canonical::canonical_text(&envelope.record).unwrap();
            let t = to_micros(Utc::now());
            let slow = Entry::build(i as u64 * 1000, t, [i as u8; 32], &envelope).unwrap();
            let fast = Entry::build_canonical(
                i as u64 * 1000,
                t,
                [i as u8; 32],
                &envelope.key_id,
                &envelope.signature,
                &canonical,
            );
            assert_eq!(
                String::from_utf8(fast.bytes).unwrap(),
                String::from_utf8(slow.bytes).unwrap()
            );
            assert_eq!(fast.hash, slow.hash);
        }
    }

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
    }
}
