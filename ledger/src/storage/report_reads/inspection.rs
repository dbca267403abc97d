//! The inspection export's reads: entries by index, the rounds of a period and their verdicts,
//! a page at a time for the large files. (Registry events: `storage::registry_log`.)

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use crate::storage::columns::index_within;
use crate::storage::schema::{adjudications, ledger_entries};
use crate::LedgerError;

/// The first index received at or after `t`, if any entry was.
pub fn first_index_received_at(
    conn: &mut PgConnection,
    t: DateTime<Utc>,
) -> Result<Option<i64>, LedgerError> {
    Ok(ledger_entries::table
        .filter(ledger_entries::received_at.ge(t))
        .select(diesel::dsl::min(ledger_entries::idx))
        .first(conn)?)
}

/// Up to `limit` entries (their bytes as stored) from index `from` on, before `end`, in order.
pub fn entries_from(
    conn: &mut PgConnection,
    from: i64,
    end: i64,
    limit: i64,
) -> Result<Vec<Vec<u8>>, LedgerError> {
    Ok(ledger_entries::table
        .filter(index_within(ledger_entries::idx, from, end))
        .order(ledger_entries::idx.asc())
        .limit(limit)
        .select(ledger_entries::entry)
        .load(conn)?)
}

/// The entries at `indexes` that the ledger holds, in index order.
pub fn entries_at(conn: &mut PgConnection, indexes: &[i64]) -> Result<Vec<Vec<u8>>, LedgerError> {
    Ok(ledger_entries::table
        .filter(ledger_entries::idx.eq_any(indexes))
        .order(ledger_entries::idx.asc())
        .select(ledger_entries::entry)
        .load(conn)?)
}

/// The rounds played in `[starts_at, ends_at)` whose entries are at `from_index` or later and
/// before `end_index`, by index: rounds received after the period they were played in.
pub fn rounds_played_in_received_from(
    conn: &mut PgConnection,
    (starts_at, ends_at): (DateTime<Utc>, DateTime<Utc>),
    from_index: i64,
    end_index: i64,
) -> Result<Vec<i64>, LedgerError> {
    Ok(adjudications::table
        .filter(adjudications::played_at.ge(starts_at))
        .filter(adjudications::played_at.lt(ends_at))
        .filter(index_within(
            adjudications::ledger_index,
            from_index,
            end_index,
        ))
        .order(adjudications::ledger_index.asc())
        .select(adjudications::ledger_index)
        .load(conn)?)
}

/// A round's verdict as stored, and the plan it names.
#[derive(Debug, Clone, PartialEq, Eq, Queryable)]
pub struct StoredVerdict {
    pub ledger_index: i64,
    pub plan_id: String,
    /// JSON, as ingest wrote it.
    pub verdict: String,
}

/// Up to `limit` verdicts from index `from` on, before `end`, in order.
pub fn verdicts_from(
    conn: &mut PgConnection,
    from: i64,
    end: i64,
    limit: i64,
) -> Result<Vec<StoredVerdict>, LedgerError> {
    Ok(adjudications::table
        .filter(index_within(adjudications::ledger_index, from, end))
        .order(adjudications::ledger_index.asc())
        .limit(limit)
        .select((
            adjudications::ledger_index,
            adjudications::plan_id,
            adjudications::verdict,
        ))
        .load(conn)?)
}
