//! The registry as the ledger holds it: the operator-signed registry events, read in order and
//! applied to a [`RegistryHistory`]. Who may sign for a table comes from here, never from the
//! `table_keys` rows, which anyone with the writer role could add to.

use std::collections::HashMap;

use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::models::LedgerRow;
use super::schema::ledger_entries;
use super::verify::VerifyFailure;
use crate::entry_check::{check_entry, Signers, Subject};
use crate::registry_history::RegistryHistory;
use crate::LedgerError;

/// Applies to `history` the registry events after its last one, each checked, signed by one of
/// `operators` and consistent with those before it; their indexes. On the first that is not,
/// `history` keeps the events before it.
pub fn follow(
    conn: &mut PgConnection,
    history: &mut RegistryHistory,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Result<Vec<u64>, VerifyFailure>, LedgerError> {
    let after = history.last_event().map_or(-1, |i| i as i64);
    let rows: Vec<LedgerRow> = ledger_entries::table
        .filter(ledger_entries::seq_no.is_null())
        .filter(ledger_entries::idx.gt(after))
        .order(ledger_entries::idx.asc())
        .select(LedgerRow::as_select())
        .load(conn)?;
    let none = RegistryHistory::default();
    let mut indexes = Vec::with_capacity(rows.len());
    for row in &rows {
        let index = row.idx as u64;
        let failure = |reason: String| Ok(Err(VerifyFailure { index, reason }));
        let signers = Signers {
            operators,
            tables: &none,
        };
        let entry = match check_entry(&row.entry, index, signers) {
            Ok(entry) => entry,
            Err(reason) => return failure(reason),
        };
        let Subject::Registry(event) = &entry.subject else {
            return failure("stored without a sequence number but not a registry event".into());
        };
        if let Err(reason) = entry
            .verify_signature()
            .and_then(|()| history.apply(index, entry.received_at, event))
        {
            return failure(reason);
        }
        indexes.push(index);
    }
    Ok(Ok(indexes))
}
