//! Group commit: one writer thread appends whatever has queued up in a single transaction and
//! answers each request only after that transaction has committed.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::time::Duration;

use chrono::Utc;
use diesel::prelude::*;
use ledger::storage::append::{append_batch, AppendOutcome, Submission};
use ledger::storage::connect;
use tokio::sync::oneshot;

use crate::error::ApiError;

type Reply = oneshot::Sender<Result<AppendOutcome, String>>;

struct Job {
    submission: Submission,
    reply: Reply,
}

#[derive(Clone)]
pub struct Appender {
    queue: SyncSender<Job>,
}

impl Appender {
    /// Starts the writer thread on its own connection to `url`.
    pub fn start(url: String, max_batch: usize, queue_len: usize) -> Appender {
        let (queue, jobs) = sync_channel(queue_len);
        std::thread::Builder::new()
            .name("ledger-appender".into())
            .spawn(move || run(url, jobs, max_batch.max(1)))
            .map_err(|e| tracing::error!("cannot start the ledger appender: {e}"))
            .ok();
        Appender { queue }
    }

    /// Appends one record; resolves when its batch is durable (or has failed as a whole).
    pub async fn append(&self, submission: Submission) -> Result<AppendOutcome, ApiError> {
        let (reply, answer) = oneshot::channel();
        match self.queue.try_send(Job { submission, reply }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                return Err(ApiError::Unavailable(
                    "ingest queue is full; retry shortly".into(),
                ))
            }
            Err(TrySendError::Disconnected(_)) => {
                return Err(ApiError::Unavailable(
                    "ledger appender is not running".into(),
                ))
            }
        }
        match answer.await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(e)) => Err(ApiError::Unavailable(format!("record not appended: {e}"))),
            Err(_) => Err(ApiError::Unavailable("ledger appender stopped".into())),
        }
    }
}

fn run(url: String, jobs: Receiver<Job>, max_batch: usize) {
    let mut conn: Option<PgConnection> = None;
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < max_batch {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let (submissions, replies): (Vec<Submission>, Vec<Reply>) =
            batch.into_iter().map(|j| (j.submission, j.reply)).unzip();
        let result = match connection(&mut conn, &url) {
            Ok(c) => append_batch(c, &submissions, Utc::now()).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        match result {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    let _ = reply.send(Ok(outcome));
                }
            }
            Err(e) => {
                tracing::error!("append of {} records failed: {e}", replies.len());
                conn = None; // reconnect before the next batch
                for reply in replies {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

fn connection<'a>(
    conn: &'a mut Option<PgConnection>,
    url: &str,
) -> Result<&'a mut PgConnection, String> {
    if conn.is_none() {
        match connect(url) {
            Ok(c) => *conn = Some(c),
            Err(e) => {
                std::thread::sleep(Duration::from_millis(200));
                return Err(e.to_string());
            }
        }
    }
    conn.as_mut()
        .ok_or_else(|| "no database connection".to_owned())
}
