//! Group commit: one writer thread appends whatever has queued up in a single transaction and
//! answers each request only after that transaction has committed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use tokio::sync::oneshot;

use super::error::IngestError;
use super::submission::Submission;
use crate::error::LedgerError;
use crate::storage::append::batch::{append_batch_then, WriterCache};
use crate::storage::append::outcome::AppendOutcome;
use crate::storage::checkpoints::{self, CheckpointRow};
use crate::storage::connection::connect;
use crate::storage::reads;
use crate::tile_publish::handoff::Handoff;
use crate::witness::Witness;
use dozor_log::checkpoint::NoteSigner;

/// A batch's failure, shared by every submission in it.
type Failure = std::sync::Arc<LedgerError>;
type Reply = oneshot::Sender<Result<AppendOutcome, Failure>>;

struct Job {
    submission: Submission,
    reply: Reply,
}

/// When the writer signs a new checkpoint: after `every_entries` new entries, or `every` after
/// the last checkpoint if anything was appended since. Every receipt is covered within that bound.
#[derive(Debug, Clone)]
pub struct CheckpointPolicy {
    pub every_entries: u64,
    pub every: Duration,
    /// Where each signed checkpoint is also kept, outside the database.
    pub witness: Option<Witness>,
}

#[derive(Clone)]
pub struct Appender {
    queue: SyncSender<Job>,
    status: Arc<WriterStatus>,
}

/// What the operator's readiness check and metrics see of the writer thread.
#[derive(Debug, Default)]
pub struct WriterStatus {
    /// Submissions queued and not yet taken into a batch.
    queued: AtomicUsize,
    /// The writer thread is running (false before it starts and once it has ended, panics too).
    alive: AtomicBool,
    /// Why the writer does not know the ledger's head from its database connection (`None`
    /// once it has read it, after start and after every lost connection).
    head_unknown: std::sync::Mutex<Option<String>>,
}

impl WriterStatus {
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }

    pub fn alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }

    /// Why the writer cannot append yet: it has not read the ledger's head from the database
    /// it is connected to (at start, and after a lost connection or a failover), or what it
    /// read there lacks entries it acknowledged. `None` when it can append.
    pub fn head_problem(&self) -> Option<String> {
        self.head_unknown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set_head_problem(&self, problem: Option<String>) {
        *self
            .head_unknown
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = problem;
    }
}

/// Marks the writer as ended when its thread leaves `run`, however it leaves.
struct AliveWhileHeld(Arc<WriterStatus>);

impl AliveWhileHeld {
    fn new(status: Arc<WriterStatus>) -> AliveWhileHeld {
        status.alive.store(true, Ordering::Relaxed);
        AliveWhileHeld(status)
    }
}

impl Drop for AliveWhileHeld {
    fn drop(&mut self) {
        self.0.alive.store(false, Ordering::Relaxed);
    }
}

impl Appender {
    /// Starts the writer thread on its own connection to `url`.
    pub fn start(
        url: String,
        max_batch: usize,
        queue_len: usize,
        signer: NoteSigner,
        checkpoints: Option<CheckpointPolicy>,
        handoff: Option<Arc<Handoff>>,
    ) -> Appender {
        let (queue, jobs) = sync_channel(queue_len);
        let checkpoints = checkpoints.map(|policy| (signer, policy));
        let status = Arc::new(WriterStatus::default());
        status.set_head_problem(Some(NOT_READ_YET.into()));
        let writer_status = status.clone();
        std::thread::Builder::new()
            .name("ledger-appender".into())
            .spawn(move || {
                let _alive = AliveWhileHeld::new(writer_status.clone());
                let mut writer = Writer::new(url);
                writer.handoff = handoff;
                run(writer, jobs, max_batch.max(1), checkpoints, &writer_status)
            })
            .map_err(|e| tracing::error!("cannot start the ledger appender: {e}"))
            .ok();
        Appender { queue, status }
    }

    /// The writer thread's state: queue depth and whether it runs.
    pub fn status(&self) -> &WriterStatus {
        &self.status
    }

    /// Appends one record; resolves when its batch is durable (or has failed as a whole).
    pub async fn append(&self, submission: Submission) -> Result<AppendOutcome, IngestError> {
        let answer = self.enqueue(submission)?;
        Self::outcome(answer).await
    }

    /// Appends several records, each on its own: all are queued at once (so they share group
    /// commits) and each outcome comes when its batch is durable.
    pub async fn append_all(
        &self,
        submissions: Vec<Submission>,
    ) -> Vec<Result<AppendOutcome, IngestError>> {
        let answers: Vec<_> = submissions.into_iter().map(|s| self.enqueue(s)).collect();
        let mut outcomes = Vec::with_capacity(answers.len());
        for answer in answers {
            outcomes.push(match answer {
                Ok(answer) => Self::outcome(answer).await,
                Err(e) => Err(e),
            });
        }
        outcomes
    }

    fn enqueue(
        &self,
        submission: Submission,
    ) -> Result<oneshot::Receiver<Result<AppendOutcome, Failure>>, IngestError> {
        let (reply, answer) = oneshot::channel();
        // Counted before it is sent, so that the writer never takes away more than was added.
        self.status.queued.fetch_add(1, Ordering::Relaxed);
        match self.queue.try_send(Job { submission, reply }) {
            Ok(()) => Ok(answer),
            Err(TrySendError::Full(_)) => Err(self.not_queued(IngestError::Unavailable {
                reason: "the ingest queue is full",
                cause: "ingest queue full".into(),
            })),
            Err(TrySendError::Disconnected(_)) => Err(self.not_queued(IngestError::Unavailable {
                reason: "the ledger writer is not running",
                cause: "ledger appender disconnected".into(),
            })),
        }
    }

    fn not_queued(&self, error: IngestError) -> IngestError {
        self.status.queued.fetch_sub(1, Ordering::Relaxed);
        error
    }

    async fn outcome(
        answer: oneshot::Receiver<Result<AppendOutcome, Failure>>,
    ) -> Result<AppendOutcome, IngestError> {
        match answer.await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(failure)) => Err(IngestError::Unavailable {
                reason: "the record could not be appended",
                cause: failure.to_string(),
            }),
            Err(_) => Err(IngestError::Unavailable {
                reason: "the ledger writer stopped",
                cause: "ledger appender dropped the reply".into(),
            }),
        }
    }
}

/// Readiness before the writer has read the ledger's head.
const NOT_READ_YET: &str = "the ledger writer has not yet read the ledger's head from the database";

/// How long the writer waits before trying a lost database again.
const RECONNECT_WAIT: Duration = Duration::from_millis(200);

/// The writer thread's link to the database and what it knows through it. Everything it
/// remembers of the ledger is dropped with the connection: a new connection may reach another
/// server (after a failover, the promoted standby), whose head is read before anything is
/// appended to it.
struct Writer {
    url: String,
    conn: Option<PgConnection>,
    cache: WriterCache,
    last_checkpoint: Option<LastCheckpoint>,
    /// The highest entry this writer has given a receipt for: its index and leaf hash. A
    /// database whose ledger lacks it (a standby that was not synchronous, a restore to an
    /// earlier point) is never appended to.
    acknowledged: Option<(u64, [u8; 32])>,
    /// Where each committed batch's entries go for the tile publisher, if tiles are published.
    handoff: Option<Arc<Handoff>>,
}

impl Writer {
    fn new(url: String) -> Writer {
        Writer {
            url,
            conn: None,
            cache: WriterCache::default(),
            last_checkpoint: None,
            acknowledged: None,
            handoff: None,
        }
    }

    /// Forgets the connection and all that was learnt through it.
    fn lose_connection(&mut self, status: &WriterStatus, why: &str) {
        self.conn = None;
        self.cache = WriterCache::default();
        self.last_checkpoint = None;
        status.set_head_problem(Some(format!(
            "the ledger writer lost its database connection ({why}) and has not yet read the \
             ledger's head again"
        )));
    }

    /// The connection, opened and checked first when there is none: the database must take
    /// writes and hold every entry this writer acknowledged, at its hash.
    fn connection(&mut self, status: &WriterStatus) -> Result<&mut PgConnection, LedgerError> {
        if self.conn.is_none() {
            let mut conn = match connect(&self.url) {
                Ok(conn) => conn,
                Err(e) => {
                    // Retry, but not in a tight loop.
                    std::thread::sleep(RECONNECT_WAIT);
                    return Err(e);
                }
            };
            if let Err(problem) = self.read_head(&mut conn) {
                // Readiness says it in dozor's words; what the driver said goes to the log.
                let shown = match &problem {
                    LedgerError::RolledBack(_) | LedgerError::Connection(_) => problem.to_string(),
                    other => {
                        tracing::warn!(problem = %other, "the ledger writer cannot read the head");
                        "the ledger writer cannot read the ledger's head from the database".into()
                    }
                };
                status.set_head_problem(Some(shown));
                std::thread::sleep(RECONNECT_WAIT);
                return Err(problem);
            }
            status.set_head_problem(None);
            self.conn = Some(conn);
        }
        match self.conn.as_mut() {
            Some(conn) => Ok(conn),
            None => Err(LedgerError::Connection("no database connection".into())),
        }
    }

    /// Reads the ledger's head on a new connection and checks it against what this writer
    /// acknowledged before.
    fn read_head(&self, conn: &mut PgConnection) -> Result<(), LedgerError> {
        if !reads::takes_writes(conn)? {
            return Err(LedgerError::Connection(
                "the database is a standby (read-only): the ledger writer needs the primary".into(),
            ));
        }
        let size = reads::size(conn)?;
        if let Some((index, hash)) = self.acknowledged {
            match reads::leaf_hash_at(conn, index)? {
                Some(found) if found == hash => {}
                found => {
                    let what = if found.is_some() {
                        "holds another entry there"
                    } else {
                        "ends before it"
                    };
                    tracing::error!(
                        index,
                        size,
                        "the database's ledger lacks an acknowledged entry: not appending"
                    );
                    return Err(LedgerError::RolledBack(format!(
                        "this server acknowledged entry {index}, but the ledger of the database \
                         it now reaches ({size} entries) {what}"
                    )));
                }
            }
        }
        tracing::info!(size, "the ledger writer read the ledger's head");
        Ok(())
    }

    /// Remembers the highest receipt given.
    fn acknowledge(&mut self, outcomes: &[AppendOutcome]) {
        for outcome in outcomes {
            if let AppendOutcome::Appended(receipt) | AppendOutcome::AlreadyRecorded(receipt) =
                outcome
            {
                if self
                    .acknowledged
                    .is_none_or(|(index, _)| receipt.index > index)
                {
                    self.acknowledged = Some((receipt.index, receipt.entry_hash));
                }
            }
        }
    }
}

fn run(
    mut writer: Writer,
    jobs: Receiver<Job>,
    max_batch: usize,
    policy: Option<(NoteSigner, CheckpointPolicy)>,
    status: &WriterStatus,
) {
    let every = policy
        .as_ref()
        .map_or(Duration::from_secs(3600), |(_, p)| p.every);
    // Entries appended since the last checkpoint.
    let mut uncovered = false;
    // A ledger that has never been checkpointed gets its first checkpoint at once.
    let mut timeout = Duration::ZERO;
    loop {
        let first = match jobs.recv_timeout(timeout) {
            Ok(job) => Some(job),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        // Whether a batch was appended, and whether its transaction signed a checkpoint.
        let mut appended = None;
        if let Some(first) = first {
            appended = append_queued(&mut writer, first, &jobs, max_batch, status, &policy);
            uncovered = appended != Some(true);
        }
        let mut failed = false;
        // After an append the checkpoint was decided in its transaction, at the same moment.
        if appended.is_some() {
            // Nothing more to do before the next wait.
        } else if let Some((signer, policy)) = &policy {
            let mut last = writer.last_checkpoint.take();
            let result = writer
                .connection(status)
                .and_then(|c| checkpoint_if_due(c, signer, policy, &mut last));
            writer.last_checkpoint = last;
            match result {
                Ok(true) => uncovered = false,
                Ok(false) => {}
                Err(e) => {
                    tracing::error!("checkpoint failed: {e}");
                    writer.lose_connection(status, "a checkpoint failed");
                    failed = true;
                }
            }
        } else if writer.conn.is_none() {
            // Without checkpoints too, readiness follows the database: the head is read as
            // soon as it answers, not only when the next record comes.
            failed = writer.connection(status).is_err();
        }
        timeout = next_wait(
            writer.last_checkpoint.map(|(_, at)| at),
            every,
            uncovered,
            Utc::now(),
        );
        if failed || writer.conn.is_none() {
            // Try again soon (the head must be read before anything is appended), but not
            // in a tight loop.
            timeout = RECONNECT_WAIT;
        }
    }
}

/// How long the appender may wait for the next record: until the last checkpoint is `every`
/// old while entries wait for one (so no receipt waits longer than `every` for its checkpoint),
/// otherwise `every`; at once when there has never been a checkpoint.
fn next_wait(
    last: Option<DateTime<Utc>>,
    every: Duration,
    uncovered: bool,
    now: DateTime<Utc>,
) -> Duration {
    match last {
        None => Duration::ZERO,
        Some(at) if uncovered => {
            let due = at + chrono::Duration::from_std(every).unwrap_or(chrono::Duration::MAX);
            (due - now).to_std().unwrap_or(Duration::ZERO)
        }
        Some(_) => every,
    }
}

/// Appends the queued jobs, signing a checkpoint in the same transaction if one is due; `None`
/// if the append failed, else whether it signed one.
fn append_queued(
    writer: &mut Writer,
    first: Job,
    jobs: &Receiver<Job>,
    max_batch: usize,
    status: &WriterStatus,
    policy: &Option<(NoteSigner, CheckpointPolicy)>,
) -> Option<bool> {
    let mut batch = vec![first];
    while batch.len() < max_batch {
        match jobs.try_recv() {
            Ok(job) => batch.push(job),
            Err(_) => break,
        }
    }
    status.queued.fetch_sub(batch.len(), Ordering::Relaxed);
    let (submissions, replies): (Vec<Submission>, Vec<Reply>) =
        batch.into_iter().map(|j| (j.submission, j.reply)).unzip();
    let mut cache = std::mem::take(&mut writer.cache);
    cache.hand_over(writer.handoff.is_some());
    let last = writer.last_checkpoint;
    let result = writer.connection(status).and_then(|c| {
        append_batch_then(
            c,
            &submissions,
            Utc::now(),
            &mut cache,
            |conn, size, root| {
                let Some((signer, policy)) = policy else {
                    return Ok((last, None));
                };
                checkpoint_in_transaction(conn, signer, policy, last, size, root)
            },
        )
    });
    match result {
        Ok((outcomes, (last, signed))) => {
            if let Some(handoff) = &writer.handoff {
                handoff.hand(cache.take_committed());
            }
            writer.cache = cache;
            writer.acknowledge(&outcomes);
            for (reply, outcome) in replies.into_iter().zip(outcomes) {
                let _ = reply.send(Ok(outcome));
            }
            writer.last_checkpoint = last;
            let Some(row) = signed else {
                return Some(false);
            };
            let witness = policy.as_ref().and_then(|(_, p)| p.witness.as_ref());
            if let Some(Err(e)) =
                witness.map(|w| w.record(row.size as u64, row.created_at, &row.note))
            {
                tracing::error!("checkpoint failed: {e}");
                writer.lose_connection(status, "a checkpoint failed");
            }
            Some(true)
        }
        Err(e) => {
            tracing::error!("append of {} records failed: {e}", replies.len());
            // Reconnect, and read the head again, before the next batch.
            writer.lose_connection(status, "an append failed");
            let failure = Failure::new(e);
            for reply in replies {
                let _ = reply.send(Err(failure.clone()));
            }
            None
        }
    }
}

/// Inside the append's transaction, at the ledger's new `size` and `root`: signs and stores a
/// checkpoint if one is due. Returns the last checkpoint as now known (read if `last` was not
/// known), and the one signed.
fn checkpoint_in_transaction(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    policy: &CheckpointPolicy,
    last: Option<LastCheckpoint>,
    size: u64,
    root: [u8; 32],
) -> Result<(Option<LastCheckpoint>, Option<CheckpointRow>), LedgerError> {
    let last = match last {
        Some(last) => Some(last),
        None => checkpoints::latest(conn)?.map(|c| (c.size as u64, c.created_at)),
    };
    let now = Utc::now();
    if !is_due(last, size, now, policy) {
        return Ok((last, None));
    }
    let row = checkpoints::create_with_root(conn, signer, size, root, now)?;
    Ok((Some((size, now)), Some(row)))
}

/// The size and time of the latest checkpoint.
type LastCheckpoint = (u64, DateTime<Utc>);

/// Whether a checkpoint of `size` entries is due, `last` the latest one: entries were added
/// since, and enough of them or enough time.
fn is_due(
    last: Option<LastCheckpoint>,
    size: u64,
    now: DateTime<Utc>,
    policy: &CheckpointPolicy,
) -> bool {
    match last {
        None => true,
        Some((last_size, at)) => {
            size > last_size
                && (size - last_size >= policy.every_entries
                    || now.signed_duration_since(at).to_std().unwrap_or_default() >= policy.every)
        }
    }
}

/// Signs a checkpoint when enough entries or enough time have passed since the last one;
/// whether it did.
fn checkpoint_if_due(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    policy: &CheckpointPolicy,
    last: &mut Option<LastCheckpoint>,
) -> Result<bool, LedgerError> {
    if last.is_none() {
        *last = checkpoints::latest(conn)?.map(|c| (c.size as u64, c.created_at));
    }
    let size = reads::size(conn)?;
    let now = Utc::now();
    let due = is_due(*last, size, now, policy);
    if due {
        sign_checkpoint(conn, signer, size, now, policy.witness.as_ref())?;
        *last = Some((size, now));
    }
    Ok(due)
}

/// Signs and stores a checkpoint of the first `size` entries and keeps it in the witness file,
/// if there is one.
pub fn sign_checkpoint(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    size: u64,
    now: DateTime<Utc>,
    witness: Option<&Witness>,
) -> Result<CheckpointRow, LedgerError> {
    let row = checkpoints::create(conn, signer, size, now)?;
    if let Some(witness) = witness {
        witness.record(size, row.created_at, &row.note)?;
    }
    Ok(row)
}

/// At shutdown: signs a checkpoint of everything appended if the latest does not cover it, so
/// no receipt is left without a checkpoint while the server is down.
pub fn final_checkpoint(
    url: &str,
    signer: &NoteSigner,
    witness: Option<&Witness>,
) -> Result<(), LedgerError> {
    let mut conn = connect(url)?;
    let size = reads::size(&mut conn)?;
    let latest = checkpoints::latest(&mut conn)?.map(|c| c.size as u64);
    if latest.is_none_or(|l| l < size) {
        sign_checkpoint(&mut conn, signer, size, Utc::now(), witness)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_ends_when_the_oldest_uncovered_receipt_reaches_the_bound() {
        let every = Duration::from_secs(10);
        let at = Utc::now();
        let later = |s: i64| at + chrono::Duration::seconds(s);
        // Entries waiting since a checkpoint 3 s ago: 7 s more, not a full 10.
        assert_eq!(
            next_wait(Some(at), every, true, later(3)),
            Duration::from_secs(7)
        );
        // Overdue: at once.
        assert_eq!(next_wait(Some(at), every, true, later(12)), Duration::ZERO);
        // Nothing waiting: a full interval; never checkpointed: at once.
        assert_eq!(next_wait(Some(at), every, false, later(3)), every);
        assert_eq!(next_wait(None, every, true, later(3)), Duration::ZERO);
    }
}
