//! The ledger written and read directly, past the server: tables registered, records signed,
//! prepared as ingest prepares them and appended, exports written and verified offline.

use api::state::AppState;
use chrono::{DateTime, NaiveDate, Utc};
use ed25519_dalek::SigningKey;
use ledger::storage::append::AppendOutcome;
use ledger::storage::registry::NewTable;
use reports::inspection::ExportRequest;
use rules::gaming_day::GamingDayClock;
use serde_json::Value;
use std::path::Path;

use super::{operator, signed};

/// An RFC 3339 instant.
pub fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .unwrap()
        .with_timezone(&Utc)
}

/// Table `table_id` of `game` at `location` under the tests' plan, with no wheel layout, limits
/// or start of play of its own.
pub fn new_table<'a>(table_id: &'a str, game: &'a str, location: &'a str) -> NewTable<'a> {
    NewTable {
        table_id,
        game,
        location,
        plan_id: "69games-ziva-hra",
        wheel_layout: None,
        plays_from: None,
        limits: None,
    }
}

/// Registers `table` with `key` on the database directly, signed by the tests' operator at `at`.
pub fn register_on(
    conn: &mut diesel::PgConnection,
    table: NewTable,
    key: &SigningKey,
    at: DateTime<Utc>,
) {
    ledger::storage::registry::register_table(
        conn,
        operator().signing_key(),
        table,
        &key.verifying_key(),
        "cli:tests",
        at,
    )
    .unwrap();
}

/// `record` signed by `key` and prepared as ingest prepares it (envelope, key, signature,
/// verdict).
pub fn prepared(
    state: &AppState,
    record: Value,
    key: &SigningKey,
) -> ledger::storage::append::Submission {
    let body = serde_json::to_vec(&signed(record, key)).unwrap();
    let envelope = ledger::ingest::parse_envelope(&body).unwrap();
    state.ingest.prepare(envelope).unwrap()
}

/// `record` signed by `key`, prepared as ingest prepares it and appended as received at
/// `received`: the writer's outcome.
pub fn append_signed(
    state: &AppState,
    conn: &mut diesel::PgConnection,
    record: Value,
    key: &SigningKey,
    received: DateTime<Utc>,
) -> Vec<AppendOutcome> {
    let submission = prepared(state, record, key);
    ledger::storage::append::append_batch(conn, &[submission], received).unwrap()
}

/// The ledger index of the one record an append placed, which must have been appended.
pub fn appended_index(outcome: &[AppendOutcome]) -> u64 {
    let AppendOutcome::Appended(receipt) = &outcome[0] else {
        panic!("{outcome:?}")
    };
    receipt.index
}

/// Writes the inspection export of gaming days `from` to `to` into `out`, sealed by the tests'
/// operator, with no data directory and no witnesses.
pub fn export_days(conn: &mut diesel::PgConnection, from: NaiveDate, to: NaiveDate, out: &Path) {
    let (clock, operator) = (GamingDayClock::default(), operator());
    let request = ExportRequest::new(&clock, &operator, "cli:tests", (from, to), out, Utc::now());
    reports::inspection::write_export(conn, &request, &mut |_, _| {}).unwrap();
}

/// Signs a checkpoint over the whole ledger in the database at `url` and exports gaming day
/// `day` into `out`.
pub fn checkpoint_and_export_day(url: &str, day: NaiveDate, out: &Path) {
    let mut conn = ledger::storage::connect(url).unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
    export_days(&mut conn, day, day, out);
}

/// The offline verifier over the export at `out`, trusting the tests' operator, with the
/// default options.
pub fn verify_exported(
    out: &Path,
) -> Result<dozor_verify::InspectionReport, dozor_verify::InspectionError> {
    dozor_verify::verify_export(
        out,
        &[operator().verifier()],
        dozor_verify::VerifyOptions::default(),
        |_, _| {},
    )
}
