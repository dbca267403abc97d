//! Values as the ledger's columns hold them: hashes of 32 bytes, indexes and numbers that fit a
//! `bigint`.

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
