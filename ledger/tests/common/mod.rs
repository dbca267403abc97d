//! Set-up the ledger's tests share: table R01 registered, notes signed as ingest hands them to
//! the writer.
#![allow(dead_code)]

use chrono::{Duration, Utc};
use diesel::PgConnection;
use dozor_log::Envelope;
use ed25519_dalek::SigningKey;
use ledger::storage::append::Submission;
use ledger::storage::registry::{register_table, NewTable};
use serde_json::Value;

/// Registers roulette table R01 (Praha 1, plan `p`) five seconds ago, signed by `operator`;
/// the table's key.
pub fn register_r01(conn: &mut PgConnection, operator: &SigningKey) -> SigningKey {
    let key = SigningKey::from_bytes(&[5u8; 32]);
    let table = NewTable {
        table_id: "R01",
        game: "roulette",
        location: "Praha 1",
        plan_id: "p",
        wheel_layout: None,
        plays_from: None,
        limits: None,
    };
    register_table(
        conn,
        operator,
        table,
        &key.verifying_key(),
        "cli:tests",
        Utc::now() - Duration::seconds(5),
    )
    .unwrap();
    key
}

/// The note `record` of `table` (its `seq_no`) signed by `key`, as ingest hands it to the
/// writer.
pub fn note_submission(key: &SigningKey, record: Value, table: &str, seq_no: u64) -> Submission {
    let envelope = Envelope::sign(record, key).unwrap();
    let canonical = String::from_utf8(envelope.verify(&key.verifying_key()).unwrap()).unwrap();
    Submission::new(
        envelope.key_id,
        envelope.signature,
        canonical,
        "note".into(),
        table.into(),
        seq_no,
        None,
    )
}
