//! Shoe audit: the cards of each blackjack shoe across its rounds (a round's verdict sees one
//! round only), so that a card dealt more often than the shoe holds it is seen.

use std::collections::HashSet;

use chrono::NaiveDate;
use diesel::sql_types::{Binary, Timestamptz};
use diesel::{PgConnection, QueryableByName, RunQueryDsl as _};
use rules::blackjack::shoe::{audit, ShoeTally};
use rules::{PlanBook, Round};
use serde::Serialize;

use crate::{GamingDayClock, ReportError};

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

#[derive(QueryableByName)]
struct EntryBytes {
    #[diesel(sql_type = Binary)]
    entry: Vec<u8>,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    in_day: bool,
}

/// The shoes of the blackjack rounds played in `day`, each tallied from its shuffle if that was
/// at most one gaming day earlier.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    day: NaiveDate,
    plans: &PlanBook,
) -> Result<ShoeAudit, ReportError> {
    let (start, end) = clock.bounds(day);
    let lookback = clock.bounds(day.pred_opt().unwrap_or(day)).0;
    let entries: Vec<EntryBytes> = diesel::sql_query(
        "SELECT e.entry, a.played_at >= $2 AS in_day \
         FROM adjudications a JOIN ledger_entries e ON e.idx = a.ledger_index \
         WHERE a.game = 'blackjack' AND a.played_at >= $1 AND a.played_at < $3",
    )
    .bind::<Timestamptz, _>(lookback)
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .load(conn)?;
    let mut rounds = Vec::with_capacity(entries.len());
    let mut today: HashSet<(String, String, u64)> = HashSet::new();
    for e in &entries {
        // Every round here was accepted by ingest, so it parses; anything else is skipped.
        let record = serde_json::from_slice::<serde_json::Value>(&e.entry)
            .ok()
            .and_then(|entry| Round::parse(&entry["envelope"]["record"]).ok());
        if let Some(Round::Blackjack(round)) = record {
            if e.in_day {
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

/// CSV: one line per shoe.
pub fn to_csv(audit: &ShoeAudit) -> Result<String, ReportError> {
    let csv_err = |e: csv::Error| ReportError::Csv(e.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record([
            "gaming_day",
            "table_id",
            "shoe_id",
            "from_shuffle",
            "rounds",
            "first_seq_no",
            "last_seq_no",
            "cards",
            "excess",
        ])
        .map_err(csv_err)?;
    for s in &audit.shoes {
        writer
            .write_record([
                audit.gaming_day.to_string(),
                s.table_id.clone(),
                s.shoe_id.clone(),
                s.from_shuffle.to_string(),
                s.rounds.to_string(),
                s.first_seq_no.to_string(),
                s.last_seq_no.to_string(),
                s.cards.to_string(),
                s.excess.join("; "),
            ])
            .map_err(csv_err)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| ReportError::Csv(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| ReportError::Csv(e.to_string()))
}
