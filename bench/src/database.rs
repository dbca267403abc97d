//! A benchmark's database, filled once and kept between runs: the one `DATABASE_URL` gives, or a
//! database of its own in dozor's cluster under the data directory.

use diesel::PgConnection;
use ledger::storage::cluster::LocalCluster;
use ledger::storage::database::DatabaseChoice as Global;

pub(crate) struct KeptDatabase {
    pub url: String,
    name: &'static str,
    cluster: Option<LocalCluster>,
}

impl KeptDatabase {
    /// Opens (creating it in dozor's cluster if need be) and migrates the database `name`.
    pub fn open(
        global: &Global,
        name: &'static str,
    ) -> anyhow::Result<(KeptDatabase, PgConnection)> {
        let (url, cluster) = match &global.database_url {
            Some(url) => (url.clone(), None),
            None => {
                let cluster = LocalCluster::open(&global.data_dir.join("pg"))?;
                cluster.create_database(name)?;
                (cluster.url(name), Some(cluster))
            }
        };
        let mut conn = ledger::storage::connect(&url)?;
        ledger::storage::migrate(&mut conn)?;
        Ok((KeptDatabase { url, name, cluster }, conn))
    }

    /// An empty database for a new fill: dozor's own is dropped and created again; a given one
    /// must be empty already (`holds` says what it holds instead).
    pub fn start_over(
        &self,
        conn: PgConnection,
        empty: bool,
        holds: impl FnOnce() -> String,
    ) -> anyhow::Result<PgConnection> {
        let Some(cluster) = &self.cluster else {
            anyhow::ensure!(empty, "{}", holds());
            return Ok(conn);
        };
        drop(conn);
        cluster.drop_database(self.name)?;
        cluster.create_database(self.name)?;
        let mut conn = ledger::storage::connect(&self.url)?;
        ledger::storage::migrate(&mut conn)?;
        Ok(conn)
    }

    /// Opens the database `name` holding `rounds` verdicts: kept from an earlier run, or emptied
    /// and filled now by `fill` (which returns the entries it appended), once.
    pub fn open_filled(
        global: &Global,
        name: &'static str,
        rounds: u64,
        describe: &str,
        fill: impl FnOnce(&mut PgConnection) -> anyhow::Result<u64>,
    ) -> anyhow::Result<(KeptDatabase, PgConnection)> {
        let (database, mut conn) = KeptDatabase::open(global, name)?;
        let stored: i64 = {
            use diesel::prelude::*;
            ledger::storage::schema::adjudications::table
                .count()
                .get_result(&mut conn)?
        };
        if stored as u64 != rounds {
            conn = database.start_over(conn, stored == 0, || {
                format!("the database holds {stored} rounds, not {rounds}")
            })?;
            eprintln!(
                "filling the ledger with {rounds} rounds {describe} (once; kept for later runs)"
            );
            let started = std::time::Instant::now();
            let appended = fill(&mut conn)?;
            eprintln!(
                "{appended} entries in {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
        // The planner's statistics as autovacuum keeps them in a running database: a table
        // filled a minute ago may not have been analysed yet.
        {
            use diesel::RunQueryDsl as _;
            diesel::sql_query("ANALYZE").execute(&mut conn)?;
        }
        Ok((database, conn))
    }

    /// Stops dozor's cluster if it was started here.
    pub fn stop(mut self) -> anyhow::Result<()> {
        if let Some(c) = self.cluster.as_mut() {
            c.stop()?;
        }
        Ok(())
    }
}
