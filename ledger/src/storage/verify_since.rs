//! `dozor verify --since-last`: the entries appended since the last passing check (its
//! verification mark), up to the latest signed checkpoint, checked as the full walk checks
//! them; the walk goes on from the mark's own subtree roots and last leaf hash, so nothing
//! stored for the range already verified is trusted, and nothing in it is read again either
//! (docs/VERIFY.md says what that leaves to the full walk).

use std::collections::HashMap;

use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;
use serde::Serialize;

use super::issued::{self, IssuedCheckpoint, PendingCheckpoints};
use super::rollbacks;
use super::verify::{compare_tables, registry_history, rounds_sharing_an_id};
use super::verify_failure::VerifyFailure;
use super::verify_pages::{self, Context, Paging, Start};
use crate::error::LedgerError;
use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_event::VerificationScope;
use dozor_log::registry_history::{RegistryHistory, RollbackNotice, VerificationMark};

/// The checks every walk makes of each entry it covers, by name (docs/VERIFY.md).
const ENTRY_CHECKS: [&str; 7] = [
    "entry_hashes",
    "links",
    "signatures",
    "columns",
    "readjudication",
    "derived_rows",
    "tree_nodes",
];

/// What a check of `scope` checks, by name, as its mark records them: each entry's checks,
/// then those past the entries.
pub fn checks_of(scope: VerificationScope) -> Vec<String> {
    let past: &[&str] = match scope {
        VerificationScope::Incremental => &[
            "checkpoints",
            "consistency",
            "registry_tables",
            "sealed_files",
        ],
        VerificationScope::Full => &[
            "tree_complete",
            "checkpoints",
            "registry",
            "registry_tables",
            "sealed_files",
        ],
    };
    ENTRY_CHECKS
        .iter()
        .chain(past)
        .map(|c| c.to_string())
        .collect()
}

/// What an incremental check found.
#[derive(Debug, Clone, Serialize)]
pub struct IncrementalReport {
    /// The entries checked: `[from, to)`, `to` the latest signed checkpoint's size.
    pub from: u64,
    pub to: u64,
    /// The mark the check went on from.
    pub since_mark: u64,
    pub entries_checked: u64,
    pub rounds_readjudicated: u64,
    /// Registry events among the entries checked.
    pub registry_events: u64,
    pub rounds_sharing_an_id: u64,
    /// Rollbacks the operator accepted among the entries checked, or that lost the mark kept
    /// outside the database.
    pub accepted_rollbacks: Vec<RollbackNotice>,
    pub failure: Option<VerifyFailure>,
    /// The tree of `to` entries and the leaf hash of entry `to - 1`, when the check passed.
    #[serde(skip)]
    pub end: Option<(Frontier, Hash)>,
}

impl IncrementalReport {
    /// The root of the tree checked, lower-case hex, when the check passed.
    pub fn root(&self) -> Option<String> {
        self.end.as_ref().map(|(f, _)| hex::encode(f.root()))
    }
}

/// What `--since-last` came to.
#[derive(Debug, Clone)]
pub enum SinceLast {
    /// No checkpoint was signed past the last passing check: nothing to check or record.
    NothingNew {
        verified_to: u64,
        since_mark: u64,
    },
    /// No passing check is recorded: the first must walk the whole ledger.
    NoPassingCheck,
    /// The registry itself does not read: nothing can be checked, nor a mark recorded.
    RegistryBroken(VerifyFailure),
    /// The mark kept outside the database is not in it, and nothing was signed since the
    /// check before it: the database was restored to before it (nothing recorded).
    RolledBack(VerifyFailure),
    Checked(IncrementalReport),
}

/// A verification mark as kept outside the database (`--mark-file`): a restore of the database
/// to before it loses it from the ledger, not from there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct KeptMark {
    /// The mark's ledger index and its entry's leaf hash (lower-case hex).
    pub index: u64,
    pub leaf_hash: String,
    /// What it verified.
    pub from: u64,
    pub to: u64,
    pub finished_at: String,
}

/// Checks what was appended since the last passing check, in one read-only snapshot: against
/// `operators`, with the checkpoints `witnessed` outside the database (a witness file) and the
/// mark `kept` outside it held to the same rule as the stored ones. `progress(walked)` is
/// called after each page.
pub fn check_since_last(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    (witnessed, kept): (Vec<IssuedCheckpoint>, Option<&KeptMark>),
    progress: impl FnMut(u64),
) -> Result<SinceLast, LedgerError> {
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| {
            let (history, registry_events) = match registry_history(conn, operators)? {
                Ok(found) => found,
                Err(failure) => return Ok(SinceLast::RegistryBroken(failure)),
            };
            let Some(mark) = history.last_verified().cloned() else {
                return Ok(SinceLast::NoPassingCheck);
            };
            let issued = match issued::load(conn, operators, &history)? {
                Ok(issued) => issued,
                Err(failure) => return Ok(SinceLast::RegistryBroken(failure)),
            };
            // The checks end at the largest signed checkpoint, the database's or one kept
            // outside it (larger only if the database lost it: the walk then names that).
            let pending: Vec<IssuedCheckpoint> = issued
                .into_iter()
                .chain(rollbacks::binding(witnessed, history.accepted_rollbacks()))
                .filter(|c| c.size > mark.to)
                .collect();
            let target = pending.iter().map(|c| c.size).max().unwrap_or(mark.to);
            let walk = Incremental {
                history: &history,
                registry_events: &registry_events,
                operators,
                signatures,
                mark: &mark,
                to: target,
            };
            let kept = match kept {
                Some(kept) => walk.kept_mark(conn, kept)?,
                None => KeptMarkFound::InTheLedger,
            };
            if target <= mark.to {
                return Ok(match kept {
                    KeptMarkFound::Lost(failure) => SinceLast::RolledBack(failure),
                    _ => SinceLast::NothingNew {
                        verified_to: mark.to,
                        since_mark: mark.index,
                    },
                });
            }
            walk.run(conn, pending, kept, progress)
                .map(SinceLast::Checked)
        })
}

/// One incremental check: from the end of `mark` to `to`.
struct Incremental<'a> {
    history: &'a RegistryHistory,
    registry_events: &'a std::collections::HashSet<u64>,
    operators: &'a HashMap<String, VerifyingKey>,
    signatures: SignatureCheck,
    mark: &'a VerificationMark,
    to: u64,
}

impl Incremental<'_> {
    fn run(
        &self,
        conn: &mut PgConnection,
        pending: Vec<IssuedCheckpoint>,
        kept: KeptMarkFound,
        progress: impl FnMut(u64),
    ) -> Result<IncrementalReport, LedgerError> {
        let from = self.mark.to;
        let mut report = IncrementalReport {
            from,
            to: self.to,
            since_mark: self.mark.index,
            entries_checked: 0,
            rounds_readjudicated: 0,
            registry_events: self
                .registry_events
                .iter()
                .filter(|i| (from..self.to).contains(*i))
                .count() as u64,
            rounds_sharing_an_id: 0,
            accepted_rollbacks: self
                .history
                .accepted_rollbacks()
                .iter()
                .filter(|r| (from..self.to).contains(&r.index))
                .map(|r| r.notice())
                .collect(),
            failure: None,
            end: None,
        };
        match kept {
            KeptMarkFound::InTheLedger => {}
            KeptMarkFound::LostInAcceptedRollback(notice) => {
                if !report.accepted_rollbacks.contains(&notice) {
                    report.accepted_rollbacks.push(notice);
                }
            }
            KeptMarkFound::Lost(failure) => {
                report.failure = Some(failure);
                return Ok(report);
            }
        }
        self.walk(conn, pending, &mut report, progress)?;
        Ok(report)
    }

    /// Walks `[from, to)` from the mark's tree, then the checks past the walk.
    fn walk(
        &self,
        conn: &mut PgConnection,
        pending: Vec<IssuedCheckpoint>,
        report: &mut IncrementalReport,
        progress: impl FnMut(u64),
    ) -> Result<(), LedgerError> {
        let Some((frontier, last_leaf_hash)) = self.mark.end.clone() else {
            return Err(LedgerError::key(format!(
                "the mark at index {} did not pass: no check goes on from it",
                self.mark.index
            )));
        };
        let signers = Signers {
            operators: self.operators,
            tables: self.history,
        };
        let plans = rules::PlanBook::builtin().map_err(LedgerError::from)?;
        let context = Context {
            signers,
            registry_events: self.registry_events,
            history: self.history,
            plans: &plans,
            signatures: self.signatures,
        };
        let restored_roots = verify_pages::restored_roots(self.history);
        let mut pending = PendingCheckpoints::new(pending);
        let start = Start {
            index: report.from,
            prev_hash: last_leaf_hash,
            frontier,
            until: Some(self.to),
        };
        let walked = verify_pages::walk_entries(
            conn,
            start,
            verify_pages::Reading::unthrottled(Paging::default()),
            context,
            &mut pending,
            &restored_roots,
            progress,
        )?;
        report.entries_checked = walked.entries - report.from;
        report.rounds_readjudicated = walked.rounds_readjudicated;
        let sharing = rounds_sharing_an_id(conn, walked.unkept_ids, walked.failure)?;
        let failure = match sharing {
            Err(failure) => Some(self.explained(failure)),
            Ok(sharing) => {
                report.rounds_sharing_an_id = sharing;
                pending.finish(walked.entries).err().or(compare_tables(
                    conn,
                    self.history,
                    walked.entries,
                    signers,
                )?
                .err())
            }
        };
        report.end = failure
            .is_none()
            .then_some((walked.frontier, walked.prev_hash));
        report.failure = failure;
        Ok(())
    }

    /// A failure at the first entry checked that is a broken link says what it means here:
    /// the ledger below it is not the one the mark verified.
    fn explained(&self, failure: VerifyFailure) -> VerifyFailure {
        if failure.index != self.mark.to || !failure.reason.contains("prev_hash") {
            return failure;
        }
        VerifyFailure {
            index: failure.index,
            reason: format!(
                "rollback or rewrite: entry {} does not follow the last entry the mark at index {} verified ({}): the ledger below it is not the one verified",
                failure.index, self.mark.index, failure.reason
            ),
        }
    }

    /// Whether the mark kept outside the database is still in the ledger.
    fn kept_mark(
        &self,
        conn: &mut PgConnection,
        kept: &KeptMark,
    ) -> Result<KeptMarkFound, LedgerError> {
        let stored = super::reads::leaf_hash_at(conn, kept.index)?;
        if stored.map(hex::encode).as_deref() == Some(kept.leaf_hash.as_str()) {
            return Ok(KeptMarkFound::InTheLedger);
        }
        // An accepted rollback explains the loss if the ledger it restored from held the mark:
        // restored to before it, having lost the checkpoint it verified up to (an earlier
        // acceptance, with the mark recorded after it, does not).
        if let Some(accepted) = self
            .history
            .accepted_rollbacks()
            .iter()
            .find(|r| r.index <= kept.index && kept.to <= r.lost_size())
        {
            return Ok(KeptMarkFound::LostInAcceptedRollback(accepted.notice()));
        }
        let what = match stored {
            None => "the ledger no longer holds that entry",
            Some(_) => "the ledger holds another entry there",
        };
        Ok(KeptMarkFound::Lost(VerifyFailure {
            index: kept.index.clamp(self.mark.to, self.to),
            reason: format!(
                "rollback: the verification mark kept outside the database (index {}, entries {}..{} verified, finished {}) is not in the ledger: {what}, and no accepted rollback says why",
                kept.index, kept.from, kept.to, kept.finished_at
            ),
        }))
    }
}

/// Where the mark kept outside the database was found.
enum KeptMarkFound {
    InTheLedger,
    LostInAcceptedRollback(RollbackNotice),
    Lost(VerifyFailure),
}

impl KeptMark {
    /// The mark recorded at `receipt` for `mark`.
    pub fn recorded(
        receipt: &super::registry_append::RegistryReceipt,
        mark: &super::verification_marks::MarkToRecord,
    ) -> KeptMark {
        KeptMark {
            index: receipt.index,
            leaf_hash: hex::encode(receipt.entry_hash),
            from: mark.from,
            to: mark.to,
            finished_at: dozor_log::entry::format_time(mark.finished_at),
        }
    }

    /// The mark kept at `path`; none if there is no file.
    pub fn read(path: &std::path::Path) -> Result<Option<KeptMark>, LedgerError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(LedgerError::io(format!("{}", path.display()), e)),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            LedgerError::key(format!(
                "{} is not a kept verification mark: {e}",
                path.display()
            ))
        })
    }

    /// Replaces the mark kept at `path` whole.
    pub fn write(&self, path: &std::path::Path) -> Result<(), LedgerError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| LedgerError::key(format!("a kept verification mark: {e}")))?;
        super::files::replace(path, text.as_bytes())
    }
}
