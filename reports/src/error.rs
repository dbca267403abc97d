use thiserror::Error;

#[derive(Debug, Error)]
pub enum ReportError {
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("amounts overflow while summing {0}")]
    Overflow(&'static str),
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    #[error("writing CSV: {0}")]
    Csv(String),
    #[error("writing XLSX: {0}")]
    Xlsx(String),
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
}

/// `a + b`, or the overflow of summing `what`.
pub(crate) fn checked_sum(a: i64, b: i64, what: &'static str) -> Result<i64, ReportError> {
    a.checked_add(b).ok_or(ReportError::Overflow(what))
}
