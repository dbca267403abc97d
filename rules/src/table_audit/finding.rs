//! What an audit across rounds finds.

use chrono::{DateTime, Utc};
use serde::Serialize;

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
