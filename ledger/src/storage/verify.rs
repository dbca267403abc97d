//! `dozor verify`: re-walks the whole ledger in the database and names the first broken index.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;
use serde::Serialize;

use super::models::LedgerRow;
use super::schema::merkle_nodes;
use super::tree::fetch;
pub use super::verify_pages::Paging;
use crate::LedgerError;
use dozor_log::entry::leaf_hash;
use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::Frontier;
use dozor_log::registry_history::RegistryHistory;
use dozor_log::GENESIS_PREV_HASH;

/// Archived leaf hashes read at a time.
const PAGE: i64 = 8 * 1024;

#[derive(Debug, Clone, Serialize)]
pub struct VerifyFailure {
    pub index: u64,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// Entries checked (all of them when there is no failure).
    pub entries_checked: u64,
    /// Registry events (tables and their keys, API keys, resolutions of findings) among them.
    pub registry_events: u64,
    /// API keys ever created, and resolutions of findings, as the ledger gives them (their rows
    /// in the database agree).
    pub api_keys: u64,
    pub resolutions: u64,
    /// Resolved findings found again by re-adjudicating their rounds.
    pub resolved_findings_readjudicated: u64,
    /// Rounds re-adjudicated from their signed records, their stored verdicts and findings
    /// found equal (verdicts of another rules version are not re-derived).
    pub rounds_readjudicated: u64,
    /// Rounds whose `round_id` an earlier round of the same table already has: appended
    /// before round ids were kept unique (a reused id is refused since), counted twice in
    /// reports.
    pub rounds_sharing_an_id: u64,
    /// Hash of the last entry checked, hex.
    pub head_hash: Option<String>,
    /// Restores to an earlier point the operator accepted: what each lost.
    pub accepted_rollbacks: Vec<dozor_log::registry_history::RollbackNotice>,
    /// Ranges whose entries left the database as verified exports: their leaves, tree and
    /// registry events checked here, their entries in the exports they name.
    pub archived_ranges: Vec<dozor_log::registry_history::ArchivedRange>,
    pub failure: Option<VerifyFailure>,
}

/// The registry events, in ledger order: each signed by an operator key, each consistent with
/// those before it. Which key was valid for each record follows from them alone.
fn registry_history(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Result<(RegistryHistory, HashSet<u64>), VerifyFailure>, LedgerError> {
    let mut history = RegistryHistory::default();
    Ok(super::registry_log::follow(conn, &mut history, operators)?
        .map(|indexes| (history, indexes.into_iter().collect())))
}

/// Walks every entry in index order. `progress(checked)` is called after each page.
///
/// Everything is read in one read-only transaction: the verifier changes nothing, and sees one
/// snapshot of the ledger, its tree and its tables even while the server appends.
pub fn verify_ledger(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    progress: impl FnMut(u64),
) -> Result<VerifyReport, LedgerError> {
    verify_ledger_witnessed(conn, operators, signatures, Vec::new(), progress)
}

/// [`verify_ledger`], with checkpoints kept outside the database (a witness file) held to the
/// same rule as the stored ones: met on the way with their root, none larger than the ledger.
pub fn verify_ledger_witnessed(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    witnessed: Vec<super::issued::IssuedCheckpoint>,
    progress: impl FnMut(u64),
) -> Result<VerifyReport, LedgerError> {
    let paging = Paging::default();
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| walk(conn, operators, signatures, witnessed, paging, progress))
}

/// [`verify_ledger`], reading and checking the entries in pages and chunks of the sizes given
/// (the result is the same whatever the sizes).
pub fn verify_ledger_paged(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    paging: Paging,
) -> Result<VerifyReport, LedgerError> {
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| walk(conn, operators, signatures, Vec::new(), paging, |_| {}))
}

/// Reads every stored entry in the pages `verify` reads, with their derived rows and the tree's
/// nodes over them, in one read-only snapshot, and checks nothing: how long reading alone takes
/// (`dozor bench verify` sets it beside the whole check). The entries read.
pub fn read_entry_pages(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    use super::schema::ledger_entries;
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| {
            let first: Option<i64> = ledger_entries::table
                .select(diesel::dsl::min(ledger_entries::idx))
                .first(conn)?;
            match first {
                Some(first) => {
                    super::verify_pages::read_only(conn, first as u64, Paging::default().page)
                }
                None => Ok(0),
            }
        })
}

fn walk(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    witnessed: Vec<super::issued::IssuedCheckpoint>,
    paging: Paging,
    mut progress: impl FnMut(u64),
) -> Result<VerifyReport, LedgerError> {
    let mut prev_hash = GENESIS_PREV_HASH;
    let mut expected: u64 = 0;
    let mut frontier = Frontier::default();
    let fail = |expected: u64, prev_hash: [u8; 32], index: u64, reason: String| VerifyReport {
        entries_checked: expected,
        registry_events: 0,
        api_keys: 0,
        resolutions: 0,
        resolved_findings_readjudicated: 0,
        rounds_readjudicated: 0,
        rounds_sharing_an_id: 0,
        head_hash: (expected > 0).then(|| hex::encode(prev_hash)),
        accepted_rollbacks: Vec::new(),
        archived_ranges: Vec::new(),
        failure: Some(VerifyFailure { index, reason }),
    };
    let (history, registry_events) = match registry_history(conn, operators)? {
        Ok(found) => found,
        Err(failure) => return Ok(fail(0, prev_hash, failure.index, failure.reason)),
    };
    let signers = Signers {
        operators,
        tables: &history,
    };
    // An accepted rollback holds for the ledger it names: the tree of the entries before it.
    let restored_roots: HashMap<u64, dozor_log::merkle::Hash> = history
        .accepted_rollbacks()
        .iter()
        .map(|r| (r.index, r.restored_root))
        .collect();
    let plans = rules::PlanBook::builtin()?;
    // Every checkpoint ever signed must be met on the way, with its root; a witnessed one lost
    // in a restore the operator accepted (a recorded event) binds no more.
    let witnessed = super::rollbacks::binding(witnessed, history.accepted_rollbacks());
    let mut pending = match super::issued::load(conn, operators, &history)? {
        Ok(mut issued) => {
            issued.extend(witnessed);
            super::issued::PendingCheckpoints::new(issued)
        }
        Err(f) => return Ok(fail(0, prev_hash, f.index, f.reason)),
    };
    if let Err(f) = pending.reached(&frontier) {
        return Ok(fail(0, prev_hash, f.index, f.reason));
    }
    if history.archived_below() > 0 {
        match walk_archived(conn, &history, &mut frontier, &mut pending)? {
            Ok(last) => {
                prev_hash = last;
                expected = history.archived_below();
                progress(expected);
            }
            Err(f) => return Ok(fail(frontier.size(), prev_hash, f.index, f.reason)),
        }
    }
    let context = super::verify_pages::Context {
        signers,
        registry_events: &registry_events,
        history: &history,
        plans: &plans,
        signatures,
    };
    let start = super::verify_pages::Start {
        index: expected,
        prev_hash,
        frontier,
    };
    let walked = super::verify_pages::walk_entries(
        conn,
        start,
        paging,
        context,
        &mut pending,
        &restored_roots,
        progress,
    )?;
    let (expected, prev_hash) = (walked.entries, walked.prev_hash);
    // A round whose id its table's earlier round holds is counted; otherwise it is the first
    // failure, unless one came before it.
    let mut rounds_sharing_an_id = 0;
    let mut failure = walked.failure;
    for (index, unkept) in walked.unkept_ids {
        if failure.as_ref().is_some_and(|f| f.index < index) {
            break;
        }
        if unkept.held_before(conn, index)? {
            rounds_sharing_an_id += 1;
        } else {
            failure = Some(VerifyFailure {
                index,
                reason: unkept.problem(),
            });
            break;
        }
    }
    if let Some(f) = failure {
        return Ok(fail(f.index, prev_hash, f.index, f.reason));
    }
    let rounds_readjudicated = walked.rounds_readjudicated;
    if let Err(f) = pending.finish(expected) {
        return Ok(fail(expected, prev_hash, f.index, f.reason));
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
    // The access tables say what the ledger says, and every resolved finding is a finding.
    let compared = super::registry_rows::compare_tables_and_keys(conn, &history, expected)?
        .and(super::registry_rows::compare_api_keys(conn, &history)?)
        .and(super::registry_rows::compare_resolutions(conn, &history)?)
        .and(super::packages::compare_with_seals(conn)?)
        .and(super::deliveries::compare_with_seals(conn)?);
    if let Err(f) = compared {
        return Ok(fail(expected, prev_hash, f.index, f.reason));
    }
    let readjudicated =
        match super::registry_rows::check_resolved_findings(conn, &history, signers)? {
            Ok(n) => n,
            Err(f) => return Ok(fail(expected, prev_hash, f.index, f.reason)),
        };
    Ok(VerifyReport {
        entries_checked: expected,
        registry_events: registry_events.len() as u64,
        api_keys: history.api_keys().all().len() as u64,
        resolutions: history.resolutions().all().len() as u64,
        resolved_findings_readjudicated: readjudicated,
        rounds_readjudicated,
        rounds_sharing_an_id,
        head_hash: (expected > 0).then(|| hex::encode(prev_hash)),
        accepted_rollbacks: history
            .accepted_rollbacks()
            .iter()
            .map(|r| r.notice())
            .collect(),
        archived_ranges: history.archived_ranges().to_vec(),
        failure: None,
    })
}

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
fn walk_archived(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    frontier: &mut Frontier,
    pending: &mut super::issued::PendingCheckpoints,
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
