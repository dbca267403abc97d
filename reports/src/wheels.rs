//! Wheel statistics: how often each pocket of each roulette wheel and each segment of each money
//! wheel came up in a month, a chi-square test against every one being equally likely, and the
//! neighbour sectors (five pockets or segments next to each other on the wheel) that deviate
//! most. A wheel that lands unevenly (worn bearing, tilted table, a loose pocket separator, a
//! dealer's controlled spin) is what an inspector asks about first; the plan itself says nothing
//! about it. A biased region of a wheel shows in its sectors before it shows in 36 degrees of
//! freedom.

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ledger::storage::read_cut::LedgerCut;
use ledger::storage::report_reads;
use serde::Serialize;

use rules::roulette::layout::{POCKETS, WHEEL_ORDER};
use rules::GameCode;

use crate::chi_square;
use crate::sheet::columns::{GAME, MONTH, PROVISIONAL, TABLE};
use crate::ReportError;
use rules::gaming_day::{GamingDayClock, Month};

/// Below this p-value a wheel is flagged as uneven.
pub const UNEVEN_BELOW_P: f64 = 0.001;

/// A neighbour sector: this many pockets or segments next to each other on the wheel (the
/// plan's "sousedé", a number and two neighbours each side).
pub const SECTOR_WIDTH: usize = 5;

/// A sector this many standard deviations from its expectation flags the wheel: a two-sided
/// p of 0.001 shared among a roulette wheel's 37 sectors (Bonferroni: 0.001 / 37 = 2.7 × 10⁻⁵,
/// |z| ≥ 4.2).
pub const SECTOR_FLAG_Z: f64 = 4.2;

/// The neighbour sector furthest from its expectation.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct SectorDeviation {
    /// The pockets (segment indices on a money wheel) of the sector, in wheel order.
    pub pockets: Vec<String>,
    pub spins: u64,
    pub expected: f64,
    /// (spins − expected) / √(n p (1 − p)), p = width / pockets.
    pub z: f64,
}

/// One wheel over the month.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct WheelLine {
    pub table_id: String,
    pub game: String,
    /// Spins that stopped on a segment (void spins are not counted).
    pub spins: u64,
    pub segments: u32,
    /// How often each segment came up, by its index in the table's layout.
    pub counts: Vec<u64>,
    /// Pearson's statistic against equally likely segments.
    pub chi_square: Option<f64>,
    pub degrees_of_freedom: u32,
    pub p_value: Option<f64>,
    /// Every segment expected at least 5 times, so the test's approximation holds.
    pub enough_spins: bool,
    /// p below 0.001 with enough spins: the wheel does not land evenly.
    pub uneven: bool,
    /// The segment that came up most often: `index label ×count` (roulette: `number ×count`).
    pub most_frequent: Option<String>,
    /// The neighbour sector furthest from its expectation.
    pub sector: Option<SectorDeviation>,
    /// That sector is at least 4.2 standard deviations off, with enough spins.
    pub sector_bias: bool,
}

/// Of the `SECTOR_WIDTH`-wide sectors of a wheel whose cells, in wheel order, are `order`
/// (indices into `counts`), the one furthest from its expectation; `labels` names the cells.
pub fn widest_sector(
    counts: &[u64],
    order: &[usize],
    labels: &[String],
) -> Option<SectorDeviation> {
    let cells = order.len();
    let n: u64 = counts.iter().sum();
    if cells <= SECTOR_WIDTH || n == 0 {
        return None;
    }
    let p = SECTOR_WIDTH as f64 / cells as f64;
    let expected = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (0..cells)
        .map(|start| {
            let members: Vec<usize> = (0..SECTOR_WIDTH)
                .map(|k| order[(start + k) % cells])
                .collect();
            let spins: u64 = members
                .iter()
                .map(|&i| counts.get(i).copied().unwrap_or(0))
                .sum();
            (members, spins)
        })
        .map(|(members, spins)| SectorDeviation {
            pockets: members
                .iter()
                .map(|&i| labels.get(i).cloned().unwrap_or_default())
                .collect(),
            spins,
            expected,
            z: (spins as f64 - expected) / sd,
        })
        // The first of equally deviating sectors, so the answer does not depend on float ties.
        .fold(None, |best: Option<SectorDeviation>, s| match best {
            Some(b) if b.z.abs() >= s.z.abs() => Some(b),
            _ => Some(s),
        })
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct WheelStatistics {
    /// `YYYY-MM`: the gaming days of that month.
    pub month: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Whether the month is not over yet: the counts still change.
    pub provisional: bool,
    /// Why it is provisional, in words; none when final.
    pub provisional_note: Option<String>,
    pub wheels: Vec<WheelLine>,
    /// The ledger entries the statistics cover.
    pub covers: crate::coverage::Coverage,
    /// The month's archived gaming days: their spins are those kept and sealed when their
    /// rounds left the database (with any spin of theirs received since).
    pub archived_days: Vec<crate::archived::ArchivedDay>,
}

/// Every roulette wheel and money wheel with a spin in the gaming days of `month`.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    month: Month,
) -> Result<WheelStatistics, ReportError> {
    let cut = crate::coverage::primary_now(conn)?;
    build_at(conn, cut, clock, month)
}

/// [`build`] of the entries below `cut` (a replica's checkpoint, say).
pub fn build_at(
    conn: &mut PgConnection,
    cut: LedgerCut,
    clock: &GamingDayClock,
    month: Month,
) -> Result<WheelStatistics, ReportError> {
    let (starts_at, ends_at) = clock.month_bounds(month);
    let rows = report_reads::with_archived::segment_counts(conn, cut, starts_at, ends_at)?;
    let mut wheels: Vec<WheelLine> = Vec::new();
    // Each wheel's cell labels and its cells in wheel order.
    let mut layouts: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
    for row in rows {
        if wheels.last().is_none_or(|w| w.table_id != row.table_id) {
            let (layout, order) = if row.game == GameCode::Roulette.as_str() {
                let numbers = (0..POCKETS).map(|n| n.to_string()).collect();
                (
                    numbers,
                    WHEEL_ORDER.iter().map(|&n| usize::from(n)).collect(),
                )
            } else {
                let layout = row.wheel_layout.clone().unwrap_or_default();
                let order = (0..layout.len()).collect();
                (layout, order)
            };
            wheels.push(WheelLine {
                table_id: row.table_id.clone(),
                game: row.game.clone(),
                spins: 0,
                segments: layout.len() as u32,
                counts: vec![0; layout.len()],
                chi_square: None,
                degrees_of_freedom: 0,
                p_value: None,
                enough_spins: false,
                uneven: false,
                most_frequent: None,
                sector: None,
                sector_bias: false,
            });
            layouts.push((layout, order));
        }
        if let (Some(line), Ok(segment)) = (wheels.last_mut(), usize::try_from(row.segment)) {
            let spins = u64::try_from(row.spins).unwrap_or(0);
            if let Some(count) = line.counts.get_mut(segment) {
                *count += spins;
            }
            line.spins += spins;
        }
    }
    for (line, (layout, order)) in wheels.iter_mut().zip(&layouts) {
        if let Some(test) = chi_square::uniform(&line.counts) {
            line.chi_square = Some(test.statistic);
            line.degrees_of_freedom = test.degrees_of_freedom;
            line.p_value = Some(test.p_value);
            line.enough_spins = line.spins >= 5 * u64::from(line.segments);
            line.uneven = line.enough_spins && test.p_value < UNEVEN_BELOW_P;
        }
        line.most_frequent = line
            .counts
            .iter()
            .enumerate()
            .max_by_key(|&(i, c)| (*c, std::cmp::Reverse(i)))
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| match line.game == GameCode::Roulette.as_str() {
                true => format!("{i} ×{c}"),
                false => format!("{i} {} ×{c}", layout.get(i).map_or("?", String::as_str)),
            });
        line.sector = widest_sector(&line.counts, order, layout);
        line.sector_bias = line.enough_spins
            && line
                .sector
                .as_ref()
                .is_some_and(|s| s.z.abs() >= SECTOR_FLAG_Z);
    }
    let provisional_note =
        crate::provisional::month_note(&month.to_string(), ends_at, chrono::Utc::now());
    Ok(WheelStatistics {
        month: month.to_string(),
        starts_at,
        ends_at,
        provisional: provisional_note.is_some(),
        provisional_note,
        wheels,
        covers: cut.into(),
        archived_days: crate::archived::days_within(conn, cut, starts_at, ends_at)?,
    })
}

/// CSV (RFC 4180, UTF-8, CRLF line ends): one line per wheel, the segment counts space-separated in the last column.
pub fn to_csv(statistics: &WheelStatistics) -> Result<String, ReportError> {
    use crate::sheet::{Audience, Cell, CsvWriter};
    let mut w = CsvWriter::new(Audience::Machines);
    w.heading([
        "month",
        "provisional",
        "table_id",
        "game",
        "spins",
        "segments",
        "chi_square",
        "degrees_of_freedom",
        "p_value",
        "enough_spins",
        "uneven",
        "most_frequent",
        "sector",
        "sector_spins",
        "sector_expected",
        "sector_z",
        "sector_bias",
        "counts",
    ])?;
    let text = |t: &str| Cell::Text(t.to_owned());
    let decimal =
        |x: Option<f64>, places: u8| x.map_or(Cell::Empty, |value| Cell::Decimal { value, places });
    for line in &statistics.wheels {
        let counts: Vec<String> = line.counts.iter().map(u64::to_string).collect();
        let sector = line.sector.as_ref();
        w.row(&[
            text(&statistics.month),
            text(&statistics.provisional.to_string()),
            text(&line.table_id),
            text(&line.game),
            Cell::unsigned(line.spins),
            Cell::Count(line.segments.into()),
            decimal(line.chi_square, 3),
            Cell::Count(line.degrees_of_freedom.into()),
            decimal(line.p_value, 6),
            text(&line.enough_spins.to_string()),
            text(&line.uneven.to_string()),
            line.most_frequent.clone().map_or(Cell::Empty, Cell::Text),
            sector.map_or(Cell::Empty, |s| Cell::Text(s.pockets.join(" "))),
            sector.map_or(Cell::Empty, |s| Cell::unsigned(s.spins)),
            decimal(sector.map(|s| s.expected), 2),
            decimal(sector.map(|s| s.z), 2),
            text(&line.sector_bias.to_string()),
            Cell::Text(counts.join(" ")),
        ])?;
    }
    w.into_string()
}

/// The columns of the wheel statistics for people (the segment counts stay in the CSV for
/// programs and the JSON).
const PEOPLE_COLUMNS: [crate::sheet::Column; 17] = {
    use crate::sheet::column;
    [
        MONTH,
        PROVISIONAL,
        TABLE,
        GAME,
        column("spins", "Roztočení", "Spins"),
        column("segments", "Polí kola", "Segments"),
        column("chi_square", "Chí-kvadrát", "Chi-square"),
        column(
            "degrees_of_freedom",
            "Stupně volnosti",
            "Degrees of freedom",
        ),
        column("p_value", "p-hodnota", "p-value"),
        column(
            "enough_spins",
            "Dost roztočení pro test",
            "Enough spins for the test",
        ),
        column("uneven", "Kolo nepadá rovnoměrně", "Wheel lands unevenly"),
        column("most_frequent", "Nejčastější pole", "Most frequent"),
        column("sector", "Nejodchylnější sektor", "Most deviating sector"),
        column("sector_spins", "Roztočení v sektoru", "Spins in the sector"),
        column(
            "sector_expected",
            "Očekáváno v sektoru",
            "Expected in the sector",
        ),
        column("sector_z", "z sektoru", "Sector's z"),
        column("sector_bias", "Sektor vychýlen", "Sector biased"),
    ]
};

/// The wheel statistics as a sheet for people: one line per wheel.
pub fn sheet(
    statistics: &WheelStatistics,
    plans: &rules::PlanBook,
    language: crate::sheet::Language,
) -> crate::sheet::Sheet {
    use crate::sheet::Cell;
    let decimal = |value: Option<f64>, places: u8| {
        value.map_or(Cell::Empty, |value| Cell::Decimal { value, places })
    };
    let count = |n: u64| Cell::Count(i64::try_from(n).unwrap_or(i64::MAX));
    let rows = statistics
        .wheels
        .iter()
        .map(|line| {
            let sector = line.sector.as_ref();
            vec![
                Cell::Text(statistics.month.clone()),
                Cell::yes_no(statistics.provisional, language),
                Cell::Text(line.table_id.clone()),
                Cell::game(&line.game, plans),
                count(line.spins),
                Cell::Count(i64::from(line.segments)),
                decimal(line.chi_square, 3),
                Cell::Count(i64::from(line.degrees_of_freedom)),
                decimal(line.p_value, 6),
                Cell::yes_no(line.enough_spins, language),
                Cell::yes_no(line.uneven, language),
                line.most_frequent.clone().map_or(Cell::Empty, Cell::Text),
                sector.map_or(Cell::Empty, |s| Cell::Text(s.pockets.join(" "))),
                sector.map_or(Cell::Empty, |s| count(s.spins)),
                decimal(sector.map(|s| s.expected), 2),
                decimal(sector.map(|s| s.z), 2),
                Cell::yes_no(line.sector_bias, language),
            ]
        })
        .collect();
    crate::sheet::Sheet {
        name: format!("{} {}", language.pick("Kola", "Wheels"), statistics.month),
        columns: PEOPLE_COLUMNS.to_vec(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sector_furthest_from_its_expectation_is_named() {
        // Seven cells in wheel order 0 3 6 2 5 1 4; 70 spins, 30 of them on cell 5.
        let counts = [5, 5, 5, 5, 5, 30, 15];
        let order = [0, 3, 6, 2, 5, 1, 4];
        let labels: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"].map(String::from).into();
        let sector = widest_sector(&counts, &order, &labels).unwrap();
        // p = 5/7; expected 70 × 5/7 = 50; sd = √(70 × 5/7 × 2/7) = √(100/7) = 3.7796.
        // Sectors (start at each wheel position): [0 3 6 2 5] = 5+5+15+5+30 = 60,
        // [3 6 2 5 1] = 60, [6 2 5 1 4] = 15+5+30+5+5 = 60, [2 5 1 4 0] = 50, [5 1 4 0 3] = 50,
        // [1 4 0 3 6] = 35, [4 0 3 6 2] = 35. Furthest: 35, z = −15 / 3.7796 = −3.9686.
        assert_eq!(sector.pockets, ["b", "e", "a", "d", "g"]);
        assert_eq!(sector.spins, 35);
        assert!((sector.expected - 50.0).abs() < 1e-9);
        assert!((sector.z + 3.968_627).abs() < 1e-5, "{}", sector.z);
        assert_eq!(widest_sector(&[0; 7], &order, &labels), None);
    }
}
