#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Properties of record parsing and canonicalisation, over generated records and generated
//! damage to them. The ingest path reads a record once: a text already in RFC 8785 form is
//! checked by a scanner and taken as it is; anything else is parsed and canonicalised. The two
//! paths must never disagree, and a signature made over one form must hold for every other way
//! of writing the same record.

use dozor_log::canonical::canonical_text;
use ed25519_dalek::{Signer as _, SigningKey};
use ledger::ingest::read_record;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// JSON the records use: integers within ±(2^53 − 1), strings with any Unicode (quotes,
/// backslashes and control characters included), nesting.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-(1i64 << 53) + 1..(1i64 << 53)).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[a-z\"\\\\\u{0}-\u{1f}é€😀]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_é\"\\\\]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A record: its header fields and arbitrary game data.
fn record() -> impl Strategy<Value = Value> {
    (
        "[A-Za-z0-9_-]{1,12}",
        0u64..(1u64 << 53),
        "[a-z0-9-]{1,20}",
        prop::collection::btree_map("[a-z_]{1,10}", json_value(), 0..6),
    )
        .prop_map(|(table_id, seq_no, plan_id, data)| {
            let mut record: Map<String, Value> = data.into_iter().collect();
            record.insert("type".into(), Value::from("round"));
            record.insert("table_id".into(), Value::from(table_id));
            record.insert("seq_no".into(), Value::from(seq_no));
            record.insert("plan_id".into(), Value::from(plan_id));
            record.insert("game".into(), Value::from("roulette"));
            Value::Object(record)
        })
}

/// `value` written with every object's members in reverse order (serde_json's own map keeps
/// them sorted, so the text is written by hand), with spaces and line breaks between tokens.
fn reversed_text(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| {
                    format!(
                        "{} : {}",
                        serde_json::to_string(k).unwrap(),
                        reversed_text(v)
                    )
                })
                .collect();
            format!("{{ {} }}", members.join(" ,\n "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(reversed_text).collect();
            format!("[ {} ]", items.join(", "))
        }
        other => serde_json::to_string(other).unwrap(),
    }
}

/// The same record written otherwise: pretty-printed, members reversed, non-ASCII escaped.
fn rewritten(value: &Value) -> Vec<String> {
    vec![
        serde_json::to_string_pretty(value).unwrap(),
        reversed_text(value),
        serde_json::to_string(value)
            .unwrap()
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    c.to_string()
                } else {
                    let mut units = [0u16; 2];
                    c.encode_utf16(&mut units)
                        .iter()
                        .map(|u| format!("\\u{u:04x}"))
                        .collect()
                }
            })
            .collect(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Canonicalising is a fixed point: the canonical text parses back to the same value and
    /// canonicalises to itself.
    #[test]
    fn canonical_text_is_a_fixed_point(value in json_value()) {
        let text = canonical_text(&value).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &value);
        prop_assert_eq!(canonical_text(&parsed).unwrap(), text);
    }

    /// However a record is written, it reads to the same canonical bytes and header as its
    /// canonical form, so a signature over those bytes verifies for every writing.
    #[test]
    fn every_writing_of_a_record_reads_the_same(record in record()) {
        let canonical = canonical_text(&record).unwrap();
        let (fast, header) = read_record(&canonical).unwrap();
        prop_assert_eq!(&fast, &canonical);
        let key = SigningKey::from_bytes(&[7; 32]);
        let signature = key.sign(canonical.as_bytes());
        for text in rewritten(&record) {
            let (bytes, other_header) = read_record(&text).unwrap();
            prop_assert_eq!(&bytes, &canonical, "{}", text);
            prop_assert_eq!(&other_header, &header);
            prop_assert!(key.verifying_key().verify_strict(bytes.as_bytes(), &signature).is_ok());
        }
    }

    /// Damage to a canonical record (a byte changed, inserted or removed) never makes the
    /// scanner take a text that is not canonical: whatever `read_record` accepts is exactly the
    /// canonical form of what the text parses to, and nothing panics.
    #[test]
    fn the_fast_path_never_accepts_a_text_that_is_not_canonical(
        record in record(),
        position in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        how in 0u8..3,
    ) {
        let mut bytes = canonical_text(&record).unwrap().into_bytes();
        let at = position.index(bytes.len() + 1);
        match how {
            0 if at < bytes.len() => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ if at < bytes.len() => { bytes.remove(at); }
            _ => bytes.push(byte),
        }
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        if let Ok((read, header)) = read_record(&text) {
            let parsed: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(&read, &canonical_text(&parsed).unwrap());
            prop_assert_eq!(header, rules::RecordHeader::read(&parsed).unwrap());
        }
    }

    /// Any text at all gets an answer, never a panic.
    #[test]
    fn any_text_is_read_or_refused(text in any::<String>()) {
        let _ = read_record(&text);
        let _ = ledger::ingest::parse_envelope(text.as_bytes());
    }
}
