//! Payout/RTP reports.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use reports::daily::{self as daily_report, DailyReport};
use reports::fantasy::{self as fantasy_report, FantasyAudit};
use reports::shoes::{self as shoe_report, ShoeAudit};
use reports::wheels::{self as wheel_report, WheelStatistics};
use serde::Deserialize;
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
    let q = query.into_inner();
    let csv = wants_csv(q.format.as_deref())?;
    let report = web::block(move || -> Result<_, ApiError> {
        Ok(daily_report::build(
            &mut *state.conn()?,
            &state.clock,
            q.day,
        )?)
    })
    .await??;
    if csv {
        let body = daily_report::to_csv(&report)?;
        Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                "Content-Disposition",
                format!(
                    "attachment; filename=\"dozor-daily-{}.csv\"",
                    report.gaming_day
                ),
            ))
            .body(body))
    } else {
        Ok(HttpResponse::Ok().json(report))
    }
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
    let q = query.into_inner();
    let csv = wants_csv(q.format.as_deref())?;
    let first = wheel_report::parse_month(&q.month).ok_or_else(|| {
        ApiError::bad_request(
            "invalid_query",
            format!("month must be YYYY-MM, not `{}`", q.month),
        )
    })?;
    let statistics = web::block(move || -> Result<_, ApiError> {
        Ok(wheel_report::build(
            &mut *state.conn()?,
            &state.clock,
            first,
        )?)
    })
    .await??;
    if csv {
        Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .body(wheel_report::to_csv(&statistics)?))
    } else {
        Ok(HttpResponse::Ok().json(statistics))
    }
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
    )
    .await
}

/// An audit of one gaming day that follows tables across rounds, built off the async workers
/// and answered as JSON or CSV.
async fn day_report<R: serde::Serialize + Send + 'static>(
    state: web::Data<AppState>,
    q: DailyQuery,
    build: fn(
        &mut diesel::PgConnection,
        &reports::GamingDayClock,
        NaiveDate,
        &rules::PlanBook,
    ) -> Result<R, reports::ReportError>,
    to_csv: fn(&R) -> Result<String, reports::ReportError>,
) -> Result<HttpResponse, ApiError> {
    let csv = wants_csv(q.format.as_deref())?;
    let audit = web::block(move || -> Result<_, ApiError> {
        Ok(build(
            &mut *state.conn()?,
            &state.clock,
            q.day,
            &state.plans,
        )?)
    })
    .await??;
    if csv {
        Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .body(to_csv(&audit)?))
    } else {
        Ok(HttpResponse::Ok().json(audit))
    }
}
