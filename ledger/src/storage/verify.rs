//! `dozor verify`: re-walks the whole ledger in the database and names the first broken index.

use std::collections::HashMap;

use diesel::prelude::*;
use serde::Serialize;

use super::models::LedgerRow;
use super::registry::{all_keys, KeyValidity};
use super::schema::{ledger_entries, merkle_nodes};
use super::tree::fetch;
use crate::entry::verify_entry;
use crate::entry::{format_time, leaf_hash, record_hash};
use crate::merkle::Frontier;
use crate::{LedgerError, GENESIS_PREV_HASH};

const PAGE: i64 = 5_000;

#[derive(Debug, Clone, Serialize)]
pub struct VerifyFailure {
    pub index: u64,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// Entries checked (all of them when there is no failure).
    pub entries_checked: u64,
    /// Hash of the last entry checked, hex.
    pub head_hash: Option<String>,
    pub failure: Option<VerifyFailure>,
}

/// Checks one stored row against everything that must hold for it.
fn check_row(
    row: &LedgerRow,
    expected_index: u64,
    prev_hash: &[u8; 32],
    keys: &HashMap<String, KeyValidity>,
) -> Result<[u8; 32], String> {
    if row.idx as u64 != expected_index {
        return Err(format!(
            "entry {expected_index} is missing (next stored index is {})",
            row.idx
        ));
    }
    let computed = leaf_hash(&row.entry);
    if row.leaf_hash.as_slice() != computed {
        return Err("stored entry hash does not match the entry bytes".into());
    }
    if row.prev_hash.as_slice() != prev_hash {
        return Err("prev_hash does not match the hash of the previous entry".into());
    }
    let entry = verify_entry(&row.entry, expected_index, |id| {
        keys.get(id).map(KeyValidity::window)
    })?;
    if entry.prev_hash != hex::encode(prev_hash) {
        return Err("prev_hash inside the entry does not match the previous entry".into());
    }
    if entry.received_at != row.received_at {
        return Err(format!(
            "received_at column {} differs from the entry's {}",
            format_time(row.received_at),
            format_time(entry.received_at)
        ));
    }
    if entry.header.table_id != row.table_id || entry.header.seq_no != row.seq_no as u64 {
        return Err("table_id/seq_no columns differ from the signed record".into());
    }
    if row.key_id != entry.envelope.key_id
        || row.record_hash.as_slice() != record_hash(&entry.canonical_record)
    {
        return Err("key_id/record_hash columns differ from the signed record".into());
    }
    Ok(computed)
}

/// Walks every entry in index order. `progress(checked)` is called after each page.
pub fn verify_ledger(
    conn: &mut PgConnection,
    mut progress: impl FnMut(u64),
) -> Result<VerifyReport, LedgerError> {
    let keys: HashMap<String, KeyValidity> = all_keys(conn)?
        .into_iter()
        .map(|k| (k.key_id.clone(), k))
        .collect();
    let mut prev_hash = GENESIS_PREV_HASH;
    let mut expected: u64 = 0;
    let mut frontier = Frontier::default();
    let fail = |expected: u64, prev_hash: [u8; 32], index: u64, reason: String| VerifyReport {
        entries_checked: expected,
        head_hash: (expected > 0).then(|| hex::encode(prev_hash)),
        failure: Some(VerifyFailure { index, reason }),
    };
    loop {
        let rows: Vec<LedgerRow> = ledger_entries::table
            .filter(ledger_entries::idx.ge(expected as i64))
            .order(ledger_entries::idx.asc())
            .limit(PAGE)
            .select(LedgerRow::as_select())
            .load(conn)?;
        if rows.is_empty() {
            break;
        }
        let mut created = Vec::new();
        for row in &rows {
            match check_row(row, expected, &prev_hash, &keys) {
                Ok(hash) => {
                    prev_hash = hash;
                    created.extend(frontier.push(hash).into_iter().map(|node| (expected, node)));
                }
                Err(reason) => return Ok(fail(expected, prev_hash, expected, reason)),
            }
            expected += 1;
        }
        // Every interior node of the stored tree must be the one the entries give.
        let wanted: Vec<(u32, u64)> = created.iter().map(|(_, (l, i, _))| (*l, *i)).collect();
        let stored = fetch(conn, &wanted)?;
        for (last_leaf, (level, index, hash)) in &created {
            if stored.get(&(*level, *index)) != Some(hash) {
                let first_leaf = index << level;
                return Ok(fail(
                    expected,
                    prev_hash,
                    first_leaf,
                    format!(
                        "Merkle node (level {level}, index {index}) over entries {first_leaf}..={last_leaf} is missing or does not match the entries"
                    ),
                ));
            }
        }
        progress(expected);
    }
    let stored_nodes: i64 = merkle_nodes::table.count().get_result(conn)?;
    let expected_nodes = expected - u64::from(expected.count_ones());
    if stored_nodes as u64 != expected_nodes {
        return Ok(fail(
            expected,
            prev_hash,
            expected,
            format!("the tree holds {stored_nodes} interior nodes; {expected} entries make {expected_nodes}"),
        ));
    }
    Ok(VerifyReport {
        entries_checked: expected,
        head_hash: (expected > 0).then(|| hex::encode(prev_hash)),
        failure: None,
    })
}
