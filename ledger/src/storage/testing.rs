//! Real PostgreSQL for tests: one throwaway cluster per test process, one fresh, migrated
//! database per test.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use super::cluster::LocalCluster;
use crate::error::LedgerError;

static CLUSTER: OnceLock<Result<LocalCluster, String>> = OnceLock::new();
static NEXT_DATABASE: AtomicU32 = AtomicU32::new(0);

/// A new database with all migrations applied, on this process's throwaway cluster; its URL.
pub fn fresh_database() -> Result<String, LedgerError> {
    let cluster = CLUSTER
        .get_or_init(|| LocalCluster::temporary().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| LedgerError::Cluster(e.clone()))?;
    let name = format!(
        "dozor_test_{}",
        NEXT_DATABASE.fetch_add(1, Ordering::SeqCst)
    );
    cluster.create_database(&name)?;
    let url = cluster.url(&name);
    let mut conn = super::connection::connect(&url)?;
    super::connection::migrate(&mut conn)?;
    Ok(url)
}

/// As a superuser past the append-only triggers, replaces `from` with `to` in the bytes of
/// ledger entry `index`: what verification must catch.
pub fn rewrite_entry(
    conn: &mut diesel::PgConnection,
    index: u64,
    from: &str,
    to: &str,
) -> Result<(), LedgerError> {
    use diesel::RunQueryDsl as _;
    diesel::sql_query("SET session_replication_role = replica").execute(conn)?;
    diesel::sql_query(
        "UPDATE ledger_entries SET entry = convert_to(replace(convert_from(entry, 'UTF8'), $1, $2), 'UTF8') WHERE idx = $3",
    )
    .bind::<diesel::sql_types::Text, _>(from)
    .bind::<diesel::sql_types::Text, _>(to)
    .bind::<diesel::sql_types::BigInt, _>(i64::try_from(index).unwrap_or(i64::MAX))
    .execute(conn)?;
    Ok(())
}
