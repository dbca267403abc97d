//! The entries of `dozor verify` on the database, with the offline verifier's pipeline: a
//! thread reads pages ahead (entries, their derived rows, the tree's nodes over them), every
//! core checks chunks of them (each row on its own, a batch of signatures, every round
//! re-adjudicated), and the calling thread follows the chain, the tree and the signed
//! checkpoints through the checked chunks in order.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

use diesel::prelude::*;

use super::copy_pages::{EntryPage, EntryRow};
use super::derived_check::{self, StoredDerived, UnkeptRoundId};
use super::issued::PendingCheckpoints;
use super::tree::fetch_completed_by;
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use crate::throttle::Throttle;
use dozor_log::entry::{format_time, leaf_hash, record_hash};
use dozor_log::entry_check::{
    check_entry, verify_signatures, CheckedEntry, SignatureCheck, Signers, Subject,
};
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_history::RegistryHistory;

/// Entries read at a time, and checked at a time by one core (its signatures one batch).
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    pub page: usize,
    pub chunk: usize,
}

impl Default for Paging {
    fn default() -> Self {
        Paging {
            page: 16 * 1024,
            chunk: 4 * 1024,
        }
    }
}

/// How the walk reads and checks: its page sizes, its checking threads, and the budget it keeps
/// (a background walk's: the processor time of its threads is counted, and the reading thread
/// waits after a page until the walk is within it).
#[derive(Clone, Copy)]
pub(super) struct Reading<'a> {
    pub paging: Paging,
    pub threads: usize,
    pub throttle: Option<&'a Throttle>,
    /// Where the pages of one walk of the entries are kept for the next (a full walk's
    /// segments), if anywhere.
    pub pool: Option<&'a PagePool>,
}

/// Pages kept from one walk of the entries to the next: read into again, their memory is not
/// fresh memory the kernel zeroes (tens of megabytes a page).
#[derive(Default)]
pub(super) struct PagePool(std::sync::Mutex<Vec<Page>>);

impl PagePool {
    fn take(&self) -> Vec<Page> {
        self.0
            .lock()
            .map(|mut pages| std::mem::take(&mut *pages))
            .unwrap_or_default()
    }

    fn keep(&self, pages: impl Iterator<Item = Page>) {
        if let Ok(mut kept) = self.0.lock() {
            kept.extend(pages);
        }
    }
}

/// Pages kept for reading into again, at most: more than a walk has in flight.
const PAGES_KEPT: usize = 8;

impl Reading<'_> {
    /// Pages of `paging`, every core checking, no budget.
    pub fn unthrottled(paging: Paging) -> Reading<'static> {
        Reading {
            paging,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            throttle: None,
            pool: None,
        }
    }

    /// `f`, its processor time counted against the budget if there is one.
    fn counted<T>(&self, f: impl FnOnce() -> T) -> T {
        match self.throttle {
            Some(throttle) => throttle.count(f),
            None => f(),
        }
    }
}

/// What the entries are checked against, the same for every chunk.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    pub signers: Signers<'a>,
    pub registry_events: &'a HashSet<u64>,
    pub history: &'a RegistryHistory,
    pub plans: &'a rules::PlanBook,
    pub signatures: SignatureCheck,
}

/// Where the walk of the entries starts (after the archived ranges, if any, or where the last
/// check ended), and before which entry it ends (`None`: after the last one stored).
pub(super) struct Start {
    pub index: u64,
    pub prev_hash: Hash,
    pub frontier: Frontier,
    pub until: Option<u64>,
}

/// An accepted rollback holds for the ledger it names: the tree of the entries before it, by
/// the index it was accepted at.
pub(super) fn restored_roots(history: &RegistryHistory) -> HashMap<u64, Hash> {
    history
        .accepted_rollbacks()
        .iter()
        .map(|r| (r.index, r.restored_root))
        .collect()
}

/// How the walk of the entries ended.
pub(super) struct Walked {
    /// Entries walked (the index of the first failing one, on failure).
    pub entries: u64,
    pub prev_hash: Hash,
    /// The tree of the entries walked (of those before the failure, on failure).
    pub frontier: Frontier,
    pub rounds_readjudicated: u64,
    /// Rounds whose id the stored rows do not keep for them, with their index, in order: each
    /// shares its id with an earlier round, or is the first failure.
    pub unkept_ids: Vec<(u64, UnkeptRoundId)>,
    pub failure: Option<VerifyFailure>,
}

/// A page of stored entries and what the database holds beside them.
struct Page {
    first: u64,
    rows: EntryPage,
    derived: StoredDerived,
    /// The tree's interior nodes that the page's leaves complete.
    nodes: foldhash::HashMap<(u32, u64), Hash>,
}

impl Page {
    /// An empty page whose memory takes `bytes` (of entries, of verdict rows) without growing:
    /// a page is tens of megabytes, and memory grown by doubling is zeroed by the kernel
    /// about twice over.
    fn with_capacity((entries, verdicts): (usize, usize)) -> Page {
        Page {
            first: 0,
            rows: EntryPage::with_capacity(entries),
            derived: StoredDerived::with_capacity(verdicts),
            nodes: foldhash::HashMap::default(),
        }
    }

    /// The bytes the page was read from, of entries and of verdict rows.
    fn copy_len(&self) -> (usize, usize) {
        (self.rows.copy_len(), self.derived.verdict_bytes())
    }

    /// The page of entries from `first`, read into the memory of `into` (a page already
    /// checked, or a new one).
    fn read(
        conn: &mut PgConnection,
        first: u64,
        size: usize,
        until: Option<u64>,
        into: Page,
    ) -> Result<Self, LedgerError> {
        let Page {
            rows,
            derived,
            mut nodes,
            ..
        } = into;
        // Entries are consecutive: a page ending before `until` is a shorter page (past a gap,
        // which fails the walk first, it may hold an entry after `until`).
        let size = until.map_or(size as u64, |u| (size as u64).min(u.saturating_sub(first)));
        let rows = if size == 0 {
            EntryPage::default()
        } else {
            rows.read_again(conn, first, size)?
        };
        let end = first + rows.len() as u64;
        let derived = if rows.is_empty() {
            nodes.clear();
            StoredDerived::default()
        } else {
            fetch_completed_by(conn, first..end, &mut nodes)?;
            derived.load_again(conn, first, end)?
        };
        Ok(Page {
            first,
            rows,
            derived,
            nodes,
        })
    }
}

/// The pages from `from` on (before `until`), in order, until the entries end or reading fails
/// (the error is the last item).
/// Each page is read into the memory of a page already checked, if `spare` gives one.
fn pages<'c>(
    conn: &'c mut PgConnection,
    (from, until): (u64, Option<u64>),
    size: usize,
    mut spare: impl FnMut() -> Option<Page> + 'c,
) -> impl Iterator<Item = Result<Page, LedgerError>> + 'c {
    let mut next = Some(from);
    // The largest page read so far: a new page's memory is made to take it and an eighth more.
    let mut largest = (0, 0);
    std::iter::from_fn(move || {
        let at = next.take()?;
        let into = spare().unwrap_or_else(|| {
            let (entries, verdicts) = largest;
            Page::with_capacity((entries + entries / 8, verdicts + verdicts / 8))
        });
        match Page::read(conn, at, size.max(1), until, into) {
            Ok(page) if page.rows.is_empty() => None,
            Ok(page) => {
                next = Some(at + page.rows.len() as u64);
                let (entries, verdicts) = page.copy_len();
                largest = (largest.0.max(entries), largest.1.max(verdicts));
                Some(Ok(page))
            }
            Err(e) => Some(Err(e)),
        }
    })
}

/// Reads every page from `from` on as the walk does (entries, derived rows, tree nodes) and
/// checks nothing: what reading alone costs. The entries read.
pub(super) fn read_only(
    conn: &mut PgConnection,
    from: u64,
    size: usize,
) -> Result<u64, LedgerError> {
    let spare = std::cell::Cell::new(None);
    let read = pages(conn, (from, None), size, || spare.take()).try_fold(0, |read, page| {
        let page = page?;
        let read = read + page.rows.len() as u64;
        spare.set(Some(page));
        Ok(read)
    });
    read
}

/// Reads pages from `from` on and sends them, until the entries end, reading fails or the
/// pages are no longer wanted (the sender dropped at the end tells the receiver); pages
/// already checked come back through `spares` to be read into again.
fn read_pages(
    conn: &mut PgConnection,
    span: (u64, Option<u64>),
    size: usize,
    reading: Reading<'_>,
    sender: &SyncSender<Result<Page, LedgerError>>,
    spares: &Receiver<Page>,
) {
    crate::throttle::wake_in_batches();
    let mut pages = pages(conn, span, size, || spares.try_recv().ok());
    while let Some(page) = reading.counted(|| pages.next()) {
        let bytes = page.as_ref().map_or(0, |p| p.rows.entry_bytes());
        if sender.send(page).is_err() {
            return;
        }
        if let Some(throttle) = reading.throttle {
            throttle.after_page(bytes);
        }
    }
}

/// Work for a checking thread.
enum Job {
    Check {
        page: Arc<Page>,
        rows: Range<usize>,
        last: bool,
    },
    /// Reading failed here.
    Failed(LedgerError),
}

/// The chunks of the pages received, in order.
fn jobs(pages: Receiver<Result<Page, LedgerError>>, chunk: usize) -> impl Iterator<Item = Job> {
    let mut current: Option<(Arc<Page>, usize)> = None;
    let mut finished = false;
    std::iter::from_fn(move || {
        if finished {
            return None;
        }
        let (page, start) = match current.take() {
            Some(at) => at,
            None => match pages.recv() {
                Ok(Ok(page)) if !page.rows.is_empty() => (Arc::new(page), 0),
                Ok(Err(e)) => {
                    finished = true;
                    return Some(Job::Failed(e));
                }
                Ok(Ok(_)) | Err(_) => {
                    finished = true;
                    return None;
                }
            },
        };
        let end = (start + chunk.max(1)).min(page.rows.len());
        let last = end == page.rows.len();
        if !last {
            current = Some((Arc::clone(&page), end));
        }
        Some(Job::Check {
            page,
            rows: start..end,
            last,
        })
    })
}

/// One row once checked on its own: what the walk in order still needs of it.
struct CheckedRow {
    hash: Hash,
    /// The row is not the entry expected at its place, or its hash is not its bytes'.
    early: Option<String>,
    /// The `prev_hash` inside the entry, or why the entry does not read.
    entry_prev_hash: Result<Hash, String>,
    /// Round id the stored rows lack, checked after the link.
    unkept_id: Option<UnkeptRoundId>,
    /// What is wrong past the link: its columns, its signature, its derived rows.
    late: Option<String>,
    readjudicated: bool,
}

/// A checked chunk, the page it came from and whether it was the page's last.
struct Checked {
    page: Arc<Page>,
    rows: Vec<CheckedRow>,
    last: bool,
}

/// Checks rows of a page: each on its own, then the signatures of those that read, then their
/// derived rows. Rows after the first with a problem are not looked at: the walk ends there.
fn check_chunk(
    page: &Page,
    rows: Range<usize>,
    context: &Context<'_>,
) -> Result<Vec<CheckedRow>, LedgerError> {
    let mut checked = Vec::with_capacity(rows.len());
    let mut entries: Vec<CheckedEntry<'_>> = Vec::with_capacity(rows.len());
    for n in rows {
        let Some(row) = page.rows.get(n) else { break };
        let index = page.first + n as u64;
        let (outcome, entry) = check_row(row, index, context);
        let whole =
            outcome.early.is_none() && outcome.entry_prev_hash.is_ok() && outcome.late.is_none();
        checked.push(outcome);
        match entry {
            Some(entry) if whole => entries.push(entry),
            _ => break,
        }
    }
    // A bad signature before the first other problem is the first problem.
    if let Err((n, reason)) = verify_signatures(&entries, context.signatures) {
        entries.truncate(n);
        checked.truncate(n + 1);
        if let Some(row) = checked.get_mut(n) {
            row.late = Some(reason);
        }
    }
    for (n, entry) in entries.iter().enumerate() {
        let found = derived_check::check_entry(
            entry.index,
            entry,
            &page.derived,
            context.history,
            context.plans,
        )?;
        let Some(row) = checked.get_mut(n) else { break };
        row.readjudicated = found.readjudicated;
        row.unkept_id = found.unkept_id;
        if found.difference.is_some() {
            row.late = found.difference;
            checked.truncate(n + 1);
            break;
        }
    }
    Ok(checked)
}

/// Checks one stored row against everything that must hold for it on its own, except its
/// signature, its derived rows and its link to the previous entry.
fn check_row<'r>(
    row: EntryRow<'r>,
    index: u64,
    context: &Context<'_>,
) -> (CheckedRow, Option<CheckedEntry<'r>>) {
    let hash = leaf_hash(row.entry);
    let early = if row.idx as u64 != index {
        Some(format!(
            "entry {index} is missing (next stored index is {})",
            row.idx
        ))
    } else if row.leaf_hash != hash.as_slice() {
        Some("stored entry hash does not match the entry bytes".into())
    } else {
        None
    };
    let entry = match early {
        Some(_) => Err(String::new()),
        None => check_entry(row.entry, index, context.signers),
    };
    let late = entry
        .as_ref()
        .ok()
        .and_then(|entry| columns_problem(&row, entry, index, context.registry_events));
    let checked = CheckedRow {
        hash,
        early,
        entry_prev_hash: entry.as_ref().map(|e| e.prev_hash).map_err(Clone::clone),
        unkept_id: None,
        late,
        readjudicated: false,
    };
    (checked, entry.ok())
}

/// What is wrong with a row's columns against the entry it holds, if anything.
fn columns_problem(
    row: &EntryRow<'_>,
    entry: &CheckedEntry<'_>,
    index: u64,
    registry_events: &HashSet<u64>,
) -> Option<String> {
    if entry.received_at != row.received_at {
        return Some(format!(
            "received_at column {} differs from the entry's {}",
            format_time(row.received_at),
            format_time(entry.received_at)
        ));
    }
    let columns_match = match &entry.subject {
        Subject::Record(header) => {
            row.table_id == Some(header.table_id.as_str())
                && row.seq_no == Some(header.seq_no as i64)
        }
        Subject::Registry(event) => {
            if !registry_events.contains(&index) {
                return Some("a registry event stored as if it were a table's record".into());
            }
            event.table_id() == row.table_id && row.seq_no.is_none()
        }
    };
    let problem = if !columns_match {
        "table_id/seq_no columns differ from the signed record"
    } else if row.key_id != entry.key_id
        || row.record_hash != record_hash(entry.record.as_bytes()).as_slice()
    {
        "key_id/record_hash columns differ from the signed record"
    } else {
        return None;
    };
    // A record changed in the entry fails its signature first: say that.
    Some(match entry.verify_signature() {
        Err(signature) => signature,
        Ok(()) => problem.into(),
    })
}

/// Why the walk in order stopped early.
enum Stop {
    Failed(VerifyFailure),
    Database(LedgerError),
    Panicked,
}

/// The walk in order: each checked row linked to the one before, pushed into the tree (whose
/// stored nodes must be the ones it completes), and every signed checkpoint met on the way.
struct Chain<'a> {
    next: u64,
    prev_hash: Hash,
    frontier: Frontier,
    pending: &'a mut PendingCheckpoints,
    /// An accepted rollback holds for the ledger it names: the tree of the entries before it.
    restored_roots: &'a HashMap<u64, Hash>,
    rounds_readjudicated: u64,
    unkept_ids: Vec<(u64, UnkeptRoundId)>,
}

impl Chain<'_> {
    fn follow(&mut self, page: &Page, rows: Vec<CheckedRow>) -> Result<(), VerifyFailure> {
        for row in rows {
            let index = self.next;
            let fail = |reason: String| VerifyFailure { index, reason };
            if self
                .restored_roots
                .get(&index)
                .is_some_and(|root| *root != self.frontier.root())
            {
                return Err(fail(format!(
                    "the rollback accepted at index {index} names another tree of its {index} restored entries than the ledger has: it was accepted for another ledger, or the entries before it were rewritten"
                )));
            }
            if let Some(early) = row.early {
                return Err(fail(early));
            }
            // The `prev_hash` column, read from the page the chunk came from (the rows of a
            // chunk are consecutive entries of it).
            let stored_prev_hash = index
                .checked_sub(page.first)
                .and_then(|n| page.rows.get(usize::try_from(n).ok()?))
                .map(|stored| stored.prev_hash);
            if stored_prev_hash != Some(self.prev_hash.as_slice()) {
                return Err(fail(
                    "prev_hash does not match the hash of the previous entry".into(),
                ));
            }
            if row.entry_prev_hash.map_err(fail)? != self.prev_hash {
                return Err(fail(
                    "prev_hash inside the entry does not match the previous entry".into(),
                ));
            }
            if let Some(unkept) = row.unkept_id {
                self.unkept_ids.push((index, unkept));
            }
            if let Some(late) = row.late {
                return Err(fail(late));
            }
            self.prev_hash = row.hash;
            for (level, node, hash) in self.frontier.push(row.hash) {
                if page.nodes.get(&(level, node)) != Some(&hash) {
                    let first_leaf = node << level;
                    return Err(VerifyFailure {
                        index: first_leaf,
                        reason: format!(
                            "Merkle node (level {level}, index {node}) over entries {first_leaf}..={index} is missing or does not match the entries"
                        ),
                    });
                }
            }
            self.rounds_readjudicated += u64::from(row.readjudicated);
            self.next += 1;
            self.pending.reached(&self.frontier)?;
        }
        Ok(())
    }
}

/// Walks the stored entries from `start` on, reading ahead on a thread of its own and checking
/// on every core. `progress(walked)` is called after each page.
pub(super) fn walk_entries(
    conn: &mut PgConnection,
    start: Start,
    reading: Reading<'_>,
    context: Context<'_>,
    pending: &mut PendingCheckpoints,
    restored_roots: &HashMap<u64, Hash>,
    mut progress: impl FnMut(u64),
) -> Result<Walked, LedgerError> {
    let mut chain = Chain {
        next: start.index,
        prev_hash: start.prev_hash,
        frontier: start.frontier,
        pending,
        restored_roots,
        rounds_readjudicated: 0,
        unkept_ids: Vec::new(),
    };
    // Two pages in the channel at most: memory stays bounded whatever the ledger's size.
    let (send, received) = sync_channel(1);
    let (recycle, spares) = sync_channel(PAGES_KEPT);
    for page in reading.pool.map(PagePool::take).unwrap_or_default() {
        let _ = recycle.try_send(page);
    }
    let (paging, threads) = (reading.paging, reading.threads.max(1));
    let outcome = std::thread::scope(|scope| {
        let span = (start.index, start.until);
        let size = paging.page.max(1);
        // The reader gives the spares back when it ends, to be kept for the next walk.
        let reader = scope.spawn(move || {
            read_pages(conn, span, size, reading, &send, &spares);
            spares
        });
        let work = |job: Job| match job {
            Job::Failed(e) => Err(e),
            Job::Check { page, rows, last } => reading
                .counted(|| check_chunk(&page, rows, &context))
                .map(|rows| Checked { page, rows, last }),
        };
        let consume = |checked: Result<Checked, LedgerError>| -> Result<(), Stop> {
            let checked = checked.map_err(Stop::Database)?;
            reading
                .counted(|| chain.follow(&checked.page, checked.rows))
                .map_err(Stop::Failed)?;
            if checked.last {
                progress(chain.next);
                // The page's chunks are all followed: its memory is read into again.
                if let Ok(page) = Arc::try_unwrap(checked.page) {
                    let _ = recycle.try_send(page);
                }
            }
            Ok(())
        };
        let outcome = dozor_log::ordered_pool::run_in_order(
            threads,
            // Two pages' worth keeps every core busy across page boundaries.
            2 * paging.page.div_ceil(paging.chunk.max(1)),
            jobs(received, paging.chunk),
            work,
            consume,
            || Stop::Panicked,
        );
        if let (Some(pool), Ok(spares)) = (reading.pool, reader.join()) {
            pool.keep(spares.try_iter());
        }
        outcome
    });
    let failure = match outcome {
        Ok(()) => None,
        Err(Stop::Failed(failure)) => Some(failure),
        Err(Stop::Database(e)) => return Err(e),
        Err(Stop::Panicked) => return Err(dozor_log::parallel::WorkerPanicked.into()),
    };
    Ok(Walked {
        entries: failure
            .as_ref()
            .map_or(chain.next, |f| f.index.min(chain.next)),
        prev_hash: chain.prev_hash,
        frontier: chain.frontier,
        rounds_readjudicated: chain.rounds_readjudicated,
        unkept_ids: chain.unkept_ids,
        failure,
    })
}
