use thiserror::Error;

#[derive(Debug, Error)]
pub enum LedgerError {
    #[error("not canonicalizable JSON: {0}")]
    Canonical(String),
    #[error("bad signature: {0}")]
    Signature(String),
    #[error("bad key: {0}")]
    Key(String),
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("database connection: {0}")]
    Connection(String),
    #[error("migrations: {0}")]
    Migration(String),
    #[error("local PostgreSQL cluster: {0}")]
    Cluster(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("ledger is corrupt: {0}")]
    Corrupt(String),
    /// The stored Merkle tree cannot give a root or proof (nodes missing or added).
    #[error("Merkle tree: {0}")]
    Tree(Box<crate::storage::tree::TreeError>),
    /// Fewer entries, or other ones, than a signed checkpoint covers: refuse to append on top.
    #[error("the ledger was rolled back: {0}; dozor will not append to it (run `dozor verify`)")]
    RolledBack(String),
    /// The checkpoint witness file cannot be read or written, or holds something unsigned.
    #[error("checkpoint witness: {0}")]
    Witness(String),
}

impl LedgerError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        LedgerError::Io {
            context: context.into(),
            source,
        }
    }
}

impl From<crate::storage::tree::TreeError> for LedgerError {
    fn from(e: crate::storage::tree::TreeError) -> Self {
        match e {
            crate::storage::tree::TreeError::Storage(s) => s,
            other => LedgerError::Tree(Box::new(other)),
        }
    }
}

impl From<diesel::ConnectionError> for LedgerError {
    fn from(e: diesel::ConnectionError) -> Self {
        LedgerError::Connection(e.to_string())
    }
}

impl From<diesel::r2d2::PoolError> for LedgerError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        LedgerError::Connection(e.to_string())
    }
}
