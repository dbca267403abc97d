//! Findings: discrepancies between what the tables did and what the plan requires, and the
//! compliance officers' resolutions of them.

use actix_web::{get, post, web, HttpResponse};
use chrono::{NaiveDate, Utc};
use dozor_log::access::{Decision, FindingState};
use ledger::storage::report_reads::findings::FindingSort;
use ledger::storage::resolutions::{self, parse_finding_ref, ResolutionError, Resolver};
use reports::findings::{self, FindingFilter, FindingPage, FindingWithHistory, ResolutionView};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use crate::download::{self, Format};
use crate::error::{ApiError, ErrorBody};
use crate::gate::{Authorized, State};
use crate::routes::blocking::on_primary;
use crate::routes::tables::LedgerEntryView;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct FindingQuery {
    pub table_id: Option<String>,
    /// Game code, e.g. `roulette`.
    pub game: Option<String>,
    /// One gaming day (Europe/Prague, from the configured start hour): `YYYY-MM-DD`, `today`,
    /// `yesterday` or `last`. The same as `from` and `to` both that day (with them, every bound
    /// holds; a range with nothing in it is an empty page).
    pub day: Option<String>,
    /// First gaming day (included), as `day`.
    pub from: Option<String>,
    /// Last gaming day (included), as `day`.
    pub to: Option<String>,
    /// overpaid, underpaid, stake_below_minimum, stake_above_maximum, win_above_maximum,
    /// invalid_number, void_handled_wrongly, illegal_decision, dealer_drawing_wrong,
    /// cards_inconsistent, payout_withheld, bet_not_allowed
    pub kind: Option<String>,
    /// open, confirmed, dismissed or escalated.
    pub state: Option<String>,
    /// Only findings of at least this amount, in haléře.
    pub min_amount_h: Option<i64>,
    /// Only findings of at most this amount, in haléře.
    pub max_amount_h: Option<i64>,
    /// `played_at` (oldest first, the default), `-played_at`, `-amount` (largest first),
    /// `amount`, `table` or `kind`.
    pub sort: Option<String>,
    /// `json` (a page), or a file of every finding matching (up to 100 000): `csv` (for
    /// programs), `csv-cz` (`;`, koruny with a decimal comma, names: for a spreadsheet) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
    /// 1-1000, default 100 (JSON only).
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

impl FindingQuery {
    pub(crate) fn filter(
        self,
        clock: &rules::gaming_day::GamingDayClock,
    ) -> Result<FindingFilter, ApiError> {
        let kind = parsed(self.kind.as_deref(), rules::FindingKind::parse, |k| {
            format!("unknown finding kind `{k}`")
        })?;
        let state = parsed(self.state.as_deref(), FindingState::parse, |_| {
            "state is open, confirmed, dismissed or escalated".to_owned()
        })?;
        let sort = parsed(self.sort.as_deref(), FindingSort::parse, |_| {
            "sort is played_at, -played_at, -amount, amount, table or kind".to_owned()
        })?
        .unwrap_or_default();
        let now = Utc::now();
        let day = |name: &str, text: Option<String>| -> Result<Option<NaiveDate>, ApiError> {
            text.map(|t| {
                clock
                    .parse_day(&t, now)
                    .map_err(|m| ApiError::bad_request("invalid_query", format!("{name}: {m}")))
            })
            .transpose()
        };
        // `day` with `from`/`to`: every bound holds (the latest start, the earliest end).
        let one_day = day("day", self.day)?;
        let from = [one_day, day("from", self.from)?]
            .into_iter()
            .flatten()
            .max();
        let to = [one_day, day("to", self.to)?].into_iter().flatten().min();
        Ok(FindingFilter {
            table_id: self.table_id,
            game: crate::routes::filters::game_filter(self.game)?,
            kind,
            state,
            from,
            to,
            min_amount_h: self.min_amount_h,
            max_amount_h: self.max_amount_h,
            round_index: None,
            sort,
            limit: self.limit.unwrap_or(100),
            offset: self.offset.unwrap_or(0),
        })
    }
}

/// A query parameter read by `parse`, when given; one it does not read is refused with the
/// message `refusal` gives for it.
fn parsed<T>(
    text: Option<&str>,
    parse: impl Fn(&str) -> Option<T>,
    refusal: impl Fn(&str) -> String,
) -> Result<Option<T>, ApiError> {
    text.map(|t| parse(t).ok_or_else(|| ApiError::bad_request("invalid_query", refusal(t))))
        .transpose()
}

/// Findings filtered by table, game, gaming days, kind, state and amount, sorted, as a page of
/// JSON or as a file of all of them (CSV for programs or for a spreadsheet, XLSX).
#[utoipa::path(operation_id = "list_findings", get, tag = "findings", params(FindingQuery),
    responses((status = 200, description = "JSON (a page), CSV or XLSX (every finding matching)", body = FindingPage),
              (status = 400, body = ErrorBody)))]
#[get("/findings")]
pub async fn list(
    Authorized { state, .. }: Authorized,
    query: web::Query<FindingQuery>,
) -> Result<HttpResponse, ApiError> {
    let mut query = query.into_inner();
    let format = Format::parse(query.format.take().as_deref())?;
    let language = download::language(query.lang.take().as_deref())?;
    let mut filter = query.filter(&state.clock)?;
    if format == Format::Json {
        return Ok(HttpResponse::Ok().json(page(state, filter).await?));
    }
    filter.limit = findings::MAX_EXPORT;
    filter.offset = 0;
    let sheet = on_primary(state, move |conn, state| -> Result<_, ApiError> {
        let page = findings::export(conn, &state.clock, &filter)?;
        Ok(findings::sheet(&page, &state.plans, language))
    })
    .await?;
    download::sheet_file(sheet, format, language, "findings").await
}

/// The page of findings `filter` selects (its limit and offset).
pub(crate) async fn page(state: State, filter: FindingFilter) -> Result<FindingPage, ApiError> {
    on_primary(state, move |conn, state| {
        findings::list(conn, &state.clock, &filter)
    })
    .await
}

/// A finding's id as a path gives it: `<round ledger index>.<position>`.
pub(crate) fn finding_id(text: &str) -> Result<(u64, u32), ApiError> {
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
    let found = on_primary(state, move |conn, state| {
        findings::get(conn, &state.clock, finding)
    })
    .await?;
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
    /// `finding` (default): this finding; `round`: this finding, and every other finding of
    /// its round still open the same way (without an amount), in one transaction.
    #[schema(example = "finding")]
    pub scope: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ResolutionReceipt {
    #[serde(flatten)]
    pub resolution: ResolutionView,
    /// The finding's id.
    pub finding: String,
    /// The registry event this resolution appended.
    pub ledger_entry: LedgerEntryView,
    /// With `scope: round`, the round's other findings resolved the same way, each with its
    /// registry event (empty otherwise).
    pub also_resolved: Vec<AlsoResolved>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AlsoResolved {
    /// The finding's id.
    pub finding: String,
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
    let whole_round = match body.scope.as_deref() {
        None | Some("finding") => false,
        Some("round") => true,
        Some(_) => {
            return Err(ApiError::unprocessable(
                "invalid_resolution",
                "scope is finding or round",
                json!({ "field": "scope" }),
            ))
        }
    };
    let decision = Decision {
        state: decided,
        amount_settled_h: body.amount_settled_h,
        reason: body.reason,
        comment: body.comment,
    };
    let mut done = on_primary(state, move |conn, state| {
        let by = Resolver {
            key_id: &caller.key_id,
            name: &caller.name,
            role: caller.role,
        };
        let (key, now) = (state.operator.signing_key(), Utc::now());
        if whole_round {
            resolutions::resolve_round(conn, key, finding, &decision, by, now)
        } else {
            resolutions::resolve_finding(conn, key, finding, &decision, by, now).map(|d| vec![d])
        }
        .map_err(resolution_error)
    })
    .await?
    .into_iter();
    let (row, receipt) = done
        .next()
        .ok_or_else(|| ApiError::internal("a resolution recorded nothing"))?;
    Ok(HttpResponse::Created().json(ResolutionReceipt {
        finding: resolutions::finding_ref(finding.0, finding.1),
        resolution: ResolutionView::from(row),
        ledger_entry: receipt.into(),
        also_resolved: done
            .map(|(row, receipt)| AlsoResolved {
                finding: resolutions::finding_ref(
                    u64::try_from(row.round_index).unwrap_or_default(),
                    u32::try_from(row.finding).unwrap_or_default(),
                ),
                ledger_entry: receipt.into(),
            })
            .collect(),
    }))
}
