//! Which PostgreSQL to use: `DATABASE_URL`, or a cluster dozor manages under the data directory.

use std::path::Path;

use ledger::storage::cluster::LocalCluster;
use ledger::storage::{connect, migrate};
use ledger::LedgerError;

pub const MANAGED_DATABASE: &str = "dozor";

pub struct Database {
    pub url: String,
    /// The managed cluster, when there is no `DATABASE_URL`.
    pub cluster: Option<LocalCluster>,
}

impl Database {
    /// Opens the database and applies pending migrations.
    pub fn open(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        let database = Self::start(url, data_dir)?;
        let mut conn = connect(&database.url)?;
        for version in migrate(&mut conn)? {
            tracing::info!(%version, "applied migration");
        }
        // A ledger written before the Merkle tree existed gets its nodes now.
        let added = ledger::storage::tree::catch_up(&mut conn).map_err(|e| match e {
            ledger::storage::tree::TreeError::Storage(s) => s,
            other => LedgerError::Corrupt(other.to_string()),
        })?;
        if added > 0 {
            tracing::info!(added, "built missing Merkle tree nodes");
        }
        Ok(database)
    }

    /// Opens the database for a reader that must change nothing (`verify`): no migrations, no
    /// tree building; the schema must be current.
    pub fn open_for_reading(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        let database = Self::start(url, data_dir)?;
        ledger::storage::require_migrated(&mut connect(&database.url)?)?;
        Ok(database)
    }

    fn start(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        Ok(match url {
            Some(url) => Database { url, cluster: None },
            None => {
                let cluster = LocalCluster::open(&data_dir.join("pg"))?;
                cluster.create_database(MANAGED_DATABASE)?;
                Database {
                    url: cluster.url(MANAGED_DATABASE),
                    cluster: Some(cluster),
                }
            }
        })
    }

    /// Stops the managed cluster if this process started it.
    pub fn close(mut self) -> Result<(), LedgerError> {
        match self.cluster.as_mut() {
            Some(cluster) => cluster.stop(),
            None => Ok(()),
        }
    }
}
