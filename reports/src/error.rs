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
