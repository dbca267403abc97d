//! A benchmark's database, filled once and kept between runs: the one `DATABASE_URL` gives, or a
//! database of its own in dozor's cluster under the data directory.

use std::collections::BTreeMap;

use diesel::PgConnection;
use ledger::storage::append::AppendOutcome;
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

/// Fails the benchmark unless every record of a fill was appended: one not in the ledger would
/// leave it measuring less than it claims. Names those that were not, by outcome, in one line.
pub(crate) fn all_appended(outcomes: &[AppendOutcome]) -> anyhow::Result<()> {
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    for outcome in outcomes {
        let why = match outcome {
            AppendOutcome::Appended(_) => continue,
            AppendOutcome::AlreadyRecorded(_) => "already_recorded".to_owned(),
            AppendOutcome::SeqNoConflict { .. } => "seq_no_conflict".to_owned(),
            AppendOutcome::RoundIdConflict { .. } => "round_id_conflict".to_owned(),
            AppendOutcome::KeyNotValid { reason, .. } => format!("key_not_valid ({reason})"),
            AppendOutcome::LimitsChanged(_) => "limits_changed".to_owned(),
        };
        *refused.entry(why).or_default() += 1;
    }
    let total: usize = refused.values().sum();
    crate::outcome::expect_result(total == 0, || {
        let parts: Vec<String> = refused
            .iter()
            .map(|(why, n)| format!("{why} ×{n}"))
            .collect();
        format!("{total} record(s) not appended: {}", parts.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_with_a_record_not_appended_is_named_in_one_line() {
        assert!(all_appended(&[]).is_ok());
        let refused = AppendOutcome::KeyNotValid {
            key_id: "k".into(),
            reason: "unknown key".into(),
        };
        let e = all_appended(&[refused.clone(), refused])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("2 record(s) not appended: key_not_valid (unknown key) ×2")
        );
    }
}
