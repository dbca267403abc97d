//! Making a ledger entry: the one place every entry is made (a table's record by the writer, a
//! registry event by whatever appends it). An entry over what an entry bundle of the published
//! log holds (C2SP tlog-tiles writes each entry's length as a `u16`) is refused before it is
//! made, so before anything of it is written.

use chrono::{DateTime, Utc};
use dozor_log::entry::{entry_len, format_time, Entry};
use dozor_log::tiles::{TileError, MAX_ENTRY_BYTES};

use crate::error::LedgerError;

/// The largest index an entry can have (the ledger's index is a `bigint`): 19 digits.
pub const LARGEST_INDEX: u64 = i64::MAX as u64;

/// What an entry holds of its envelope: the key's id and the signature as submitted, and the
/// record's canonical bytes.
#[derive(Debug, Clone, Copy)]
pub struct EntryParts<'a> {
    pub key_id: &'a str,
    pub signature: &'a str,
    pub canonical_record: &'a str,
}

impl EntryParts<'_> {
    /// Bytes of the entry these parts make at `index`, received at `received_at`.
    pub fn size_at(&self, index: u64, received_at: DateTime<Utc>) -> usize {
        entry_len(
            index,
            &format_time(received_at),
            self.key_id,
            self.canonical_record,
            self.signature,
        )
    }

    /// Bytes of the largest entry these parts can make wherever they go: at the largest index,
    /// received now (a time is as long in every year up to 9999). What a record is held to
    /// before its index is known: if this fits, its entry fits at any index.
    pub fn largest_size(&self) -> usize {
        self.size_at(LARGEST_INDEX, Utc::now())
    }
}

/// The entry of `parts` at `index`, or [`TileError::EntryTooLarge`] when it would be over
/// [`MAX_ENTRY_BYTES`] (nothing made, nothing written).
pub fn build(
    index: u64,
    received_at: DateTime<Utc>,
    prev_hash: [u8; 32],
    parts: EntryParts<'_>,
) -> Result<Entry, LedgerError> {
    let size = parts.size_at(index, received_at);
    if size > MAX_ENTRY_BYTES {
        return Err(LedgerError::TileFormat(TileError::EntryTooLarge { size }));
    }
    Ok(Entry::build_canonical(
        index,
        received_at,
        prev_hash,
        parts.key_id,
        parts.signature,
        parts.canonical_record,
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// A record of `n` bytes of canonical JSON: `{"a":"xx…"}` (8 bytes around the text).
    fn record_of(n: usize) -> String {
        format!("{{\"a\":\"{}\"}}", "x".repeat(n - 8))
    }

    #[test]
    fn an_entry_is_made_up_to_the_limit_and_refused_over_it() {
        let at = DateTime::parse_from_rfc3339("2026-11-28T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let key_id = "0123456789abcdef";
        let signature = "s".repeat(88);
        // Besides the record: 86 bytes of fixed JSON, the quoted key id 18, the quoted
        // signature 90, the index 1234 (4 digits), 64 hex digits of prev_hash and the quoted
        // time 29: 86 + 18 + 90 + 4 + 64 + 29 = 291. So a record of 65 535 − 291 = 65 244
        // bytes makes an entry of exactly 65 535 bytes, one byte more an entry of 65 536.
        let fits = record_of(65_244);
        let parts = EntryParts {
            key_id,
            signature: &signature,
            canonical_record: &fits,
        };
        let entry = build(1234, at, [7; 32], parts).unwrap();
        assert_eq!(entry.bytes.len(), 65_535);
        assert_eq!(parts.size_at(1234, at), 65_535);

        let over = record_of(65_245);
        let parts = EntryParts {
            canonical_record: &over,
            ..parts
        };
        match build(1234, at, [7; 32], parts) {
            Err(LedgerError::TileFormat(TileError::EntryTooLarge { size })) => {
                assert_eq!(size, 65_536)
            }
            other => panic!("{other:?}"),
        }
        // Anywhere in the ledger: at an index of 19 digits, 15 bytes more than at 1234.
        assert_eq!(parts.largest_size(), 65_536 + 15);
    }
}
