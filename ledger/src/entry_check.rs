//! The checks every verifier makes of one entry (the database walk and the offline export
//! verifier alike), with the signature left for last so that many can be verified in one batch.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use ed25519_dalek::{Signature, VerifyingKey};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::canonical_scan::is_canonical;
use crate::entry::parse_ledger_time;
use crate::envelope::decode_signature;
use crate::key_history::KeyHistory;
use crate::registry_event::{is_registry_type, RegistryEvent};

/// Who may sign which entries: the operator signs registry events; a table key signs its table's
/// records while the ledger says it is valid.
#[derive(Debug, Clone, Copy)]
pub struct Signers<'a> {
    /// Operator keys by envelope key id ([`crate::keys::key_id`]).
    pub operators: &'a HashMap<String, VerifyingKey>,
    pub tables: &'a KeyHistory,
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
    pub key_id: String,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry<'a> {
    #[serde(borrow)]
    envelope: RawEnvelope<'a>,
    index: u64,
    #[serde(borrow)]
    prev_hash: Cow<'a, str>,
    #[serde(borrow)]
    received_at: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnvelope<'a> {
    #[serde(borrow)]
    key_id: Cow<'a, str>,
    #[serde(borrow)]
    record: &'a RawValue,
    #[serde(borrow)]
    signature: Cow<'a, str>,
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
    if !is_canonical(text) {
        return Err("entry bytes are not canonical".into());
    }
    let raw: RawEntry<'b> =
        serde_json::from_str(text).map_err(|e| format!("entry is not an entry: {e}"))?;
    let record_text = raw.envelope.record.get();
    let prev_hash: [u8; 32] = hex::decode(raw.prev_hash.as_ref())
        .ok()
        .and_then(|b| b.try_into().ok())
        .filter(|h: &[u8; 32]| hex::encode(h) == raw.prev_hash)
        .ok_or("prev_hash is not a 32-byte hash in lower-case hex")?;
    let received_at = parse_ledger_time(&raw.received_at)?;
    if raw.index != expected_index {
        return Err(format!(
            "entry carries index {}; entries are missing or out of order",
            raw.index
        ));
    }
    let key_id = raw.envelope.key_id.as_ref();
    // A table's record has a full header; a registry event (no seq_no) is recognised by its type.
    let header = rules::RecordHeader::read_json(record_text);
    let registry_event = match &header {
        Ok(_) => false,
        Err(_) => {
            #[derive(Deserialize)]
            struct TypeOf<'a> {
                #[serde(rename = "type", borrow)]
                record_type: Option<Cow<'a, str>>,
            }
            serde_json::from_str::<TypeOf<'_>>(record_text)
                .ok()
                .and_then(|t| t.record_type)
                .as_deref()
                .is_some_and(is_registry_type)
        }
    };
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
            return Err(format!("key {key_id} was not valid at {}", raw.received_at));
        }
        (*window.key, Subject::Record(header))
    };
    Ok(CheckedEntry {
        index: raw.index,
        received_at,
        prev_hash,
        key_id: key_id.to_owned(),
        key,
        signature: decode_signature(&raw.envelope.signature).map_err(|e| match e {
            crate::LedgerError::Signature(m) => m,
            other => other.to_string(),
        })?,
        record: record_text,
        subject,
    })
}

/// How signatures are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignatureCheck {
    /// ed25519 batch verification grouped by key ([`crate::signature_batch`], several times
    /// faster); a failing batch is re-checked one by one to name the entry. It accepts only
    /// signatures made with the key's secret.
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
    if mode == SignatureCheck::Batch {
        let messages: Vec<&[u8]> = entries.iter().map(|e| e.record.as_bytes()).collect();
        let signatures: Vec<Signature> = entries.iter().map(|e| e.signature).collect();
        let keys: Vec<VerifyingKey> = entries.iter().map(|e| e.key).collect();
        if crate::signature_batch::verify(&messages, &signatures, &keys) {
            return Ok(());
        }
    }
    for (n, entry) in entries.iter().enumerate() {
        entry.verify_signature().map_err(|m| (n, m))?;
    }
    match mode {
        SignatureCheck::Strict => Ok(()),
        SignatureCheck::Batch => Err((
            0,
            "the batch of signatures does not verify although each does alone".into(),
        )),
    }
}
