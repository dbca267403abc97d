//! Filling a benchmark's ledger straight, as ingest appends records but without HTTP: for the
//! benchmarks that measure what reads the ledger, not ingest.

use std::collections::BTreeMap;

use anyhow::anyhow;
use chrono::Utc;
use diesel::PgConnection;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::judge;
use dozor_log::Envelope;
use ed25519_dalek::SigningKey;
use ledger::ingest::submission::{Derived, Submission};
use ledger::storage::append::{append_batch_cached, AppendOutcome, WriterCache};
use ledger::storage::registry::{register_table, NewTable};
use serde_json::Value;

/// A benchmark's operator, its key fixed by `key_byte`: a database filled by one run is signed
/// by the operator of the next.
pub fn operator(key_byte: u8) -> anyhow::Result<NoteSigner> {
    Ok(NoteSigner::new(
        "dozor.bench/ledger",
        SigningKey::from_bytes(&[key_byte; 32]),
    )?)
}

/// Registers a table and its key under the operator, as `dozor table register` does.
pub fn register(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    table: NewTable<'_>,
    key: &SigningKey,
) -> anyhow::Result<()> {
    register_table(
        conn,
        operator.signing_key(),
        table,
        &key.verifying_key(),
        &dozor_log::registry_history::cli_actor(),
        Utc::now(),
    )?;
    Ok(())
}

/// Registers a roulette table of the benchmarks under `plan_id`, as [`register`] does.
pub fn register_roulette(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    table_id: &str,
    plan_id: &str,
    key: &SigningKey,
) -> anyhow::Result<()> {
    let table = NewTable {
        table_id,
        game: "roulette",
        location: "benchmark",
        plan_id,
        wheel_layout: None,
        plays_from: None,
        limits: None,
    };
    register(conn, operator, table, key)
}

/// A record signed by its table's key and, for a round, judged as ingest judges it.
pub fn submission(
    record: Value,
    key: &SigningKey,
    plan: &rules::Plan,
    setup: &rules::TableSetup,
) -> anyhow::Result<Submission> {
    let header = rules::RecordHeader::read(&record)?;
    let derived = if rules::is_adjudicated(&header.record_type) {
        let round = rules::Round::parse(&record).map_err(|e| anyhow!("{e}"))?;
        let judged = judge::judge(&round, 0, |_| Some(plan), setup, |j| Derived::of(&j))
            .map_err(|e| anyhow!("{e}"))?;
        Some(judged?)
    } else {
        None
    };
    let envelope = Envelope::sign(record, key)?;
    let canonical = dozor_log::canonical::canonical_text(&envelope.record)?;
    Ok(Submission::with_header(
        envelope.key_id,
        envelope.signature,
        canonical,
        header,
        derived,
    ))
}

/// Appends a batch in one transaction, every record of it appended.
pub fn append(
    conn: &mut PgConnection,
    batch: &[Submission],
    cache: &mut WriterCache,
) -> anyhow::Result<()> {
    all_appended(&append_batch_cached(conn, batch, Utc::now(), cache)?)
}

/// Fails the benchmark unless every record of a fill was appended: one not in the ledger would
/// leave it measuring less than it claims. Names those that were not, by outcome, in one line.
fn all_appended(outcomes: &[AppendOutcome]) -> anyhow::Result<()> {
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    for outcome in outcomes {
        let why = match outcome {
            AppendOutcome::Appended(_) => continue,
            AppendOutcome::AlreadyRecorded(_) => "already_recorded".to_owned(),
            AppendOutcome::SeqNoConflict { .. } => "seq_no_conflict".to_owned(),
            AppendOutcome::RoundIdConflict { .. } => "round_id_conflict".to_owned(),
            AppendOutcome::KeyNotValid { reason, .. } => format!("key_not_valid ({reason})"),
            AppendOutcome::LimitsChanged(_) => "limits_changed".to_owned(),
        };
        *refused.entry(why).or_default() += 1;
    }
    let total: usize = refused.values().sum();
    crate::outcome::expect_result(total == 0, || {
        let parts: Vec<String> = refused
            .iter()
            .map(|(why, n)| format!("{why} ×{n}"))
            .collect();
        format!("{total} record(s) not appended: {}", parts.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_with_a_record_not_appended_is_named_in_one_line() {
        assert!(all_appended(&[]).is_ok());
        let refused = AppendOutcome::KeyNotValid {
            key_id: "k".into(),
            reason: "unknown key".into(),
        };
        let e = all_appended(&[refused.clone(), refused])
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("2 record(s) not appended: key_not_valid (unknown key) ×2")
        );
    }
}
