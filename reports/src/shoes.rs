//! Shoe audit: the cards of each blackjack shoe across its rounds (a round's verdict sees one
//! round only), so that a card dealt more often than the shoe holds it is seen.

use std::collections::HashSet;

use chrono::NaiveDate;
use diesel::PgConnection;
use rules::blackjack::shoe::{audit, ShoeTally};
use rules::{GameCode, Round};
use serde::Serialize;

use crate::day_audit::{day_audit_entry_points, DayAudit, DayRead, Words};
use crate::sheet::columns::{ROUNDS, TABLE};
use crate::sheet::{column, Cell, Column, Language};
use crate::ReportError;

/// One shoe with a round in the day.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ShoeLine {
    pub table_id: String,
    pub shoe_id: String,
    /// The tally starts at the round after the shuffle (otherwise at the first round found, up to
    /// a day before, and may miss earlier cards).
    pub from_shuffle: bool,
    pub rounds: u32,
    pub first_seq_no: u64,
    pub last_seq_no: u64,
    /// Cards burned and dealt.
    pub cards: u32,
    /// Cards dealt more often than the shoe holds them, e.g. `As ×7 (round 311)`.
    pub excess: Vec<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ShoeAudit {
    pub gaming_day: NaiveDate,
    pub shoes: Vec<ShoeLine>,
}

day_audit_entry_points!(ShoeAudit, ShoeLine, shoes);

/// The columns of the shoe audit for people.
const PEOPLE_COLUMNS: [Column; 8] = [
    TABLE,
    column("shoe_id", "Sáňky (shoe)", "Shoe"),
    column("from_shuffle", "Od zamíchání", "From the shuffle"),
    ROUNDS,
    column(
        "first_seq_no",
        "První kolo (seq_no)",
        "First round (seq_no)",
    ),
    column(
        "last_seq_no",
        "Poslední kolo (seq_no)",
        "Last round (seq_no)",
    ),
    column("cards", "Karet", "Cards"),
    column(
        "excess",
        "Karty rozdané vícekrát, než jich sáňky mají",
        "Cards dealt more often than the shoe holds them",
    ),
];

impl DayAudit for ShoeAudit {
    const COLUMNS: &'static [Column] = &PEOPLE_COLUMNS;

    /// The shoes of the blackjack rounds played in `day`, each tallied from its shuffle if
    /// that was at most one gaming day earlier.
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<ShoeAudit, ReportError> {
        let mut rounds = Vec::new();
        let mut today: HashSet<(String, String, u64)> = HashSet::new();
        for (round, in_day) in at.rounds(conn, GameCode::Blackjack)? {
            if let Round::Blackjack(round) = round {
                if in_day {
                    today.insert((round.table_id.clone(), round.shoe_id.clone(), round.seq_no));
                }
                rounds.push(round);
            }
        }
        // Dealing order is each table's sequence order (rounds may reach the ledger out of order).
        rounds.sort_by(|a, b| (&a.table_id, a.seq_no).cmp(&(&b.table_id, b.seq_no)));
        let decks = |round: &rules::blackjack::BlackjackRound| {
            at.plans
                .get(&round.plan_id)
                .and_then(|p| p.blackjack.as_ref())
                .map_or(6, |b| b.decks)
        };
        let shoes = audit(&rounds, decks)
            .into_iter()
            .filter(|t| {
                today.iter().any(|(table, shoe, seq)| {
                    *table == t.table_id
                        && *shoe == t.shoe_id
                        && (t.first_seq_no..=t.last_seq_no).contains(seq)
                })
            })
            .map(line)
            .collect();
        Ok(ShoeAudit {
            gaming_day: at.day,
            shoes,
        })
    }

    fn cells(line: &ShoeLine, words: Words<'_>) -> Vec<Cell> {
        vec![
            Cell::Text(line.table_id.clone()),
            Cell::Text(line.shoe_id.clone()),
            words.yes_no(line.from_shuffle),
            Cell::Count(i64::from(line.rounds)),
            Cell::unsigned(line.first_seq_no),
            Cell::unsigned(line.last_seq_no),
            Cell::Count(i64::from(line.cards)),
            Cell::Text(line.excess.join("; ")),
        ]
    }

    fn sheet_name(&self, l: Language) -> String {
        format!("{} {}", l.pick("Sáňky", "Shoes"), self.gaming_day)
    }
}

fn line(t: ShoeTally) -> ShoeLine {
    ShoeLine {
        excess: t
            .excess
            .iter()
            .map(|e| format!("{} ×{} (round {})", e.card, e.count, e.seq_no))
            .collect(),
        table_id: t.table_id,
        shoe_id: t.shoe_id,
        from_shuffle: t.from_shuffle,
        rounds: t.rounds,
        first_seq_no: t.first_seq_no,
        last_seq_no: t.last_seq_no,
        cards: t.cards,
    }
}
