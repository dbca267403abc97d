//! Findings (discrepancies) with filters.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use ledger::storage::models::FindingRow;
use ledger::storage::schema::findings;
use serde::Serialize;
use utoipa::ToSchema;

use crate::{GamingDayClock, ReportError};

pub const MAX_LIMIT: i64 = 1_000;

#[derive(Debug, Clone, Default)]
pub struct FindingFilter {
    pub table_id: Option<String>,
    pub game: Option<String>,
    pub kind: Option<rules::FindingKind>,
    pub day: Option<NaiveDate>,
    pub limit: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FindingItem {
    pub id: i64,
    /// Ledger index of the round the finding is about.
    pub ledger_index: i64,
    pub table_id: String,
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub gaming_day: NaiveDate,
    /// overpaid, underpaid, stake_below_minimum, stake_above_maximum, win_above_maximum,
    /// invalid_number, void_handled_wrongly, illegal_decision, dealer_drawing_wrong,
    /// cards_inconsistent, payout_withheld, bet_not_allowed
    pub kind: String,
    #[schema(value_type = Vec<String>)]
    pub bet_ids: serde_json::Value,
    pub expected_h: Option<i64>,
    pub actual_h: Option<i64>,
    pub amount_h: i64,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FindingPage {
    /// Findings matching the filter, in all pages.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
    pub items: Vec<FindingItem>,
}

pub fn list(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    filter: &FindingFilter,
) -> Result<FindingPage, ReportError> {
    if !(1..=MAX_LIMIT).contains(&filter.limit) || filter.offset < 0 {
        return Err(ReportError::InvalidFilter(format!(
            "limit must be 1-{MAX_LIMIT} and offset non-negative"
        )));
    }
    let build = || {
        let mut q = findings::table.into_boxed();
        if let Some(t) = &filter.table_id {
            q = q.filter(findings::table_id.eq(t.clone()));
        }
        if let Some(g) = &filter.game {
            q = q.filter(findings::game.eq(g.clone()));
        }
        if let Some(k) = filter.kind {
            q = q.filter(findings::kind.eq(k.as_str()));
        }
        if let Some(day) = filter.day {
            let (start, end) = clock.bounds(day);
            q = q.filter(
                findings::played_at
                    .ge(start)
                    .and(findings::played_at.lt(end)),
            );
        }
        q
    };
    let total: i64 = build().count().get_result(conn)?;
    let rows: Vec<FindingRow> = build()
        .order((findings::played_at.asc(), findings::id.asc()))
        .limit(filter.limit)
        .offset(filter.offset)
        .select(FindingRow::as_select())
        .load(conn)?;
    Ok(FindingPage {
        total,
        limit: filter.limit,
        offset: filter.offset,
        items: rows
            .into_iter()
            .map(|r| FindingItem {
                gaming_day: clock.day_of(r.played_at),
                id: r.id,
                ledger_index: r.ledger_index,
                table_id: r.table_id,
                game: r.game,
                played_at: r.played_at,
                kind: r.kind,
                bet_ids: r.bet_ids,
                expected_h: r.expected_h,
                actual_h: r.actual_h,
                amount_h: r.amount_h,
                message: r.message,
            })
            .collect(),
    })
}
