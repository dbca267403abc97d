//! Findings: discrepancies between what the tables did and what the plan requires, and the
//! compliance officers' resolutions of them.

use actix_web::{get, post, web, HttpResponse};
use chrono::{NaiveDate, Utc};
use ledger::access::{Decision, FindingState};
use ledger::storage::resolutions::{self, parse_finding_ref, ResolutionError, Resolver};
use reports::findings::{self, FindingFilter, FindingPage, FindingWithHistory, ResolutionView};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::tables::LedgerEntryView;

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
    /// open, confirmed, dismissed or escalated.
    pub state: Option<String>,
    /// 1-1000, default 100.
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

/// Findings, oldest first, filtered by table, game, gaming day, kind and state.
#[utoipa::path(operation_id = "list_findings", get, tag = "findings", params(FindingQuery),
    responses((status = 200, body = FindingPage), (status = 400, body = ErrorBody)))]
#[get("/findings")]
pub async fn list(
    Authorized { state, .. }: Authorized,
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
    let finding_state = q
        .state
        .as_deref()
        .map(|s| {
            FindingState::parse(s).ok_or_else(|| {
                ApiError::bad_request(
                    "invalid_query",
                    "state is open, confirmed, dismissed or escalated",
                )
            })
        })
        .transpose()?;
    let filter = FindingFilter {
        table_id: q.table_id,
        game: crate::routes::game_filter(q.game)?,
        kind,
        state: finding_state,
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

fn finding_id(text: &str) -> Result<(u64, u32), ApiError> {
    parse_finding_ref(text).ok_or_else(|| {
        ApiError::bad_request(
            "invalid_path",
            "a finding id is `<round ledger index>.<position>`, e.g. `1234.0`",
        )
    })
}

/// One finding with every resolution of it, oldest first.
#[utoipa::path(operation_id = "get_finding", get, tag = "findings",
    params(("finding_id" = String, Path, description = "`<round ledger index>.<position>`")),
    responses((status = 200, body = FindingWithHistory), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody)))]
#[get("/findings/{finding_id}")]
pub async fn get(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let finding = finding_id(&path.into_inner())?;
    let found = web::block(move || -> Result<_, ApiError> {
        Ok(findings::get(&mut *state.conn()?, &state.clock, finding)?)
    })
    .await??;
    found
        .map(|f| HttpResponse::Ok().json(f))
        .ok_or_else(|| ApiError::not_found("unknown_finding", "no such finding"))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveFinding {
    /// confirmed, dismissed or escalated.
    #[schema(example = "confirmed")]
    pub state: String,
    /// Confirmed only: what was recovered from the player or paid back to them, in haléře.
    #[serde(default, deserialize_with = "crate::json_numbers::optional_integer")]
    pub amount_settled_h: Option<i64>,
    /// Dismissed: required, why it is not a discrepancy. Confirmed: why the settlement
    /// differs from the finding's amount — required when it is above it.
    pub reason: Option<String>,
    /// Always: what was done and why.
    pub comment: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ResolutionReceipt {
    #[serde(flatten)]
    pub resolution: ResolutionView,
    /// The finding's id.
    pub finding: String,
    /// The registry event this resolution appended.
    pub ledger_entry: LedgerEntryView,
}

fn resolution_error(e: ResolutionError) -> ApiError {
    match e {
        ResolutionError::Invalid { field, message } => {
            ApiError::unprocessable("invalid_resolution", message, json!({ "field": field }))
        }
        ResolutionError::UnknownFinding(_) => ApiError::not_found("unknown_finding", e.to_string()),
        ResolutionError::NotAllowed { now, wanted, .. } => ApiError::Conflict {
            code: "resolution_not_allowed",
            message: e.to_string(),
            details: json!({
                "state": now.as_str(),
                "requested": wanted.as_str(),
                "allowed": now.next_states().iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            }),
        },
        ResolutionError::KeyMayNotResolve(_) => ApiError::Forbidden {
            message: e.to_string(),
            details: json!({}),
        },
        ResolutionError::Storage(s) => s.into(),
    }
}

/// Resolve a finding: confirm it (with the amount recovered or paid back, if any), dismiss it
/// (with the reason) or escalate it, always with a comment. The resolution is a ledger entry
/// naming the finding and the key that decided. A decided finding is reopened by escalating it.
#[utoipa::path(operation_id = "resolve_finding", post, tag = "findings",
    request_body = ResolveFinding,
    params(("finding_id" = String, Path, description = "`<round ledger index>.<position>`")),
    responses((status = 201, body = ResolutionReceipt), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody),
              (status = 409, description = "the finding's state does not allow this step", body = ErrorBody),
              (status = 422, description = "a field is missing or out of range", body = ErrorBody)))]
#[post("/findings/{finding_id}/resolutions")]
pub async fn resolve(
    Authorized { state, caller }: Authorized,
    path: web::Path<String>,
    body: web::Json<ResolveFinding>,
) -> Result<HttpResponse, ApiError> {
    let finding = finding_id(&path.into_inner())?;
    let body = body.into_inner();
    let decided = FindingState::parse(&body.state)
        .filter(|s| *s != FindingState::Open)
        .ok_or_else(|| {
            ApiError::unprocessable(
                "invalid_resolution",
                "state is confirmed, dismissed or escalated",
                json!({ "field": "state" }),
            )
        })?;
    let decision = Decision {
        state: decided,
        amount_settled_h: body.amount_settled_h,
        reason: body.reason,
        comment: body.comment,
    };
    let (row, receipt) = web::block(move || {
        let by = Resolver {
            key_id: &caller.key_id,
            name: &caller.name,
            role: caller.role,
        };
        resolutions::resolve_finding(
            &mut *state.conn()?,
            state.operator.signing_key(),
            finding,
            &decision,
            by,
            Utc::now(),
        )
        .map_err(resolution_error)
    })
    .await??;
    Ok(HttpResponse::Created().json(ResolutionReceipt {
        finding: resolutions::finding_ref(finding.0, finding.1),
        resolution: ResolutionView::from(row),
        ledger_entry: receipt.into(),
    }))
}
