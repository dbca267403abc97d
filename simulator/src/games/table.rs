//! What every simulated table is: where a round is played, the record it deals, and the key it
//! signs with.

use chrono::{DateTime, Utc};
use ed25519_dalek::SigningKey;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// Where a simulated round is played: the table, its sequence number, and when.
#[derive(Debug, Clone, Copy)]
pub struct Slot<'a> {
    pub table_id: &'a str,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
}

/// A simulated record, and the name of the error injected into it, if any.
pub type Simulated = anyhow::Result<(Value, Option<&'static str>)>;

/// A simulated table of any game: one shape for the simulate command and the benchmarks.
pub trait TableSimulator {
    /// The table's next record, settled correctly, then damaged with probability
    /// `error_share` (the error named).
    fn next_record(&mut self, slot: Slot<'_>, error_share: f64) -> Simulated;

    /// The table's configuration to register it with (a money wheel's segment order).
    fn wheel_layout(&self) -> Option<&[String]> {
        None
    }

    /// The limits the table posts from its registration on, if it posts any; from then on it
    /// also deals, among its errors, bets outside them (`stake_above_table_maximum`).
    fn post_limits(&mut self) -> Option<Value> {
        None
    }

    /// The narrower limits it posts when the pit changes them during the night (every correct
    /// round it deals fits both).
    fn night_limits(&self) -> Option<Value> {
        None
    }
}

/// A table's key derived from the seed, so a rerun with the same seed signs as the same table.
pub fn table_key(seed: u64, table_id: &str) -> SigningKey {
    let digest = Sha256::new()
        .chain_update(b"dozor-simulated-table")
        .chain_update(seed.to_be_bytes())
        .chain_update(table_id.as_bytes())
        .finalize();
    SigningKey::from_bytes(&digest.into())
}

/// The next record of a simulated table now, for the simulators' tests.
#[cfg(test)]
pub(crate) fn next_now(
    simulator: &mut impl TableSimulator,
    table_id: &str,
    seq_no: u64,
    error_share: f64,
) -> (Value, Option<&'static str>) {
    let slot = Slot {
        table_id,
        seq_no,
        played_at: Utc::now(),
    };
    simulator
        .next_record(slot, error_share)
        .unwrap_or_else(|e| unreachable!("simulated record: {e}"))
}

/// The bundled plan, for the simulators' tests.
#[cfg(test)]
pub(crate) fn test_plan() -> rules::Plan {
    rules::PlanBook::builtin()
        .ok()
        .and_then(|book| book.get(rules::plan::DEFAULT_PLAN).cloned())
        .unwrap_or_else(|| unreachable!("the bundled plan is missing"))
}
