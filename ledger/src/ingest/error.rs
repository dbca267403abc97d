//! Why a submission was not appended.

use serde_json::{json, Value};
use thiserror::Error;

use crate::error::LedgerError;
use dozor_log::tiles::MAX_ENTRY_BYTES;

#[derive(Debug, Error)]
pub enum IngestError {
    /// The body is not an envelope `{record, key_id, signature}`.
    #[error("body is not a valid envelope {{record, key_id, signature}}: {0}")]
    Envelope(#[source] serde_json::Error),
    /// The record, its key, signature, table or plan does not hold; `code` names the rule
    /// (`bad_signature`, `unknown_table`, ...). Nothing was changed.
    #[error("{message}")]
    Refused {
        code: &'static str,
        message: String,
        details: Value,
    },
    /// The record's entry would be over what an entry bundle of the published log holds
    /// ([`MAX_ENTRY_BYTES`]): `size` is the entry's largest size (at the largest index),
    /// `record_size` the record's canonical bytes. Nothing was changed.
    #[error("the record would make a ledger entry of {size} bytes, over the limit of {MAX_ENTRY_BYTES} bytes of an entry (the published log's entry bundles write each entry's length in two bytes): its canonical form is {record_size} bytes, at most {} fit", record_size.saturating_sub(size - MAX_ENTRY_BYTES))]
    EntryTooLarge { size: usize, record_size: usize },
    /// Not now (the writer's queue is full, or it stopped); nothing was changed, retry.
    /// `cause` is for the log only.
    #[error("{reason}")]
    Unavailable { reason: &'static str, cause: String },
    /// The ledger's registry events do not verify: keys after the failing event are not trusted.
    #[error("the ledger's registry event {index} does not verify: {reason}")]
    Registry { index: u64, reason: String },
    /// Looking up a table in the registry failed.
    #[error(transparent)]
    Lookup(crate::storage::registry::RegistryError),
    /// A lock of the key directory was poisoned by a panic elsewhere.
    #[error("the key directory is unusable after a panic")]
    Poisoned,
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl IngestError {
    pub(crate) fn refused(code: &'static str, message: String, details: Value) -> IngestError {
        IngestError::Refused {
            code,
            message,
            details,
        }
    }

    /// The envelope error's code: JSON that does not parse, or JSON of the wrong shape.
    pub fn envelope_code(e: &serde_json::Error) -> &'static str {
        if e.is_data() {
            "invalid_envelope"
        } else {
            "malformed_json"
        }
    }
}

impl From<rules::RecordError> for IngestError {
    fn from(e: rules::RecordError) -> Self {
        let details = match &e {
            rules::RecordError::Invalid { field, .. } => json!({ "field": field }),
            _ => json!({}),
        };
        let code = match &e {
            rules::RecordError::UnsupportedType(_) => "unsupported_record_type",
            rules::RecordError::UnsupportedGame(_) => "unsupported_game",
            _ => "invalid_record",
        };
        IngestError::refused(code, e.to_string(), details)
    }
}

impl From<super::submission::JudgeError> for IngestError {
    fn from(e: super::submission::JudgeError) -> Self {
        match e {
            super::submission::JudgeError::Record(e) => e.into(),
            super::submission::JudgeError::Ledger(e) => e.into(),
        }
    }
}

impl From<crate::storage::registry::RegistryError> for IngestError {
    fn from(e: crate::storage::registry::RegistryError) -> Self {
        match e {
            crate::storage::registry::RegistryError::Storage(e) => e.into(),
            other => IngestError::Lookup(other),
        }
    }
}

impl<T> From<std::sync::PoisonError<T>> for IngestError {
    fn from(_: std::sync::PoisonError<T>) -> Self {
        IngestError::Poisoned
    }
}

impl From<diesel::r2d2::PoolError> for IngestError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        IngestError::Ledger(e.into())
    }
}
