//! The tests' databases: one throwaway cluster per test process, a fresh migrated database of
//! the monitor's per test.
#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use diesel::PgConnection;
use ledger::storage::cluster::LocalCluster;

static CLUSTER: OnceLock<LocalCluster> = OnceLock::new();
static NEXT: AtomicU32 = AtomicU32::new(0);

/// The URL of a fresh, empty database on this process's throwaway cluster.
pub fn empty_database() -> String {
    let cluster = CLUSTER.get_or_init(|| LocalCluster::temporary().unwrap());
    let name = format!("monitor_test_{}", NEXT.fetch_add(1, Ordering::SeqCst));
    cluster.create_database(&name).unwrap();
    cluster.url(&name)
}

/// A fresh, migrated database of the monitor's on this process's throwaway cluster.
pub fn database() -> PgConnection {
    let mut conn = super::connection::connect(&empty_database()).unwrap();
    super::connection::migrate(&mut conn).unwrap();
    conn
}
