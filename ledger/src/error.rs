use dozor_log::merkle::ProofError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum LedgerError {
    /// A record, key or signature that does not read (`dozor_log`'s own errors), or a key the
    /// ledger refuses ([`LedgerError::key`]).
    #[error(transparent)]
    Log(dozor_log::LogError),
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("database connection: {0}")]
    Connection(String),
    #[error("migrations: {0}")]
    Migration(String),
    /// Who asked may not record this event (by the ledger's own account of keys and roles).
    #[error("{why}")]
    ActorNotAllowed { actor: String, why: String },
    #[error("local PostgreSQL cluster: {0}")]
    Cluster(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A stored hash is not 32 bytes: the row was written outside dozor.
    #[error("ledger is corrupt: {what} is not 32 bytes")]
    BadHash { what: &'static str },
    /// A stored value no dozor writes (a role, a resolution state, a key).
    #[error("ledger is corrupt: {owner} has the invalid {what} `{value}`")]
    BadStoredValue {
        what: &'static str,
        owner: String,
        value: String,
    },
    /// An entry stored under one record type holds another, or no registry event at all.
    #[error("ledger is corrupt: entry {index} is stored as {stored} but is {found}")]
    MislabelledEntry {
        index: u64,
        stored: &'static str,
        found: String,
    },
    /// A number beyond what the ledger's columns hold.
    #[error("{what} {value} is out of the ledger's range")]
    OutOfRange { what: &'static str, value: i128 },
    /// A verdict that does not serialize, or a stored one that is not JSON.
    #[error("verdict{}: {source}", .index.map(|i| format!(" of entry {i}")).unwrap_or_default())]
    VerdictJson {
        index: Option<u64>,
        #[source]
        source: serde_json::Error,
    },
    #[error("the bundled plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error("signing a checkpoint: {0}")]
    Note(#[from] dozor_log::checkpoint::NoteError),
    #[error(transparent)]
    Worker(#[from] dozor_log::parallel::WorkerPanicked),
    /// The stored Merkle tree cannot give a root or proof (nodes missing or added).
    #[error("Merkle tree: {0}")]
    Tree(Box<TreeError>),
    /// Fewer entries, or other ones, than a signed checkpoint covers: refuse to append on top.
    #[error("the ledger was rolled back: {0}; dozor will not append to it (run `dozor verify`; a restore from a backup is accepted, on the record, with `dozor log accept-rollback`)")]
    RolledBack(String),
    /// A range that cannot be archived as asked: nothing was changed.
    #[error("archiving: {0}")]
    Archive(String),
    /// The checkpoint witness file cannot be read or written, or holds something unsigned.
    #[error("checkpoint witness: {0}")]
    Witness(String),
    /// A tile the tree of that size does not have: beyond it, or of another width.
    #[error("tile {path} is not in the tree of {size} entries: {why}")]
    TileNotFound {
        path: String,
        size: u64,
        why: String,
    },
    /// An entry bundle (or its verdicts) holding an archived entry: its bytes left the database.
    #[error("tile {path} holds archived entries: entries below {minimum_index} are no longer served (see the archived ranges)")]
    TilePruned { path: String, minimum_index: u64 },
    /// What the tile format cannot hold (an entry over 65 535 bytes).
    #[error("tile format: {0}")]
    TileFormat(#[from] dozor_log::tiles::TileError),
}

/// Why the stored Merkle tree gives no root or proof.
#[derive(Debug, Error)]
pub enum TreeError {
    #[error(transparent)]
    Proof(#[from] ProofError),
    #[error(transparent)]
    Storage(#[from] LedgerError),
    #[error("the Merkle tree holds {stored} interior nodes, but {size} entries make {expected}: nodes were removed or added outside dozor; run `dozor verify` to name them")]
    Incomplete {
        stored: u64,
        size: u64,
        expected: u64,
    },
}

/// `From<diesel::result::Error>` for an error type whose variant `Storage` holds a
/// [`LedgerError`] (the database's errors are the ledger's): written once, as a trait cannot be
/// implemented for every such type at once.
macro_rules! storage_error_from_diesel {
    ($error:ident) => {
        impl From<diesel::result::Error> for $error {
            fn from(e: diesel::result::Error) -> Self {
                $error::Storage($crate::error::LedgerError::Database(e))
            }
        }
    };
}
pub(crate) use storage_error_from_diesel;

storage_error_from_diesel!(TreeError);

impl LedgerError {
    /// A bad key: one the ledger's own account of keys refuses.
    pub fn key(message: String) -> Self {
        LedgerError::Log(dozor_log::LogError::Key(message))
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        LedgerError::Io {
            context: context.into(),
            source,
        }
    }
}

impl From<TreeError> for LedgerError {
    fn from(e: TreeError) -> Self {
        match e {
            TreeError::Storage(s) => s,
            other => LedgerError::Tree(Box::new(other)),
        }
    }
}

impl From<dozor_log::LogError> for LedgerError {
    fn from(e: dozor_log::LogError) -> Self {
        match e {
            dozor_log::LogError::Io { context, source } => LedgerError::Io { context, source },
            other => LedgerError::Log(other),
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
