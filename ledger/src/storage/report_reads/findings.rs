//! Findings as reports list and sum them, each with where its resolution stands.

use chrono::{DateTime, Utc};
use diesel::dsl::sql;
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Timestamptz};

use crate::storage::models::FindingRow;
use crate::storage::read_cut::LedgerCut;
use crate::storage::schema::findings;
use crate::LedgerError;
use dozor_log::access::FindingState;

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

/// Which findings to list; every part optional but the page.
#[derive(Debug, Clone, Copy, Default)]
pub struct FindingQuery<'a> {
    pub state: Option<FindingState>,
    pub table_id: Option<&'a str>,
    pub game: Option<&'a str>,
    pub kind: Option<rules::FindingKind>,
    /// Rounds played at or after this time, and before that one.
    pub played_from: Option<DateTime<Utc>>,
    pub played_before: Option<DateTime<Utc>>,
    /// Findings of at least / at most this amount.
    pub min_amount_h: Option<i64>,
    pub max_amount_h: Option<i64>,
    /// Only the findings of the round at this ledger index.
    pub round_index: Option<i64>,
    pub sort: FindingSort,
    pub limit: i64,
    pub offset: i64,
}

/// A finding with where its resolution stands and its round's numbers.
#[derive(Debug, Clone)]
pub struct ListedFinding {
    pub row: FindingRow,
    /// open, confirmed, dismissed or escalated: the latest resolution's state.
    pub state: String,
    /// The round's number in its table's sequence.
    pub seq_no: Option<i64>,
    /// The table's own id of the round, when its record gives one.
    pub round_id: Option<String>,
}

/// A page of findings and what the whole selection holds.
#[derive(Debug, Clone)]
pub struct FindingsPage {
    /// Findings matching the query, in all pages, and their amount.
    pub total: i64,
    pub total_amount_h: i64,
    pub items: Vec<ListedFinding>,
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

/// The findings `query` selects: how many and how much in all, and its page.
pub fn select(
    conn: &mut PgConnection,
    query: &FindingQuery<'_>,
) -> Result<FindingsPage, LedgerError> {
    let build = || {
        let mut q = findings::table.into_boxed();
        if let Some(state) = query.state {
            // The state is one of four fixed words, never text from the request.
            q = q.filter(sql::<Bool>(&format!("{STATE_SQL} = '{}'", state.as_str())));
        }
        if let Some(t) = query.table_id {
            q = q.filter(findings::table_id.eq(t.to_owned()));
        }
        if let Some(g) = query.game {
            q = q.filter(findings::game.eq(g.to_owned()));
        }
        if let Some(k) = query.kind {
            q = q.filter(findings::kind.eq(k.as_str()));
        }
        if let Some(from) = query.played_from {
            q = q.filter(findings::played_at.ge(from));
        }
        if let Some(before) = query.played_before {
            q = q.filter(findings::played_at.lt(before));
        }
        if let Some(min) = query.min_amount_h {
            q = q.filter(findings::amount_h.ge(min));
        }
        if let Some(max) = query.max_amount_h {
            q = q.filter(findings::amount_h.le(max));
        }
        if let Some(round) = query.round_index {
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
    let q = match query.sort {
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
        .limit(query.limit)
        .offset(query.offset)
        .select((
            FindingRow::as_select(),
            sql::<Text>(STATE_SQL),
            sql::<Nullable<BigInt>>(SEQ_NO_SQL),
            sql::<Nullable<Text>>(ROUND_ID_SQL),
        ))
        .load(conn)?;
    Ok(FindingsPage {
        total,
        total_amount_h: total_amount_h.unwrap_or(0),
        items: rows.into_iter().map(listed).collect(),
    })
}

fn listed(
    (row, state, seq_no, round_id): (FindingRow, String, Option<i64>, Option<String>),
) -> ListedFinding {
    ListedFinding {
        row,
        state,
        seq_no,
        round_id,
    }
}

/// The `position`-th finding of the round at `round_index`, if there is one.
pub fn one(
    conn: &mut PgConnection,
    round_index: i64,
    position: i32,
) -> Result<Option<ListedFinding>, LedgerError> {
    let found: Option<(FindingRow, String, Option<i64>, Option<String>)> = findings::table
        .filter(findings::ledger_index.eq(round_index))
        .filter(findings::position.eq(position))
        .select((
            FindingRow::as_select(),
            sql::<Text>(STATE_SQL),
            sql::<Nullable<BigInt>>(SEQ_NO_SQL),
            sql::<Nullable<Text>>(ROUND_ID_SQL),
        ))
        .first(conn)
        .optional()?;
    Ok(found.map(listed))
}

/// Findings of one game, table and kind within one of a report's periods, with where their
/// resolutions stand (the latest resolution of each finding counts).
#[derive(QueryableByName, Debug, Clone, PartialEq, Eq)]
pub struct FindingAggregate {
    /// Which period (1-based) of the bounds the findings' rounds were played in.
    #[diesel(sql_type = Integer)]
    pub period: i32,
    #[diesel(sql_type = Text)]
    pub game: String,
    #[diesel(sql_type = Text)]
    pub table_id: String,
    #[diesel(sql_type = Text)]
    pub kind: String,
    #[diesel(sql_type = BigInt)]
    pub count: i64,
    #[diesel(sql_type = BigInt)]
    pub amount_h: i64,
    #[diesel(sql_type = BigInt)]
    pub escalated: i64,
    #[diesel(sql_type = BigInt)]
    pub confirmed: i64,
    #[diesel(sql_type = BigInt)]
    pub dismissed: i64,
    #[diesel(sql_type = BigInt)]
    pub settled_h: i64,
}

/// Findings summed per period, game, table and kind: `bounds` are the periods' starts and the
/// last one's end (gaming days: their starts and the end of the last); `game` and `table_id`
/// narrow them when given.
pub fn aggregate(
    conn: &mut PgConnection,
    cut: LedgerCut,
    bounds: &[DateTime<Utc>],
    game: Option<&str>,
    table_id: Option<&str>,
) -> Result<Vec<FindingAggregate>, LedgerError> {
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
             WHERE round_index = f.ledger_index AND finding = f.position AND ledger_index < $6 \
             ORDER BY ledger_index DESC LIMIT 1) r ON true \
         WHERE f.played_at >= $1 AND f.played_at < $2 AND f.ledger_index < $6 \
           AND ($4::text IS NULL OR f.game = $4) AND ($5::text IS NULL OR f.table_id = $5) \
         GROUP BY 1, 2, 3, 4",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<Array<Timestamptz>, _>(bounds)
    .bind::<Nullable<Text>, _>(game)
    .bind::<Nullable<Text>, _>(table_id)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?)
}
