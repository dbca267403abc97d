//! Findings: discrepancies between what the tables did and what the plan requires.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use reports::findings::{self, FindingFilter, FindingPage};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct FindingQuery {
    pub table_id: Option<String>,
    /// Game code, e.g. `roulette`.
    pub game: Option<String>,
    /// Gaming day (Europe/Prague, from the configured start hour), `YYYY-MM-DD`.
    pub day: Option<NaiveDate>,
    /// overpaid, underpaid, stake_below_minimum, stake_above_maximum, win_above_maximum,
    /// invalid_number, void_handled_wrongly, illegal_decision, dealer_drawing_wrong,
    /// cards_inconsistent, payout_withheld, bet_not_allowed
    pub kind: Option<String>,
    /// 1-1000, default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// Findings, oldest first, filtered by table, game, gaming day and kind.
#[utoipa::path(get, path = "/api/v1/findings", tag = "findings", params(FindingQuery),
    responses((status = 200, body = FindingPage), (status = 400, body = ErrorBody)))]
#[get("/findings")]
pub async fn list(
    state: web::Data<AppState>,
    query: web::Query<FindingQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let kind = q
        .kind
        .as_deref()
        .map(|k| {
            rules::FindingKind::parse(k).ok_or_else(|| {
                ApiError::bad_request("invalid_query", format!("unknown finding kind `{k}`"))
            })
        })
        .transpose()?;
    let filter = FindingFilter {
        table_id: q.table_id,
        game: q.game,
        kind,
        day: q.day,
        limit: q.limit.unwrap_or(100),
        offset: q.offset.unwrap_or(0),
    };
    let page = web::block(move || -> Result<_, ApiError> {
        Ok(findings::list(&mut *state.conn()?, &state.clock, &filter)?)
    })
    .await??;
    Ok(HttpResponse::Ok().json(page))
}
