//! Audits that follow a table from round to round, where a verdict sees one round only: the
//! roulette wheel's direction from spin to spin ([`spins`]) and the poker button and big blind
//! from hand to hand ([`button`]). Ingest's verdicts, the database's reports and the offline
//! verifier all run these same functions over the same rounds.

pub mod button;
pub mod spins;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::Round;

/// What an audit across rounds found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditFindingKind {
    /// A settled spin whose rotor turned the same way as on the table's previous spin.
    RotorNotReversed,
    /// The dealer button did not move one position clockwise.
    ButtonOutOfTurn,
    /// The big blind passed over a player, or fell on the same player twice running.
    BigBlindOutOfTurn,
}

impl AuditFindingKind {
    pub const ALL: [AuditFindingKind; 3] = [
        AuditFindingKind::RotorNotReversed,
        AuditFindingKind::ButtonOutOfTurn,
        AuditFindingKind::BigBlindOutOfTurn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AuditFindingKind::RotorNotReversed => "rotor_not_reversed",
            AuditFindingKind::ButtonOutOfTurn => "button_out_of_turn",
            AuditFindingKind::BigBlindOutOfTurn => "big_blind_out_of_turn",
        }
    }
}

/// One finding: the round it is about and the round before it it was compared with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditFinding {
    pub kind: AuditFindingKind,
    pub table_id: String,
    pub seq_no: u64,
    pub played_at: DateTime<Utc>,
    pub previous_seq_no: u64,
    pub message: String,
}

/// What the audits need of one round, small enough to hold for every round of a ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    Spin(spins::Spin),
    Hand(button::HandPositions),
}

impl Fact {
    /// The fact of a roulette spin or a poker cash hand; `None` for other rounds and for void
    /// hands (a void hand is dealt again from the same positions).
    pub fn of(round: &Round) -> Option<Fact> {
        match round {
            Round::Roulette(spin) => Some(Fact::Spin(spins::Spin::of(spin))),
            Round::PokerCash(hand) => button::HandPositions::of(hand).map(Fact::Hand),
            _ => None,
        }
    }

    /// Whether rounds of `game` give facts (so a caller need not read other rounds).
    pub fn wanted(game: Option<&str>) -> bool {
        matches!(game, Some("roulette" | "poker_cash"))
    }

    pub fn table_id(&self) -> &str {
        match self {
            Fact::Spin(s) => &s.table_id,
            Fact::Hand(h) => &h.table_id,
        }
    }

    pub fn seq_no(&self) -> u64 {
        match self {
            Fact::Spin(s) => s.seq_no,
            Fact::Hand(h) => h.seq_no,
        }
    }
}

/// Every finding of the audits over `facts`, given in any order: each table's spins and hands
/// are followed in `seq_no` order (the order they were played, whatever order they reached the
/// ledger in). Findings come sorted by table, then `seq_no`.
pub fn audit(mut facts: Vec<Fact>) -> Vec<AuditFinding> {
    facts.sort_by(|a, b| (a.table_id(), a.seq_no()).cmp(&(b.table_id(), b.seq_no())));
    let mut findings = Vec::new();
    for pair in facts.windows(2) {
        let [previous, current] = pair else { continue };
        if previous.table_id() != current.table_id() {
            continue;
        }
        match (previous, current) {
            (Fact::Spin(p), Fact::Spin(c)) => findings.extend(spins::compare(p, c)),
            (Fact::Hand(p), Fact::Hand(c)) => button::compare(p, c, &mut findings),
            _ => {}
        }
    }
    findings
}

#[cfg(test)]
mod tests;
