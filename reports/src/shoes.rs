//! Shoe audit: the cards of each blackjack shoe across its rounds (a round's verdict sees one
//! round only), so that a card dealt more often than the shoe holds it is seen.

use std::collections::HashSet;

use chrono::NaiveDate;
use diesel::PgConnection;
use rules::blackjack::shoe::{audit, ShoeTally};
use rules::{GameCode, PlanBook, Round};
use serde::Serialize;

use crate::day_rounds::rounds_with_lookback;
use crate::ReportError;
use rules::gaming_day::GamingDayClock;

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

/// The shoes of the blackjack rounds played in `day`, each tallied from its shuffle if that was
/// at most one gaming day earlier.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &rules::PlanBook,
) -> Result<ShoeAudit, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, day, plans)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: ledger::storage::read_cut::LedgerCut,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &PlanBook,
) -> Result<ShoeAudit, ReportError> {
    let mut rounds = Vec::new();
    let mut today: HashSet<(String, String, u64)> = HashSet::new();
    for (round, in_day) in rounds_with_lookback(conn, cut, clock, day, GameCode::Blackjack)? {
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
        plans
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
        gaming_day: day,
        shoes,
    })
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

/// CSV (RFC 4180, UTF-8, CRLF line ends): one line per shoe.
pub fn to_csv(audit: &ShoeAudit) -> Result<String, ReportError> {
    use crate::sheet::{Audience, Cell, CsvWriter};
    let mut writer = CsvWriter::new(Audience::Machines);
    writer.heading([
        "gaming_day",
        "table_id",
        "shoe_id",
        "from_shuffle",
        "rounds",
        "first_seq_no",
        "last_seq_no",
        "cards",
        "excess",
    ])?;
    for s in &audit.shoes {
        writer.row(&[
            Cell::Day(audit.gaming_day),
            Cell::Text(s.table_id.clone()),
            Cell::Text(s.shoe_id.clone()),
            Cell::Text(s.from_shuffle.to_string()),
            Cell::Count(i64::from(s.rounds)),
            Cell::unsigned(s.first_seq_no),
            Cell::unsigned(s.last_seq_no),
            Cell::Count(i64::from(s.cards)),
            Cell::Text(s.excess.join("; ")),
        ])?;
    }
    writer.into_string()
}

/// The columns of the shoe audit for people.
const PEOPLE_COLUMNS: [crate::sheet::Column; 9] = {
    use crate::sheet::column;
    [
        column("gaming_day", "Herní den", "Gaming day"),
        column("table_id", "Stůl", "Table"),
        column("shoe_id", "Sáňky (shoe)", "Shoe"),
        column("from_shuffle", "Od zamíchání", "From the shuffle"),
        column("rounds", "Kol", "Rounds"),
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
    ]
};

/// The shoe audit as a sheet for people: one line per shoe.
pub fn sheet(
    audit: &ShoeAudit,
    _plans: &PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let rows = audit
        .shoes
        .iter()
        .map(|s| {
            vec![
                Cell::Day(audit.gaming_day),
                Cell::Text(s.table_id.clone()),
                Cell::Text(s.shoe_id.clone()),
                Cell::yes_no(s.from_shuffle, language),
                Cell::Count(i64::from(s.rounds)),
                Cell::Count(i64::try_from(s.first_seq_no).unwrap_or(i64::MAX)),
                Cell::Count(i64::try_from(s.last_seq_no).unwrap_or(i64::MAX)),
                Cell::Count(i64::from(s.cards)),
                Cell::Text(s.excess.join("; ")),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("{} {}", language.pick("Sáňky", "Shoes"), audit.gaming_day),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}
