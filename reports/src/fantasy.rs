//! Fantasy-land audit of Open Face Chinese tables: a hand's verdict says who earned fantasy
//! land for the next hand (a verdict sees one hand only), so the deal of each hand of the day is
//! checked here against the hand before it at the same table.

use chrono::NaiveDate;
use diesel::PgConnection;
use rules::ofc::audit_fantasy_sequence;
use rules::{GameCode, Round};
use serde::Serialize;

use crate::day_audit::{day_audit_entry_points, DayAudit, DayRead, Words};
use crate::sheet::columns::{HAND_SEQ_NO, TABLE};
use crate::sheet::{column, Cell, Column, Language};
use crate::ReportError;

/// A deal that does not follow from the previous hand.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FantasyLine {
    pub table_id: String,
    pub previous_seq_no: u64,
    pub seq_no: u64,
    /// e.g. `anna: earned fantasy land with 15 cards in the previous hand, dealt 14`.
    pub message: String,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FantasyAudit {
    pub gaming_day: NaiveDate,
    /// Open Face Chinese hands played in the day.
    pub hands: u32,
    pub mismatches: Vec<FantasyLine>,
}

day_audit_entry_points!(FantasyAudit, FantasyLine, mismatches);

/// The columns of the fantasy-land audit for people.
const PEOPLE_COLUMNS: [Column; 4] = [
    TABLE,
    column(
        "previous_seq_no",
        "Předchozí hra (seq_no)",
        "Previous hand (seq_no)",
    ),
    HAND_SEQ_NO,
    column("message", "Nesoulad", "Mismatch"),
];

impl DayAudit for FantasyAudit {
    const COLUMNS: &'static [Column] = &PEOPLE_COLUMNS;

    /// The OFC hands of `day`, each against the table's hand before it (looked up to a gaming
    /// day earlier, so the first hand of the day is checked too).
    fn read(conn: &mut PgConnection, at: DayRead<'_>) -> Result<FantasyAudit, ReportError> {
        let mut hands = Vec::new();
        let mut today = std::collections::HashSet::new();
        for (round, in_day) in at.rounds(conn, GameCode::OpenFaceChinese)? {
            if let Round::OpenFaceChinese(hand) = round {
                // A hand that cannot have happened earns nothing and is its own finding.
                if rules::Game::check_possible(&hand).is_err() {
                    continue;
                }
                if in_day {
                    today.insert((hand.table_id.clone(), hand.seq_no));
                }
                hands.push(hand);
            }
        }
        // Dealing order is each table's sequence order (hands may reach the ledger out of order).
        hands.sort_by(|a, b| (&a.table_id, a.seq_no).cmp(&(&b.table_id, b.seq_no)));
        let mismatches = audit_fantasy_sequence(&hands, |h| {
            at.plans
                .get(&h.plan_id)
                .and_then(|p| p.open_face_chinese.as_ref())
        })
        .into_iter()
        .filter(|m| today.contains(&(m.table_id.clone(), m.seq_no)))
        .map(|m| FantasyLine {
            table_id: m.table_id,
            previous_seq_no: m.previous_seq_no,
            seq_no: m.seq_no,
            message: m.message,
        })
        .collect();
        Ok(FantasyAudit {
            gaming_day: at.day,
            hands: u32::try_from(today.len()).unwrap_or(u32::MAX),
            mismatches,
        })
    }

    fn cells(line: &FantasyLine, words: Words<'_>) -> Vec<Cell> {
        vec![
            Cell::Text(line.table_id.clone()),
            Cell::unsigned(line.previous_seq_no),
            Cell::unsigned(line.seq_no),
            words.coded(&line.message, crate::words::finding_message),
        ]
    }

    fn sheet_name(&self, _: Language) -> String {
        format!("Fantasy Land {}", self.gaming_day)
    }
}
