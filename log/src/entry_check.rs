//! The checks every verifier makes of one entry (the database walk and the offline export
//! verifier alike), with the signature left for last so that many can be verified in one batch.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use ed25519_dalek::{Signature, VerifyingKey};

use crate::canonical_scan::{canonical_members, Member};
use crate::entry::{lower_hex_hash, parse_ledger_time};
use crate::envelope::decode_signature;
use crate::registry_event::{is_registry_type, RegistryEvent};
use crate::registry_history::history::RegistryHistory;

/// Who may sign which entries: the operator signs registry events; a table key signs its table's
/// records while the ledger says it is valid.
#[derive(Debug, Clone, Copy)]
pub struct Signers<'a> {
    /// Operator keys by envelope key id ([`crate::keys::key_id`]).
    pub operators: &'a HashMap<String, VerifyingKey>,
    pub tables: &'a RegistryHistory,
}

/// What an entry holds.
#[derive(Debug, Clone)]
pub enum Subject {
    /// A table's record (a round), with its common fields.
    Record(rules::RecordHeader),
    /// A registry event, signed by the operator.
    Registry(RegistryEvent),
}

/// An entry checked in everything except its signature; see [`verify_signatures`].
#[derive(Debug, Clone)]
pub struct CheckedEntry<'b> {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    pub prev_hash: [u8; 32],
    pub key_id: &'b str,
    pub key: VerifyingKey,
    pub signature: Signature,
    /// The record's canonical JSON: what was signed (a slice of the entry).
    pub record: &'b str,
    pub subject: Subject,
}

impl CheckedEntry<'_> {
    /// The signature alone, with the same strict check as ingest.
    pub fn verify_signature(&self) -> Result<(), String> {
        self.key
            .verify_strict(self.record.as_bytes(), &self.signature)
            .map_err(|_| format!("signature does not verify with key {}", self.key_id))
    }
}

/// The fields of a canonical entry, as written (strings without their quotes).
struct EntryFields<'a> {
    index: &'a str,
    prev_hash: &'a str,
    received_at: &'a str,
    key_id: &'a str,
    record: &'a str,
    signature: &'a str,
}

/// The members of `depth` must be exactly `names` (in canonical order), with values of the
/// kinds given by their first byte.
fn exactly<'a, const N: usize>(
    members: &[Member<'a>],
    depth: usize,
    names: [(&str, &[u8]); N],
    what: &str,
) -> Result<[&'a str; N], String> {
    let wrong = || {
        let names = names.map(|(n, _)| n).join(", ");
        format!("{what} must have exactly the members {names}")
    };
    let mut found = members.iter().filter(|m| m.depth == depth);
    let mut values = [""; N];
    for (value, (name, starts)) in values.iter_mut().zip(names) {
        let m = found.next().ok_or_else(wrong)?;
        let kind_ok = m.value.bytes().next().is_some_and(|b| starts.contains(&b));
        if m.key != name || !kind_ok {
            return Err(wrong());
        }
        *value = m.value;
    }
    match found.next() {
        Some(_) => Err(wrong()),
        None => Ok(values),
    }
}

/// A string value's text without its quotes; these fields never need escapes.
fn unquoted(value: &str) -> &str {
    value.get(1..value.len().saturating_sub(1)).unwrap_or("")
}

const DIGITS: &[u8] = b"-0123456789";

impl<'a> EntryFields<'a> {
    /// The entry's and its envelope's members (depths 1 and 2 of the entry's text).
    fn from_members(members: &[Member<'a>]) -> Result<EntryFields<'a>, String> {
        // The envelope's own members are depth 2: it is the only object at depth 1.
        let [_envelope, index, prev_hash, received_at] = exactly(
            members,
            1,
            [
                ("envelope", b"{"),
                ("index", DIGITS),
                ("prev_hash", b"\""),
                ("received_at", b"\""),
            ],
            "an entry",
        )?;
        let [key_id, record, signature] = exactly(
            members,
            2,
            [("key_id", b"\""), ("record", b"{"), ("signature", b"\"")],
            "an envelope",
        )?;
        Ok(EntryFields {
            index,
            prev_hash: unquoted(prev_hash),
            received_at: unquoted(received_at),
            key_id: unquoted(key_id),
            record,
            signature: unquoted(signature),
        })
    }
}

/// Checks one entry on its own: canonical bytes, the expected index, `received_at` in the
/// ledger's form, and a signer allowed to sign it at that place in the ledger — a key of the
/// record's own table valid at `received_at`, or an operator key for a registry event.
pub fn check_entry<'b>(
    bytes: &'b [u8],
    expected_index: u64,
    signers: Signers<'_>,
) -> Result<CheckedEntry<'b>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "entry is not UTF-8".to_owned())?;
    check_entry_text(text, expected_index, signers)
}

/// [`check_entry`] of an entry already known to be UTF-8 text.
pub fn check_entry_text<'b>(
    text: &'b str,
    expected_index: u64,
    signers: Signers<'_>,
) -> Result<CheckedEntry<'b>, String> {
    // One pass: canonical form, and the members of the entry, envelope and record.
    let members = canonical_members(text, 3).ok_or("entry bytes are not canonical")?;
    let fields = EntryFields::from_members(&members)?;
    let record_text = fields.record;
    let prev_hash = lower_hex_hash(fields.prev_hash)
        .ok_or("prev_hash is not a 32-byte hash in lower-case hex")?;
    let received_at = parse_ledger_time(fields.received_at)?;
    let index: u64 = fields
        .index
        .parse()
        .map_err(|_| "index is not a ledger index".to_owned())?;
    if index != expected_index {
        return Err(format!(
            "entry carries index {index}; entries are missing or out of order"
        ));
    }
    let key_id = fields.key_id;
    // A table's record has a full header; a registry event (no seq_no) is recognised by its type.
    let record_member = |name: &str| {
        members
            .iter()
            .find(|m| m.depth == 3 && m.key == name)
            .map(|m| m.value)
    };
    let header = rules::RecordHeader::from_member_texts(record_member);
    let registry_event =
        header.is_err() && record_member("type").is_some_and(|t| is_registry_type(unquoted(t)));
    let (key, subject) = if registry_event {
        let key = signers.operators.get(key_id).ok_or_else(|| {
            format!("registry event signed with key {key_id}, which is not an operator key given to the verifier")
        })?;
        let event =
            serde_json::from_str(record_text).map_err(|e| format!("registry event: {e}"))?;
        (*key, Subject::Registry(event))
    } else {
        let header = header.map_err(|e| e.to_string())?;
        if is_registry_type(&header.record_type) {
            return Err(format!(
                "a `{}` record must be the operator's, without a seq_no",
                header.record_type
            ));
        }
        let window = signers
            .tables
            .table_key_at(key_id, expected_index)
            .ok_or_else(|| {
                format!(
                    "signed with key {key_id}, which no earlier registry event of the ledger added"
                )
            })?;
        if header.table_id != window.table_id {
            return Err(format!(
                "key {key_id} belongs to table {}, not {}",
                window.table_id, header.table_id
            ));
        }
        if received_at < window.valid_from || window.revoked_at.is_some_and(|r| r <= received_at) {
            return Err(format!(
                "key {key_id} was not valid at {}",
                fields.received_at
            ));
        }
        // Ingest refuses a record played before its table was registered or its key added.
        let played_at =
            record_member("played_at").and_then(|t| unquoted(t).parse::<DateTime<Utc>>().ok());
        if let Some(played_at) = played_at {
            if played_at < window.table_registered_from {
                return Err(format!(
                    "record played at {played_at}, before table {} was registered (from {})",
                    window.table_id, window.table_registered_from
                ));
            }
            if played_at < window.valid_from {
                return Err(format!(
                    "record played at {played_at}, before key {key_id} was valid (from {})",
                    window.valid_from
                ));
            }
        }
        (*window.key, Subject::Record(header))
    };
    Ok(CheckedEntry {
        index,
        received_at,
        prev_hash,
        key_id,
        key,
        signature: decode_signature(fields.signature).map_err(|e| match e {
            crate::error::LogError::Signature(m) => m,
            other => other.to_string(),
        })?,
        record: record_text,
        subject,
    })
}

/// How signatures are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignatureCheck {
    /// ed25519 batch verification grouped by key ([`crate::signature_batch`]): RFC 8032's
    /// cofactored equation (ZIP 215 validity) under registered, torsion-free keys, which accepts
    /// everything `verify_strict` accepts under such keys and also an R with a torsion component
    /// or written non-canonically. A failing batch is re-checked one by one, by the same rule, to
    /// name the entry.
    #[default]
    Batch,
    /// `verify_strict` one by one, exactly as ingest checks.
    Strict,
}

/// Verifies the signatures of `entries`; on failure, the position of the first bad one.
pub fn verify_signatures(
    entries: &[CheckedEntry<'_>],
    mode: SignatureCheck,
) -> Result<(), (usize, String)> {
    match mode {
        SignatureCheck::Batch => {
            let signed = |i: usize| {
                let entry: &CheckedEntry<'_> = &entries[i];
                (entry.record.as_bytes(), &entry.signature, &entry.key)
            };
            if crate::signature_batch::verify_each(entries.len(), signed) {
                return Ok(());
            }
            for (n, entry) in entries.iter().enumerate() {
                if !crate::signature_batch::verify_one(
                    entry.record.as_bytes(),
                    &entry.signature,
                    &entry.key,
                ) {
                    return Err((
                        n,
                        format!("signature does not verify with key {}", entry.key_id),
                    ));
                }
            }
            Err((
                0,
                "the batch of signatures does not verify although each does alone".into(),
            ))
        }
        SignatureCheck::Strict => {
            for (n, entry) in entries.iter().enumerate() {
                entry.verify_signature().map_err(|m| (n, m))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonicalize;
    use crate::entry::Entry;

    use crate::envelope::Envelope;
    use ed25519_dalek::SigningKey;
    use serde_json::{json, Value};

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    /// A ledger whose entry 0 registered table R1 with key 1; entry 1 is a round of R1.
    fn ledger() -> (RegistryHistory, Value) {
        let table_key = SigningKey::from_bytes(&[1; 32]);
        let history = crate::registry_history::with_roulette_table_r1("p", &table_key);
        let record = json!({"type": "round", "game": "roulette", "table_id": "R1",
                            "seq_no": 1, "plan_id": "p", "bets": []});
        let envelope = Envelope::sign(record, &table_key).unwrap();
        let entry = Entry::build(1, at("2026-11-21T10:00:00Z"), [7; 32], &envelope).unwrap();
        (history, serde_json::from_slice(&entry.bytes).unwrap())
    }

    fn check(history: &RegistryHistory, entry: &Value) -> Result<(), String> {
        let text = String::from_utf8(canonicalize(entry).unwrap()).unwrap();
        let operators = HashMap::new();
        let signers = Signers {
            operators: &operators,
            tables: history,
        };
        let checked = check_entry_text(&text, 1, signers)?;
        assert_eq!(checked.index, 1);
        assert_eq!(checked.prev_hash, [7; 32]);
        assert!(matches!(&checked.subject, Subject::Record(h) if h.table_id == "R1"));
        verify_signatures(std::slice::from_ref(&checked), SignatureCheck::Batch).map_err(|(_, m)| m)
    }

    #[test]
    fn an_entry_is_checked_from_its_members_and_anything_else_is_named() {
        let (history, entry) = ledger();
        assert_eq!(check(&history, &entry), Ok(()));
        let changed = |edit: &dyn Fn(&mut Value)| {
            let mut e = entry.clone();
            edit(&mut e);
            check(&history, &e).unwrap_err()
        };
        let entry_members =
            "an entry must have exactly the members envelope, index, prev_hash, received_at";
        assert_eq!(changed(&|e| e["zone"] = json!(1)), entry_members);
        assert_eq!(changed(&|e| e["index"] = json!("1")), entry_members);
        assert_eq!(
            changed(&|e| {
                e.as_object_mut().unwrap().remove("received_at");
            }),
            entry_members
        );
        assert_eq!(
            changed(&|e| e["envelope"]["extra"] = json!(true)),
            "an envelope must have exactly the members key_id, record, signature"
        );
        assert_eq!(
            changed(&|e| e["envelope"]["record"] = json!([1])),
            "an envelope must have exactly the members key_id, record, signature"
        );
        assert_eq!(
            changed(&|e| e["prev_hash"] = json!("07".repeat(31) + "0A")),
            "prev_hash is not a 32-byte hash in lower-case hex"
        );
        assert_eq!(
            changed(&|e| e["index"] = json!(2)),
            "entry carries index 2; entries are missing or out of order"
        );
        assert_eq!(
            changed(&|e| e["envelope"]["record"]["seq_no"] = json!(-3)),
            "seq_no: must be an integer from 0 to 2^53-1"
        );
        assert_eq!(
            changed(&|e| e["envelope"]["record"]["type"] = json!("table_key_revoked")),
            "a `table_key_revoked` record must be the operator's, without a seq_no"
        );
        let forged = changed(&|e| e["envelope"]["record"]["seq_no"] = json!(2));
        assert!(forged.starts_with("signature does not verify"), "{forged}");
    }

    #[test]
    fn a_round_played_before_its_table_was_registered_is_named() {
        let (history, _) = ledger();
        let table_key = SigningKey::from_bytes(&[1; 32]);
        let entry_played_at = |played_at: &str| {
            let record = json!({"type": "round", "game": "roulette", "table_id": "R1",
                                "seq_no": 1, "plan_id": "p", "played_at": played_at, "bets": []});
            let envelope = Envelope::sign(record, &table_key).unwrap();
            let entry = Entry::build(1, at("2026-11-21T10:00:00Z"), [7; 32], &envelope).unwrap();
            serde_json::from_slice::<Value>(&entry.bytes).unwrap()
        };
        // The table plays from 2026-11-20T10:00:00Z.
        assert_eq!(
            check(&history, &entry_played_at("2026-11-20T10:00:00Z")),
            Ok(())
        );
        assert_eq!(
            check(&history, &entry_played_at("1970-01-01T00:00:00Z")),
            Err("record played at 1970-01-01 00:00:00 UTC, before table R1 was registered (from 2026-11-20 10:00:00 UTC)".into())
        );
    }
}
