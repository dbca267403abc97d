//! The figures of archived gaming days (migration 000028). When an archive takes whole gaming
//! days, what the reports sum of each day's rounds is computed by the reports' own queries, in
//! the archive's transaction, before the rows leave; the figures are kept as a JSON document
//! sealed into the ledger (a `report_published` event named [`figures_name`]). Every report read
//! of rounds adds the kept figures of the archived days its span holds to what the ledger still
//! holds (rounds of those days received after the archive), so an archived day's reports answer
//! with the figures they had, and say so.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Date, Timestamptz};
use serde::{Deserialize, Serialize};

use super::read_cut::{LedgerCut, ReadSource};
use super::report_reads::round_sums::{Narrowing, PlayedSpan};
use super::report_reads::{daily, monthly, tax, wheels};
use crate::LedgerError;

/// The name an archived day's figures are sealed under.
pub fn figures_name(day: NaiveDate) -> String {
    format!("reports/archived/{day}/figures.json")
}

/// A gaming day an archive takes: its bounds in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DaySpan {
    pub day: NaiveDate,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// What the reports summed of one gaming day's rounds below `below_index`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DayFigures {
    pub gaming_day: NaiveDate,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub below_index: u64,
    /// The late-record window the daily figures counted late rounds by, in seconds.
    pub late_after_seconds: i64,
    /// The daily report's rows per game and table.
    pub tables: Vec<daily::TableDay>,
    /// The monthly report's rows of the day (`day_index` 1) and its bet kinds.
    pub month_days: Vec<monthly::DayAggregate>,
    pub kinds: Vec<monthly::KindAggregate>,
    /// The gambling tax's sums per game.
    pub taxes: Vec<tax::GameTotals>,
    /// The wheel statistics' spins per pocket or segment.
    pub segments: Vec<wheels::SegmentCount>,
}

/// An archived day as kept: its figures and where they are sealed.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptDay {
    pub figures: DayFigures,
    /// The `report_published` event that seals the figures' JSON.
    pub sealed_index: u64,
    /// The `range_archived` event of the archive that took the day.
    pub range_archived_index: u64,
}

/// The figures of `span`'s rounds below `below`, read by the reports' own queries.
pub fn compute(
    conn: &mut PgConnection,
    span: DaySpan,
    below: u64,
    late_after: chrono::Duration,
) -> Result<DayFigures, LedgerError> {
    let cut = LedgerCut {
        size: below,
        source: ReadSource::Primary,
        at_checkpoint: false,
    };
    let (start, end) = (span.starts_at, span.ends_at);
    let played = PlayedSpan { cut, start, end };
    let tables = daily::tables_of_day_live(conn, played, late_after)?;
    let month = monthly::month_live(conn, cut, &[start, end], Narrowing::default())?;
    Ok(DayFigures {
        gaming_day: span.day,
        starts_at: start,
        ends_at: end,
        below_index: below,
        late_after_seconds: late_after.num_seconds(),
        tables,
        month_days: month.days,
        kinds: month.kinds,
        taxes: tax::game_totals_live(conn, played)?,
        segments: wheels::segment_counts_live(conn, played)?,
    })
}

/// Keeps the figures of an archived day (inside the archive's transaction).
pub(crate) fn insert(
    conn: &mut PgConnection,
    figures: &DayFigures,
    bytes: &[u8],
    sealed_index: u64,
    range_archived_index: u64,
) -> Result<(), LedgerError> {
    diesel::sql_query(
        "INSERT INTO archived_days (gaming_day, starts_at, ends_at, below_index, figures, \
                                    sealed_index, range_archived_index) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind::<Date, _>(figures.gaming_day)
    .bind::<Timestamptz, _>(figures.starts_at)
    .bind::<Timestamptz, _>(figures.ends_at)
    .bind::<BigInt, _>(as_i64(figures.below_index))
    .bind::<Bytea, _>(bytes)
    .bind::<BigInt, _>(as_i64(sealed_index))
    .bind::<BigInt, _>(as_i64(range_archived_index))
    .execute(conn)?;
    Ok(())
}

fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Bytea)]
    figures: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    sealed_index: i64,
    #[diesel(sql_type = BigInt)]
    range_archived_index: i64,
}

/// The archived days lying wholly inside `[start, end)` whose figures `cut` covers, oldest
/// first; each checked against its seal (a kept document that is not what the ledger seals is
/// refused, never summed).
pub fn within(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<KeptDay>, LedgerError> {
    let rows: Vec<Row> = diesel::sql_query(
        "SELECT figures, sealed_index, range_archived_index FROM archived_days \
         WHERE starts_at >= $1 AND ends_at <= $2 AND below_index <= $3 ORDER BY starts_at",
    )
    .bind::<Timestamptz, _>(start)
    .bind::<Timestamptz, _>(end)
    .bind::<BigInt, _>(cut.bound())
    .load(conn)?;
    rows.into_iter()
        .map(|row| {
            let sealed_index = u64::try_from(row.sealed_index).unwrap_or(0);
            let figures: DayFigures = serde_json::from_slice(&row.figures).map_err(|e| {
                LedgerError::Archive(format!(
                    "the kept figures sealed at entry {sealed_index} cannot be read: {e}"
                ))
            })?;
            let name = figures_name(figures.gaming_day);
            let what = format!("the kept figures of gaming day {}", figures.gaming_day);
            if let Err(failure) = super::published_reports::check_kept(
                conn,
                row.sealed_index,
                &name,
                &row.figures,
                &what,
            )? {
                return Err(LedgerError::Archive(failure.reason));
            }
            Ok(KeptDay {
                figures,
                sealed_index,
                range_archived_index: u64::try_from(row.range_archived_index).unwrap_or(0),
            })
        })
        .collect()
}

/// Whether any gaming day is archived (reports skip the merge on a ledger that never archived).
pub fn any(conn: &mut PgConnection) -> Result<bool, LedgerError> {
    #[derive(QueryableByName)]
    struct Any {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        any: bool,
    }
    Ok(
        diesel::sql_query("SELECT EXISTS (SELECT 1 FROM archived_days) AS any")
            .get_result::<Any>(conn)?
            .any,
    )
}
