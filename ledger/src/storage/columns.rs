//! Values as the ledger's columns hold them: hashes of 32 bytes, indexes and numbers that fit a
//! `bigint`; and a row inserted as it is kept.

use diesel::dsl::{And, GtEq, Lt};
use diesel::prelude::*;
use diesel::query_builder::InsertStatement;
use diesel::query_dsl::methods::ExecuteDsl;
use diesel::sql_types::BigInt;

use crate::error::LedgerError;

/// `bytes` as a hash, or the corruption of a row written outside dozor.
pub(crate) fn hash32(bytes: &[u8], what: &'static str) -> Result<[u8; 32], LedgerError> {
    bytes.try_into().map_err(|_| LedgerError::BadHash { what })
}

/// `n` as a `bigint` column holds it.
pub(crate) fn to_i64(what: &'static str, n: u64) -> Result<i64, LedgerError> {
    i64::try_from(n).map_err(|_| LedgerError::OutOfRange {
        what,
        value: i128::from(n),
    })
}

/// Inserts `row` into `table` and gives it back: what a write returns of the row it stored.
pub(crate) fn insert_row<T, R>(conn: &mut PgConnection, table: T, row: R) -> QueryResult<R>
where
    T: Table,
    R: RowOf<T>,
{
    row.insert_into(conn, table)?;
    Ok(row)
}

/// A row that can be inserted into `T` by reference.
pub(crate) trait RowOf<T> {
    fn insert_into(&self, conn: &mut PgConnection, table: T) -> QueryResult<usize>;
}

impl<T, R> RowOf<T> for R
where
    T: Table,
    for<'a> &'a R: Insertable<T>,
    for<'a> InsertStatement<T, <&'a R as Insertable<T>>::Values>: ExecuteDsl<PgConnection>,
{
    fn insert_into(&self, conn: &mut PgConnection, table: T) -> QueryResult<usize> {
        diesel::insert_into(table).values(self).execute(conn)
    }
}

/// `index` (a ledger index column) in `[from, end)`: the rows of a range of entries.
pub(crate) fn index_within<C>(index: C, from: i64, end: i64) -> And<GtEq<C, i64>, Lt<C, i64>>
where
    C: Expression<SqlType = BigInt> + ExpressionMethods + Copy,
{
    index.ge(from).and(index.lt(end))
}
