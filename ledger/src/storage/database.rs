//! Which PostgreSQL to use: `DATABASE_URL`, or a cluster dozor manages under the data directory.

use std::path::{Path, PathBuf};

use super::cluster::LocalCluster;
use std::collections::HashSet;

use diesel::prelude::*;

use super::connection::{connect, migrate, require_migrated, PgConnection, MIGRATIONS};
use crate::error::LedgerError;

pub const MANAGED_DATABASE: &str = "dozor";

#[derive(QueryableByName)]
struct Applied {
    #[diesel(sql_type = diesel::sql_types::Text)]
    version: String,
}

/// Fails unless every migration of this dozor is applied, also on a copy that takes no writes
/// (a standby, a restore still replaying), where diesel's own check would try to create its
/// table: there the applied versions are read.
fn require_current_schema(conn: &mut PgConnection) -> Result<(), LedgerError> {
    if super::reads::takes_writes(conn)? {
        return require_migrated(conn);
    }
    let applied: HashSet<String> =
        diesel::sql_query("SELECT version::text AS version FROM __diesel_schema_migrations")
            .load::<Applied>(conn)?
            .into_iter()
            .map(|a| a.version)
            .collect();
    let known = diesel::migration::MigrationSource::<diesel::pg::Pg>::migrations(&MIGRATIONS)
        .map_err(|e| LedgerError::Migration(e.to_string()))?;
    match known
        .iter()
        .find(|m| !applied.contains(&m.name().version().to_string()))
    {
        Some(missing) => Err(LedgerError::Migration(format!(
            "the database's schema is older than this dozor (it lacks {}), and it takes no writes \
             (a standby, or a restore not yet promoted): migrate its primary",
            missing.name()
        ))),
        None => Ok(()),
    }
}

#[derive(QueryableByName)]
struct Table {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

/// The tables, views and sequences of the connected database outside PostgreSQL's own
/// schemas, as `schema.name`, sorted: none in a database nothing has used yet. Only read: a
/// command that must not write to a database it was not made for asks this before anything
/// else (a ledger's schema shows as `public.__diesel_schema_migrations`,
/// `public.ledger_entries`…).
pub fn tables(conn: &mut PgConnection) -> Result<Vec<String>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT n.nspname || '.' || c.relname AS name \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') \
           AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
           AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%' \
         ORDER BY 1",
    )
    .load::<Table>(conn)?
    .into_iter()
    .map(|t| t.name)
    .collect())
}

/// Which PostgreSQL a command uses, as its command line gives it: `DATABASE_URL`, or else the
/// data directory under which dozor runs its own cluster.
#[derive(Debug, Clone)]
pub struct DatabaseChoice {
    pub database_url: Option<String>,
    pub data_dir: PathBuf,
}

impl DatabaseChoice {
    /// Opens the database this names, runs `work` on its owner's URL and closes it again
    /// whatever `work` answered (a failure to close first, then `work`'s own answer).
    pub fn with_database<T, E: From<LedgerError>>(
        &self,
        work: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, E> {
        let db = Database::open(self.database_url.clone(), &self.data_dir)?;
        let result = work(&db.url);
        db.close()?;
        result
    }
}

pub struct Database {
    /// The owner's URL: migrations, and the command-line tools that work on the database directly.
    pub url: String,
    /// What the server logs in as: a member of `dozor_writer` only on the managed cluster,
    /// `DATABASE_URL` otherwise (the operator gives the writer's credentials there).
    server_url: String,
    /// The managed cluster, when there is no `DATABASE_URL`.
    pub cluster: Option<LocalCluster>,
}

impl Database {
    /// Opens the database and applies pending migrations.
    pub fn open(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        Self::open_as_owner(url, None, data_dir)
    }

    /// As [`Database::open`], migrating over `owner_url` when given (`DATABASE_URL` is then the
    /// server's, with fewer privileges than migrations need).
    pub fn open_as_owner(
        url: Option<String>,
        owner_url: Option<String>,
        data_dir: &Path,
    ) -> Result<Database, LedgerError> {
        let mut database = Self::start(url, data_dir)?;
        match (owner_url, &database.cluster) {
            (Some(owner), None) => database.url = owner,
            (Some(_), Some(_)) => {
                tracing::warn!(
                    "no DATABASE_URL: the owner's URL is ignored, dozor's own cluster is used"
                );
            }
            (None, _) => {}
        }
        let mut conn = connect(&database.url)?;
        for version in migrate(&mut conn)? {
            tracing::info!(%version, "applied migration");
        }
        // A ledger written before the Merkle tree existed gets its nodes now.
        let added = super::tree::catch_up(&mut conn)?;
        if added > 0 {
            tracing::info!(added, "built missing Merkle tree nodes");
        }
        // The server's login role needs `dozor_writer`, which the migrations make.
        if let Some(cluster) = &database.cluster {
            database.server_url = cluster.create_server_role(MANAGED_DATABASE)?;
        }
        Ok(database)
    }

    /// Opens the database for a reader that must change nothing (`verify`): no migrations, no
    /// tree building; the schema must be current.
    pub fn open_for_reading(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        let database = Self::start(url, data_dir)?;
        require_current_schema(&mut connect(&database.url)?)?;
        Ok(database)
    }

    /// The URL the server's connections use: everything it does at run time must work with
    /// the privileges of `dozor_writer`. After [`Database::open`]; the owner's URL otherwise.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    fn start(url: Option<String>, data_dir: &Path) -> Result<Database, LedgerError> {
        Ok(match url {
            Some(url) => Database {
                server_url: url.clone(),
                url,
                cluster: None,
            },
            None => {
                let cluster = LocalCluster::open(&data_dir.join("pg"))?;
                let url = cluster.url(MANAGED_DATABASE);
                // Held before anything can fail, so that a failure stops the cluster (drop).
                let database = Database {
                    server_url: url.clone(),
                    url,
                    cluster: Some(cluster),
                };
                if let Some(cluster) = &database.cluster {
                    cluster.create_database(MANAGED_DATABASE)?;
                }
                database
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

impl Drop for Database {
    /// A command that fails after starting the cluster stops it too (after `close`, a no-op).
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.as_mut() {
            if let Err(e) = cluster.stop() {
                tracing::warn!("stopping the managed PostgreSQL: {e}");
            }
        }
    }
}
