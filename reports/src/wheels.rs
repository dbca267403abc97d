//! Wheel statistics: how often each segment of each money wheel came up in a month, and a
//! chi-square test against every segment being equally likely. A wheel that lands unevenly
//! (worn bearing, tilted table, a dealer's controlled spin) is what an inspector asks about
//! first; the plan itself says nothing about it.

use chrono::{DateTime, Utc};
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamptz};
use diesel::{PgConnection, QueryableByName, RunQueryDsl as _};
use serde::Serialize;

use crate::chi_square;
use crate::{GamingDayClock, Month, ReportError};

/// Below this p-value a wheel is flagged as uneven.
pub const UNEVEN_BELOW_P: f64 = 0.001;

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
    /// The segment that came up most often: `index label ×count`.
    pub most_frequent: Option<String>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct WheelStatistics {
    /// `YYYY-MM`: the gaming days of that month.
    pub month: String,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub wheels: Vec<WheelLine>,
}

#[derive(QueryableByName)]
struct SegmentCount {
    #[diesel(sql_type = Text)]
    table_id: String,
    #[diesel(sql_type = Text)]
    game: String,
    #[diesel(sql_type = Nullable<Array<Text>>)]
    wheel_layout: Option<Vec<String>>,
    #[diesel(sql_type = Integer)]
    segment: i32,
    #[diesel(sql_type = BigInt)]
    spins: i64,
}

/// Every money wheel with a spin in the gaming days of `month`.
pub fn build(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    month: Month,
) -> Result<WheelStatistics, ReportError> {
    let (starts_at, ends_at) = clock.month_bounds(month);
    let rows: Vec<SegmentCount> = diesel::sql_query(
        "SELECT a.table_id, a.game, t.wheel_layout, (a.verdict::json->>'segment')::int AS segment, \
                count(*) AS spins \
         FROM adjudications a JOIN gaming_tables t ON t.table_id = a.table_id \
         WHERE a.game IN ('money_wheel_1', 'money_wheel_2') \
           AND a.played_at >= $1 AND a.played_at < $2 AND a.verdict::json->>'segment' IS NOT NULL \
         GROUP BY a.table_id, a.game, t.wheel_layout, segment \
         ORDER BY a.table_id, segment",
    )
    .bind::<Timestamptz, _>(starts_at)
    .bind::<Timestamptz, _>(ends_at)
    .load(conn)?;
    let mut wheels: Vec<WheelLine> = Vec::new();
    let mut layouts: Vec<Vec<String>> = Vec::new();
    for row in rows {
        if wheels.last().is_none_or(|w| w.table_id != row.table_id) {
            let layout = row.wheel_layout.clone().unwrap_or_default();
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
            });
            layouts.push(layout);
        }
        if let (Some(line), Ok(segment)) = (wheels.last_mut(), usize::try_from(row.segment)) {
            let spins = u64::try_from(row.spins).unwrap_or(0);
            if let Some(count) = line.counts.get_mut(segment) {
                *count += spins;
            }
            line.spins += spins;
        }
    }
    for (line, layout) in wheels.iter_mut().zip(&layouts) {
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
            .map(|(i, c)| format!("{i} {} ×{c}", layout.get(i).map_or("?", String::as_str)));
    }
    Ok(WheelStatistics {
        month: month.to_string(),
        starts_at,
        ends_at,
        wheels,
    })
}

/// CSV (RFC 4180): one line per wheel, the segment counts space-separated in the last column.
pub fn to_csv(statistics: &WheelStatistics) -> Result<String, ReportError> {
    let csv_err = |e: csv::Error| ReportError::Csv(e.to_string());
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "month",
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
        "counts",
    ])
    .map_err(csv_err)?;
    for line in &statistics.wheels {
        let counts: Vec<String> = line.counts.iter().map(u64::to_string).collect();
        w.write_record([
            statistics.month.clone(),
            line.table_id.clone(),
            line.game.clone(),
            line.spins.to_string(),
            line.segments.to_string(),
            line.chi_square.map_or(String::new(), |x| format!("{x:.3}")),
            line.degrees_of_freedom.to_string(),
            line.p_value.map_or(String::new(), |p| format!("{p:.6}")),
            line.enough_spins.to_string(),
            line.uneven.to_string(),
            line.most_frequent.clone().unwrap_or_default(),
            counts.join(" "),
        ])
        .map_err(csv_err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| ReportError::Csv(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| ReportError::Csv(e.to_string()))
}
