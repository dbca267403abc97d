//! The monitor's errors: its configuration, its own database. What a casino's log gets wrong is
//! not an error of the monitor's but a finding about the log (`follow::Problem`).

#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    #[error("{file}: {message}")]
    Config { file: String, message: String },
    #[error("the monitor's database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("the monitor's database connection: {0}")]
    Connection(String),
    #[error("the monitor's migrations: {0}")]
    Migration(String),
    #[error(transparent)]
    Cluster(#[from] ledger::LedgerError),
    /// A stored value the monitor never writes: its database was changed by hand.
    #[error("the monitor's state of casino `{casino}` is corrupt: {what}")]
    Corrupt { casino: String, what: String },
    #[error("the monitor's metrics: {0}")]
    Metrics(String),
    #[error("casino `{casino}`: {message}")]
    Casino { casino: String, message: String },
}

impl MonitorError {
    pub fn config(file: impl Into<String>, message: impl Into<String>) -> MonitorError {
        MonitorError::Config {
            file: file.into(),
            message: message.into(),
        }
    }

    pub fn corrupt(casino: &str, what: impl Into<String>) -> MonitorError {
        MonitorError::Corrupt {
            casino: casino.to_owned(),
            what: what.into(),
        }
    }
}
