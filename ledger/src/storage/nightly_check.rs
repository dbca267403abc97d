//! The check of the ledger each night (`dozor verify --since-last`, and the server's nightly
//! job): what was appended since the last passing check, or the whole ledger the first time,
//! recorded as an operator-signed verification mark and kept outside the database too
//! (docs/VERIFY.md).

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ed25519_dalek::VerifyingKey;

use super::issued::IssuedCheckpoint;
use super::registry_append::RegistryReceipt;
use super::verification_marks::{self, MarkToRecord};
use super::verify::{verify_ledger_witnessed, VerifyReport};
use super::verify_failure::VerifyFailure;
use super::verify_since::{check_since_last, checks_of, IncrementalReport, KeptMark, SinceLast};
use crate::error::LedgerError;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::entry_check::SignatureCheck;
use dozor_log::merkle::Frontier;
use dozor_log::registry_event::VerificationScope;

/// The file in the data directory the last mark is kept in outside the database.
pub const MARK_FILE: &str = "verification-mark.json";

/// Who checks, against what, and where the last mark is kept outside the database.
pub struct NightlyCheck<'a> {
    /// The operator key that signs the mark.
    pub operator: &'a NoteSigner,
    /// The operator keys the ledger's entries may be signed by (its rotations).
    pub operators: &'a HashMap<String, VerifyingKey>,
    pub signatures: SignatureCheck,
    /// Checkpoints kept outside the database (a witness file), held to the same rule.
    pub witnessed: Vec<IssuedCheckpoint>,
    pub mark_file: &'a Path,
    /// `cli:<user>` or `server:nightly`.
    pub actor: String,
    /// Whether to walk the whole ledger when no check has passed yet (the command line does;
    /// the server leaves it to a walk that does not compete with ingest).
    pub walk_all_first: bool,
}

/// The check made: the whole ledger (the first time), or what was appended since.
#[derive(Debug, Clone)]
pub enum CheckMade {
    /// The full walk's report, and the tree of the entries walked when it passed.
    Full(VerifyReport, Option<Frontier>),
    Incremental(IncrementalReport),
}

/// What the night's check came to.
#[derive(Debug)]
pub enum NightlyOutcome {
    /// No checkpoint signed since the last passing check (`since_mark`; none yet when the
    /// ledger holds nothing to check): nothing checked or recorded.
    NothingNew {
        verified_to: u64,
        since_mark: Option<u64>,
    },
    /// No check has passed yet, and the whole ledger was not to be walked now.
    NoPassingCheck,
    /// The registry does not read: nothing could be checked, nor a mark recorded.
    RegistryBroken(VerifyFailure),
    /// The database was restored to before the last mark (kept outside it), and nothing was
    /// signed since: named, nothing recorded.
    RolledBack(VerifyFailure),
    /// Checked, and recorded (or why not).
    Made(Box<Made>),
}

/// A check made, its mark, and the mark's receipt (or why it was not recorded).
#[derive(Debug)]
pub struct Made {
    pub check: CheckMade,
    pub mark: MarkToRecord,
    pub recorded: Result<RegistryReceipt, LedgerError>,
}

impl NightlyCheck<'_> {
    /// Checks, records the mark, and keeps it outside the database. `progress(walked)` after
    /// each page.
    pub fn run(
        self,
        conn: &mut PgConnection,
        mut progress: impl FnMut(u64),
    ) -> Result<NightlyOutcome, LedgerError> {
        let kept = KeptMark::read(self.mark_file)?;
        let started = Utc::now();
        let check = match check_since_last(
            conn,
            self.operators,
            self.signatures,
            (self.witnessed.clone(), kept.as_ref()),
            &mut progress,
        )? {
            SinceLast::NothingNew {
                verified_to,
                since_mark,
            } => {
                return Ok(NightlyOutcome::NothingNew {
                    verified_to,
                    since_mark: Some(since_mark),
                })
            }
            SinceLast::RegistryBroken(f) => return Ok(NightlyOutcome::RegistryBroken(f)),
            SinceLast::RolledBack(f) => return Ok(NightlyOutcome::RolledBack(f)),
            SinceLast::NoPassingCheck if !self.walk_all_first => {
                return Ok(NightlyOutcome::NoPassingCheck)
            }
            SinceLast::NoPassingCheck => match self.full_walk(conn, progress)? {
                CheckMade::Full(report, _)
                    if report.failure.is_none() && report.entries_checked == 0 =>
                {
                    return Ok(NightlyOutcome::NothingNew {
                        verified_to: 0,
                        since_mark: None,
                    })
                }
                made => made,
            },
            SinceLast::Checked(report) => CheckMade::Incremental(report),
        };
        let recording = Recording {
            operator: self.operator,
            operators: self.operators,
            mark_file: self.mark_file,
            actor: self.actor.clone(),
        };
        Ok(NightlyOutcome::Made(Box::new(
            recording.record(conn, check, started)?,
        )))
    }

    /// The whole ledger walked, when no check has passed yet.
    fn full_walk(
        &self,
        conn: &mut PgConnection,
        progress: impl FnMut(u64),
    ) -> Result<CheckMade, LedgerError> {
        let report = verify_ledger_witnessed(
            conn,
            self.operators,
            self.signatures,
            self.witnessed.clone(),
            progress,
        )?;
        // The stored tree at the size walked, which the walk has just found to be the entries'.
        let frontier = match report.failure {
            None => Some(super::tree::frontier(conn, report.entries_checked)?),
            Some(_) => None,
        };
        Ok(CheckMade::Full(report, frontier))
    }
}

/// Who records a check's mark, and where the last is kept outside the database.
pub struct Recording<'a> {
    pub operator: &'a NoteSigner,
    pub operators: &'a HashMap<String, VerifyingKey>,
    pub mark_file: &'a Path,
    /// `cli:<user>` or `server:nightly`.
    pub actor: String,
}

impl Recording<'_> {
    /// Records the mark of `check`, started at `started`, and keeps it outside the database
    /// unless the mark kept there already verified further (a full walk ends at the checkpoint
    /// signed when it started; the nightly checks may have gone past it since).
    pub fn record(
        &self,
        conn: &mut PgConnection,
        check: CheckMade,
        started: DateTime<Utc>,
    ) -> Result<Made, LedgerError> {
        let mark = check.mark(started, self.actor.clone())?;
        let recorded =
            verification_marks::record(conn, self.operator, self.operators, &mark, Utc::now());
        if let Ok(receipt) = &recorded {
            let kept = KeptMark::read(self.mark_file)?;
            if kept.is_none_or(|kept| kept.to <= mark.to) {
                KeptMark::recorded(receipt, &mark).write(self.mark_file)?;
            }
        }
        Ok(Made {
            check,
            mark,
            recorded,
        })
    }
}

impl CheckMade {
    /// The mark that records the check, started at `started_at` by `actor`.
    pub fn mark(
        &self,
        started_at: DateTime<Utc>,
        actor: String,
    ) -> Result<MarkToRecord, LedgerError> {
        let finished_at = Utc::now();
        Ok(match self {
            CheckMade::Incremental(report) => MarkToRecord {
                scope: VerificationScope::Incremental,
                from: report.from,
                to: report.to,
                checks: checks_of(VerificationScope::Incremental),
                end: report.end.clone(),
                failure: report.failure.clone(),
                started_at,
                finished_at,
                actor,
            },
            CheckMade::Full(report, frontier) => {
                let from = report.archived_ranges.last().map_or(0, |r| r.to);
                let end = match (frontier, &report.head_hash) {
                    (Some(f), Some(head)) => Some((f.clone(), hash_of(head)?)),
                    _ => None,
                };
                // A failing walk covered the entries up to its failure's.
                let to = match &report.failure {
                    None => report.entries_checked,
                    Some(f) => f.index.max(from) + 1,
                };
                MarkToRecord {
                    scope: VerificationScope::Full,
                    from,
                    to,
                    checks: checks_of(VerificationScope::Full),
                    end,
                    failure: report.failure.clone(),
                    started_at,
                    finished_at,
                    actor,
                }
            }
        })
    }
}

fn hash_of(text: &str) -> Result<[u8; 32], LedgerError> {
    dozor_log::merkle::parse_lower_hex(text)
        .ok_or_else(|| LedgerError::key(format!("the walk's head hash `{text}` is not 32 bytes")))
}
