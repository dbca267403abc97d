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

use crate::sheet::{column, Cell, Column, Language, Sheet};
use crate::{words, GamingDayClock, ReportError};

pub const MAX_LIMIT: i64 = 1_000;
/// Most findings one CSV export holds.
pub const MAX_EXPORT: i64 = 100_000;

/// The order findings are listed in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FindingSort {
    /// Oldest round first.
    #[default]
    PlayedAt,
    /// Newest round first.
    PlayedAtDesc,
    /// Largest amount first.
    AmountDesc,
    /// Smallest amount first.
    Amount,
    /// By table, then time.
    Table,
    /// By kind, then time.
    Kind,
}

impl FindingSort {
    pub const ALL: [FindingSort; 6] = [
        FindingSort::PlayedAt,
        FindingSort::PlayedAtDesc,
        FindingSort::AmountDesc,
        FindingSort::Amount,
        FindingSort::Table,
        FindingSort::Kind,
    ];

    /// `played_at`, `-played_at`, `-amount`, `amount`, `table`, `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingSort::PlayedAt => "played_at",
            FindingSort::PlayedAtDesc => "-played_at",
            FindingSort::AmountDesc => "-amount",
            FindingSort::Amount => "amount",
            FindingSort::Table => "table",
            FindingSort::Kind => "kind",
        }
    }

    pub fn parse(text: &str) -> Option<FindingSort> {
        FindingSort::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

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
    use diesel::sql_types::{BigInt, Nullable};
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
        if let Some(from) = filter.from {
            q = q.filter(findings::played_at.ge(clock.bounds(from).0));
        }
        if let Some(to) = filter.to {
            q = q.filter(findings::played_at.lt(clock.bounds(to).1));
        }
        if let Some(min) = filter.min_amount_h {
            q = q.filter(findings::amount_h.ge(min));
        }
        if let Some(max) = filter.max_amount_h {
            q = q.filter(findings::amount_h.le(max));
        }
        if let Some(round) = filter.round_index {
            q = q.filter(findings::ledger_index.eq(round));
        }
        q
    };
    let (total, total_amount_h): (i64, Option<i64>) = build()
        .select((
            diesel::dsl::count_star(),
            sql::<Nullable<BigInt>>("sum(amount_h)::bigint"),
        ))
        .first(conn)?;
    let q = build();
    let q = match filter.sort {
        FindingSort::PlayedAt => q.order((findings::played_at.asc(), findings::id.asc())),
        FindingSort::PlayedAtDesc => q.order((findings::played_at.desc(), findings::id.desc())),
        FindingSort::AmountDesc => q.order((findings::amount_h.desc(), findings::id.asc())),
        FindingSort::Amount => q.order((findings::amount_h.asc(), findings::id.asc())),
        FindingSort::Table => q.order((
            findings::table_id.asc(),
            findings::played_at.asc(),
            findings::id.asc(),
        )),
        FindingSort::Kind => q.order((
            findings::kind.asc(),
            findings::played_at.asc(),
            findings::id.asc(),
        )),
    };
    let rows: Vec<(FindingRow, String, Option<i64>, Option<String>)> = q
        .limit(filter.limit)
        .offset(filter.offset)
        .select((
            FindingRow::as_select(),
            sql::<Text>(STATE_SQL),
            sql::<Nullable<BigInt>>(SEQ_NO_SQL),
            sql::<Nullable<Text>>(ROUND_ID_SQL),
        ))
        .load(conn)?;
    Ok(FindingPage {
        total,
        total_amount_h: total_amount_h.unwrap_or(0),
        limit: filter.limit,
        offset: filter.offset,
        items: rows
            .into_iter()
            .map(|(r, state, seq_no, round_id)| item(clock, r, state, seq_no, round_id))
            .collect(),
    })
}

/// The round's number in its table's sequence.
const SEQ_NO_SQL: &str =
    "(SELECT e.seq_no FROM ledger_entries e WHERE e.idx = findings.ledger_index)";
/// The round's own id, if its record has one.
const ROUND_ID_SQL: &str = "(SELECT r.round_id FROM round_ids r \
     WHERE r.ledger_index = findings.ledger_index AND r.table_id = findings.table_id LIMIT 1)";

/// A finding's state: its latest resolution's, or open.
const STATE_SQL: &str = "coalesce((SELECT r.state FROM finding_resolutions r \
     WHERE r.round_index = findings.ledger_index AND r.finding = findings.position \
     ORDER BY r.ledger_index DESC LIMIT 1), 'open')";

fn item(
    clock: &GamingDayClock,
    r: FindingRow,
    state: String,
    seq_no: Option<i64>,
    round_id: Option<String>,
) -> FindingItem {
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
    use diesel::sql_types::{BigInt, Nullable};
    let found: Option<(FindingRow, String, Option<i64>, Option<String>)> = findings::table
        .filter(findings::ledger_index.eq(round))
        .filter(findings::position.eq(position_db))
        .select((
            FindingRow::as_select(),
            sql::<Text>(STATE_SQL),
            sql::<Nullable<BigInt>>(SEQ_NO_SQL),
            sql::<Nullable<Text>>(ROUND_ID_SQL),
        ))
        .first(conn)
        .optional()?;
    let Some((row, state, seq_no, round_id)) = found else {
        return Ok(None);
    };
    let history = ledger::storage::resolutions::history(conn, (round_index, position))?;
    Ok(Some(FindingWithHistory {
        finding: item(clock, row, state, seq_no, round_id),
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

/// The columns of a findings export.
const FINDING_COLUMNS: [Column; 16] = [
    column("id", "Nález", "Finding"),
    column("state", "Stav", "State"),
    column("gaming_day", "Herní den", "Gaming day"),
    column("played_at", "Odehráno", "Played at"),
    column("game", "Hra", "Game"),
    column("table_id", "Stůl", "Table"),
    column("seq_no", "Pořadí záznamu", "Record number"),
    column("round_id", "Kolo", "Round"),
    column("ledger_index", "Index v knize", "Ledger index"),
    column("kind", "Druh", "Kind"),
    column("amount_h", "Částka (Kč)", "Amount (CZK)"),
    column("expected_h", "Dle plánu (Kč)", "Per the plan (CZK)"),
    column("actual_h", "Skutečně (Kč)", "Actually (CZK)"),
    column("bet_ids", "Sázky", "Bets"),
    column("message", "Popis", "Description"),
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
                Cell::Coded {
                    code: f.state.clone(),
                    words: words::finding_state_code(&f.state, language),
                },
                Cell::Day(f.gaming_day),
                Cell::Time(f.played_at),
                Cell::Coded {
                    code: f.game.clone(),
                    words: plan.game_name(&f.game).to_owned(),
                },
                Cell::Text(f.table_id.clone()),
                f.seq_no.map_or(Cell::Empty, Cell::Count),
                f.round_id.clone().map_or(Cell::Empty, Cell::Text),
                Cell::Count(f.ledger_index),
                Cell::Coded {
                    code: f.kind.clone(),
                    words: words::finding_kind_code(&f.kind, language),
                },
                Cell::Money(f.amount_h),
                money(f.expected_h),
                money(f.actual_h),
                Cell::Text(bets),
                Cell::Text(f.message.clone()),
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
