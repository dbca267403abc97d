//! The verdict rows (`adjudications`) of a range of entries read with binary `COPY`, each row
//! read in place when it is compared: reading a page of them allocates twice (the bytes and
//! where each row starts), not once for each text and array of each row.

use diesel::pg::{CopyTarget, Pg};
use diesel::query_builder::AstPass;
use diesel::PgConnection;

use super::copy_binary::{copy_out, unix_micros, CopyError, Cursor, Elements};
use super::schema::adjudications;
use crate::error::LedgerError;

/// The `COPY` target: the verdict rows of the entries in a range, in ledger order, every
/// column in the table's order.
struct VerdictRows;

impl CopyTarget for VerdictRows {
    type Table = adjudications::table;
    /// Every column, in the table's order.
    type SqlType = adjudications::SqlType;

    fn walk_target(mut pass: AstPass<'_, '_, Pg>) -> diesel::QueryResult<()> {
        pass.push_sql(
            "(SELECT ledger_index, table_id, game, plan_id, rules_version, played_at, void, \
             stakes_h, expected_paid_h, paid_h, rtp_stakes_h, expected_payout_mh, \
             payout_variance_h2, finding_count, verdict, payout_third_moment_h3, \
             tournament_fee_h, tournament_overlay_h, time_collection, wheel_result, \
             kind_names, kind_bets, kind_stakes_h, kind_paid_h, kind_expected_payout_mh, \
             kind_variance_h2, kind_third_moment_h3 \
             FROM adjudications \
             WHERE ledger_index >= current_setting('dozor.verdicts_from')::bigint \
             AND ledger_index < current_setting('dozor.verdicts_end')::bigint \
             ORDER BY ledger_index)",
        );
        Ok(())
    }
}

/// The columns of a row, in the order the target selects them.
const COLUMNS: i16 = 27;

/// A stored verdict row, borrowed from its page. Floats are their bits: a stored figure must be
/// the computed one bit for bit.
#[derive(Debug, Clone, Copy)]
pub struct StoredVerdict<'a> {
    pub table_id: &'a str,
    pub game: &'a str,
    pub plan_id: &'a str,
    pub rules_version: &'a str,
    /// Microseconds since 1970.
    pub played_at_micros: i64,
    pub void: bool,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
    pub rtp_stakes_h: i64,
    pub expected_payout_mh: i64,
    pub payout_variance_h2: u64,
    pub finding_count: i32,
    /// The verdict's JSON, as stored.
    pub verdict: &'a [u8],
    pub payout_third_moment_h3: u64,
    pub tournament_fee_h: i64,
    pub tournament_overlay_h: i64,
    pub time_collection: bool,
    pub wheel_result: Option<i32>,
    pub kind_names: Elements<'a>,
    pub kind_bets: Elements<'a>,
    pub kind_stakes_h: Elements<'a>,
    pub kind_paid_h: Elements<'a>,
    pub kind_expected_payout_mh: Elements<'a>,
    pub kind_variance_h2: Elements<'a>,
    pub kind_third_moment_h3: Elements<'a>,
}

impl<'a> StoredVerdict<'a> {
    /// The row at the cursor (after its column count and ledger index).
    fn read(at: &mut Cursor<'a>) -> Result<Self, CopyError> {
        let int8_array = Some(8);
        Ok(StoredVerdict {
            table_id: at.text()?,
            game: at.text()?,
            plan_id: at.text()?,
            rules_version: at.text()?,
            played_at_micros: unix_micros(at.int8()?),
            void: at.bool()?,
            stakes_h: at.int8()?,
            expected_paid_h: at.int8()?,
            paid_h: at.int8()?,
            rtp_stakes_h: at.int8()?,
            expected_payout_mh: at.int8()?,
            payout_variance_h2: at.float8_bits()?,
            finding_count: at.int4()?,
            verdict: at.field()?,
            payout_third_moment_h3: at.float8_bits()?,
            tournament_fee_h: at.int8()?,
            tournament_overlay_h: at.int8()?,
            time_collection: at.bool()?,
            wheel_result: at.nullable_int4()?,
            kind_names: at.elements(None)?,
            kind_bets: at.elements(int8_array)?,
            kind_stakes_h: at.elements(int8_array)?,
            kind_paid_h: at.elements(int8_array)?,
            kind_expected_payout_mh: at.elements(int8_array)?,
            kind_variance_h2: at.elements(int8_array)?,
            kind_third_moment_h3: at.elements(int8_array)?,
        })
    }
}

/// The verdict rows of a range of entries as `COPY` sent them.
#[derive(Debug, Default)]
pub(super) struct VerdictPage {
    bytes: Vec<u8>,
    /// Where each message of the server's starts: a row each (see [`copy_out`]).
    messages: Vec<usize>,
    /// Each row's ledger index and where it starts, in ledger order.
    rows: Vec<(i64, usize)>,
    /// Where the trailer starts: the last row ends there.
    trailer: usize,
}

impl VerdictPage {
    /// An empty page whose memory takes `bytes` of `COPY` without growing.
    pub fn with_capacity(bytes: usize) -> VerdictPage {
        VerdictPage {
            bytes: Vec::with_capacity(bytes),
            ..VerdictPage::default()
        }
    }

    /// The bytes of the `COPY` the page was read from.
    pub fn copy_len(&self) -> usize {
        self.bytes.len()
    }

    /// The verdict rows of the entries `start..end`, in the caller's transaction, read into
    /// this page's memory.
    pub fn read_again(
        mut self,
        conn: &mut PgConnection,
        start: i64,
        end: i64,
    ) -> Result<Self, LedgerError> {
        let bounds = [("dozor.verdicts_from", start), ("dozor.verdicts_end", end)];
        let what = "reading verdict rows";
        let messages = Some(&mut self.messages);
        copy_out(conn, VerdictRows, &bounds, what, &mut self.bytes, messages)?;
        self.index().map_err(|e| {
            LedgerError::key(format!(
                "the verdict rows of entries {start}..{end} do not read: {e}"
            ))
        })?;
        Ok(self)
    }

    /// Each row's ledger index and start, from where the server's messages start (no field
    /// but the index is read: the rest is read when the row is compared, and a row that does
    /// not read, or does not end where the next begins, is named then, for its entry).
    fn index(&mut self) -> Result<(), CopyError> {
        self.rows.clear();
        if self.messages.first() != Some(&0) {
            return Err(CopyError::Layout("no header"));
        }
        let mut at = Cursor::new(&self.bytes);
        at.header()?;
        // The first message holds the header and the first row (or the trailer).
        let starts = std::iter::once(at.position()).chain(self.messages.iter().skip(1).copied());
        for start in starts {
            let mut at = Cursor::at(&self.bytes, start);
            if !at.row(COLUMNS)? {
                if at.position() != self.bytes.len() {
                    return Err(CopyError::Layout("bytes after the trailer"));
                }
                self.trailer = start;
                return Ok(());
            }
            let index = at.int8()?;
            if self.rows.last().is_some_and(|&(last, _)| last >= index) {
                return Err(CopyError::Layout("rows out of ledger order"));
            }
            self.rows.push((index, start));
        }
        Err(CopyError::Layout("cut short before the trailer"))
    }

    /// The verdict row of the entry at `index`, if one is stored, or why it does not read.
    pub fn get(&self, index: i64) -> Option<Result<StoredVerdict<'_>, CopyError>> {
        let n = self.rows.binary_search_by_key(&index, |&(i, _)| i).ok()?;
        let &(_, start) = self.rows.get(n)?;
        let end = self.rows.get(n + 1).map_or(self.trailer, |&(_, next)| next);
        let mut at = Cursor::at(&self.bytes, start);
        Some(
            at.row(COLUMNS)
                .and_then(|_| at.skip(1))
                .and_then(|_| StoredVerdict::read(&mut at))
                .and_then(|row| match at.position() == end {
                    true => Ok(row),
                    false => Err(CopyError::Layout(
                        "a row that does not end where the next begins",
                    )),
                }),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::copy_binary::tests::{array_of, copy_of};

    fn int8(v: i64) -> Option<Vec<u8>> {
        Some(v.to_be_bytes().to_vec())
    }

    fn text(v: &str) -> Option<Vec<u8>> {
        Some(v.as_bytes().to_vec())
    }

    /// A verdict row of entry `index` with two kinds, as PostgreSQL sends it.
    fn row(index: i64, wheel_result: Option<i32>) -> Vec<Option<Vec<u8>>> {
        let ints = |a: i64, b: i64| {
            Some(array_of(
                20,
                &[a.to_be_bytes().to_vec(), b.to_be_bytes().to_vec()],
            ))
        };
        let floats = |a: f64, b: f64| {
            Some(array_of(
                701,
                &[a.to_be_bytes().to_vec(), b.to_be_bytes().to_vec()],
            ))
        };
        vec![
            int8(index),
            text("R01"),
            text("roulette"),
            text("69games-ziva-hra"),
            text("rules-7"),
            // 2026-11-29T00:00:00Z: 849 225 600 s after 2000.
            int8(849_225_600_000_000),
            Some(vec![0]),
            int8(10_000),
            int8(36_000),
            int8(36_000),
            int8(10_000),
            int8(9_729_730),
            Some(2.5f64.to_be_bytes().to_vec()),
            Some(1i32.to_be_bytes().to_vec()),
            text("{\"void\":false}"),
            Some((-0.5f64).to_be_bytes().to_vec()),
            int8(0),
            int8(0),
            Some(vec![1]),
            wheel_result.map(|w| w.to_be_bytes().to_vec()),
            Some(array_of(25, &[b"red".to_vec(), b"straight_up".to_vec()])),
            ints(1, 2),
            ints(5_000, 5_000),
            ints(0, 36_000),
            ints(4_864_865, 4_864_865),
            floats(1.0, 2.0),
            floats(0.0, -3.0),
        ]
    }

    /// The page PostgreSQL sends for `rows`: the header with the first row in one message,
    /// each other row in one, the trailer alone.
    fn page_of_rows(rows: &[Vec<Option<Vec<u8>>>]) -> Result<VerdictPage, CopyError> {
        page_of(copy_of(rows), messages_of(rows))
    }

    /// Where PostgreSQL's messages start in the copy of `rows`: the second row's after the
    /// first (the trailer, two bytes, left out), and so on; the trailer's last.
    fn messages_of(rows: &[Vec<Option<Vec<u8>>>]) -> Vec<usize> {
        let mut messages = vec![0];
        messages.extend((1..=rows.len()).map(|n| copy_of(&rows[..n]).len() - 2));
        messages
    }

    fn page_of(bytes: Vec<u8>, messages: Vec<usize>) -> Result<VerdictPage, CopyError> {
        let mut page = VerdictPage {
            bytes,
            messages,
            rows: vec![(-1, 0)],
            trailer: 0,
        };
        page.index()?;
        Ok(page)
    }

    #[test]
    fn rows_read_in_place_by_ledger_index() {
        let page = page_of_rows(&[row(4, Some(17)), row(9, None)]).unwrap();
        let first = page.get(4).unwrap().unwrap();
        assert_eq!((first.table_id, first.game), ("R01", "roulette"));
        assert_eq!(
            (first.plan_id, first.rules_version),
            ("69games-ziva-hra", "rules-7")
        );
        // 849 225 600 s after 2000 + 946 684 800 s from 1970 to 2000 = 1 795 910 400 s.
        assert_eq!(first.played_at_micros, 1_795_910_400_000_000);
        assert!(!first.void && first.time_collection);
        assert_eq!(
            (first.stakes_h, first.expected_paid_h, first.paid_h),
            (10_000, 36_000, 36_000)
        );
        assert_eq!(
            (first.rtp_stakes_h, first.expected_payout_mh),
            (10_000, 9_729_730)
        );
        assert_eq!(f64::from_bits(first.payout_variance_h2), 2.5);
        assert_eq!(f64::from_bits(first.payout_third_moment_h3), -0.5);
        assert_eq!((first.finding_count, first.wheel_result), (1, Some(17)));
        assert_eq!(first.verdict, b"{\"void\":false}");
        assert_eq!(
            first.kind_names.text().collect::<Vec<_>>(),
            ["red", "straight_up"]
        );
        assert_eq!(first.kind_bets.int8().collect::<Vec<_>>(), [1, 2]);
        assert_eq!(first.kind_paid_h.int8().collect::<Vec<_>>(), [0, 36_000]);
        let bits: Vec<u64> = first.kind_third_moment_h3.float8_bits().collect();
        assert_eq!(bits, [0.0f64.to_bits(), (-3.0f64).to_bits()]);
        assert_eq!(page.get(9).unwrap().unwrap().wheel_result, None);
        assert!(page.get(5).is_none() && page.get(10).is_none());
    }

    #[test]
    fn rows_out_of_order_or_cut_short_fail_the_page_and_a_row_that_does_not_read_its_entry() {
        assert!(page_of_rows(&[row(9, None), row(4, None)])
            .unwrap_err()
            .to_string()
            .contains("order"));
        let whole = copy_of(&[row(4, None)]);
        let messages = messages_of(&[row(4, None)]);
        assert!(page_of(whole[..whole.len() - 5].to_vec(), messages.clone()).is_err());
        let mut longer = whole.clone();
        longer.push(0);
        assert!(page_of(longer, messages)
            .unwrap_err()
            .to_string()
            .contains("after the trailer"));
        let mut short_array = row(5, None);
        short_array[22] = Some(array_of(20, &[vec![0; 4]]));
        let mut null_text = row(6, None);
        null_text[1] = None;
        let page = page_of_rows(&[row(4, None), short_array, null_text]).unwrap();
        assert!(page.get(4).unwrap().is_ok());
        assert!(page
            .get(5)
            .unwrap()
            .unwrap_err()
            .to_string()
            .contains("of 8 bytes"));
        assert!(page
            .get(6)
            .unwrap()
            .unwrap_err()
            .to_string()
            .contains("NULL"));
        assert!(page_of_rows(&[]).unwrap().get(0).is_none());
    }

    #[test]
    fn rows_are_found_where_messages_start_and_must_end_where_the_next_begins() {
        let rows = [row(4, None), row(5, None), row(6, Some(3))];
        let page = page_of_rows(&rows).unwrap();
        assert!([4, 5, 6].iter().all(|&i| page.get(i).unwrap().is_ok()));
        // Two rows in one message: the first does not end where the next message begins, and
        // the one inside it is not found, so neither passes for a row read.
        let mut messages = messages_of(&rows);
        messages.remove(2);
        let page = page_of(copy_of(&rows), messages).unwrap();
        assert!(page
            .get(5)
            .unwrap()
            .unwrap_err()
            .to_string()
            .contains("does not end where the next begins"));
        assert!(page.get(6).is_none());
        assert!(page.get(4).unwrap().is_ok());
        // A message starting inside a row reads as a row of other columns.
        let mut messages = messages_of(&rows);
        messages.insert(2, messages[1] + 10);
        assert!(page_of(copy_of(&rows), messages).is_err());
        // Without the first message at the start, nothing is read.
        assert!(page_of(copy_of(&rows), vec![4])
            .unwrap_err()
            .to_string()
            .contains("header"));
    }
}
