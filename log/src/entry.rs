//! Ledger entries and their hashes.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::canonical::canonicalize;
use crate::envelope::Envelope;
use crate::error::LogError;

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
    ) -> Result<Entry, LogError> {
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

/// The length of the entry [`write_entry`] makes from these parts, without making it: the
/// record's bytes, the quoted `key_id`, `signature` and `received_at`, the index's digits, the
/// 64 hex digits of `prev_hash`, and the 86 bytes of the entry's fixed JSON.
pub fn entry_len(
    index: u64,
    received_at: &str,
    key_id: &str,
    canonical_record: &str,
    signature: &str,
) -> usize {
    // `{"envelope":{"key_id":` 22, `,"record":` 10, `,"signature":` 13, `},"index":` 10,
    // `,"prev_hash":"` 14, `","received_at":` 16, `}` 1.
    const FIXED: usize = 22 + 10 + 13 + 10 + 14 + 16 + 1;
    FIXED
        + quoted_len(key_id)
        + canonical_record.len()
        + quoted_len(signature)
        + decimal_digits(index)
        + 64
        + quoted_len(received_at)
}

/// Bytes of `s` as a JSON string written by [`crate::canonical::write_string`], quotes included.
fn quoted_len(s: &str) -> usize {
    let escapes: usize = s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\u{8}' | '\t' | '\n' | '\u{c}' | '\r' => 1,
            c if (c as u32) < 0x20 => 5,
            _ => 0,
        })
        .sum();
    s.len() + escapes + 2
}

/// Digits of `n` in decimal.
fn decimal_digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Parses a time written in the ledger's form ([`format_time`]), refusing any other form.
pub fn parse_ledger_time(text: &str) -> Result<DateTime<Utc>, String> {
    if let Some(at) = read_exact_ledger_time(text) {
        return Ok(at);
    }
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

/// The ledger's form read directly, byte by byte: `YYYY-MM-DDTHH:MM:SS.ffffffZ` with a real
/// date and a second below 60. Whatever this reads, the general parse reads the same and formats
/// back to the same text; the rest (a leap second, any other form) is left to the general parse.
/// Verifiers read one of these per entry, so it is worth not going through a general parser.
fn read_exact_ledger_time(text: &str) -> Option<DateTime<Utc>> {
    let bytes = text.as_bytes();
    if bytes.len() != 27 {
        return None;
    }
    for (at, separator) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (26, b'Z'),
    ] {
        if bytes[at] != separator {
            return None;
        }
    }
    let number = |from: usize, to: usize| {
        bytes[from..to].iter().try_fold(0u32, |n, &digit| {
            digit
                .is_ascii_digit()
                .then(|| n * 10 + u32::from(digit - b'0'))
        })
    };
    let year = i32::try_from(number(0, 4)?).ok()?;
    let date = chrono::NaiveDate::from_ymd_opt(year, number(5, 7)?, number(8, 10)?)?;
    let second = number(17, 19)?;
    if second >= 60 {
        return None;
    }
    let time = chrono::NaiveTime::from_hms_micro_opt(
        number(11, 13)?,
        number(14, 16)?,
        second,
        number(20, 26)?,
    )?;
    Some(date.and_time(time).and_utc())
}

/// A 32-byte hash written as 64 lower-case hex digits.
pub(crate) fn lower_hex_hash(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut hash = [0u8; 32];
    for (byte, pair) in hash.iter_mut().zip(bytes.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(hash)
}

/// A table key as a verifier knows it: whose it is and when it is valid.
#[derive(Debug, Clone, Copy)]
pub struct KeyWindow<'a> {
    pub table_id: &'a str,
    pub key: &'a ed25519_dalek::VerifyingKey,
    /// From when the key's table plays under dozor; no record may be played earlier.
    pub table_registered_from: DateTime<Utc>,
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
    fn the_entry_length_is_the_length_of_the_entry_written() {
        let key = SigningKey::from_bytes(&[3u8; 32]);
        let record = json!({"a": "\u{1}\u{1f}\"\\\u{8}\t\n\u{c}\r ž€😀", "b": [1, 2]});
        let envelope = Envelope::sign(record, &key).unwrap();
        let canonical = crate::canonical::canonical_text(&envelope.record).unwrap();
        let t = format_time(Utc::now());
        for index in [0, 9, 10, 99, 100, 65_535, 999_999, u64::MAX] {
            for (key_id, signature) in [
                (envelope.key_id.as_str(), envelope.signature.as_str()),
                ("\u{0}\"\\é", " \n\t\r\u{7f}\u{1b}x "),
            ] {
                let written = write_entry(index, &t, &[5; 32], key_id, &canonical, signature);
                assert_eq!(
                    entry_len(index, &t, key_id, &canonical, signature),
                    written.len(),
                    "index {index}, key id {key_id:?}"
                );
            }
        }
        // By hand: the 86 bytes of fixed JSON, `"`+16+`"`, the record, `"`+88+`"`, one digit,
        // 64 hex digits, `"`+27+`"`: 86 + 18 + 90 + 1 + 64 + 29 = 288 bytes besides the record.
        assert_eq!(envelope.key_id.len(), 16);
        assert_eq!(envelope.signature.len(), 88);
        assert_eq!(t.len(), 27);
        assert_eq!(
            entry_len(7, &t, &envelope.key_id, &canonical, &envelope.signature),
            288 + canonical.len()
        );
    }

    /// The general parse and its check of the form, as the fast reader must agree with them.
    fn by_general_parse(text: &str) -> Option<DateTime<Utc>> {
        let at = DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc);
        (format_time(at) == text).then_some(at)
    }

    #[test]
    fn the_exact_time_reader_reads_only_what_the_general_parse_reads_and_the_same() {
        let mut texts: Vec<String> = [
            "2026-11-21T18:00:00.123456Z",
            "0000-01-01T00:00:00.000000Z",
            "9999-12-31T23:59:59.999999Z",
            "2024-02-29T12:00:00.000001Z",
            "2026-02-29T12:00:00.000001Z",
            "2026-13-01T12:00:00.000001Z",
            "2026-00-01T12:00:00.000001Z",
            "2026-04-31T12:00:00.000001Z",
            "2026-11-21T24:00:00.000000Z",
            "2026-11-21T23:60:00.000000Z",
            "2016-12-31T23:59:60.000000Z",
            "2026-11-21t18:00:00.123456Z",
            "2026-11-21T18:00:00.123456z",
            "2026-11-21T18:00:00,123456Z",
            "2026-11-21 18:00:00.123456Z",
            "2026-11-21T18:00:00.123456+00:00",
            "2026-11-21T18:00:00.12345Z",
            "2026-11-21T18:00:00.1234567Z",
            "2026-11-21T18:00:00Z",
            "+2026-11-21T18:00:00.12345Z",
            "2026-1-121T18:00:00.123456Z",
            "2026-11-21T18:00:0٠.123456Z",
        ]
        .map(String::from)
        .to_vec();
        // Every one-byte change of a valid time, to digits and to the separators.
        let valid = "2028-02-29T23:59:59.999999Z";
        for at in 0..valid.len() {
            for replacement in [
                '0', '1', '2', '3', '5', '6', '9', '-', ':', 'T', 'Z', '.', 'x',
            ] {
                let mut text = valid.to_owned();
                text.replace_range(at..=at, &replacement.to_string());
                texts.push(text);
            }
        }
        let mut read = 0;
        for text in &texts {
            let fast = read_exact_ledger_time(text);
            if fast.is_some() {
                read += 1;
                assert_eq!(fast, by_general_parse(text), "{text}");
            }
            assert_eq!(
                parse_ledger_time(text).ok(),
                by_general_parse(text),
                "{text}"
            );
        }
        assert!(read > 100, "only {read} read by the exact reader");
    }

    #[test]
    fn a_hash_must_be_exactly_64_lower_case_hex_digits() {
        let hash: Vec<u8> = (0u8..32).map(|i| i.wrapping_mul(37)).collect();
        let text = hex::encode(&hash);
        assert_eq!(lower_hex_hash(&text).map(|h| h.to_vec()), Some(hash));
        assert_eq!(lower_hex_hash(&text.to_uppercase()), None);
        assert_eq!(lower_hex_hash(&text[..62]), None);
        assert_eq!(lower_hex_hash(&format!("{text}00")), None);
        for bad in ['g', 'G', ' ', '-', 'é'] {
            let mut wrong = text.clone();
            wrong.replace_range(17..18, &bad.to_string());
            assert_eq!(lower_hex_hash(&wrong), None, "{wrong}");
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
