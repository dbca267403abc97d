#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger's single writer when its database connection is lost (a restart of PostgreSQL,
//! a failover): it reads the ledger's head again before it appends anything, is not ready until
//! it has, and never appends to a ledger that lacks an entry it gave a receipt for.

use chrono::Utc;
use diesel::connection::SimpleConnection as _;
use dozor_log::checkpoint::NoteSigner;
use ed25519_dalek::SigningKey;
use ledger::ingest::Appender;
use ledger::storage::append::{AppendOutcome, Submission};
use ledger::storage::{connect, reads, testing};
use serde_json::json;

mod common;

use common::{note_submission, register_r01};

fn submission(key: &SigningKey, seq_no: u64) -> Submission {
    let record = json!({"type": "note", "table_id": "R01", "seq_no": seq_no, "plan_id": "p"});
    note_submission(key, record, "R01", seq_no)
}

/// A fresh ledger with table R01 registered (entry 0); its URL and the table's key.
fn ledger() -> (String, SigningKey) {
    let url = testing::fresh_database().unwrap();
    let operator = SigningKey::from_bytes(&[9u8; 32]);
    let key = register_r01(&mut connect(&url).unwrap(), &operator);
    (url, key)
}

fn appender(url: &str) -> Appender {
    let signer = NoteSigner::new("dozor.test/ledger", SigningKey::from_bytes(&[9u8; 32])).unwrap();
    Appender::start(url.to_owned(), 100, 100, signer, None, None)
}

/// Waits (at most 10 s) until the writer's head problem is as `wanted` says.
fn wait_for(appender: &Appender, wanted: impl Fn(Option<&str>) -> bool) -> Option<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let problem = appender.status().head_problem();
        if wanted(problem.as_deref()) {
            return problem;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the writer's head problem stayed {problem:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Ends every other session on the writer's database, as a PostgreSQL restart or a failover
/// ends the writer's.
fn end_other_sessions(url: &str) {
    let mut conn = connect(url).unwrap();
    conn.batch_execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .unwrap();
}

fn appended_index(outcome: Result<AppendOutcome, ledger::ingest::IngestError>) -> u64 {
    match outcome {
        Ok(AppendOutcome::Appended(receipt)) => receipt.index,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn after_a_lost_connection_the_writer_reads_the_head_again_and_goes_on_at_it() {
    let (url, key) = ledger();
    let appender = appender(&url);
    // Not ready until it has read the head; then it appends after entry 0.
    assert_eq!(wait_for(&appender, |p| p.is_none()), None);
    assert_eq!(
        appended_index(appender.append(submission(&key, 1)).await),
        1
    );

    // Another writer appends while this one's connection is gone: whatever the writer held
    // in memory, the next entry goes after the ledger's real head.
    end_other_sessions(&url);
    ledger::storage::append::append_batch(
        &mut connect(&url).unwrap(),
        &[submission(&key, 2)],
        Utc::now(),
    )
    .unwrap();
    // The first batch after the loss finds the connection dead and fails as a whole (its
    // client is told to retry); the writer reconnects and reads the head.
    let failed = appender.append(submission(&key, 3)).await;
    assert!(failed.is_err(), "{failed:?}");
    assert_eq!(wait_for(&appender, |p| p.is_none()), None);
    assert_eq!(
        appended_index(appender.append(submission(&key, 3)).await),
        3
    );
    let mut conn = connect(&url).unwrap();
    assert_eq!(reads::size(&mut conn).unwrap(), 4);
    let verified = ledger::storage::verify::verify_ledger(
        &mut conn,
        &std::collections::HashMap::from([{
            let public = SigningKey::from_bytes(&[9u8; 32]).verifying_key();
            (dozor_log::keys::key_id(&public), public)
        }]),
        dozor_log::entry_check::SignatureCheck::Batch,
        |_| {},
    )
    .unwrap();
    assert!(verified.failure.is_none(), "{:?}", verified.failure);
}

#[tokio::test]
async fn a_database_without_an_acknowledged_entry_is_never_appended_to() {
    let (url, key) = ledger();
    let appender = appender(&url);
    wait_for(&appender, |p| p.is_none());
    assert_eq!(
        appended_index(appender.append(submission(&key, 1)).await),
        1
    );
    assert_eq!(
        appended_index(appender.append(submission(&key, 2)).await),
        2
    );

    // The database comes back without entry 2 (a standby that was not synchronous, a restore
    // to an earlier point): as a superuser past the append-only triggers.
    let mut conn = connect(&url).unwrap();
    conn.batch_execute(
        "SET session_replication_role = replica; DELETE FROM ledger_entries WHERE idx = 2;",
    )
    .unwrap();
    end_other_sessions(&url);

    // The writer refuses to go on: the batch fails, it is not ready, and says why.
    let refused = appender.append(submission(&key, 3)).await;
    assert!(refused.is_err(), "{refused:?}");
    let problem = wait_for(&appender, |p| p.is_some_and(|p| p.contains("entry 2"))).unwrap();
    assert!(problem.contains("acknowledged entry 2"), "{problem}");
    assert!(problem.contains("(2 entries) ends before it"), "{problem}");
    let refused = appender.append(submission(&key, 3)).await;
    assert!(refused.is_err(), "{refused:?}");
    // (The session above was ended with the others.)
    assert_eq!(reads::size(&mut connect(&url).unwrap()).unwrap(), 2);
    assert!(appender.status().head_problem().is_some());
}
