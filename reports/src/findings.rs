//! Findings (discrepancies) with filters, each with where its resolution stands.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Bool, Text};
use ledger::access::FindingState;
use ledger::storage::models::{FindingRow, ResolutionRow};
use ledger::storage::resolutions::finding_ref;
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
    pub state: Option<FindingState>,
    pub day: Option<NaiveDate>,
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
        if let Some(state) = filter.state {
            // The state is one of four fixed words, never text from the request.
            q = q.filter(sql::<Bool>(&format!("{STATE_SQL} = '{}'", state.as_str())));
        }
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
    let rows: Vec<(FindingRow, String)> = build()
        .order((findings::played_at.asc(), findings::id.asc()))
        .limit(filter.limit)
        .offset(filter.offset)
        .select((FindingRow::as_select(), sql::<Text>(STATE_SQL)))
        .load(conn)?;
    Ok(FindingPage {
        total,
        limit: filter.limit,
        offset: filter.offset,
        items: rows
            .into_iter()
            .map(|(r, state)| item(clock, r, state))
            .collect(),
    })
}

/// A finding's state: its latest resolution's, or open.
const STATE_SQL: &str = "coalesce((SELECT r.state FROM finding_resolutions r \
     WHERE r.round_index = findings.ledger_index AND r.finding = findings.position \
     ORDER BY r.ledger_index DESC LIMIT 1), 'open')";

fn item(clock: &GamingDayClock, r: FindingRow, state: String) -> FindingItem {
    FindingItem {
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
    let found: Option<(FindingRow, String)> = findings::table
        .filter(findings::ledger_index.eq(round))
        .filter(findings::position.eq(position_db))
        .select((FindingRow::as_select(), sql::<Text>(STATE_SQL)))
        .first(conn)
        .optional()?;
    let Some((row, state)) = found else {
        return Ok(None);
    };
    let history = ledger::storage::resolutions::history(conn, (round_index, position))?;
    Ok(Some(FindingWithHistory {
        finding: item(clock, row, state),
        history: history.into_iter().map(ResolutionView::from).collect(),
    }))
}

/// Findings of one game, table and kind within one of a report's periods, with where their
/// resolutions stand (the latest resolution of each finding counts).
#[derive(QueryableByName, Debug)]
pub(crate) struct FindingAggregate {
    /// Which period (1-based) of the bounds the findings' rounds were played in.
    #[diesel(sql_type = diesel::sql_types::Integer)]
    pub period: i32,
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub count: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub amount_h: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub escalated: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub confirmed: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub dismissed: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub settled_h: i64,
}

/// Findings summed per period, game, table and kind: `bounds` are the periods' starts and the
/// last one's end (gaming days: their starts and the end of the last); `game` and `table_id`
/// narrow them when given.
pub(crate) fn aggregate(
    conn: &mut PgConnection,
    bounds: &[DateTime<Utc>],
    game: Option<&str>,
    table_id: Option<&str>,
) -> Result<Vec<FindingAggregate>, ReportError> {
    use diesel::sql_types::{Array, Nullable, Timestamptz};
    let (Some(start), Some(end)) = (bounds.first(), bounds.last()) else {
        return Ok(Vec::new());
    };
    Ok(diesel::sql_query(
        "SELECT width_bucket(f.played_at, $3::timestamptz[]) AS period, f.game, f.table_id, \
                f.kind, count(*)::bigint AS count, \
                coalesce(sum(f.amount_h), 0)::bigint AS amount_h, \
                count(*) FILTER (WHERE r.state = 'escalated')::bigint AS escalated, \
                count(*) FILTER (WHERE r.state = 'confirmed')::bigint AS confirmed, \
                count(*) FILTER (WHERE r.state = 'dismissed')::bigint AS dismissed, \
                coalesce(sum(r.amount_settled_h) FILTER (WHERE r.state = 'confirmed'), 0)::bigint \
                    AS settled_h \
         FROM findings f LEFT JOIN LATERAL ( \
             SELECT state, amount_settled_h FROM finding_resolutions \
             WHERE round_index = f.ledger_index AND finding = f.position \
             ORDER BY ledger_index DESC LIMIT 1) r ON true \
         WHERE f.played_at >= $1 AND f.played_at < $2 \
           AND ($4::text IS NULL OR f.game = $4) AND ($5::text IS NULL OR f.table_id = $5) \
         GROUP BY 1, 2, 3, 4",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Array<Timestamptz>, _>(bounds)
    .bind::<Nullable<Text>, _>(game)
    .bind::<Nullable<Text>, _>(table_id)
    .load(conn)?)
}
