//! The round id rows (`round_ids`) of a range of entries read with binary `COPY`, as the
//! verdict rows are: the page's bytes in one buffer read into again page after page, each row
//! its ledger index and two spans, so that reading a page allocates nothing per row.

use std::ops::Range;

use diesel::pg::{CopyTarget, Pg};
use diesel::query_builder::AstPass;
use diesel::PgConnection;

use super::copy_binary::{copy_out, CopyError, Cursor};
use super::schema::round_ids;
use crate::error::LedgerError;

/// The `COPY` target: the round id rows of the entries in a range, in ledger order.
struct RoundIdRows;

impl CopyTarget for RoundIdRows {
    type Table = round_ids::table;
    type SqlType = (
        diesel::sql_types::BigInt,
        diesel::sql_types::Text,
        diesel::sql_types::Text,
    );

    fn walk_target(mut pass: AstPass<'_, '_, Pg>) -> diesel::QueryResult<()> {
        pass.push_sql(
            "(SELECT ledger_index, table_id, round_id FROM round_ids \
             WHERE ledger_index >= current_setting('dozor.round_ids_from')::bigint \
             AND ledger_index < current_setting('dozor.round_ids_end')::bigint \
             ORDER BY ledger_index)",
        );
        Ok(())
    }
}

/// The columns of a row, in the order the target selects them.
const COLUMNS: i16 = 3;

/// The round id rows of a range of entries as `COPY` sent them.
#[derive(Debug, Default)]
pub(super) struct RoundIdPage {
    bytes: Vec<u8>,
    /// Each row's ledger index and where its table and round ids are, in ledger order.
    rows: Vec<(i64, Range<usize>, Range<usize>)>,
}

impl RoundIdPage {
    /// The round id rows of the entries `start..end`, in the caller's transaction, read into
    /// this page's memory.
    pub fn read_again(
        mut self,
        conn: &mut PgConnection,
        start: i64,
        end: i64,
    ) -> Result<Self, LedgerError> {
        let bounds = [
            ("dozor.round_ids_from", start),
            ("dozor.round_ids_end", end),
        ];
        let what = "reading round ids";
        copy_out(conn, RoundIdRows, &bounds, what, &mut self.bytes, None)?;
        decode(&self.bytes, &mut self.rows).map_err(|e| {
            LedgerError::key(format!(
                "the round ids of entries {start}..{end} do not read: {e}"
            ))
        })?;
        Ok(self)
    }

    /// What is stored for the entry at `index`.
    pub fn get(&self, index: i64) -> StoredRoundId<'_> {
        let first = self.rows.partition_point(|r| r.0 < index);
        let count = self.rows[first..].partition_point(|r| r.0 == index);
        let text = |r: &Range<usize>| {
            std::str::from_utf8(self.bytes.get(r.clone()).unwrap_or_default()).unwrap_or_default()
        };
        match (count, self.rows.get(first)) {
            (1, Some((_, table, round))) => StoredRoundId::One(text(table), text(round)),
            (0, _) | (_, None) => StoredRoundId::Missing,
            (n, Some(_)) => StoredRoundId::Several(n),
        }
    }
}

/// The round id rows stored for an entry: a round has one at most (a row is keyed by its table
/// and id, so a database changed by hand may hold more for one entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StoredRoundId<'a> {
    Missing,
    /// Its table and round id.
    One(&'a str, &'a str),
    Several(usize),
}

/// The rows of a binary `COPY` of the target's columns, into `rows` (emptied first), which
/// must be in ledger order.
fn decode(
    bytes: &[u8],
    rows: &mut Vec<(i64, Range<usize>, Range<usize>)>,
) -> Result<(), CopyError> {
    let mut at = Cursor::new(bytes);
    at.header()?;
    rows.clear();
    while at.row(COLUMNS)? {
        let index = at.int8()?;
        let (table, round) = (at.span()?, at.span()?);
        if rows.last().is_some_and(|(last, ..)| *last > index) {
            return Err(CopyError::Layout("rows out of ledger order"));
        }
        for span in [&table, &round] {
            std::str::from_utf8(bytes.get(span.clone()).unwrap_or_default())
                .map_err(|_| CopyError::NotUtf8)?;
        }
        rows.push((index, table, round));
    }
    if at.position() != bytes.len() {
        return Err(CopyError::Layout("bytes after the trailer"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::copy_binary::tests::copy_of;

    fn row(index: i64, table: &[u8], round: &[u8]) -> Vec<Option<Vec<u8>>> {
        vec![
            Some(index.to_be_bytes().to_vec()),
            Some(table.to_vec()),
            Some(round.to_vec()),
        ]
    }

    fn page_of(bytes: Vec<u8>) -> Result<RoundIdPage, CopyError> {
        // A row a reused page held before: decoding replaces it.
        let mut rows = vec![(99, 0..0, 0..0)];
        decode(&bytes, &mut rows)?;
        Ok(RoundIdPage { bytes, rows })
    }

    #[test]
    fn each_rows_ids_are_found_by_its_ledger_index() {
        let rows = [
            row(4, b"R01", b"r-17"),
            row(7, b"R01", b"r-18"),
            row(7, b"R01", b"forged"),
            row(9, b"BJ2", b"h-3"),
        ];
        let page = page_of(copy_of(&rows)).unwrap();
        assert_eq!(page.get(4), StoredRoundId::One("R01", "r-17"));
        assert_eq!(page.get(9), StoredRoundId::One("BJ2", "h-3"));
        assert_eq!(page.get(7), StoredRoundId::Several(2));
        for none in [0, 5, 8, 99] {
            assert_eq!(page.get(none), StoredRoundId::Missing);
        }
        let empty = page_of(copy_of(&[])).unwrap();
        assert_eq!(empty.get(4), StoredRoundId::Missing);
    }

    #[test]
    fn rows_out_of_order_not_text_or_of_other_columns_do_not_read() {
        let backwards = copy_of(&[row(9, b"R01", b"a"), row(4, b"R01", b"b")]);
        assert_eq!(
            page_of(backwards).unwrap_err(),
            CopyError::Layout("rows out of ledger order")
        );
        let not_text = copy_of(&[row(4, b"R01", &[0xff, 0xfe])]);
        assert_eq!(page_of(not_text).unwrap_err(), CopyError::NotUtf8);
        let mut short = row(4, b"R01", b"a");
        short.pop();
        assert!(page_of(copy_of(&[short])).is_err());
        let mut null_round = row(4, b"R01", b"a");
        null_round[2] = None;
        assert_eq!(
            page_of(copy_of(&[null_round])).unwrap_err(),
            CopyError::Null
        );
        let mut longer = copy_of(&[row(4, b"R01", b"a")]);
        longer.push(0);
        assert!(page_of(longer).is_err());
    }
}
