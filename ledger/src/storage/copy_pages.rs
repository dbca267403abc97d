//! A page of stored entries read with PostgreSQL's binary `COPY`: the page's bytes in one
//! buffer, each row a set of spans into it, so that reading a page allocates twice whatever its
//! size (the buffer and the spans), not once a column a row as decoding rows into owned values
//! does. The rows read are those of `ledger_entries` from an index on, in order, as many as
//! asked.

use std::ops::Range;

use chrono::{DateTime, Utc};
use diesel::pg::{CopyTarget, Pg};
use diesel::query_builder::AstPass;
use diesel::PgConnection;

use super::copy_binary::{copy_out, from_postgres_micros, CopyError, Cursor};
use super::schema::ledger_entries;
use crate::error::LedgerError;

/// The `COPY` target: the page's rows, bounded by two settings made for the transaction
/// (`COPY` takes no bound parameters, and diesel's target is a type, not a value).
struct EntryPageRows;

impl CopyTarget for EntryPageRows {
    type Table = ledger_entries::table;
    type SqlType = (
        diesel::sql_types::BigInt,
        diesel::sql_types::Timestamptz,
        diesel::sql_types::Binary,
        diesel::sql_types::Binary,
        diesel::sql_types::Binary,
        diesel::sql_types::Nullable<diesel::sql_types::Text>,
        diesel::sql_types::Nullable<diesel::sql_types::BigInt>,
        diesel::sql_types::Text,
        diesel::sql_types::Binary,
    );

    fn walk_target(mut pass: AstPass<'_, '_, Pg>) -> diesel::QueryResult<()> {
        pass.push_sql(
            "(SELECT idx, received_at, prev_hash, leaf_hash, entry, table_id, seq_no, key_id, record_hash \
             FROM ledger_entries \
             WHERE idx >= current_setting('dozor.page_from')::bigint \
             ORDER BY idx \
             LIMIT current_setting('dozor.page_size')::bigint)",
        );
        Ok(())
    }
}

/// The columns of a row, in the order the target selects them.
const COLUMNS: i16 = 9;

/// A page of entries as `COPY` sent them.
#[derive(Debug, Default)]
pub struct EntryPage {
    bytes: Vec<u8>,
    rows: Vec<RowSpans>,
}

/// Where a row's columns are in the page's bytes.
#[derive(Debug, Clone)]
struct RowSpans {
    idx: i64,
    received_at: i64,
    prev_hash: Range<usize>,
    leaf_hash: Range<usize>,
    entry: Range<usize>,
    table_id: Option<Range<usize>>,
    seq_no: Option<i64>,
    key_id: Range<usize>,
    record_hash: Range<usize>,
}

/// A stored entry's row, borrowed from its page.
#[derive(Debug, Clone, Copy)]
pub struct EntryRow<'a> {
    pub idx: i64,
    pub received_at: DateTime<Utc>,
    pub prev_hash: &'a [u8],
    pub leaf_hash: &'a [u8],
    pub entry: &'a [u8],
    pub table_id: Option<&'a str>,
    pub seq_no: Option<i64>,
    pub key_id: &'a str,
    pub record_hash: &'a [u8],
}

impl EntryPage {
    /// Up to `size` entries from index `from` on, in the caller's transaction (the settings
    /// that bound the page end with it).
    pub fn read(conn: &mut PgConnection, from: u64, size: u64) -> Result<EntryPage, LedgerError> {
        EntryPage::default().read_again(conn, from, size)
    }

    /// [`EntryPage::read`] into this page's memory.
    pub fn read_again(
        mut self,
        conn: &mut PgConnection,
        from: u64,
        size: u64,
    ) -> Result<EntryPage, LedgerError> {
        let bounds = [
            ("dozor.page_from", i64::try_from(from).unwrap_or(i64::MAX)),
            ("dozor.page_size", i64::try_from(size).unwrap_or(i64::MAX)),
        ];
        let what = "reading a page of entries";
        copy_out(conn, EntryPageRows, &bounds, what, &mut self.bytes, None)?;
        decode(&self.bytes, &mut self.rows).map_err(|e| {
            LedgerError::key(format!("a page of entries from {from} does not read: {e}"))
        })?;
        Ok(self)
    }

    /// An empty page whose memory takes `bytes` of `COPY` without growing.
    pub fn with_capacity(bytes: usize) -> EntryPage {
        EntryPage {
            bytes: Vec::with_capacity(bytes),
            rows: Vec::new(),
        }
    }

    /// The bytes of the `COPY` the page was read from.
    pub fn copy_len(&self) -> usize {
        self.bytes.len()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `n` of the page.
    pub fn get(&self, n: usize) -> Option<EntryRow<'_>> {
        let spans = self.rows.get(n)?;
        let bytes = |r: &Range<usize>| self.bytes.get(r.clone());
        let text = |r: &Range<usize>| std::str::from_utf8(bytes(r)?).ok();
        Some(EntryRow {
            idx: spans.idx,
            received_at: from_postgres_micros(spans.received_at)?,
            prev_hash: bytes(&spans.prev_hash)?,
            leaf_hash: bytes(&spans.leaf_hash)?,
            entry: bytes(&spans.entry)?,
            table_id: match &spans.table_id {
                Some(r) => Some(text(r)?),
                None => None,
            },
            seq_no: spans.seq_no,
            key_id: text(&spans.key_id)?,
            record_hash: bytes(&spans.record_hash)?,
        })
    }

    /// The bytes of the page's entries.
    pub fn entry_bytes(&self) -> u64 {
        self.rows.iter().map(|r| r.entry.len() as u64).sum()
    }
}

/// The rows of a binary `COPY` of the page's columns, into `rows` (emptied first).
fn decode(bytes: &[u8], rows: &mut Vec<RowSpans>) -> Result<(), CopyError> {
    let mut at = Cursor::new(bytes);
    at.header()?;
    rows.clear();
    while at.row(COLUMNS)? {
        rows.push(RowSpans {
            idx: at.int8()?,
            received_at: at.int8()?,
            prev_hash: at.span()?,
            leaf_hash: at.span()?,
            entry: at.span()?,
            table_id: at.nullable_span()?,
            seq_no: at.nullable_int8()?,
            key_id: at.span()?,
            record_hash: at.span()?,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::copy_binary::tests::copy_of;

    fn decoded(bytes: &[u8]) -> Result<Vec<RowSpans>, CopyError> {
        let mut rows = vec![row_spans_left_over()];
        decode(bytes, &mut rows)?;
        Ok(rows)
    }

    /// A row a reused page held before: decoding replaces it.
    fn row_spans_left_over() -> RowSpans {
        RowSpans {
            idx: -1,
            received_at: 0,
            prev_hash: 0..0,
            leaf_hash: 0..0,
            entry: 0..0,
            table_id: None,
            seq_no: None,
            key_id: 0..0,
            record_hash: 0..0,
        }
    }

    fn row(idx: i64, table_id: Option<&str>, seq_no: Option<i64>) -> Vec<Option<Vec<u8>>> {
        // 2026-11-29T00:00:00Z: 1 795 910 400 s after 1970, 849 225 600 s after 2000.
        let received = 849_225_600_000_000i64;
        vec![
            Some(idx.to_be_bytes().to_vec()),
            Some(received.to_be_bytes().to_vec()),
            Some(vec![1; 32]),
            Some(vec![2; 32]),
            Some(b"{\"entry\":1}".to_vec()),
            table_id.map(|t| t.as_bytes().to_vec()),
            seq_no.map(|s| s.to_be_bytes().to_vec()),
            Some(b"key-11".to_vec()),
            Some(vec![3; 32]),
        ]
    }

    #[test]
    fn rows_are_spans_of_the_copy() {
        let bytes = copy_of(&[row(7, Some("R01"), Some(4)), row(8, None, None)]);
        let page = EntryPage {
            rows: decoded(&bytes).unwrap(),
            bytes,
        };
        assert_eq!(page.len(), 2);
        let first = page.get(0).unwrap();
        assert_eq!(
            (first.idx, first.table_id, first.seq_no),
            (7, Some("R01"), Some(4))
        );
        assert_eq!(first.received_at.to_rfc3339(), "2026-11-29T00:00:00+00:00");
        assert_eq!(
            (first.prev_hash, first.leaf_hash),
            (&[1u8; 32][..], &[2u8; 32][..])
        );
        assert_eq!(
            (first.entry, first.key_id),
            (&b"{\"entry\":1}"[..], "key-11")
        );
        let second = page.get(1).unwrap();
        assert_eq!(
            (second.idx, second.table_id, second.seq_no),
            (8, None, None)
        );
        assert!(page.get(2).is_none());
        assert_eq!(page.entry_bytes(), 2 * 11);
    }

    #[test]
    fn a_copy_cut_short_or_of_other_columns_does_not_read() {
        let bytes = copy_of(&[row(7, Some("R01"), Some(4))]);
        assert!(decoded(&bytes[..bytes.len() - 3]).is_err());
        assert!(decoded(&bytes[..40]).is_err());
        assert!(decoded(b"PGCOPY\n\xff\r\n\x01").is_err());
        let mut short = row(7, None, None);
        short.pop();
        assert!(decoded(&copy_of(&[short]))
            .unwrap_err()
            .to_string()
            .contains("8 columns"));
        let mut null_key = row(7, None, None);
        null_key[7] = None;
        assert_eq!(decoded(&copy_of(&[null_key])).unwrap_err(), CopyError::Null);
        assert!(decoded(&copy_of(&[])).unwrap().is_empty());
    }
}
