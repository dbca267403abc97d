//! The tables and their keys as the registry events give them: each table's registration and
//! posted limits, each key's window of validity.

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use rules::TableLimits;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredTable {
    pub table_id: String,
    pub game: String,
    pub location: String,
    pub plan_id: String,
    /// A money wheel's segment labels in physical order.
    pub wheel_layout: Option<Vec<String>>,
    /// Ledger index of the registration.
    pub index: u64,
    /// From when the table plays under dozor (its first key's `valid_from`): records played
    /// earlier are refused.
    pub registered_from: DateTime<Utc>,
    /// Every set of limits the table posted, in ledger order (the registration's first).
    pub limits: Vec<PostedLimits>,
}

/// One posting of a table's limits: what it posted, from when, and the event that said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostedLimits {
    /// Ledger index of the event.
    pub index: u64,
    pub effective_from: DateTime<Utc>,
    pub limits: TableLimits,
    pub reason: String,
    /// Who posted them (absent for registrations written before actors were recorded).
    pub actor: Option<String>,
}

/// How far before its own receipt a change of limits may say it took effect: a pit's clock
/// and the officer's entry differ by moments, never by hours (a limit cannot be loosened
/// after the bets it would excuse).
pub const LIMITS_BACKDATING_SECONDS: i64 = 60;

impl RegisteredTable {
    /// The limits in force for a round played at `played_at` and appended at ledger `index`:
    /// among the postings appended before it that took effect by then, the latest to take
    /// effect (the later event if two take effect together). `None`: the table posts none.
    pub fn limits_in_force(&self, index: u64, played_at: DateTime<Utc>) -> Option<&TableLimits> {
        self.limits
            .iter()
            .filter(|p| p.index < index && p.effective_from <= played_at)
            .max_by_key(|p| (p.effective_from, p.index))
            .map(|p| &p.limits)
    }

    /// Index of the table's last posting of limits, if any.
    pub fn last_limits_event(&self) -> Option<u64> {
        self.limits.last().map(|p| p.index)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    /// Ledger index of the revocation event.
    pub index: u64,
    pub revoked_at: DateTime<Utc>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoricKey {
    pub key_id: String,
    pub table_id: String,
    pub key: VerifyingKey,
    /// Ledger index of the event that added the key.
    pub index: u64,
    pub valid_from: DateTime<Utc>,
    pub revocation: Option<Revocation>,
}
