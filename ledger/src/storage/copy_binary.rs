//! PostgreSQL's binary `COPY … TO STDOUT`, read into one buffer and walked in place: what
//! every page of the walk is read with, so that reading rows allocates per page, not per row
//! and column.

use std::io::BufRead as _;
use std::ops::Range;

use chrono::{DateTime, Utc};
use diesel::connection::SimpleConnection as _;
use diesel::pg::{CopyFormat, CopyTarget};
use diesel::PgConnection;

use crate::error::LedgerError;

/// The bytes of a binary `COPY` of `target` into `bytes` (emptied first; its memory is reused:
/// a page's buffer is megabytes, and fresh memory costs the kernel's zeroing), its query
/// bounded by the transaction-local settings `bounds` (`COPY` takes no bound parameters, and
/// diesel's target is a type, not a value), in the caller's transaction. Where each message
/// of the server's starts goes into `messages` if given: PostgreSQL sends each row in a
/// message of its own (the header with the first, the trailer alone), so rows can be found
/// without reading their fields.
pub(super) fn copy_out<T: CopyTarget>(
    conn: &mut PgConnection,
    target: T,
    bounds: &[(&str, i64)],
    what: &str,
    bytes: &mut Vec<u8>,
    mut messages: Option<&mut Vec<usize>>,
) -> Result<(), LedgerError> {
    let settings: Vec<String> = bounds
        .iter()
        .map(|(name, value)| format!("set_config('{name}', '{value}', true)"))
        .collect();
    conn.batch_execute(&format!("SELECT {}", settings.join(", ")))?;
    bytes.clear();
    if let Some(messages) = messages.as_deref_mut() {
        messages.clear();
    }
    let mut copy = diesel::copy_to(target)
        .with_format(CopyFormat::Binary)
        .load_raw(conn)?;
    // Appended as received: `read_to_end` would zero the spare capacity first.
    loop {
        let received = copy.fill_buf().map_err(|e| LedgerError::io(what, e))?;
        if received.is_empty() {
            break;
        }
        if let Some(messages) = messages.as_deref_mut() {
            messages.push(bytes.len());
        }
        bytes.extend_from_slice(received);
        let n = received.len();
        copy.consume(n);
    }
    drop(copy);
    // diesel's raw COPY leaves the command's final result unread when its data ends, and the
    // next prepared statement would find the connection busy: a simple query (libpq's PQexec)
    // takes it first.
    conn.batch_execute("SELECT 1")?;
    Ok(())
}

/// Microseconds from PostgreSQL's epoch (2000-01-01) to the Unix epoch's.
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// A `timestamptz` as binary `COPY` sends it (microseconds since 2000), as a time.
pub(super) fn from_postgres_micros(micros: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_micros(micros.checked_add(POSTGRES_EPOCH_MICROS)?)
}

/// A `timestamptz` as binary `COPY` sends it, as microseconds since 1970.
pub(super) fn unix_micros(postgres_micros: i64) -> i64 {
    postgres_micros.saturating_add(POSTGRES_EPOCH_MICROS)
}

/// The signature every binary `COPY` starts with.
pub(super) const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0";

/// The elements of a one-dimensional array without NULLs, as binary `COPY` sends it: each
/// element's bytes in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct Elements<'a> {
    count: usize,
    /// Each element as its length (4 bytes) and its bytes.
    bytes: &'a [u8],
}

/// An 8-byte element (`int8`, `float8`) with its length before it.
const EIGHT_BYTE_STRIDE: usize = 4 + 8;

impl<'a> Elements<'a> {
    pub fn len(&self) -> usize {
        self.count
    }

    /// Each element's bytes (read when the page was: every length fits).
    pub fn iter(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let mut at = Cursor::new(self.bytes);
        (0..self.count).map_while(move |_| at.span().ok().and_then(|s| at.bytes.get(s)))
    }

    /// The elements of an array read as one of 8-byte elements, at their fixed stride.
    fn eight_bytes(&self) -> impl Iterator<Item = [u8; 8]> + 'a {
        self.bytes
            .chunks_exact(EIGHT_BYTE_STRIDE)
            .filter_map(|element| element.get(4..)?.try_into().ok())
    }

    /// The elements as 8-byte integers (an `int8[]`, read as one of 8-byte elements).
    #[inline]
    pub fn int8(&self) -> impl Iterator<Item = i64> + 'a {
        self.eight_bytes().map(i64::from_be_bytes)
    }

    /// The elements as the bits of 8-byte floats (a `float8[]`, read as one of 8-byte
    /// elements), compared bit for bit.
    pub fn float8_bits(&self) -> impl Iterator<Item = u64> + 'a {
        self.eight_bytes().map(u64::from_be_bytes)
    }

    /// The elements as text (a `text[]`); one that is not UTF-8 reads as U+FFFD.
    #[inline]
    pub fn text(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.iter()
            .map(|e| std::str::from_utf8(e).unwrap_or("\u{fffd}"))
    }
}

/// Why a binary `COPY` does not read: a value, formatted only when shown, so that reading a
/// field is a few instructions (a page holds millions of fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum CopyError {
    #[error("not a binary COPY")]
    NotBinaryCopy,
    #[error("cut short")]
    CutShort,
    #[error("a negative length")]
    NegativeLength,
    #[error("a row of {found} columns, not {expected}")]
    Columns { found: i16, expected: i16 },
    #[error("NULL in a column that is never")]
    Null,
    #[error("a field of {found} bytes, not {expected}")]
    FieldSize { found: usize, expected: usize },
    #[error("a boolean of {0}")]
    Boolean(u8),
    #[error("text that is not UTF-8")]
    NotUtf8,
    #[error("an array of {0} dimensions")]
    Dimensions(i32),
    #[error("an array with NULLs")]
    ArrayWithNulls,
    #[error("an array of other than {count} elements of {size} bytes")]
    ArrayShape { count: usize, size: usize },
    #[error("an array longer than its elements")]
    ArrayLonger,
    /// How the rows of a `COPY` lie: out of order, past its trailer, …
    #[error("{0}")]
    Layout(&'static str),
}

/// Reading a binary `COPY` in order.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    /// A cursor at `at` in `bytes`.
    pub fn at(bytes: &'a [u8], at: usize) -> Self {
        Cursor { bytes, at }
    }

    pub fn position(&self) -> usize {
        self.at
    }

    /// Past the header of a binary `COPY`.
    pub fn header(&mut self) -> Result<(), CopyError> {
        if self.take(SIGNATURE.len())? != SIGNATURE {
            return Err(CopyError::NotBinaryCopy);
        }
        let _flags = self.i32()?;
        let extension = self.i32()?;
        self.take(usize::try_from(extension).map_err(|_| CopyError::NegativeLength)?)?;
        Ok(())
    }

    /// Past the start of the next row, of `columns` columns; `false` at the end of the copy.
    #[inline]
    pub fn row(&mut self, columns: i16) -> Result<bool, CopyError> {
        match self.i16()? {
            -1 => Ok(false),
            n if n == columns => Ok(true),
            found => Err(CopyError::Columns {
                found,
                expected: columns,
            }),
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], CopyError> {
        let end = self.at.checked_add(n).ok_or(CopyError::CutShort)?;
        let taken = self.bytes.get(self.at..end).ok_or(CopyError::CutShort)?;
        self.at = end;
        Ok(taken)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], CopyError> {
        self.take(N)?.try_into().map_err(|_| CopyError::CutShort)
    }

    #[inline]
    fn i16(&mut self) -> Result<i16, CopyError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    #[inline]
    fn i32(&mut self) -> Result<i32, CopyError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A field's span, or `None` for NULL.
    #[inline]
    pub fn nullable_span(&mut self) -> Result<Option<Range<usize>>, CopyError> {
        let length = self.i32()?;
        if length == -1 {
            return Ok(None);
        }
        let length = usize::try_from(length).map_err(|_| CopyError::NegativeLength)?;
        let start = self.at;
        self.take(length)?;
        Ok(Some(start..start + length))
    }

    #[inline]
    pub fn span(&mut self) -> Result<Range<usize>, CopyError> {
        self.nullable_span()?.ok_or(CopyError::Null)
    }

    /// Past `n` fields, reading only their lengths.
    pub fn skip(&mut self, n: usize) -> Result<(), CopyError> {
        for _ in 0..n {
            self.nullable_span()?;
        }
        Ok(())
    }

    /// A field's bytes.
    #[inline]
    pub fn field(&mut self) -> Result<&'a [u8], CopyError> {
        let span = self.span()?;
        self.bytes.get(span).ok_or(CopyError::CutShort)
    }

    /// A text field.
    pub fn text(&mut self) -> Result<&'a str, CopyError> {
        std::str::from_utf8(self.field()?).map_err(|_| CopyError::NotUtf8)
    }

    /// A fixed-size field of `N` bytes, or `None` for NULL.
    #[inline]
    fn nullable_fixed<const N: usize>(&mut self) -> Result<Option<[u8; N]>, CopyError> {
        match self.nullable_span()? {
            None => Ok(None),
            Some(span) => {
                let bytes = self.bytes.get(span).ok_or(CopyError::CutShort)?;
                Ok(Some(bytes.try_into().map_err(|_| {
                    CopyError::FieldSize {
                        found: bytes.len(),
                        expected: N,
                    }
                })?))
            }
        }
    }

    #[inline]
    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], CopyError> {
        self.nullable_fixed()?.ok_or(CopyError::Null)
    }

    #[inline]
    pub fn nullable_int8(&mut self) -> Result<Option<i64>, CopyError> {
        Ok(self.nullable_fixed()?.map(i64::from_be_bytes))
    }

    pub fn int8(&mut self) -> Result<i64, CopyError> {
        Ok(i64::from_be_bytes(self.fixed()?))
    }

    #[inline]
    pub fn nullable_int4(&mut self) -> Result<Option<i32>, CopyError> {
        Ok(self.nullable_fixed()?.map(i32::from_be_bytes))
    }

    #[inline]
    pub fn int4(&mut self) -> Result<i32, CopyError> {
        Ok(i32::from_be_bytes(self.fixed()?))
    }

    /// A `float8` field's bits (compared bit for bit, as the stored value must be the one
    /// computed).
    #[inline]
    pub fn float8_bits(&mut self) -> Result<u64, CopyError> {
        Ok(u64::from_be_bytes(self.fixed()?))
    }

    #[inline]
    pub fn bool(&mut self) -> Result<bool, CopyError> {
        match self.fixed::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(CopyError::Boolean(b)),
        }
    }

    /// An array field of one dimension (or none: empty) without NULLs, each element of
    /// `element_size` bytes if given.
    pub fn elements(&mut self, element_size: Option<usize>) -> Result<Elements<'a>, CopyError> {
        let mut array = Cursor::new(self.field()?);
        let dimensions = array.i32()?;
        let has_nulls = array.i32()?;
        let _element_type = array.i32()?;
        let count = match dimensions {
            0 => 0,
            1 => {
                let count = array.i32()?;
                let _lower_bound = array.i32()?;
                usize::try_from(count).map_err(|_| CopyError::NegativeLength)?
            }
            n => return Err(CopyError::Dimensions(n)),
        };
        if has_nulls != 0 {
            return Err(CopyError::ArrayWithNulls);
        }
        let bytes = array.bytes.get(array.at..).unwrap_or_default();
        match element_size {
            // Elements of one size follow each other at a fixed stride: checked in one pass.
            Some(size) => {
                let shape = CopyError::ArrayShape { count, size };
                let length = i32::try_from(size).map_err(|_| shape)?;
                let stride = size + 4;
                let fits = bytes.len() == count.saturating_mul(stride)
                    && bytes
                        .chunks_exact(stride)
                        .all(|e| e.get(..4) == Some(&length.to_be_bytes()[..]));
                if !fits {
                    return Err(shape);
                }
            }
            None => {
                for _ in 0..count {
                    array.field()?;
                }
                if array.at != array.bytes.len() {
                    return Err(CopyError::ArrayLonger);
                }
            }
        }
        Ok(Elements { count, bytes })
    }
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A binary COPY of `rows`, each a list of fields (`None`: NULL), as PostgreSQL writes it.
    pub fn copy_of(rows: &[Vec<Option<Vec<u8>>>]) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        out.extend(0i32.to_be_bytes());
        out.extend(0i32.to_be_bytes());
        for row in rows {
            out.extend((row.len() as i16).to_be_bytes());
            for field in row {
                match field {
                    None => out.extend((-1i32).to_be_bytes()),
                    Some(bytes) => {
                        out.extend((bytes.len() as i32).to_be_bytes());
                        out.extend(bytes);
                    }
                }
            }
        }
        out.extend((-1i16).to_be_bytes());
        out
    }

    /// A one-dimensional array field of `elements`, as PostgreSQL sends it.
    pub fn array_of(element_type: i32, elements: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(i32::from(!elements.is_empty()).to_be_bytes());
        out.extend(0i32.to_be_bytes());
        out.extend(element_type.to_be_bytes());
        if !elements.is_empty() {
            out.extend((elements.len() as i32).to_be_bytes());
            out.extend(1i32.to_be_bytes());
        }
        for e in elements {
            out.extend((e.len() as i32).to_be_bytes());
            out.extend(e);
        }
        out
    }

    fn elements_of(field: Vec<u8>, size: Option<usize>) -> Result<Vec<Vec<u8>>, CopyError> {
        let copy = copy_of(&[vec![Some(field)]]);
        let mut at = Cursor::new(&copy);
        at.header()?;
        assert!(at.row(1)?);
        let elements = at.elements(size)?;
        let read: Vec<Vec<u8>> = elements.iter().map(<[u8]>::to_vec).collect();
        assert_eq!(read.len(), elements.len());
        Ok(read)
    }

    #[test]
    fn arrays_read_element_by_element() {
        let ints = [7i64, -1, 1 << 40];
        let field = array_of(20, &ints.map(|i| i.to_be_bytes().to_vec()));
        let copy = copy_of(&[vec![Some(field.clone())]]);
        let mut at = Cursor::new(&copy);
        at.header().unwrap();
        assert!(at.row(1).unwrap());
        let elements = at.elements(Some(8)).unwrap();
        assert_eq!(elements.int8().collect::<Vec<_>>(), ints);
        assert!(!at.row(1).unwrap(), "the copy ends after its one row");
        assert!(elements_of(array_of(25, &[]), None).unwrap().is_empty());
        let names = [b"red".to_vec(), b"straight_up".to_vec()];
        assert_eq!(elements_of(array_of(25, &names), None).unwrap(), names);
        // An element of another size, a NULL flag, two dimensions, a cut-short array.
        assert!(elements_of(field.clone(), Some(4)).is_err());
        let mut with_nulls = field.clone();
        with_nulls[7] = 1;
        assert!(elements_of(with_nulls, Some(8))
            .unwrap_err()
            .to_string()
            .contains("NULL"));
        let mut two = field.clone();
        two[3] = 2;
        assert!(elements_of(two, Some(8)).is_err());
        assert!(elements_of(field[..field.len() - 1].to_vec(), Some(8)).is_err());
    }

    #[test]
    fn a_copy_cut_short_or_of_other_columns_does_not_read() {
        let copy = copy_of(&[vec![Some(vec![1]), None]]);
        let mut at = Cursor::new(&copy);
        at.header().unwrap();
        assert!(at.row(3).unwrap_err().to_string().contains("2 columns"));
        assert!(Cursor::new(b"PGCOPY\n\xff\r\n\x01").header().is_err());
        let mut at = Cursor::new(&copy[..copy.len() - 2]);
        at.header().unwrap();
        assert!(at.row(2).unwrap());
        assert!(at.bool().unwrap());
        assert!(at.nullable_int8().unwrap().is_none());
        assert!(at.row(2).is_err(), "cut short");
    }
}
