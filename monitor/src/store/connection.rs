//! Where the monitor's state is: `DATABASE_URL`, or its own PostgreSQL cluster under its data
//! directory (the cluster `dozor serve` runs for itself, `ledger::storage::cluster`), and the
//! monitor's migrations.

use std::path::Path;

use diesel::{Connection as _, PgConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness as _};
use ledger::storage::cluster::LocalCluster;

use crate::error::MonitorError;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// The database of the monitor's own cluster.
pub const MANAGED_DATABASE: &str = "dozor_monitor";

pub fn connect(url: &str) -> Result<PgConnection, MonitorError> {
    PgConnection::establish(url).map_err(|e| MonitorError::Connection(e.to_string()))
}

/// Applies the monitor's pending migrations; the versions applied.
pub fn migrate(conn: &mut PgConnection) -> Result<Vec<String>, MonitorError> {
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map_err(|e| MonitorError::Migration(e.to_string()))?;
    Ok(applied.iter().map(ToString::to_string).collect())
}

#[derive(diesel::QueryableByName)]
struct Found {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    found: bool,
}

/// Refuses a casino's ledger database: the monitor keeps its state apart from anything it
/// follows (a `DATABASE_URL` meant for `dozor serve` must not become the monitor's).
fn refuse_a_ledger(conn: &mut PgConnection) -> Result<(), MonitorError> {
    use diesel::RunQueryDsl as _;
    let ledger: Found =
        diesel::sql_query("SELECT to_regclass('ledger_entries') IS NOT NULL AS found")
            .get_result(conn)?;
    if ledger.found {
        return Err(MonitorError::Connection(
            "the database holds a casino's ledger (ledger_entries): the monitor's state needs a database of its own".into(),
        ));
    }
    Ok(())
}

/// The monitor's database, migrated; its cluster (when it runs one) stops when this is dropped
/// or closed.
pub struct StateDatabase {
    pub url: String,
    cluster: Option<LocalCluster>,
}

impl StateDatabase {
    /// `url` if given, else the cluster under `data_dir/pg` (created on first use).
    pub fn open(url: Option<String>, data_dir: &Path) -> Result<StateDatabase, MonitorError> {
        let database = match url {
            Some(url) => StateDatabase { url, cluster: None },
            None => {
                let cluster = LocalCluster::open(&data_dir.join("pg"))?;
                let database = StateDatabase {
                    url: cluster.url(MANAGED_DATABASE),
                    cluster: Some(cluster),
                };
                if let Some(cluster) = &database.cluster {
                    cluster.create_database(MANAGED_DATABASE)?;
                }
                database
            }
        };
        let mut conn = connect(&database.url)?;
        refuse_a_ledger(&mut conn)?;
        for version in migrate(&mut conn)? {
            tracing::info!(%version, "applied a migration of the monitor's state");
        }
        Ok(database)
    }

    /// Stops the monitor's own cluster if this process started it.
    pub fn close(mut self) -> Result<(), MonitorError> {
        match self.cluster.as_mut() {
            Some(cluster) => Ok(cluster.stop()?),
            None => Ok(()),
        }
    }
}

impl Drop for StateDatabase {
    fn drop(&mut self) {
        if let Some(cluster) = self.cluster.as_mut() {
            if let Err(e) = cluster.stop() {
                tracing::warn!("stopping the monitor's PostgreSQL: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use diesel::RunQueryDsl as _;

    #[test]
    fn the_state_is_migrated_once_and_a_casino_s_ledger_is_refused() {
        let url = super::super::test_db::empty_database();
        let state = StateDatabase::open(Some(url.clone()), Path::new("unused")).unwrap();
        assert!(migrate(&mut connect(&state.url).unwrap())
            .unwrap()
            .is_empty());
        // Evidence is append-only.
        let mut conn = connect(&url).unwrap();
        diesel::sql_query("INSERT INTO monitor_casinos (casino) VALUES ('c')")
            .execute(&mut conn)
            .unwrap();
        diesel::sql_query(
            "INSERT INTO monitor_alerts (casino, kind, key, raised_at, message, evidence) \
             VALUES ('c', 'k', 'k', now(), 'm', '{}')",
        )
        .execute(&mut conn)
        .unwrap();
        let refused = diesel::sql_query("DELETE FROM monitor_alerts")
            .execute(&mut conn)
            .unwrap_err();
        assert!(refused.to_string().contains("append-only"), "{refused}");
        // A database holding a ledger is not the monitor's.
        let ledger = super::super::test_db::empty_database();
        diesel::sql_query("CREATE TABLE ledger_entries (idx BIGINT)")
            .execute(&mut connect(&ledger).unwrap())
            .unwrap();
        let refused = StateDatabase::open(Some(ledger), Path::new("unused"))
            .err()
            .unwrap();
        assert!(
            refused.to_string().contains("holds a casino's ledger"),
            "{refused}"
        );
    }
}
