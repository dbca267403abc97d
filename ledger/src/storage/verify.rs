//! `dozor verify`: re-walks the whole ledger in the database and names the first broken index.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;
use serde::Serialize;

use super::derived_check::UnkeptRoundId;
use super::issued::{self, IssuedCheckpoint, PendingCheckpoints};
use super::published_reports::check_all_kept;
use super::schema::merkle_nodes;
use super::verify_archived::walk_archived;
use super::verify_pages::{self, Context, Start};
use super::{deliveries, packages, registry_log, registry_rows, rollbacks};
use crate::error::LedgerError;
use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_history::RegistryHistory;
use dozor_log::GENESIS_PREV_HASH;

// Where callers outside the ledger have always found them.
pub use super::verify_failure::VerifyFailure;
pub use super::verify_pages::Paging;

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
pub(super) fn registry_history(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Result<(RegistryHistory, HashSet<u64>), VerifyFailure>, LedgerError> {
    let mut history = RegistryHistory::default();
    Ok(registry_log::follow(conn, &mut history, operators)?
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
    witnessed: Vec<IssuedCheckpoint>,
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
                Some(first) => verify_pages::read_only(conn, first as u64, Paging::default().page),
                None => Ok(0),
            }
        })
}

/// Why a walk stopped early: the database failed, or the ledger did (how far the walk got,
/// and the first failure).
enum Halt {
    Database(LedgerError),
    Failed {
        checked: u64,
        prev_hash: Hash,
        failure: VerifyFailure,
    },
}

impl From<LedgerError> for Halt {
    fn from(e: LedgerError) -> Self {
        Halt::Database(e)
    }
}

impl From<diesel::result::Error> for Halt {
    fn from(e: diesel::result::Error) -> Self {
        Halt::Database(e.into())
    }
}

/// The failure `failure`, met after `checked` entries whose last hashed to `prev_hash`.
fn failed<T>(checked: u64, prev_hash: Hash, failure: VerifyFailure) -> Result<T, Halt> {
    Err(Halt::Failed {
        checked,
        prev_hash,
        failure,
    })
}

/// The report of a walk that stopped at its first failure.
fn failed_report(checked: u64, prev_hash: Hash, failure: VerifyFailure) -> VerifyReport {
    VerifyReport {
        entries_checked: checked,
        registry_events: 0,
        api_keys: 0,
        resolutions: 0,
        resolved_findings_readjudicated: 0,
        rounds_readjudicated: 0,
        rounds_sharing_an_id: 0,
        head_hash: (checked > 0).then(|| hex::encode(prev_hash)),
        accepted_rollbacks: Vec::new(),
        archived_ranges: Vec::new(),
        failure: Some(failure),
    }
}

/// Walks the ledger in the caller's read-only transaction: its report, with the first failure
/// if there is one.
fn walk(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    witnessed: Vec<IssuedCheckpoint>,
    paging: Paging,
    progress: impl FnMut(u64),
) -> Result<VerifyReport, LedgerError> {
    match walk_stages(conn, operators, signatures, witnessed, paging, progress) {
        Ok(report) => Ok(report),
        Err(Halt::Database(e)) => Err(e),
        Err(Halt::Failed {
            checked,
            prev_hash,
            failure,
        }) => Ok(failed_report(checked, prev_hash, failure)),
    }
}

/// The walk's stages in order: the registry, the signed checkpoints, the archived ranges, the
/// entries, the tree, and the tables the ledger's events give.
fn walk_stages(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    witnessed: Vec<IssuedCheckpoint>,
    paging: Paging,
    mut progress: impl FnMut(u64),
) -> Result<VerifyReport, Halt> {
    let (history, registry_events) = match registry_history(conn, operators)? {
        Ok(found) => found,
        Err(failure) => return failed(0, GENESIS_PREV_HASH, failure),
    };
    let signers = Signers {
        operators,
        tables: &history,
    };
    let plans = rules::PlanBook::builtin().map_err(LedgerError::from)?;
    let mut pending = pending_checkpoints(conn, operators, &history, witnessed)?;
    let start = walk_archived_ranges(conn, &history, &mut pending, &mut progress)?;
    let context = Context {
        signers,
        registry_events: &registry_events,
        history: &history,
        plans: &plans,
        signatures,
    };
    let restored_roots = verify_pages::restored_roots(&history);
    let walked = verify_pages::walk_entries(
        conn,
        start,
        verify_pages::Reading::unthrottled(paging),
        context,
        &mut pending,
        &restored_roots,
        progress,
    )?;
    let (expected, prev_hash) = (walked.entries, walked.prev_hash);
    let rounds_sharing_an_id = rounds_sharing_an_id(conn, walked.unkept_ids, walked.failure)?
        .map_err(|failure| Halt::Failed {
            checked: failure.index,
            prev_hash,
            failure,
        })?;
    let rounds_readjudicated = walked.rounds_readjudicated;
    let at_end = |failure| Halt::Failed {
        checked: expected,
        prev_hash,
        failure,
    };
    pending.finish(expected).map_err(at_end)?;
    tree_complete(conn, expected)?.map_err(at_end)?;
    let readjudicated = compare_tables(conn, &history, expected, signers)?.map_err(at_end)?;
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

/// Every checkpoint ever signed, to be met on the way with its root: those the database holds
/// and the `witnessed` ones, but for those lost in a restore the operator accepted (a recorded
/// event), which bind no more.
fn pending_checkpoints(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    history: &RegistryHistory,
    witnessed: Vec<IssuedCheckpoint>,
) -> Result<PendingCheckpoints, Halt> {
    let witnessed = rollbacks::binding(witnessed, history.accepted_rollbacks());
    let mut pending = match issued::load(conn, operators, history)? {
        Ok(mut issued) => {
            issued.extend(witnessed);
            PendingCheckpoints::new(issued)
        }
        Err(f) => return failed(0, GENESIS_PREV_HASH, f),
    };
    pending
        .reached(&Frontier::default())
        .or_else(|f| failed(0, GENESIS_PREV_HASH, f))?;
    Ok(pending)
}

/// Walks the archived ranges, if any; where the walk of the stored entries starts.
fn walk_archived_ranges(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    pending: &mut PendingCheckpoints,
    progress: &mut impl FnMut(u64),
) -> Result<Start, Halt> {
    let mut frontier = Frontier::default();
    let (index, prev_hash) = if history.archived_below() > 0 {
        match walk_archived(conn, history, &mut frontier, pending)? {
            Ok(last) => {
                progress(history.archived_below());
                (history.archived_below(), last)
            }
            Err(f) => return failed(frontier.size(), GENESIS_PREV_HASH, f),
        }
    } else {
        (0, GENESIS_PREV_HASH)
    };
    Ok(Start {
        index,
        prev_hash,
        frontier,
        until: None,
    })
}

/// How many rounds share their id with an earlier round of their table; a round whose id the
/// stored rows do not keep and that shares it with none is the first failure, unless `failure`
/// came before it.
pub(super) fn rounds_sharing_an_id(
    conn: &mut PgConnection,
    unkept_ids: Vec<(u64, UnkeptRoundId)>,
    failure: Option<VerifyFailure>,
) -> Result<Result<u64, VerifyFailure>, LedgerError> {
    let mut sharing = 0;
    for (index, unkept) in unkept_ids {
        if failure.as_ref().is_some_and(|f| f.index < index) {
            break;
        }
        if unkept.held_before(conn, index)? {
            sharing += 1;
        } else {
            return Ok(Err(VerifyFailure {
                index,
                reason: unkept.problem(),
            }));
        }
    }
    Ok(failure.map_or(Ok(sharing), Err))
}

/// Whether the stored tree holds as many interior nodes as `size` entries make.
fn tree_complete(
    conn: &mut PgConnection,
    size: u64,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    let stored_nodes: i64 = merkle_nodes::table.count().get_result(conn)?;
    let expected_nodes = size - u64::from(size.count_ones());
    if stored_nodes as u64 != expected_nodes {
        return Ok(Err(VerifyFailure {
            index: size,
            reason: format!(
                "the tree holds {stored_nodes} interior nodes; {size} entries make {expected_nodes}"
            ),
        }));
    }
    Ok(Ok(()))
}

/// The access tables say what the ledger says, and every resolved finding is a finding (found
/// again by re-adjudicating its round): how many resolved findings were.
pub(super) fn compare_tables(
    conn: &mut PgConnection,
    history: &RegistryHistory,
    size: u64,
    signers: Signers<'_>,
) -> Result<Result<u64, VerifyFailure>, LedgerError> {
    let compared = registry_rows::compare_tables_and_keys(conn, history, size)?
        .and(registry_rows::compare_api_keys(conn, history)?)
        .and(registry_rows::compare_resolutions(conn, history)?)
        .and(compare_kept_with_seals(conn)?);
    if let Err(f) = compared {
        return Ok(Err(f));
    }
    registry_rows::check_resolved_findings(conn, history, signers)
}

/// Every package and every delivered file kept is the one its seal names: the entry at
/// `sealed_at` is a `report_published` event of the file's name whose SHA-256 is the kept
/// file's. The packages first, then the deliveries; the first failure is the answer.
fn compare_kept_with_seals(
    conn: &mut PgConnection,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    let issued = packages::all(conn)?;
    let packages_held = check_all_kept(conn, issued.iter().map(packages::IssuedPackage::kept))?;
    let delivered = deliveries::all(conn)?;
    let deliveries_held =
        check_all_kept(conn, delivered.iter().map(deliveries::SealedDelivery::kept))?;
    Ok(packages_held.and(deliveries_held))
}
