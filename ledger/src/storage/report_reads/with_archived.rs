//! The report reads of a span that may hold archived gaming days: what the ledger still holds
//! of the span (each report area's `_live` read) with the kept figures of the archived days
//! inside it added (rounds of those days received after the archive stay in the ledger).

use chrono::{DateTime, Duration, Utc};
use diesel::PgConnection;

use super::daily::{self, TableDay};
use super::monthly::{self, MonthFigures};
use super::round_sums::{Narrowing, PlayedSpan};
use super::tax::{self, GameTotals};
use super::wheels::{self, SegmentCount};
use crate::storage::archived_days;
use crate::storage::read_cut::LedgerCut;
use crate::LedgerError;

/// Adds the kept `rows` to `into`: a row for the same key absorbs one, another is appended.
fn merge<T>(
    into: &mut Vec<T>,
    rows: impl IntoIterator<Item = T>,
    same: impl Fn(&T, &T) -> bool,
    absorb: impl Fn(&mut T, &T) -> Result<(), LedgerError>,
) -> Result<(), LedgerError> {
    for kept in rows {
        match into.iter_mut().find(|row| same(row, &kept)) {
            Some(row) => absorb(row, &kept)?,
            None => into.push(kept),
        }
    }
    Ok(())
}

/// The rounds played in `[start, end)`, summed per game and table; a round received more than
/// `late_after` after it was played counts as late.
pub fn tables_of_day(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    late_after: Duration,
) -> Result<Vec<TableDay>, LedgerError> {
    let span = PlayedSpan { cut, start, end };
    let mut rows = daily::tables_of_day_live(conn, span, late_after)?;
    for kept in archived_days::within(conn, cut, start, end)? {
        merge(
            &mut rows,
            kept.figures.tables,
            |r, k| (&r.game, &r.table_id) == (&k.game, &k.table_id),
            TableDay::absorb,
        )?;
    }
    Ok(rows)
}

/// The figures of the gaming days whose starts are `bounds` (and the last one's end), narrowed
/// to `game` and `table_id` when given.
pub fn month(
    conn: &mut PgConnection,
    cut: LedgerCut,
    bounds: &[DateTime<Utc>],
    game: Option<&str>,
    table_id: Option<&str>,
) -> Result<MonthFigures, LedgerError> {
    let only = Narrowing { game, table_id };
    let mut figures = monthly::month_live(conn, cut, bounds, only)?;
    let (Some(&start), Some(&end)) = (bounds.first(), bounds.last()) else {
        return Ok(figures);
    };
    for kept in archived_days::within(conn, cut, start, end)? {
        // The kept day's index among the bounds, as width_bucket gives it (1-based).
        let Some(day_index) = bounds
            .windows(2)
            .position(|w| w[0] <= kept.figures.starts_at && kept.figures.starts_at < w[1])
            .and_then(|i| i32::try_from(i + 1).ok())
        else {
            continue;
        };
        let days = kept
            .figures
            .month_days
            .into_iter()
            .filter(|k| only.admits(&k.game, &k.table_id));
        merge(
            &mut figures.days,
            days.map(|mut k| {
                k.day_index = day_index;
                k
            }),
            |d, k| (d.day_index, &d.game, &d.table_id) == (k.day_index, &k.game, &k.table_id),
            monthly::DayAggregate::absorb,
        )?;
        merge(
            &mut figures.kinds,
            kept.figures
                .kinds
                .into_iter()
                .filter(|k| only.admits(&k.game, &k.table_id)),
            |d, k| (&d.game, &d.table_id, &d.kind) == (&k.game, &k.table_id, &k.kind),
            monthly::KindAggregate::absorb,
        )?;
    }
    Ok(figures)
}

/// Every adjudicated record played in `[start, end)`, summed per game.
pub fn game_totals(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<GameTotals>, LedgerError> {
    let mut rows = tax::game_totals_live(conn, PlayedSpan { cut, start, end })?;
    for kept in archived_days::within(conn, cut, start, end)? {
        merge(
            &mut rows,
            kept.figures.taxes,
            |r, k| r.game == k.game,
            GameTotals::absorb,
        )?;
    }
    Ok(rows)
}

/// Every roulette wheel's and money wheel's spins in `[start, end)` that stopped on a pocket or
/// segment, counted per table and segment, in that order.
pub fn segment_counts(
    conn: &mut PgConnection,
    cut: LedgerCut,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<Vec<SegmentCount>, LedgerError> {
    let mut rows = wheels::segment_counts_live(conn, PlayedSpan { cut, start, end })?;
    let mut merged = false;
    for kept in archived_days::within(conn, cut, start, end)? {
        merged |= !kept.figures.segments.is_empty();
        merge(
            &mut rows,
            kept.figures.segments,
            |r, k| {
                (&r.table_id, &r.game, &r.wheel_layout, r.segment)
                    == (&k.table_id, &k.game, &k.wheel_layout, k.segment)
            },
            |row, k| {
                row.spins = super::checked_sum(row.spins, k.spins)?;
                Ok(())
            },
        )?;
    }
    if merged {
        rows.sort_by(|a, b| (&a.table_id, a.segment).cmp(&(&b.table_id, b.segment)));
    }
    Ok(rows)
}
