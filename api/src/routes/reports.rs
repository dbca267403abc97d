//! Payout/RTP reports.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use reports::daily::{self as daily_report, DailyReport};
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
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            return Err(ApiError::bad_request(
                "invalid_query",
                format!("format must be json or csv, not `{other}`"),
            ))
        }
    };
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
