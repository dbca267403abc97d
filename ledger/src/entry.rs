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
        envelope: &Envelope,
        canonical_record: &[u8],
    ) -> Result<Entry, LedgerError> {
        let record = std::str::from_utf8(canonical_record)
            .map_err(|_| LedgerError::Canonical("record bytes are not UTF-8".into()))?;
        // Keys in JCS order: envelope{key_id, record, signature}, index, prev_hash, received_at.
        let mut out = String::with_capacity(record.len() + 256);
        out.push_str("{\"envelope\":{\"key_id\":");
        crate::canonical::write_string(&envelope.key_id, &mut out);
        out.push_str(",\"record\":");
        out.push_str(record);
        out.push_str(",\"signature\":");
        crate::canonical::write_string(&envelope.signature, &mut out);
        out.push_str("},\"index\":");
        out.push_str(&index.to_string());
        out.push_str(",\"prev_hash\":\"");
        out.push_str(&hex::encode(prev_hash));
        out.push_str("\",\"received_at\":");
        crate::canonical::write_string(&format_time(received_at), &mut out);
        out.push('}');
        Ok(Entry::from_bytes(
            index,
            received_at,
            prev_hash,
            out.into_bytes(),
        ))
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

/// A key as a verifier knows it: whose it is and when it is valid.
#[derive(Debug, Clone, Copy)]
pub struct KeyWindow<'a> {
    pub table_id: &'a str,
    pub key: &'a ed25519_dalek::VerifyingKey,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// What an entry says once it has passed [`verify_entry`].
#[derive(Debug, Clone)]
pub struct VerifiedEntry {
    pub received_at: DateTime<Utc>,
    /// `prev_hash` as written in the entry (hex).
    pub prev_hash: String,
    pub envelope: Envelope,
    pub header: rules::RecordHeader,
    /// The record's canonical bytes, as signed.
    pub canonical_record: Vec<u8>,
}

/// The checks every verifier makes of one entry on its own (the database walk and the offline
/// export verifier alike): canonical bytes, the expected index, `received_at` in the ledger's form,
/// a key of the record's own table, valid at `received_at`, and its signature.
pub fn verify_entry<'k>(
    bytes: &[u8],
    expected_index: u64,
    key_of: impl FnOnce(&str) -> Option<KeyWindow<'k>>,
) -> Result<VerifiedEntry, String> {
    let (index, received_at, prev_hash, envelope) =
        Entry::parse(bytes).map_err(|e| e.to_string())?;
    if index != expected_index {
        return Err(format!(
            "entry carries index {index}; entries are missing or out of order"
        ));
    }
    let at = DateTime::parse_from_rfc3339(&received_at)
        .map_err(|e| format!("received_at: {e}"))?
        .with_timezone(&Utc);
    if format_time(at) != received_at {
        return Err("received_at is not in the ledger's form".into());
    }
    let key = key_of(&envelope.key_id).ok_or_else(|| {
        format!(
            "signed with key {}, which is not registered",
            envelope.key_id
        )
    })?;
    let header = rules::RecordHeader::read(&envelope.record).map_err(|e| e.to_string())?;
    if header.table_id != key.table_id {
        return Err(format!(
            "key {} belongs to table {}, not {}",
            envelope.key_id, key.table_id, header.table_id
        ));
    }
    if at < key.valid_from || key.revoked_at.is_some_and(|r| r <= at) {
        return Err(format!(
            "key {} was not valid at {received_at}",
            envelope.key_id
        ));
    }
    let canonical_record = envelope.verify(key.key).map_err(|e| e.to_string())?;
    Ok(VerifiedEntry {
        received_at: at,
        prev_hash,
        envelope,
        header,
        canonical_record,
    })
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
            let canonical = crate::canonical::canonicalize(&envelope.record).unwrap();
            let t = to_micros(Utc::now());
            let slow = Entry::build(i as u64 * 1000, t, [i as u8; 32], &envelope).unwrap();
            let fast =
                Entry::build_canonical(i as u64 * 1000, t, [i as u8; 32], &envelope, &canonical)
                    .unwrap();
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
        let (index, received_at, prev, back) = Entry::parse(&entry.bytes).unwrap();
        assert_eq!(
            (index, received_at.as_str()),
            (0, "2026-11-21T18:00:00.123456Z")
        );
        assert_eq!(prev, "0".repeat(64));
        assert_eq!(back, envelope);
    }
}
