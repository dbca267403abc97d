//! What an audit across rounds finds.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::round_header::Identified;

/// What an audit across rounds found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditFindingKind {
    /// A settled spin whose rotor turned the same way as on the table's previous spin.
    RotorNotReversed,
    /// A settled spin right after a no-spin whose rotor turned the other way than the void
    /// spin's (the plan turns the wheel the same way after a no-spin).
    RotorReversedAfterNoSpin,
    /// The dealer button did not move one position clockwise.
    ButtonOutOfTurn,
    /// The big blind passed over a player, or fell on the same player twice running.
    BigBlindOutOfTurn,
    /// A hand played for time (no rake) outside every period its table collected time for.
    TimeNotCollected,
}

impl AuditFindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditFindingKind::RotorNotReversed => "rotor_not_reversed",
            AuditFindingKind::RotorReversedAfterNoSpin => "rotor_reversed_after_no_spin",
            AuditFindingKind::ButtonOutOfTurn => "button_out_of_turn",
            AuditFindingKind::BigBlindOutOfTurn => "big_blind_out_of_turn",
            AuditFindingKind::TimeNotCollected => "time_not_collected",
        }
    }
}

/// A round an audit across rounds compares with the table's round before it: its table, its
/// sequence number and when it was played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditedRound {
    pub table_id: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
}

impl AuditedRound {
    pub fn of(round: &impl Identified) -> AuditedRound {
        let identity = round.identity();
        AuditedRound {
            table_id: identity.table_id.to_owned(),
            seq_no: identity.seq_no,
            played_at: identity.played_at,
        }
    }

    /// Whether this is the table's round right after `previous` in its sequence, played less
    /// than `within` after it (further apart, the two are not compared).
    pub fn follows(&self, previous: &AuditedRound, within: Duration) -> bool {
        previous.seq_no.checked_add(1) == Some(self.seq_no)
            && self.played_at - previous.played_at < within
    }
}

/// One finding: the round it is about and the table's round before it it was compared with
/// (none for a hand played for time, compared with the table's collections).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditFinding {
    pub kind: AuditFindingKind,
    pub table_id: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    pub previous_seq_no: Option<u64>,
    pub message: String,
}

impl AuditFinding {
    /// A finding of `kind` on `current`, compared with the table's round `previous` before it.
    pub fn after(
        kind: AuditFindingKind,
        current: &AuditedRound,
        previous: &AuditedRound,
        message: String,
    ) -> AuditFinding {
        AuditFinding {
            kind,
            table_id: current.table_id.clone(),
            seq_no: current.seq_no,
            played_at: current.played_at,
            previous_seq_no: Some(previous.seq_no),
            message,
        }
    }
}
