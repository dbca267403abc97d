//! The runs of seq_nos followed per table (`crate::record_runs`), as kept: loaded once when a
//! casino's following starts, and the runs a bundle changed written back with it.
//!
//! seq_no and ledger index are u64 in memory and BIGINT here. A table's seq_no is at most 2^53-1
//! (`rules::MAX_SEQ_NO`) and an index counts entries, so both fit; a value above i64::MAX is
//! refused, never saturated (two seq_nos saturated to one would hide a replay).

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};

use super::schema::monitor_record_runs as m;
use crate::error::MonitorError;
use crate::record_runs::{RecordRuns, Run, RunChange};

/// Rows of one INSERT at most: six parameters a row, within PostgreSQL's 65 535.
const ROWS_PER_INSERT: usize = 8192;

/// The casino's runs as kept; a negative value or overlapping runs are a corrupt state.
pub fn load(conn: &mut PgConnection, casino: &str) -> Result<RecordRuns, MonitorError> {
    let rows: Vec<(String, i64, i64, i64, i64)> = m::table
        .filter(m::casino.eq(casino))
        .select((
            m::table_id,
            m::first_seq,
            m::last_seq,
            m::first_index,
            m::last_index,
        ))
        .load(conn)?;
    let unsigned = |table_id: &str, what: &str, value: i64| {
        u64::try_from(value).map_err(|_| {
            MonitorError::corrupt(casino, format!("table {table_id}: a negative {what}"))
        })
    };
    let runs = rows
        .into_iter()
        .map(|(table_id, first_seq, last_seq, first_index, last_index)| {
            let run = Run {
                first_seq: unsigned(&table_id, "seq_no", first_seq)?,
                last_seq: unsigned(&table_id, "seq_no", last_seq)?,
                first_index: unsigned(&table_id, "index", first_index)?,
                last_index: unsigned(&table_id, "index", last_index)?,
            };
            Ok((table_id, run))
        })
        .collect::<Result<Vec<_>, MonitorError>>()?;
    RecordRuns::from_runs(runs).map_err(|why| MonitorError::corrupt(casino, why))
}

/// A run as its row's values.
type RunRow = (String, i64, i64, i64, i64);

/// Writes the changes back: each table's runs from its `from_seq` on replaced by the change's
/// runs. One DELETE for all the tables and one INSERT for all their runs (in chunks of
/// `ROWS_PER_INSERT`), in one transaction (a savepoint within the caller's); a value too large
/// to keep refuses all of it before anything is written.
pub fn save(
    conn: &mut PgConnection,
    casino: &str,
    changes: &[RunChange],
) -> Result<(), MonitorError> {
    if changes.is_empty() {
        return Ok(());
    }
    let mut tables = Vec::with_capacity(changes.len());
    let mut froms = Vec::with_capacity(changes.len());
    let mut rows: Vec<RunRow> = Vec::new();
    for change in changes {
        let stored = |what: &str, value: u64| stored(casino, &change.table_id, what, value);
        tables.push(change.table_id.as_str());
        froms.push(stored("seq_no", change.from_seq)?);
        for run in &change.runs {
            rows.push((
                change.table_id.clone(),
                stored("seq_no", run.first_seq)?,
                stored("seq_no", run.last_seq)?,
                stored("index", run.first_index)?,
                stored("index", run.last_index)?,
            ));
        }
    }
    conn.transaction(|conn| {
        diesel::sql_query(
            "DELETE FROM monitor_record_runs r \
             USING unnest($2::text[], $3::bigint[]) AS c(table_id, from_seq) \
             WHERE r.casino = $1 AND r.table_id = c.table_id AND r.first_seq >= c.from_seq",
        )
        .bind::<Text, _>(casino)
        .bind::<Array<Text>, _>(&tables)
        .bind::<Array<BigInt>, _>(&froms)
        .execute(conn)?;
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            let values: Vec<_> = chunk
                .iter()
                .map(|(table_id, first_seq, last_seq, first_index, last_index)| {
                    (
                        m::casino.eq(casino),
                        m::table_id.eq(table_id),
                        m::first_seq.eq(first_seq),
                        m::last_seq.eq(last_seq),
                        m::first_index.eq(first_index),
                        m::last_index.eq(last_index),
                    )
                })
                .collect();
            diesel::insert_into(m::table)
                .values(&values)
                .execute(conn)?;
        }
        Ok(())
    })
}

/// `value` as kept (BIGINT); refused above i64::MAX.
fn stored(casino: &str, table_id: &str, what: &str, value: u64) -> Result<i64, MonitorError> {
    i64::try_from(value).map_err(|_| MonitorError::Casino {
        casino: casino.to_owned(),
        message: format!(
            "table {table_id}: {what} {value} is beyond what the monitor's state keeps ({})",
            i64::MAX
        ),
    })
}

#[cfg(test)]
mod tests;
