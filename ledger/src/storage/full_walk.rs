//! The full walk in the background (`dozor verify --full-walk`, weekly from the nightly job):
//! every entry from the first to the largest checkpoint signed when the walk started, checked
//! as `dozor verify` checks them, in segments of a few pages, each in a read-only snapshot of
//! its own. After each segment its progress is kept outside the database, signed by the
//! operator key, so that a walk stopped or killed goes on from the last segment it finished;
//! it keeps a budget of processor time and reads (crate::throttle) so that ingest keeps its
//! pace. Its result is recorded as a full verification mark.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::VerifyingKey;

use super::full_walk_progress::WalkProgress;
use super::issued::{self, IssuedCheckpoint, PendingCheckpoints};
use super::verify::{compare_tables, registry_history, rounds_sharing_an_id, VerifyReport};
use super::verify_archived::walk_archived;
use super::verify_failure::VerifyFailure;
use super::verify_pages::{self, Context, PagePool, Paging, Reading, Start};
use super::{registry_log, rollbacks};
use crate::error::LedgerError;
use crate::throttle::{Budget, Throttle};
use dozor_log::checkpoint::NoteSigner;
use dozor_log::entry::format_time;
use dozor_log::entry_check::{SignatureCheck, Signers};
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_history::RegistryHistory;
use dozor_log::GENESIS_PREV_HASH;

/// Who walks, against what, where the progress is kept, and how hard.
pub struct FullWalk<'a> {
    /// The operator key that signs the progress kept.
    pub operator: &'a NoteSigner,
    /// The operator keys the ledger's entries may be signed by (its rotations).
    pub operators: &'a HashMap<String, VerifyingKey>,
    pub signatures: SignatureCheck,
    /// Checkpoints kept outside the database (a witness file), held to the same rule.
    pub witnessed: Vec<IssuedCheckpoint>,
    pub progress_file: &'a Path,
    pub budget: Budget,
    pub paging: Paging,
    /// Pages per segment: how much a stop or a crash makes the walk read again.
    pub segment_pages: usize,
}

/// Pages per segment unless told otherwise: 524 288 entries, about 15 s of a walk at a core
/// and under two minutes at a quarter core, what a stop makes it read again. Each segment
/// ends with the checking threads emptied before the next snapshot is read: at 8 pages that
/// cost the walk a tenth of its time on a quiet machine.
pub const SEGMENT_PAGES: usize = 32;

/// What a walk came to.
#[derive(Debug)]
pub enum WalkOutcome {
    /// The ledger holds no signed checkpoint to walk to.
    NothingSigned,
    /// The registry does not read: nothing can be walked.
    RegistryBroken(VerifyFailure),
    /// Another walk holds the progress file's lock (the server's, or another command's).
    AlreadyRunning,
    /// Stopped when asked; the progress kept.
    Stopped(Box<WalkProgress>),
    /// Walked to its end (or its first failure).
    Finished(Box<FinishedWalk>),
}

/// A walk that ended: its report, the tree of the entries walked when it passed, and when it
/// started (before any stop).
#[derive(Debug)]
pub struct FinishedWalk {
    pub report: VerifyReport,
    pub frontier: Option<Frontier>,
    pub started_at: DateTime<Utc>,
    /// Segments walked, and how often the walk went on after a stop.
    pub segments: u64,
    pub resumed: u64,
    /// Whether the database process's processor time counted in the budget.
    pub budget_counted_the_database: bool,
}

/// How a segment ended.
enum Segment {
    Walked,
    Failed(VerifyFailure),
}

impl FullWalk<'_> {
    /// Walks on from the progress kept (or from the start), until the end, the first failure,
    /// or `stop`. `progress(next, target)` after each page. The progress file is removed when
    /// the walk ends.
    pub fn run(
        &self,
        conn: &mut PgConnection,
        stop: &AtomicBool,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<WalkOutcome, LedgerError> {
        // One walk at a time per progress file; the lock goes with the process.
        let lock_path = self.progress_file.with_extension("lock");
        let io = |e| LedgerError::io(format!("{}", lock_path.display()), e);
        if let Some(dir) = lock_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let lock = std::fs::File::create(&lock_path).map_err(io)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(WalkOutcome::AlreadyRunning),
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let backend: i32 = diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>(
            "pg_backend_pid()",
        ))
        .get_result(conn)?;
        let throttle = Throttle::start(self.budget, Some(backend));
        // In the background (a budget), the walk and the process serving it give way to the
        // rest of the machine.
        if self.budget.limits() && throttle.counts_the_database() && !throttle.lower_priority() {
            tracing::debug!("the database process serving the walk keeps its priority");
        }
        let mut walk = match self.kept_progress()? {
            Some(mut kept) => {
                kept.resumed += 1;
                kept
            }
            None => match self.begin(conn)? {
                Begun::Progress(progress) => *progress,
                Begun::Outcome(outcome) => return Ok(outcome),
                Begun::Failed(failed) => {
                    let (walk, failure) = *failed;
                    let report = self.failed(&walk, failure);
                    let finished = self.finished(&walk, report, None, &throttle);
                    return Ok(WalkOutcome::Finished(Box::new(finished)));
                }
            },
        };
        self.keep(&walk)?;
        // The registry is followed on from segment to segment (its events are appended only);
        // the end checks it whole again.
        let mut against = Against {
            history: RegistryHistory::default(),
            registry_events: HashSet::new(),
            plans: rules::PlanBook::builtin().map_err(LedgerError::from)?,
        };
        // A segment's pages are read into again by the next.
        let pages = PagePool::default();
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok(WalkOutcome::Stopped(Box::new(walk)));
            }
            let reading = (&throttle, &pages);
            let segment = self.segment(conn, &mut walk, &mut against, reading, &mut progress)?;
            let ended = match segment {
                Segment::Failed(failure) => Some(self.failed(&walk, failure)),
                Segment::Walked if walk.next == walk.target => None,
                Segment::Walked => {
                    self.keep(&walk)?;
                    continue;
                }
            };
            let finished = match ended {
                Some(report) => self.finished(&walk, report, None, &throttle),
                None => self.finish(conn, &walk, &throttle)?,
            };
            WalkProgress::remove(self.progress_file)?;
            return Ok(WalkOutcome::Finished(Box::new(finished)));
        }
    }

    /// The progress kept, if it opens with the operator key and is of a walk that can go on;
    /// otherwise the walk starts over (said in the log).
    fn kept_progress(&self) -> Result<Option<WalkProgress>, LedgerError> {
        match WalkProgress::read(self.progress_file, &self.operator.verifier())? {
            None => Ok(None),
            Some(Ok(kept)) => Ok(Some(kept)),
            Some(Err(why)) => {
                tracing::warn!(
                    file = %self.progress_file.display(),
                    reason = %why,
                    "the walk's progress kept does not open; the walk starts over"
                );
                Ok(None)
            }
        }
    }

    fn keep(&self, walk: &WalkProgress) -> Result<(), LedgerError> {
        let mut kept = walk.clone();
        kept.updated_at = format_time(Utc::now());
        kept.write(self.progress_file, self.operator)
    }

    /// The walk's start: its end (the largest checkpoint signed), and the archived ranges
    /// walked, in one snapshot.
    fn begin(&self, conn: &mut PgConnection) -> Result<Begun, LedgerError> {
        in_snapshot(conn, |conn| {
            let (history, _) = match registry_history(conn, self.operators)? {
                Ok(found) => found,
                Err(failure) => return Ok(Begun::Outcome(WalkOutcome::RegistryBroken(failure))),
            };
            let signed = match self.checkpoints(conn, &history, 0..=u64::MAX)? {
                Ok(signed) => signed,
                Err(failure) => return Ok(Begun::Outcome(WalkOutcome::RegistryBroken(failure))),
            };
            let Some(target) = signed.iter().max_by_key(|c| c.size).filter(|c| c.size > 0) else {
                return Ok(Begun::Outcome(WalkOutcome::NothingSigned));
            };
            let now = format_time(Utc::now());
            let mut walk = WalkProgress {
                target: target.size,
                target_root: hex::encode(target.root),
                from: history.archived_below(),
                next: 0,
                last_leaf_hash: String::new(),
                frontier: Vec::new(),
                rounds_readjudicated: 0,
                rounds_sharing_an_id: 0,
                checkpoints_met: 0,
                segments: 0,
                resumed: 0,
                started_at: now.clone(),
                updated_at: now,
            };
            let archived = signed
                .into_iter()
                .filter(|c| c.size <= walk.from)
                .collect::<Vec<_>>();
            walk.checkpoints_met = archived.len() as u64;
            let mut pending = PendingCheckpoints::new(archived);
            let mut frontier = Frontier::default();
            let walked = match pending.reached(&frontier) {
                Err(failure) => Err(failure),
                Ok(()) if walk.from == 0 => Ok(GENESIS_PREV_HASH),
                Ok(()) => walk_archived(conn, &history, &mut frontier, &mut pending)?,
            };
            match walked {
                Ok(last) => walk.set_tree(&frontier, &last),
                Err(failure) => {
                    walk.set_tree(&frontier, &GENESIS_PREV_HASH);
                    return Ok(Begun::Failed(Box::new((walk, failure))));
                }
            }
            Ok(Begun::Progress(Box::new(walk)))
        })
    }

    /// The signed checkpoints whose size is in `sizes`: the database's and the witnessed ones
    /// that still bind.
    fn checkpoints(
        &self,
        conn: &mut PgConnection,
        history: &RegistryHistory,
        sizes: std::ops::RangeInclusive<u64>,
    ) -> Result<Result<Vec<IssuedCheckpoint>, VerifyFailure>, LedgerError> {
        let mut signed = match issued::load_sizes(conn, self.operators, history, sizes.clone())? {
            Ok(signed) => signed,
            Err(failure) => return Ok(Err(failure)),
        };
        signed.extend(
            rollbacks::binding(self.witnessed.clone(), history.accepted_rollbacks())
                .into_iter()
                .filter(|c| sizes.contains(&c.size)),
        );
        Ok(Ok(signed))
    }

    /// Walks the next segment in a snapshot of its own, and moves `walk` past it.
    fn segment(
        &self,
        conn: &mut PgConnection,
        walk: &mut WalkProgress,
        against: &mut Against,
        reading: (&Throttle, &PagePool),
        progress: &mut impl FnMut(u64, u64),
    ) -> Result<Segment, LedgerError> {
        let span = (self.paging.page.max(1) * self.segment_pages.max(1)) as u64;
        let end = walk.next.saturating_add(span).min(walk.target);
        let Some((frontier, last_leaf_hash)) = walk.tree() else {
            return Err(LedgerError::key("the walk's tree does not read".into()));
        };
        in_snapshot(conn, |conn| {
            match registry_log::follow(conn, &mut against.history, self.operators)? {
                Ok(new) => against.registry_events.extend(new),
                Err(failure) => return Ok(Segment::Failed(failure)),
            }
            let pending = match self.checkpoints(conn, &against.history, walk.next + 1..=end)? {
                Ok(pending) => pending,
                Err(failure) => return Ok(Segment::Failed(failure)),
            };
            let met = pending.len() as u64;
            let start = Start {
                index: walk.next,
                prev_hash: last_leaf_hash,
                frontier,
                until: Some(end),
            };
            let target = walk.target;
            let walked = self.walk_segment(conn, start, against, pending, reading, |next| {
                progress(next, target)
            })?;
            let walked = match walked {
                Ok(walked) => walked,
                Err(failure) => return Ok(Segment::Failed(failure)),
            };
            if walked.frontier.size() < end {
                return Ok(Segment::Failed(
                    self.ends_early(walk, walked.frontier.size()),
                ));
            }
            walk.set_tree(&walked.frontier, &walked.last_leaf_hash);
            walk.rounds_readjudicated += walked.rounds_readjudicated;
            walk.rounds_sharing_an_id += walked.rounds_sharing_an_id;
            walk.checkpoints_met += met;
            walk.segments += 1;
            Ok(Segment::Walked)
        })
    }

    /// The entries of one segment checked, or the first failure.
    fn walk_segment(
        &self,
        conn: &mut PgConnection,
        start: Start,
        against: &Against,
        pending: Vec<IssuedCheckpoint>,
        (throttle, pages): (&Throttle, &PagePool),
        progress: impl FnMut(u64),
    ) -> Result<Result<SegmentWalked, VerifyFailure>, LedgerError> {
        let context = Context {
            signers: Signers {
                operators: self.operators,
                tables: &against.history,
            },
            registry_events: &against.registry_events,
            history: &against.history,
            plans: &against.plans,
            signatures: self.signatures,
        };
        let restored_roots = verify_pages::restored_roots(&against.history);
        let mut pending = PendingCheckpoints::new(pending);
        let reading = Reading {
            paging: self.paging,
            threads: self.threads(),
            throttle: Some(throttle),
            pool: Some(pages),
        };
        let walked = verify_pages::walk_entries(
            conn,
            start,
            reading,
            context,
            &mut pending,
            &restored_roots,
            progress,
        )?;
        let sharing = rounds_sharing_an_id(conn, walked.unkept_ids, walked.failure)?;
        Ok(sharing.map(|sharing| SegmentWalked {
            frontier: walked.frontier,
            last_leaf_hash: walked.prev_hash,
            rounds_readjudicated: walked.rounds_readjudicated,
            rounds_sharing_an_id: sharing,
        }))
    }

    /// Checking threads: as many as the budget's cores (every core without one).
    fn threads(&self) -> usize {
        let all = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.budget
            .cores
            .map_or(all, |cores| (cores.ceil() as usize).clamp(1, all))
    }

    /// The ledger ended at `size`, before the checkpoint the walk goes to.
    fn ends_early(&self, walk: &WalkProgress, size: u64) -> VerifyFailure {
        VerifyFailure {
            index: size,
            reason: format!(
                "rollback: the walk goes to the checkpoint of {} entries (root {}) signed before it started, but the ledger now ends at {size}: entries were removed during the walk",
                walk.target, walk.target_root
            ),
        }
    }

    /// After the last segment, in a snapshot of its own: the checkpoints signed up to the end
    /// are those met, the tree holds no other node below it, and the tables say what the ledger
    /// says.
    fn finish(
        &self,
        conn: &mut PgConnection,
        walk: &WalkProgress,
        throttle: &Throttle,
    ) -> Result<FinishedWalk, LedgerError> {
        let checked = in_snapshot(conn, |conn| {
            let (history, registry_events) = match registry_history(conn, self.operators)? {
                Ok(found) => found,
                Err(failure) => return Ok(Err(failure)),
            };
            let signed = match self.checkpoints(conn, &history, 0..=walk.target)? {
                Ok(signed) => signed.len() as u64,
                Err(failure) => return Ok(Err(failure)),
            };
            if signed != walk.checkpoints_met {
                return Ok(Err(VerifyFailure {
                    index: walk.target,
                    reason: format!(
                        "the database and the witness hold {signed} checkpoints signed for the entries walked; the walk met {}: checkpoints were added or removed below the end of the walk while it went",
                        walk.checkpoints_met
                    ),
                }));
            }
            if let Err(failure) = nodes_below(conn, walk.target)? {
                return Ok(Err(failure));
            }
            let signers = Signers {
                operators: self.operators,
                tables: &history,
            };
            Ok(compare_tables(conn, &history, walk.target, signers)?
                .map(|resolved| self.passed(walk, &history, &registry_events, resolved)))
        })?;
        Ok(match checked {
            Ok((report, frontier)) => self.finished(walk, report, Some(frontier), throttle),
            Err(failure) => {
                let report = self.failed(walk, failure);
                self.finished(walk, report, None, throttle)
            }
        })
    }

    /// The report of a walk that passed, and the tree of its entries.
    fn passed(
        &self,
        walk: &WalkProgress,
        history: &RegistryHistory,
        registry_events: &HashSet<u64>,
        resolved_findings_readjudicated: u64,
    ) -> (VerifyReport, Frontier) {
        let frontier = walk.tree().map(|(f, _)| f).unwrap_or_default();
        let report = VerifyReport {
            entries_checked: walk.target,
            registry_events: registry_events.iter().filter(|i| **i < walk.target).count() as u64,
            api_keys: history.api_keys().all().len() as u64,
            resolutions: history.resolutions().all().len() as u64,
            resolved_findings_readjudicated,
            rounds_readjudicated: walk.rounds_readjudicated,
            rounds_sharing_an_id: walk.rounds_sharing_an_id,
            head_hash: Some(walk.last_leaf_hash.clone()),
            accepted_rollbacks: history
                .accepted_rollbacks()
                .iter()
                .filter(|r| r.index < walk.target)
                .map(|r| r.notice())
                .collect(),
            archived_ranges: history
                .archived_ranges()
                .iter()
                .filter(|r| r.to <= walk.from)
                .cloned()
                .collect(),
            failure: None,
        };
        (report, frontier)
    }

    /// The report of a walk that failed: how far it came, and the failure.
    fn failed(&self, walk: &WalkProgress, failure: VerifyFailure) -> VerifyReport {
        VerifyReport {
            entries_checked: failure.index,
            registry_events: 0,
            api_keys: 0,
            resolutions: 0,
            resolved_findings_readjudicated: 0,
            rounds_readjudicated: walk.rounds_readjudicated,
            rounds_sharing_an_id: walk.rounds_sharing_an_id,
            head_hash: (walk.next > 0).then(|| walk.last_leaf_hash.clone()),
            accepted_rollbacks: Vec::new(),
            archived_ranges: Vec::new(),
            failure: Some(failure),
        }
    }

    fn finished(
        &self,
        walk: &WalkProgress,
        report: VerifyReport,
        frontier: Option<Frontier>,
        throttle: &Throttle,
    ) -> FinishedWalk {
        FinishedWalk {
            report,
            frontier,
            started_at: DateTime::parse_from_rfc3339(&walk.started_at)
                .map_or_else(|_| Utc::now(), |t| t.with_timezone(&Utc)),
            segments: walk.segments,
            resumed: walk.resumed,
            budget_counted_the_database: throttle.counts_the_database(),
        }
    }
}

/// A segment's entries checked: the tree after them, the last one's leaf hash, and the rounds
/// re-adjudicated and sharing an id among them.
struct SegmentWalked {
    frontier: Frontier,
    last_leaf_hash: Hash,
    rounds_readjudicated: u64,
    rounds_sharing_an_id: u64,
}

/// What the start of a walk came to.
enum Begun {
    Progress(Box<WalkProgress>),
    Outcome(WalkOutcome),
    /// The archived ranges failed: how far the walk came, and the failure.
    Failed(Box<(WalkProgress, VerifyFailure)>),
}

/// What the segments are checked against: the registry followed so far (with its events'
/// indexes), and the plans.
struct Against {
    history: RegistryHistory,
    registry_events: HashSet<u64>,
    plans: rules::PlanBook,
}

/// Runs `f` in a read-only snapshot of its own.
fn in_snapshot<T>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, LedgerError>,
) -> Result<T, LedgerError> {
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(f)
}

/// The tree holds, below `size` entries, the interior nodes they make and no other: a node
/// `(level, idx)` covers entries `[idx << level, (idx + 1) << level)`, below `size` when
/// `idx < size >> level`.
fn nodes_below(
    conn: &mut PgConnection,
    size: u64,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    use super::schema::merkle_nodes;
    let bound = i64::try_from(size).unwrap_or(i64::MAX);
    let stored: i64 = merkle_nodes::table
        .filter(
            diesel::dsl::sql::<diesel::sql_types::Bool>("idx < (")
                .bind::<diesel::sql_types::BigInt, _>(bound)
                .sql(" >> level::int)"),
        )
        .count()
        .get_result(conn)?;
    let expected = size - u64::from(size.count_ones());
    if stored as u64 != expected {
        return Ok(Err(VerifyFailure {
            index: size,
            reason: format!(
                "the tree holds {stored} interior nodes over the first {size} entries; they make {expected}"
            ),
        }));
    }
    Ok(Ok(()))
}

/// Whether a full walk is due, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkDue {
    /// A walk stopped before its end: it goes on.
    InProgress,
    /// No full walk has passed yet.
    NeverPassed,
    /// The last passing full walk finished at this time, longer ago than the interval.
    LastPassed(String),
    /// Not due: the last passing full walk finished at this time, within the interval.
    NotDue(String),
}

impl WalkDue {
    pub fn is_due(&self) -> bool {
        !matches!(self, WalkDue::NotDue(_))
    }
}

/// Whether a full walk is due at `now`, one every `every`: a walk in progress (its progress
/// kept at `progress_file`) always is, and so is one when no passing full walk finished within
/// `every` (the marks as the registry gives them, each signed by one of `operators`).
pub fn due(
    conn: &mut PgConnection,
    operators: &HashMap<String, VerifyingKey>,
    progress_file: &Path,
    every: chrono::Duration,
    now: DateTime<Utc>,
) -> Result<WalkDue, LedgerError> {
    if progress_file.exists() {
        return Ok(WalkDue::InProgress);
    }
    let history = match in_snapshot(conn, |conn| registry_history(conn, operators))? {
        Ok((history, _)) => history,
        // A registry that does not read is for the walk to name.
        Err(_) => return Ok(WalkDue::NeverPassed),
    };
    let last = history
        .verification_marks()
        .iter()
        .filter(|m| m.passed() && m.scope == dozor_log::registry_event::VerificationScope::Full)
        .filter_map(|m| {
            let at = DateTime::parse_from_rfc3339(&m.finished_at).ok()?;
            Some((at.with_timezone(&Utc), m.finished_at.clone()))
        })
        .max();
    Ok(match last {
        None => WalkDue::NeverPassed,
        Some((at, text)) if at + every <= now => WalkDue::LastPassed(text),
        Some((_, text)) => WalkDue::NotDue(text),
    })
}
