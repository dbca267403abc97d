//! Connecting to the ledger's PostgreSQL: single connections, pools and the schema's migrations.

use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};
use diesel::Connection as _;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness as _};

use crate::error::LedgerError;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations");

/// The connection every storage function takes.
pub use diesel::PgConnection;

pub type PgPool = Pool<ConnectionManager<PgConnection>>;
pub type PooledPg = PooledConnection<ConnectionManager<PgConnection>>;

pub fn connect(url: &str) -> Result<PgConnection, LedgerError> {
    Ok(PgConnection::establish(url)?)
}

/// How long a request waits for a database connection before it is told the database is
/// unavailable: a PostgreSQL that is down fails requests quickly instead of holding them.
pub const CONNECTION_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

pub fn pool(url: &str, size: u32) -> Result<PgPool, LedgerError> {
    Pool::builder()
        .max_size(size)
        .connection_timeout(CONNECTION_WAIT)
        .build(ConnectionManager::<PgConnection>::new(url))
        .map_err(|e| LedgerError::Connection(e.to_string()))
}

/// How long a read waits for a replica's connection before it reads from the primary instead.
pub const REPLICA_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// A pool on a streaming replica for reads. Built without connecting: a replica that is down at
/// start (or later) makes reads go to the primary, never stops the server.
pub fn replica_pool(url: &str, size: u32) -> Result<PgPool, LedgerError> {
    // No test query on checkout: it has no timeout of its own, and a read that fails on the
    // replica is read again on the primary anyway.
    Ok(Pool::builder()
        .max_size(size)
        .min_idle(Some(0))
        .test_on_check_out(false)
        .connection_timeout(REPLICA_WAIT)
        .build_unchecked(ConnectionManager::<PgConnection>::new(url)))
}

/// Applies pending migrations; returns the versions applied.
/// Fails unless every migration is applied (for readers, which must not change the schema).
pub fn require_migrated(conn: &mut PgConnection) -> Result<(), LedgerError> {
    let pending = conn
        .has_pending_migration(MIGRATIONS)
        .map_err(|e| LedgerError::Migration(e.to_string()))?;
    if pending {
        return Err(LedgerError::Migration(
            "the database's schema is older than this dozor: start `dozor serve` once to migrate it".into(),
        ));
    }
    Ok(())
}

pub fn migrate(conn: &mut PgConnection) -> Result<Vec<String>, LedgerError> {
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map_err(|e| LedgerError::Migration(e.to_string()))?;
    Ok(applied.iter().map(ToString::to_string).collect())
}
