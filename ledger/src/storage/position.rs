//! Where the ledger stands: the append lock that serialises every writer, the head (the last
//! entry) and where the next entry goes.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::BigInt;

use super::columns::hash32;
use super::schema::ledger_entries;
use crate::error::LedgerError;
use dozor_log::entry::to_micros;
use dozor_log::GENESIS_PREV_HASH;

/// Advisory lock serialising appends across every process that writes to this database.
const LEDGER_APPEND_LOCK: i64 = 0x646f_7a6f_725f_6c67;

/// The last entry of the ledger.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    pub index: u64,
    pub hash: [u8; 32],
    pub received_at: DateTime<Utc>,
}

/// The last entry's index, hash and time, if the ledger is not empty.
pub fn head(conn: &mut PgConnection) -> Result<Option<Head>, LedgerError> {
    let row: Option<(i64, Vec<u8>, DateTime<Utc>)> = ledger_entries::table
        .order(ledger_entries::idx.desc())
        .select((
            ledger_entries::idx,
            ledger_entries::leaf_hash,
            ledger_entries::received_at,
        ))
        .first(conn)
        .optional()?;
    row.map(|(i, h, t)| {
        Ok(Head {
            index: i as u64,
            hash: hash32(&h, "leaf hash")?,
            received_at: t,
        })
    })
    .transpose()
}

/// Number of entries in the ledger.
pub fn size(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    Ok(head(conn)?.map_or(0, |h| h.index + 1))
}

/// Where the next entry goes, read under the append lock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Position {
    pub next_index: u64,
    pub prev_hash: [u8; 32],
    /// Receipt time of entries appended now: never earlier than the last one, even if the clock
    /// goes backwards.
    pub received_at: DateTime<Utc>,
}

/// Takes the append lock (until the transaction ends) and reads the head.
pub(crate) fn lock_and_position(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
) -> Result<Position, LedgerError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
        .bind::<BigInt, _>(LEDGER_APPEND_LOCK)
        .execute(conn)?;
    let head = head(conn)?;
    Ok(match head {
        Some(h) => Position {
            next_index: h.index + 1,
            prev_hash: h.hash,
            received_at: to_micros(now.max(h.received_at)),
        },
        None => Position {
            next_index: 0,
            prev_hash: GENESIS_PREV_HASH,
            received_at: to_micros(now),
        },
    })
}
