//! The ledger's growing tables are partitioned by ledger index in ranges of a power of two
//! entries (2^20 unless set otherwise while the ledger was empty; migration 000024): each range
//! a whole subtree of the Merkle tree. PostgreSQL refuses an entry for which no range exists,
//! so the writer asks for the next range while the current one still has [`AHEAD`] entries to
//! go (or, for ranges smaller than that, as soon as it enters one).

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable};

use crate::error::LedgerError;

/// Entries per range unless set otherwise: 2^20.
pub const DEFAULT_SPAN: u64 = 1 << 20;

/// How early the next range is asked for: this many entries before the current one is full.
pub const AHEAD: u64 = 1 << 16;

#[derive(QueryableByName)]
struct Span {
    #[diesel(sql_type = BigInt)]
    span: i64,
}

#[derive(QueryableByName)]
struct Made {
    #[diesel(sql_type = Nullable<BigInt>)]
    ready_below: Option<i64>,
}

fn out_of_range(what: &'static str, value: u64) -> LedgerError {
    LedgerError::OutOfRange {
        what,
        value: i128::from(value),
    }
}

/// Entries per range of this ledger.
pub fn span(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    let row: Span = diesel::sql_query("SELECT dozor_partition_span() AS span").get_result(conn)?;
    u64::try_from(row.span).map_err(|_| LedgerError::OutOfRange {
        what: "partition span",
        value: i128::from(row.span),
    })
}

/// Sets the entries per range of a ledger that holds no entry yet (a power of two from 16 to
/// 2^30); refused once it holds one.
pub fn set_span(conn: &mut PgConnection, span: u64) -> Result<(), LedgerError> {
    let span = i64::try_from(span).map_err(|_| out_of_range("partition span", span))?;
    diesel::sql_query("SELECT dozor_set_partition_span($1)")
        .bind::<BigInt, _>(span)
        .execute(conn)?;
    Ok(())
}

/// Makes sure the ranges of `span` entries hold `count` entries from `next_index` on. Near
/// the end of a range it asks for the next one, giving up for now if a long read holds the
/// table (the next batch asks again); when the entries themselves need the next range it waits
/// for it.
pub fn ensure_room(
    conn: &mut PgConnection,
    span: u64,
    next_index: u64,
    count: u64,
) -> Result<(), LedgerError> {
    let span = span.max(1);
    // The last index the entries need, and the last one that should have a range by now.
    let last_needed = next_index.saturating_add(count.max(1) - 1);
    let last_wanted = last_needed.saturating_add(AHEAD.min(span));
    let range = next_index / span;
    if last_wanted / span == range {
        return Ok(());
    }
    let needed_now = last_needed / span > range;
    let function = if needed_now {
        "dozor_ensure_partitions"
    } else {
        "dozor_try_partitions"
    };
    let through =
        i64::try_from(last_wanted).map_err(|_| out_of_range("ledger index", last_wanted))?;
    let made: Made = diesel::sql_query(format!("SELECT {function}($1) AS ready_below"))
        .bind::<BigInt, _>(through)
        .get_result(conn)?;
    if made.ready_below.is_none() {
        tracing::info!(
            next_index,
            "the ledger's next range is not made yet (a long read holds the table); asking again"
        );
    }
    Ok(())
}
