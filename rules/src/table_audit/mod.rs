//! Audits that follow a table from round to round, where a verdict sees one round only: the
//! roulette wheel's direction from spin to spin ([`spins`]), the poker button and big blind
//! from hand to hand ([`button`]), and hands played for time against the periods their table
//! collected ([`crate::poker_cash::time_audit`]). The server's table audit report and the
//! offline verifier run these same functions over the same rounds.

pub mod button;
mod finding;
pub mod spins;

use chrono::{DateTime, Utc};

use crate::poker_cash::record::Collection;
use crate::poker_cash::time_audit::{self, CollectedPeriod, TimedHand};
use crate::record::Round;

pub use finding::{AuditFinding, AuditFindingKind};

/// What the audits need of one round, small enough to hold for every round of a ledger (a test
/// keeps it at most 64 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    Spin(spins::Spin),
    /// A poker cash hand that was played (with whether it was played for time); boxed, so that
    /// a fact held for every round of a ledger stays small.
    Hand(Box<button::HandPositions>),
    /// An Open Face Chinese hand played for time.
    TimedHand {
        table_id: String,
        seq_no: u64,
        played_at: DateTime<Utc>,
    },
    /// A collection of time.
    Collection(CollectedPeriod),
}

impl Fact {
    /// What the audits need of a round: a roulette spin with the wheel's evidence, a poker cash
    /// hand that was played (not void: a void hand is dealt again from the same positions), a
    /// hand played for time, a collection of time; `None` for anything else.
    pub fn of(round: &Round) -> Option<Fact> {
        match round {
            Round::Roulette(spin) => spins::Spin::of(spin).map(Fact::Spin),
            Round::PokerCash(hand) => {
                button::HandPositions::of(hand).map(|h| Fact::Hand(Box::new(h)))
            }
            Round::OpenFaceChinese(hand) if hand.collection == Collection::Time => {
                Some(Fact::TimedHand {
                    table_id: hand.table_id.clone(),
                    seq_no: hand.seq_no,
                    played_at: hand.played_at,
                })
            }
            Round::TimeCollection(c) => Some(Fact::Collection(CollectedPeriod::of(c))),
            _ => None,
        }
    }

    /// Whether rounds of `game` give facts (so a caller need not read other rounds).
    pub fn wanted(game: Option<&str>) -> bool {
        matches!(game, Some("roulette" | "poker_cash" | "open_face_chinese"))
    }

    pub fn table_id(&self) -> &str {
        match self {
            Fact::Spin(s) => &s.round.table_id,
            Fact::Hand(h) => &h.round.table_id,
            Fact::TimedHand { table_id, .. } => table_id,
            Fact::Collection(c) => &c.table_id,
        }
    }

    /// The round's place in its table's sequence (a collection's is not needed: 0).
    pub fn seq_no(&self) -> u64 {
        match self {
            Fact::Spin(s) => s.round.seq_no,
            Fact::Hand(h) => h.round.seq_no,
            Fact::TimedHand { seq_no, .. } => *seq_no,
            Fact::Collection(_) => 0,
        }
    }

    /// A hand played for time, as the time collection audit reads it.
    fn timed(&self) -> Option<TimedHand<'_>> {
        match self {
            Fact::Hand(h) if h.for_time => Some(TimedHand {
                table_id: &h.round.table_id,
                seq_no: h.round.seq_no,
                played_at: h.round.played_at,
            }),
            Fact::TimedHand {
                table_id,
                seq_no,
                played_at,
            } => Some(TimedHand {
                table_id,
                seq_no: *seq_no,
                played_at: *played_at,
            }),
            _ => None,
        }
    }
}

/// Every finding of the audits over `facts`, given in any order: each table's spins and hands
/// are followed in `seq_no` order (the order they were played, whatever order they reached the
/// ledger in). Findings come sorted by table, then `seq_no`.
pub fn audit(facts: Vec<Fact>) -> Vec<AuditFinding> {
    audit_tables(facts.into_iter().collect())
}

/// [`audit`] of facts gathered by table.
pub fn audit_tables(tables: TableFacts) -> Vec<AuditFinding> {
    let facts = tables.into_ordered();
    let mut findings = Vec::new();
    // Spins and hands against the table's spin or hand before them (collections and OFC hands
    // between them are skipped, not compared).
    let followed: Vec<&Fact> = facts
        .iter()
        .filter(|f| matches!(f, Fact::Spin(_) | Fact::Hand(_)))
        .collect();
    for pair in followed.windows(2) {
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
    let timed: Vec<TimedHand<'_>> = facts.iter().filter_map(Fact::timed).collect();
    let collections: Vec<CollectedPeriod> = facts
        .iter()
        .filter_map(|f| match f {
            Fact::Collection(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    findings.extend(
        time_audit::audit(&timed, &collections)
            .into_iter()
            .map(uncollected_finding),
    );
    // Stable: a hand's own findings stay in the order the checks made them.
    findings.sort_by(|a, b| (&a.table_id, a.seq_no).cmp(&(&b.table_id, b.seq_no)));
    findings
}

/// Facts grouped by table as they come, so that a verifier reading a ledger's rounds in order
/// does the audit's grouping while it reads, not after.
#[derive(Debug, Default)]
pub struct TableFacts {
    tables: std::collections::BTreeMap<String, Vec<Fact>>,
}

impl TableFacts {
    pub fn push(&mut self, fact: Fact) {
        match self.tables.get_mut(fact.table_id()) {
            Some(list) => list.push(fact),
            None => {
                self.tables.insert(fact.table_id().to_owned(), vec![fact]);
            }
        }
    }

    /// The facts ordered by table, then by place in the table's sequence, equal places in the
    /// order given (what a stable sort by table and sequence number gives). Each table's facts
    /// arrive nearly in order, so they sort in close to linear time, where one sort of the
    /// interleaved tables compares table names a million times over.
    fn into_ordered(self) -> Vec<Fact> {
        self.tables
            .into_values()
            .flat_map(|mut list| {
                list.sort_by_key(Fact::seq_no);
                list
            })
            .collect()
    }
}

impl FromIterator<Fact> for TableFacts {
    fn from_iter<I: IntoIterator<Item = Fact>>(facts: I) -> TableFacts {
        let mut tables = TableFacts::default();
        for fact in facts {
            tables.push(fact);
        }
        tables
    }
}

fn uncollected_finding(u: time_audit::Uncollected<'_>) -> AuditFinding {
    AuditFinding {
        kind: AuditFindingKind::TimeNotCollected,
        table_id: u.table_id.to_owned(),
        seq_no: u.seq_no,
        played_at: u.played_at,
        previous_seq_no: None,
        message: u.message(),
    }
}

#[cfg(test)]
mod tests;
