//! The ledger's database opened for one piece of a command's work, and closed after it.

use ledger::storage::database::{Database, DatabaseChoice};
use ledger::storage::{connect, PgConnection};

/// What `work` gives on a connection to the database. The database is closed after it whatever
/// it gave, so a failure of the work is the caller's to report once the database is closed.
pub fn with_database<T>(
    global: &DatabaseChoice,
    work: impl FnOnce(&mut PgConnection) -> T,
) -> anyhow::Result<T> {
    let db = Database::open(global.database_url.clone(), &global.data_dir)?;
    let mut conn = connect(&db.url)?;
    let given = work(&mut conn);
    drop(conn);
    db.close()?;
    Ok(given)
}
