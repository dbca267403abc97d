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

/// Roulette tables of a benchmark's fill, registered under one plan, each with its key and the
/// sequence number its next spin takes.
pub struct SpinningTables {
    tables: Vec<(String, SigningKey, u64)>,
    plan: rules::Plan,
    simulator: simulator::games::roulette::RouletteSimulator,
    cache: WriterCache,
}

impl SpinningTables {
    /// The tables `ids` under the default plan, their keys derived from `seed` and each id;
    /// `next_seq_no` gives each table's next sequence number (1 for a new table).
    pub fn new(
        seed: u64,
        ids: Vec<String>,
        mut next_seq_no: impl FnMut(&str) -> u64,
    ) -> anyhow::Result<SpinningTables> {
        let plan = rules::PlanBook::builtin()?
            .get(rules::plan::DEFAULT_PLAN)
            .cloned()
            .ok_or_else(|| anyhow!("default plan missing"))?;
        let tables = ids
            .into_iter()
            .map(|id| {
                let key = simulator::games::table::table_key(seed, &id);
                let next = next_seq_no(&id);
                (id, key, next)
            })
            .collect();
        Ok(SpinningTables {
            tables,
            simulator: simulator::games::roulette::RouletteSimulator::new(seed, plan.clone(), 0.02),
            plan,
            cache: WriterCache::default(),
        })
    }

    /// Registers every table under the operator.
    pub fn register(&self, conn: &mut PgConnection, operator: &NoteSigner) -> anyhow::Result<()> {
        for (id, key, _) in &self.tables {
            register_roulette(conn, operator, id, &self.plan.plan_id, key)?;
        }
        Ok(())
    }

    /// Appends `rounds` signed, adjudicated spins, the tables in turn, in batches (streamed:
    /// memory stays that of a batch whatever the count).
    pub fn append(&mut self, conn: &mut PgConnection, rounds: u64) -> anyhow::Result<()> {
        anyhow::ensure!(!self.tables.is_empty(), "no tables to spin at");
        let progress = simulator::progress_bar(rounds, "spins appended");
        let mut done = 0u64;
        let (mut turn, count) = (0usize, self.tables.len());
        while done < rounds {
            let batch_len = (rounds - done).min(2_000);
            let mut batch = Vec::with_capacity(batch_len as usize);
            for _ in 0..batch_len {
                let (id, key, seq_no) = &mut self.tables[turn % count];
                turn += 1;
                let (record, _) = self.simulator.spin(id, *seq_no, Utc::now());
                *seq_no += 1;
                batch.push(submission(
                    record,
                    key,
                    &self.plan,
                    &rules::TableSetup::NONE,
                )?);
            }
            append(conn, &batch, &mut self.cache)?;
            done += batch_len;
            progress.set_position(done);
        }
        progress.finish_and_clear();
        Ok(())
    }
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
