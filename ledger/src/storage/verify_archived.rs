//! `dozor verify` over the archived ranges: what stays of their entries in the database (leaf
//! hashes and registry events) checked against the tree and the `range_archived` events.

use std::collections::HashMap;

use diesel::prelude::*;

use super::issued::PendingCheckpoints;
use super::models::LedgerRow;
use super::tree::fetch;
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use dozor_log::entry::leaf_hash;
use dozor_log::merkle::Frontier;
use dozor_log::registry_history::RegistryHistory;
use dozor_log::GENESIS_PREV_HASH;

/// Archived leaf hashes read at a time.
const PAGE: i64 = 8 * 1024;

/// An interior node completed by walking the leaves, `(level, index, hash)`, with the last
/// leaf that completed it.
type CreatedNode = (u64, (u32, u64, [u8; 32]));

/// The first of the interior nodes `created` by walking the leaves (each with the last leaf
/// that completed it) that the stored tree lacks or holds with another hash.
fn stored_node_differing(
    conn: &mut PgConnection,
    created: &[CreatedNode],
    over: &str,
    given_by: &str,
) -> Result<Option<VerifyFailure>, LedgerError> {
    let wanted: Vec<(u32, u64)> = created.iter().map(|(_, (l, i, _))| (*l, *i)).collect();
    let stored = fetch(conn, &wanted)?;
    Ok(created
        .iter()
        .find(|(_, (level, index, hash))| stored.get(&(*level, *index)) != Some(hash))
        .map(|(last_leaf, (level, index, _))| {
            let first_leaf = index << level;
            VerifyFailure {
                index: first_leaf,
                reason: format!(
                    "Merkle node (level {level}, index {index}) over {over} {first_leaf}..={last_leaf} is missing or does not match {given_by}"
                ),
            }
        }))
}

/// Walks what stays of the archived ranges, from index 0: each entry's leaf hash in order (the
/// tree's interior nodes over them must be the stored ones, and every signed checkpoint met on
/// the way must have its root), each range ending at the subtree roots and last leaf its
/// `range_archived` event names, and its registry events, kept whole, hashing to their leaves
/// and to the event's digest. The leaf hash of the last archived entry, or the first failure.
pub(super) fn walk_archived(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    frontier: &mut Frontier,
    pending: &mut PendingCheckpoints,
) -> Result<Result<[u8; 32], VerifyFailure>, LedgerError> {
    use super::schema::{archived_entries, archived_registry_entries};
    let fail = |index: u64, reason: String| Ok(Err(VerifyFailure { index, reason }));
    let mut last = GENESIS_PREV_HASH;
    for range in history.archived_ranges() {
        let mut next = range.from;
        while next < range.to {
            let rows: Vec<(i64, Vec<u8>)> = archived_entries::table
                .filter(archived_entries::idx.ge(next as i64))
                .filter(archived_entries::idx.lt(range.to as i64))
                .order(archived_entries::idx.asc())
                .limit(PAGE)
                .select((archived_entries::idx, archived_entries::leaf_hash))
                .load(conn)?;
            if rows.is_empty() {
                break;
            }
            let mut created = Vec::new();
            for (idx, hash) in rows {
                if idx as u64 != next {
                    return fail(
                        next,
                        format!("archived entry {next} is missing from what the archive keeps"),
                    );
                }
                let Ok(hash) = <[u8; 32]>::try_from(hash.as_slice()) else {
                    return fail(
                        next,
                        format!("archived entry {next}: a leaf hash is 32 bytes"),
                    );
                };
                created.extend(frontier.push(hash).into_iter().map(|node| (next, node)));
                last = hash;
                next += 1;
                if let Err(f) = pending.reached(frontier) {
                    return Ok(Err(f));
                }
            }
            if let Some(f) =
                stored_node_differing(conn, &created, "archived entries", "their leaves")?
            {
                return Ok(Err(f));
            }
        }
        if next != range.to {
            return fail(
                next,
                format!("archived entry {next} is missing from what the archive keeps"),
            );
        }
        if frontier.subtree_roots() != range.frontier || last != range.last_leaf_hash {
            return fail(
                range.index,
                format!(
                    "the range [{}, {}) archived at index {} names another tree than its kept leaves give",
                    range.from, range.to, range.index
                ),
            );
        }
        // Its registry events: each the entry its leaf says, together the event's digest.
        let events: Vec<LedgerRow> = archived_registry_entries::table
            .filter(archived_registry_entries::idx.ge(range.from as i64))
            .filter(archived_registry_entries::idx.lt(range.to as i64))
            .order(archived_registry_entries::idx.asc())
            .select(archived_registry_entries::all_columns)
            .load(conn)?;
        let leaves: HashMap<i64, Vec<u8>> = archived_entries::table
            .filter(archived_entries::idx.eq_any(events.iter().map(|e| e.idx)))
            .select((archived_entries::idx, archived_entries::leaf_hash))
            .load::<(i64, Vec<u8>)>(conn)?
            .into_iter()
            .collect();
        let mut digest = <sha2::Sha256 as sha2::Digest>::new();
        for event in &events {
            let hash = leaf_hash(&event.entry);
            if leaves.get(&event.idx).map(Vec::as_slice) != Some(hash.as_slice()) {
                return fail(
                    event.idx as u64,
                    format!(
                        "the archived registry event {} is not the entry the tree holds at its index",
                        event.idx
                    ),
                );
            }
            sha2::Digest::update(&mut digest, hash);
        }
        let digest: [u8; 32] = sha2::Digest::finalize(digest).into();
        if events.len() as u64 != range.registry_events || digest != range.registry_digest {
            return fail(
                range.index,
                format!(
                    "the range archived at index {} held {} registry events; {} are kept, or other ones",
                    range.index,
                    range.registry_events,
                    events.len()
                ),
            );
        }
    }
    Ok(Ok(last))
}
