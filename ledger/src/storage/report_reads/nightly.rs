//! What the nightly job reads to know which nights are due.

use chrono::{DateTime, Utc};
use diesel::dsl::min;
use diesel::prelude::*;

use crate::storage::schema::adjudications;
use crate::LedgerError;

/// When the earliest round in the ledger was played (rounds may be played before they are
/// received, so the first night may precede the ledger's first entry).
pub fn first_played_at(conn: &mut PgConnection) -> Result<Option<DateTime<Utc>>, LedgerError> {
    Ok(adjudications::table
        .select(min(adjudications::played_at))
        .first(conn)?)
}
