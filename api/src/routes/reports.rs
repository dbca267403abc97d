//! Payout/RTP reports.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use diesel::PgConnection;
use reports::daily::{self as daily_report, DailyReport};
use reports::fantasy::{self as fantasy_report, FantasyAudit};
use reports::shoes::{self as shoe_report, ShoeAudit};
use reports::wheels::{self as wheel_report, WheelStatistics};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DailyQuery {
    /// Gaming day, `YYYY-MM-DD`.
    pub day: NaiveDate,
    /// `json` (default) or `csv`.
    pub format: Option<String>,
}

/// Daily per-game and per-table payout/RTP report: rounds, stakes, payouts, returned stakes,
/// GGR, actual and theoretical RTP, deviation, findings.
#[utoipa::path(get, path = "/api/v1/reports/daily", tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON or CSV (RFC 4180)", body = DailyReport), (status = 400, body = ErrorBody)))]
#[get("/reports/daily")]
pub async fn daily(
    state: web::Data<AppState>,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    let DailyQuery { day, format } = query.into_inner();
    let build = move |conn: &mut PgConnection, state: &AppState| {
        daily_report::build(conn, &state.clock, day)
    };
    report(
        state,
        format,
        build,
        daily_report::to_csv,
        format!("daily-{day}"),
    )
    .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MonthQuery {
    /// Month of gaming days, `YYYY-MM`.
    pub month: String,
    /// `json` (default) or `csv`.
    pub format: Option<String>,
}

/// Wheel statistics of a month: how often each segment of each money wheel came up, and a
/// chi-square test against equally likely segments; `uneven` when p < 0.001 (with every
/// segment expected at least 5 times).
#[utoipa::path(get, path = "/api/v1/reports/wheels", tag = "reports", params(MonthQuery),
    responses((status = 200, description = "JSON or CSV (RFC 4180)", body = WheelStatistics), (status = 400, body = ErrorBody)))]
#[get("/reports/wheels")]
pub async fn wheels(
    state: web::Data<AppState>,
    query: web::Query<MonthQuery>,
) -> Result<HttpResponse, ApiError> {
    let MonthQuery { month, format } = query.into_inner();
    let first = reports::Month::parse(&month).ok_or_else(|| {
        ApiError::bad_request(
            "invalid_query",
            format!("month must be YYYY-MM, not `{month}`"),
        )
    })?;
    let build = move |conn: &mut PgConnection, state: &AppState| {
        wheel_report::build(conn, &state.clock, first)
    };
    report(
        state,
        format,
        build,
        wheel_report::to_csv,
        format!("wheels-{month}"),
    )
    .await
}

fn wants_csv(format: Option<&str>) -> Result<bool, ApiError> {
    match format {
        None | Some("json") => Ok(false),
        Some("csv") => Ok(true),
        Some(other) => Err(ApiError::bad_request(
            "invalid_query",
            format!("format must be json or csv, not `{other}`"),
        )),
    }
}

/// Shoe audit of a gaming day: every blackjack shoe with a round in the day, its cards counted
/// across its rounds from the shuffle, and any card dealt more often than the shoe holds it.
#[utoipa::path(get, path = "/api/v1/reports/shoes", tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON or CSV (RFC 4180)", body = ShoeAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/shoes")]
pub async fn shoes(
    state: web::Data<AppState>,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    day_report(
        state,
        query.into_inner(),
        shoe_report::build,
        shoe_report::to_csv,
        "shoes",
    )
    .await
}

/// Fantasy-land audit of a gaming day: each Open Face Chinese hand's fantasy-land deals
/// against what the table's previous hand earned (a hand's verdict sees that hand only).
#[utoipa::path(get, path = "/api/v1/reports/fantasy", tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON or CSV (RFC 4180)", body = FantasyAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/fantasy")]
pub async fn fantasy(
    state: web::Data<AppState>,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    day_report(
        state,
        query.into_inner(),
        fantasy_report::build,
        fantasy_report::to_csv,
        "fantasy",
    )
    .await
}

/// An audit of one gaming day that follows tables across rounds.
async fn day_report<R: Serialize + Send + 'static>(
    state: web::Data<AppState>,
    DailyQuery { day, format }: DailyQuery,
    build: fn(
        &mut PgConnection,
        &reports::GamingDayClock,
        NaiveDate,
        &rules::PlanBook,
    ) -> Result<R, reports::ReportError>,
    to_csv: fn(&R) -> Result<String, reports::ReportError>,
    name: &str,
) -> Result<HttpResponse, ApiError> {
    let build = move |conn: &mut PgConnection, state: &AppState| {
        build(conn, &state.clock, day, &state.plans)
    };
    report(state, format, build, to_csv, format!("{name}-{day}")).await
}

/// A report built off the async workers, answered as JSON or, when asked for, as a CSV file
/// named `dozor-<file>.csv`.
async fn report<R: Serialize + Send + 'static>(
    state: web::Data<AppState>,
    format: Option<String>,
    build: impl FnOnce(&mut PgConnection, &AppState) -> Result<R, reports::ReportError> + Send + 'static,
    to_csv: fn(&R) -> Result<String, reports::ReportError>,
    file: String,
) -> Result<HttpResponse, ApiError> {
    let csv = wants_csv(format.as_deref())?;
    let report =
        web::block(move || -> Result<_, ApiError> { Ok(build(&mut *state.conn()?, &state)?) })
            .await??;
    if !csv {
        return Ok(HttpResponse::Ok().json(report));
    }
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"dozor-{file}.csv\""),
        ))
        .body(to_csv(&report)?))
}
