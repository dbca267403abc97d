//! Findings (discrepancies) with filters, each with where its resolution stands.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use dozor_log::access::FindingState;
use ledger::storage::models::ResolutionRow;
use ledger::storage::report_reads;
use ledger::storage::report_reads::findings::{FindingQuery, ListedFinding};
use ledger::storage::resolutions::finding_ref;
use serde::Serialize;
use utoipa::ToSchema;

use crate::sheet::columns::{
    AMOUNT, BET_IDS, DESCRIPTION, GAME, GAMING_DAY, PLAYED_AT, ROUND_ID, TABLE,
};
use crate::sheet::{column, Cell, Column, Language, Sheet};
use crate::{words, ReportError};
use rules::gaming_day::GamingDayClock;

use ledger::storage::report_reads::findings::FindingSort;

pub const MAX_LIMIT: i64 = 1_000;
/// Most findings one CSV export holds.
pub const MAX_EXPORT: i64 = 100_000;

#[derive(Debug, Clone, Default)]
pub struct FindingFilter {
    pub table_id: Option<String>,
    pub game: Option<String>,
    pub kind: Option<rules::FindingKind>,
    pub state: Option<FindingState>,
    /// First and last gaming day, both included.
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// Only findings of at least / at most this amount.
    pub min_amount_h: Option<i64>,
    pub max_amount_h: Option<i64>,
    /// Only the findings of the round at this ledger index.
    pub round_index: Option<i64>,
    pub sort: FindingSort,
    pub limit: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FindingItem {
    /// `<round index>.<position>`: the `position`-th finding of the verdict of the round at
    /// ledger index `ledger_index`; what resolutions name.
    pub id: String,
    /// Ledger index of the round the finding is about.
    pub ledger_index: i64,
    pub position: i32,
    /// open, confirmed, dismissed or escalated: the latest resolution's state.
    #[schema(example = "open")]
    pub state: String,
    pub table_id: String,
    /// The round's number in its table's sequence.
    pub seq_no: Option<i64>,
    /// The table's own id of the round, when its record gives one.
    pub round_id: Option<String>,
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
    /// Their amount, in all pages.
    pub total_amount_h: i64,
    pub limit: i64,
    pub offset: i64,
    pub items: Vec<FindingItem>,
}

impl FindingFilter {
    fn check(&self, max_limit: i64) -> Result<(), ReportError> {
        if !(1..=max_limit).contains(&self.limit) || self.offset < 0 {
            return Err(ReportError::InvalidFilter(format!(
                "limit must be 1-{max_limit} and offset non-negative"
            )));
        }
        if self.min_amount_h.is_some_and(|a| a < 0) || self.max_amount_h.is_some_and(|a| a < 0) {
            return Err(ReportError::InvalidFilter(
                "amounts are not negative: min_amount_h and max_amount_h are 0 or more".into(),
            ));
        }
        // `from` after `to`, or a minimum above the maximum, matches nothing (as any range
        // with nothing in it): an empty page, not an error.
        Ok(())
    }
}

/// Findings matching `filter`, a page of at most [`MAX_LIMIT`].
pub fn list(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    filter: &FindingFilter,
) -> Result<FindingPage, ReportError> {
    filter.check(MAX_LIMIT)?;
    select(conn, clock, filter)
}

/// Findings matching `filter` for an export: up to [`MAX_EXPORT`] at once.
pub fn export(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    filter: &FindingFilter,
) -> Result<FindingPage, ReportError> {
    filter.check(MAX_EXPORT)?;
    select(conn, clock, filter)
}

fn select(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    filter: &FindingFilter,
) -> Result<FindingPage, ReportError> {
    let page = report_reads::findings::select(
        conn,
        &FindingQuery {
            state: filter.state,
            table_id: filter.table_id.as_deref(),
            game: filter.game.as_deref(),
            kind: filter.kind,
            played_from: filter.from.map(|from| clock.bounds(from).0),
            played_before: filter.to.map(|to| clock.bounds(to).1),
            min_amount_h: filter.min_amount_h,
            max_amount_h: filter.max_amount_h,
            round_index: filter.round_index,
            sort: filter.sort,
            limit: filter.limit,
            offset: filter.offset,
        },
    )?;
    Ok(FindingPage {
        total: page.total,
        total_amount_h: page.total_amount_h,
        limit: filter.limit,
        offset: filter.offset,
        items: page.items.into_iter().map(|f| item(clock, f)).collect(),
    })
}

fn item(clock: &GamingDayClock, found: ListedFinding) -> FindingItem {
    let ListedFinding {
        row: r,
        state,
        seq_no,
        round_id,
    } = found;
    FindingItem {
        seq_no,
        round_id,
        gaming_day: clock.day_of(r.played_at),
        id: finding_ref(r.ledger_index as u64, r.position as u32),
        ledger_index: r.ledger_index,
        position: r.position,
        state,
        table_id: r.table_id,
        game: r.game,
        played_at: r.played_at,
        kind: r.kind,
        bet_ids: r.bet_ids,
        expected_h: r.expected_h,
        actual_h: r.actual_h,
        amount_h: r.amount_h,
        message: r.message,
    }
}

/// One resolution of a finding, as shown.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ResolutionView {
    /// The resolution's own ledger entry.
    pub ledger_index: i64,
    pub resolved_at: DateTime<Utc>,
    /// confirmed, dismissed or escalated.
    #[schema(example = "confirmed")]
    pub state: String,
    /// What was recovered from the player or paid back to them (confirmed only).
    pub amount_settled_h: Option<i64>,
    /// Why the finding is dismissed (dismissals only).
    pub reason: Option<String>,
    pub comment: String,
    /// The API key that decided, by id, name and role.
    pub key_id: String,
    pub key_name: String,
    pub key_role: String,
}

impl From<ResolutionRow> for ResolutionView {
    fn from(r: ResolutionRow) -> Self {
        ResolutionView {
            ledger_index: r.ledger_index,
            resolved_at: r.resolved_at,
            state: r.state,
            amount_settled_h: r.amount_settled_h,
            reason: r.reason,
            comment: r.comment,
            key_id: r.key_id,
            key_name: r.key_name,
            key_role: r.key_role,
        }
    }
}

/// A finding with every resolution of it, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FindingWithHistory {
    #[serde(flatten)]
    pub finding: FindingItem,
    pub history: Vec<ResolutionView>,
}

/// The `position`-th finding of the round at `round_index`, with its history.
pub fn get(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    (round_index, position): (u64, u32),
) -> Result<Option<FindingWithHistory>, ReportError> {
    let (Ok(round), Ok(position_db)) = (i64::try_from(round_index), i32::try_from(position)) else {
        return Ok(None);
    };
    let Some(found) = report_reads::findings::one(conn, round, position_db)? else {
        return Ok(None);
    };
    let history = ledger::storage::resolutions::history(conn, (round_index, position))?;
    Ok(Some(FindingWithHistory {
        finding: item(clock, found),
        history: history.into_iter().map(ResolutionView::from).collect(),
    }))
}

/// The columns of a findings export.
const FINDING_COLUMNS: [Column; 16] = [
    column("id", "Nález", "Finding"),
    column("state", "Stav", "State"),
    GAMING_DAY,
    PLAYED_AT,
    GAME,
    TABLE,
    column("seq_no", "Pořadí záznamu", "Record number"),
    ROUND_ID,
    column("ledger_index", "Index v knize", "Ledger index"),
    column("kind", "Druh", "Kind"),
    AMOUNT,
    column("expected_h", "Dle plánu (Kč)", "Per the plan (CZK)"),
    column("actual_h", "Skutečně (Kč)", "Actually (CZK)"),
    BET_IDS,
    DESCRIPTION,
    column("position", "Pořadí nálezu", "Finding position"),
];

/// The findings of a page as a sheet: codes for machines, the plan's game names and the kinds
/// and states in words for people.
pub fn sheet(page: &FindingPage, plan: &rules::PlanBook, language: Language) -> Sheet {
    let money = |h: Option<i64>| h.map_or(Cell::Empty, Cell::Money);
    let rows = page
        .items
        .iter()
        .map(|f| {
            let bets = f
                .bet_ids
                .as_array()
                .map(|ids| {
                    ids.iter()
                        .filter_map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            vec![
                Cell::Text(f.id.clone()),
                Cell::coded(&f.state, words::finding_state_code(&f.state, language)),
                Cell::Day(f.gaming_day),
                Cell::Time(f.played_at),
                Cell::game(&f.game, plan),
                Cell::Text(f.table_id.clone()),
                f.seq_no.map_or(Cell::Empty, Cell::Count),
                f.round_id.clone().map_or(Cell::Empty, Cell::Text),
                Cell::Count(f.ledger_index),
                Cell::coded(&f.kind, words::finding_kind_code(&f.kind, language)),
                Cell::Money(f.amount_h),
                money(f.expected_h),
                money(f.actual_h),
                Cell::Text(bets),
                // Programs read the rules' English as the ledger keeps it; people their language.
                Cell::coded(&f.message, words::finding_message(&f.message, language)),
                Cell::Count(i64::from(f.position)),
            ]
        })
        .collect();
    Sheet {
        name: language.pick("Nálezy", "Findings").to_owned(),
        columns: FINDING_COLUMNS.to_vec(),
        rows,
    }
}
