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
        let database = match url {
            Some(url) => Database { url, cluster: None },
            None => {
                let cluster = LocalCluster::open(&data_dir.join("pg"))?;
                cluster.create_database(MANAGED_DATABASE)?;
                Database {
                    url: cluster.url(MANAGED_DATABASE),
                    cluster: Some(cluster),
                }
            }
        };
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

    /// Stops the managed cluster if this process started it.
    pub fn close(mut self) -> Result<(), LedgerError> {
        match self.cluster.as_mut() {
            Some(cluster) => cluster.stop(),
            None => Ok(()),
        }
    }
}
