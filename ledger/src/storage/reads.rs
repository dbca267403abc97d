//! Reading the ledger back: entries, sequence gaps, significant events.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use serde::Serialize;

use super::columns::hash32;
use super::models::{LedgerRow, SignificantEventRow};
use super::schema::{ledger_entries, significant_events, table_records};
use crate::error::LedgerError;

/// Where callers outside the ledger have always found it.
pub use super::position::size;

pub fn entry(conn: &mut PgConnection, index: u64) -> Result<Option<LedgerRow>, LedgerError> {
    let Ok(index) = i64::try_from(index) else {
        return Ok(None);
    };
    let kept = ledger_entries::table
        .find(index)
        .select(LedgerRow::as_select())
        .first(conn)
        .optional()?;
    if kept.is_some() {
        return Ok(kept);
    }
    // A registry event of an archived range is kept whole.
    use super::schema::archived_registry_entries;
    Ok(archived_registry_entries::table
        .find(index)
        .select(archived_registry_entries::all_columns)
        .first(conn)
        .optional()?)
}

/// Whether the connected PostgreSQL takes writes: a standby (in recovery) does not, and a
/// writer must never take one for the ledger's head.
pub fn takes_writes(conn: &mut PgConnection) -> Result<bool, LedgerError> {
    let in_recovery: bool = diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(
        "pg_is_in_recovery()",
    ))
    .get_result(conn)?;
    Ok(!in_recovery)
}

/// The leaf hash of entry `index`, if the ledger has it.
pub fn leaf_hash_at(conn: &mut PgConnection, index: u64) -> Result<Option<[u8; 32]>, LedgerError> {
    let Ok(index) = i64::try_from(index) else {
        return Ok(None);
    };
    let mut hash: Option<Vec<u8>> = ledger_entries::table
        .find(index)
        .select(ledger_entries::leaf_hash)
        .first(conn)
        .optional()?;
    if hash.is_none() {
        // An archived entry's hash stays.
        use super::schema::archived_entries;
        hash = archived_entries::table
            .find(index)
            .select(archived_entries::leaf_hash)
            .first(conn)
            .optional()?;
    }
    hash.map(|h| hash32(&h, "leaf hash")).transpose()
}

/// When the ledger's first entry was received: the day the ledger starts.
pub fn first_received_at(conn: &mut PgConnection) -> Result<Option<DateTime<Utc>>, LedgerError> {
    Ok(ledger_entries::table
        .find(0i64)
        .select(ledger_entries::received_at)
        .first(conn)
        .optional()?)
}

/// A run of sequence numbers missing between two records of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, QueryableByName)]
pub struct SeqGap {
    #[diesel(sql_type = Text)]
    pub table_id: String,
    /// The last sequence number received before the gap.
    #[diesel(sql_type = BigInt)]
    pub after_seq_no: i64,
    /// The first sequence number received after the gap.
    #[diesel(sql_type = BigInt)]
    pub before_seq_no: i64,
    /// How many sequence numbers are missing.
    #[diesel(sql_type = BigInt)]
    pub missing: i64,
}

/// Gaps in each table's `seq_no` sequence (optionally one table's).
pub fn sequence_gaps(
    conn: &mut PgConnection,
    cut: super::read_cut::LedgerCut,
    table_id: Option<&str>,
) -> Result<Vec<SeqGap>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT table_id, seq_no AS after_seq_no, next_seq AS before_seq_no, \
                next_seq - seq_no - 1 AS missing \
         FROM (SELECT table_id, seq_no, \
                      lead(seq_no) OVER (PARTITION BY table_id ORDER BY seq_no) AS next_seq \
               FROM table_records \
               WHERE ($1::text IS NULL OR table_id = $1) AND ledger_index < $2) s \
         WHERE next_seq > seq_no + 1 \
         ORDER BY table_id, seq_no",
    )
    .bind::<Nullable<Text>, _>(table_id)
    .bind::<diesel::sql_types::BigInt, _>(cut.bound())
    .load(conn)?)
}

/// What [`significant_events`] selects; every part optional.
#[derive(Debug, Clone, Copy, Default)]
pub struct EventFilter<'a> {
    pub table_id: Option<&'a str>,
    /// e.g. `seq_no_conflict`, `late_record`
    pub kind: Option<&'a str>,
    pub since: Option<DateTime<Utc>>,
}

pub fn significant_events(
    conn: &mut PgConnection,
    filter: EventFilter<'_>,
    limit: i64,
) -> Result<Vec<SignificantEventRow>, LedgerError> {
    let EventFilter {
        table_id,
        kind,
        since,
    } = filter;
    let mut query = significant_events::table
        .select(SignificantEventRow::as_select())
        .order(significant_events::id.asc())
        .limit(limit)
        .into_boxed();
    if let Some(t) = table_id {
        query = query.filter(significant_events::table_id.eq(t.to_owned()));
    }
    if let Some(s) = since {
        query = query.filter(significant_events::occurred_at.ge(s));
    }
    if let Some(k) = kind {
        query = query.filter(significant_events::kind.eq(k.to_owned()));
    }
    Ok(query.load(conn)?)
}

/// The stored verdict of the round at `index`, if it is a round.
pub fn verdict(
    conn: &mut PgConnection,
    index: u64,
) -> Result<Option<serde_json::Value>, LedgerError> {
    use super::schema::adjudications;
    let Ok(index) = i64::try_from(index) else {
        return Ok(None);
    };
    let text: Option<String> = adjudications::table
        .find(index)
        .select(adjudications::verdict)
        .first(conn)
        .optional()?;
    text.map(|t| {
        serde_json::from_str(&t).map_err(|source| LedgerError::VerdictJson {
            index: u64::try_from(index).ok(),
            source,
        })
    })
    .transpose()
}

/// Highest `seq_no` recorded for a table.
pub fn last_seq_no(conn: &mut PgConnection, table_id: &str) -> Result<Option<i64>, LedgerError> {
    Ok(table_records::table
        .filter(table_records::table_id.eq(table_id))
        .select(diesel::dsl::max(table_records::seq_no))
        .first(conn)?)
}

/// What an operator's monitoring reads of the ledger: its size, when the last checkpoint was
/// signed and how many findings of each kind it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerFigures {
    pub size: u64,
    pub last_checkpoint_at: Option<DateTime<Utc>>,
    pub findings_by_kind: Vec<(String, i64)>,
}

pub fn figures(conn: &mut PgConnection) -> Result<LedgerFigures, LedgerError> {
    use super::schema::findings;
    let last_checkpoint_at = super::checkpoints::latest(conn)?.map(|c| c.created_at);
    let findings_by_kind = findings::table
        .group_by(findings::kind)
        .select((findings::kind, diesel::dsl::count_star()))
        .order(findings::kind)
        .load::<(String, i64)>(conn)?;
    Ok(LedgerFigures {
        size: size(conn)?,
        last_checkpoint_at,
        findings_by_kind,
    })
}

#[derive(QueryableByName)]
struct AppliedMigration {
    #[diesel(sql_type = Text)]
    version: String,
}

/// Whether the database answers and every migration of this dozor is applied: what readiness
/// requires. Only reads (the server's login may not create diesel's bookkeeping table, which
/// `require_migrated` would try).
pub fn ready(conn: &mut PgConnection) -> Result<(), LedgerError> {
    let applied: std::collections::HashSet<String> =
        diesel::sql_query("SELECT version FROM __diesel_schema_migrations")
            .load::<AppliedMigration>(conn)
            .map_err(|e| match e {
                diesel::result::Error::DatabaseError(..) => {
                    LedgerError::Migration(format!("cannot read the applied migrations: {e}"))
                }
                other => other.into(),
            })?
            .into_iter()
            .map(|m| m.version)
            .collect();
    let known = diesel::migration::MigrationSource::<diesel::pg::Pg>::migrations(
        &super::connection::MIGRATIONS,
    )
    .map_err(|e| LedgerError::Migration(e.to_string()))?;
    let missing: Vec<String> = known
        .iter()
        .map(|m| m.name().version().to_string())
        .filter(|v| !applied.contains(v))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(LedgerError::Migration(format!(
            "{} migration(s) not applied: {}",
            missing.len(),
            missing.join(", ")
        )))
    }
}

/// The entry of `table_id`'s record numbered `seq_no`, if the ledger holds it.
pub fn entry_of_record(
    conn: &mut PgConnection,
    table_id: &str,
    seq_no: u64,
) -> Result<Option<LedgerRow>, LedgerError> {
    let Ok(seq_no) = i64::try_from(seq_no) else {
        return Ok(None);
    };
    Ok(table_records::table
        .inner_join(ledger_entries::table.on(ledger_entries::idx.eq(table_records::ledger_index)))
        .filter(table_records::table_id.eq(table_id))
        .filter(table_records::seq_no.eq(seq_no))
        .select(LedgerRow::as_select())
        .first(conn)
        .optional()?)
}

/// The entry of `table_id`'s round with the id `round_id`, if the ledger holds it.
pub fn entry_of_round_id(
    conn: &mut PgConnection,
    table_id: &str,
    round_id: &str,
) -> Result<Option<LedgerRow>, LedgerError> {
    use super::schema::round_ids;
    Ok(round_ids::table
        .inner_join(ledger_entries::table.on(ledger_entries::idx.eq(round_ids::ledger_index)))
        .filter(round_ids::table_id.eq(table_id))
        .filter(round_ids::round_id.eq(round_id))
        .select(LedgerRow::as_select())
        .first(conn)
        .optional()?)
}

/// A table's last record as the ledger holds it: its number, the hash of its canonical bytes
/// and the time it says it happened (`played_at`, or `at` for an operation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRecord {
    pub seq_no: i64,
    pub record_hash: Vec<u8>,
    pub at: Option<DateTime<Utc>>,
}

/// The record with `table_id`'s highest `seq_no`, if it has any.
pub fn last_record(
    conn: &mut PgConnection,
    table_id: &str,
) -> Result<Option<LastRecord>, LedgerError> {
    let Some(seq_no) = last_seq_no(conn, table_id)? else {
        return Ok(None);
    };
    let Some(row) = entry_of_record(conn, table_id, u64::try_from(seq_no).unwrap_or(0))? else {
        return Ok(None);
    };
    let entry: serde_json::Value = serde_json::from_slice(&row.entry).unwrap_or_default();
    let record = &entry["envelope"]["record"];
    let at = ["played_at", "at"]
        .iter()
        .find_map(|field| record[field].as_str())
        .and_then(|text| DateTime::parse_from_rfc3339(text).ok())
        .map(|t| t.with_timezone(&Utc));
    Ok(Some(LastRecord {
        seq_no,
        record_hash: row.record_hash,
        at,
    }))
}
