//! The compliance officer's workbench: pages people read in a browser, behind the same keys and
//! roles as the API (HTTP Basic with the key as the password). The findings with filters and
//! files, each finding with its round laid out, and the form that resolves it (posted only from
//! its page, see [`crate::csrf`]).

use actix_web::http::header::LOCATION;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use chrono::Utc;
use dozor_log::access::{Decision, FindingState, RESOLVING_ROLES};
use ledger::storage::resolutions::{self, ResolutionError, Resolver};
use reports::findings::{self, FindingFilter};
use reports::round_view::{self, RecordRef};
use reports::sheet::Language;
use reports::workbench_page::{self, parse_koruny, FindingPageView, ListView, ResolveForm, Typed};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::gate::{Authorized, State};
use crate::routes::blocking::on_primary;
use crate::routes::findings::{finding_id, FindingQuery};

/// What the pages may load: nothing but their own inline style; forms post only to dozor.
const PAGE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'";

fn html(status: actix_web::http::StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", PAGE_POLICY))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("Referrer-Policy", "same-origin"))
        .body(body)
}

fn language(text: Option<&str>) -> Result<Language, ApiError> {
    crate::download::language(text)
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// First and last gaming day: `YYYY-MM-DD` (or `27. 11. 2026`), `today`, `yesterday`,
    /// `last`; without both (and
    /// without `all=1`), yesterday's.
    pub from: Option<String>,
    pub to: Option<String>,
    pub game: Option<String>,
    pub table_id: Option<String>,
    pub kind: Option<String>,
    pub state: Option<String>,
    /// Amounts in koruny as people type them (`1 234,50`).
    pub min_amount: Option<String>,
    pub max_amount: Option<String>,
    /// `played_at`, `-played_at` (newest first, the default), `-amount`, `amount`, `table` or
    /// `kind`.
    pub sort: Option<String>,
    pub offset: Option<String>,
    /// `cs` (default) or `en`.
    pub lang: Option<String>,
    /// `1`: every gaming day (without `from` and `to` the page shows yesterday's).
    pub all: Option<String>,
}

/// Page size of the list.
const PAGE_SIZE: i64 = 100;

impl ListQuery {
    /// The list as it opens: without days, yesterday's gaming day (unless every day is asked
    /// for); without an order, newest first. Written out, so that the form and the links show
    /// them.
    fn with_defaults(mut self, today: chrono::NaiveDate) -> ListQuery {
        // Days as people type them (`27. 11. 2026`) are the API's ISO days.
        for day in [&mut self.from, &mut self.to] {
            if let Some(iso) = day.as_deref().and_then(workbench_page::parse_czech_day) {
                *day = Some(iso);
            }
        }
        let empty = |v: &Option<String>| v.as_deref().is_none_or(|v| v.trim().is_empty());
        if empty(&self.from) && empty(&self.to) && self.all.as_deref() != Some("1") {
            let yesterday = today.pred_opt().unwrap_or(today).to_string();
            self.from = Some(yesterday.clone());
            self.to = Some(yesterday);
        }
        if empty(&self.sort) {
            self.sort = Some("-played_at".into());
        }
        self
    }

    fn pairs(&self) -> Vec<(String, String)> {
        [
            ("from", &self.from),
            ("to", &self.to),
            ("game", &self.game),
            ("table_id", &self.table_id),
            ("kind", &self.kind),
            ("state", &self.state),
            ("min_amount", &self.min_amount),
            ("max_amount", &self.max_amount),
            ("sort", &self.sort),
            ("offset", &self.offset),
            ("lang", &self.lang),
            ("all", &self.all),
        ]
        .into_iter()
        .filter_map(|(k, v)| {
            v.as_ref()
                .filter(|v| !v.trim().is_empty())
                .map(|v| (k.to_owned(), v.trim().to_owned()))
        })
        .collect()
    }

    fn filter(&self, clock: &rules::gaming_day::GamingDayClock) -> Result<FindingFilter, ApiError> {
        let given = |v: &Option<String>| v.clone().filter(|v| !v.trim().is_empty());
        let amount = |name: &str, v: &Option<String>| -> Result<Option<i64>, ApiError> {
            given(v)
                .map(|text| {
                    parse_koruny(&text).ok_or_else(|| {
                        ApiError::bad_request(
                            "invalid_query",
                            format!("{name}: `{text}` is not an amount in koruny, e.g. 1 234,50"),
                        )
                    })
                })
                .transpose()
        };
        let offset = match given(&self.offset) {
            None => 0,
            Some(text) => text.parse::<i64>().map_err(|_| {
                ApiError::bad_request("invalid_query", format!("offset: `{text}` is not a number"))
            })?,
        };
        let query = FindingQuery {
            table_id: given(&self.table_id),
            game: given(&self.game),
            day: None,
            from: given(&self.from),
            to: given(&self.to),
            kind: given(&self.kind),
            state: given(&self.state),
            min_amount_h: amount("min_amount", &self.min_amount)?,
            max_amount_h: amount("max_amount", &self.max_amount)?,
            sort: given(&self.sort),
            format: None,
            lang: None,
            limit: Some(PAGE_SIZE),
            offset: Some(offset),
        };
        query.filter(clock)
    }
}

/// The findings as a page: filters, totals, the files to download, a page of findings.
#[utoipa::path(operation_id = "workbench_findings", get, tag = "pages", params(ListQuery),
    responses((status = 200, description = "the page (text/html)", content_type = "text/html", body = String),
              (status = 400, description = "a filter that cannot be read: named on the page (a malformed parameter: the error body)",
               content((String = "text/html"), (ErrorBody = "application/json")))))]
#[get("/findings")]
pub async fn list(
    Authorized { state, .. }: Authorized,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let today = state.clock.day_of(Utc::now());
    let query = query.into_inner().with_defaults(today);
    let language = language(query.lang.as_deref())?;
    let pairs = query.pairs();
    let filter = query.filter(&state.clock);
    let (status, page, notice) = match filter {
        Ok(filter) => {
            let page = crate::routes::findings::page(state.clone(), filter).await?;
            (actix_web::http::StatusCode::OK, page, None)
        }
        Err(e) => (
            actix_web::http::StatusCode::BAD_REQUEST,
            findings::FindingPage {
                total: 0,
                total_amount_h: 0,
                limit: PAGE_SIZE,
                offset: 0,
                items: Vec::new(),
            },
            Some(e.to_string()),
        ),
    };
    let mut body = workbench_page::render_list(&ListView {
        page: &page,
        filter: &pairs,
        plans: &state.plans,
        language,
        today,
    });
    if let Some(notice) = notice {
        // Shown above the form, where the officer looks.
        body = body.replacen(
            "<form class=\"filters\"",
            &format!(
                "<div class=\"error\" role=\"alert\">{}</div><form class=\"filters\"",
                workbench_page::esc(&notice)
            ),
            1,
        );
    }
    Ok(html(status, body))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct FindingPageQuery {
    /// `cs` (default) or `en`.
    pub lang: Option<String>,
    /// How many resolutions the form just recorded (shown as a notice).
    pub resolved: Option<u16>,
}

/// What a finding's page says besides the finding: a notice (good news, or why the form was
/// refused, with what was typed into it to show again), and its status.
struct Said {
    notice: Option<(bool, String)>,
    typed: Typed,
    status: actix_web::http::StatusCode,
}

impl Said {
    fn ok(notice: Option<(bool, String)>) -> Said {
        Said {
            notice,
            typed: Typed::default(),
            status: actix_web::http::StatusCode::OK,
        }
    }

    fn refused(status: actix_web::http::StatusCode, why: String, form: &ResolveFormBody) -> Said {
        Said {
            notice: Some((false, why)),
            typed: Typed {
                state: form.state.clone(),
                amount_settled: form.amount_settled.clone(),
                reason: form.reason.clone(),
                comment: form.comment.clone(),
                whole_round: form.scope == "round",
            },
            status,
        }
    }
}

/// Renders a finding's page for `caller`, with what it says besides the finding.
async fn finding_page(
    state: State,
    caller: crate::auth::Caller,
    id: (u64, u32),
    language: Language,
    said: Said,
) -> Result<HttpResponse, ApiError> {
    let Said {
        notice,
        typed,
        status,
    } = said;
    let token = state.form_secret.token(&caller.key_id);
    let may_resolve = RESOLVING_ROLES.contains(&caller.role);
    let page = on_primary(state, move |conn, state| -> Result<_, ApiError> {
        let Some(finding) = findings::get(conn, &state.clock, id)? else {
            return Ok(None);
        };
        let seq_no = u64::try_from(finding.finding.seq_no.unwrap_or(-1)).map_err(|_| {
            ApiError::internal(format!(
                "finding {} has no record number",
                finding.finding.id
            ))
        })?;
        let record = round_view::find(
            conn,
            &state.clock,
            &finding.finding.table_id,
            &RecordRef::SeqNo(seq_no),
        )?
        .ok_or_else(|| ApiError::internal("a finding's round is missing"))?;
        let proof_checked = record.checkpoint.as_ref().map(|c| {
            let hash = |text: &str| -> Option<[u8; 32]> { hex::decode(text).ok()?.try_into().ok() };
            let proof: Option<Vec<[u8; 32]>> = c.inclusion_proof.iter().map(|p| hash(p)).collect();
            match (hash(&record.entry_hash), hash(&c.root), proof) {
                (Some(leaf), Some(root), Some(proof)) => dozor_log::merkle::verify_inclusion(
                    u64::try_from(record.ledger_index).unwrap_or(u64::MAX),
                    c.size,
                    &leaf,
                    &proof,
                    &root,
                ),
                _ => false,
            }
        });
        let now_state = FindingState::parse(&finding.finding.state).unwrap_or(FindingState::Open);
        let form = may_resolve.then(|| ResolveForm {
            token,
            next_states: now_state.next_states(),
            open_in_round: record
                .findings
                .iter()
                .filter(|f| f.id != finding.finding.id && f.state == "open")
                .count(),
            typed,
        });
        Ok(Some(workbench_page::render_finding(&FindingPageView {
            finding: &finding,
            record: &record,
            proof_checked,
            form,
            notice,
            plans: &state.plans,
            language,
        })))
    })
    .await?;
    let page = page.ok_or_else(|| ApiError::not_found("unknown_finding", "no such finding"))?;
    Ok(html(status, page))
}

/// A finding as a page: its round laid out as a person reads it (the cards of each hand, the
/// number and each bet paid against what is due, …), the round's other findings, where the
/// round stands in the ledger (its checkpoint, the inclusion proof checked), the history of
/// resolutions and, for a compliance officer, the form that resolves it.
#[utoipa::path(operation_id = "workbench_finding", get, tag = "pages",
    params(("finding_id" = String, Path, description = "`<round ledger index>.<position>`"), FindingPageQuery),
    responses((status = 200, description = "the page (text/html)", content_type = "text/html", body = String),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
#[get("/findings/{finding_id}")]
pub async fn show(
    Authorized { state, caller }: Authorized,
    path: web::Path<String>,
    query: web::Query<FindingPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = finding_id(&path.into_inner())?;
    let language = language(query.lang.as_deref())?;
    let notice = query.resolved.map(|n| {
        (
            true,
            match language {
                Language::Czech => format!("Zapsáno do knihy záznamů: {n} řešení."),
                Language::English => format!("Recorded in the ledger: {n} resolution(s)."),
            },
        )
    });
    finding_page(state, caller, id, language, Said::ok(notice)).await
}

/// The resolution form as the page posts it.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ResolveFormBody {
    /// The page's form token.
    pub token: String,
    /// confirmed, dismissed or escalated.
    pub state: String,
    /// Koruny as typed (`1 234,50`); confirmations only.
    #[serde(default)]
    pub amount_settled: String,
    #[serde(default)]
    pub reason: String,
    pub comment: String,
    /// `round`: the round's other open findings the same way (without an amount).
    #[serde(default)]
    pub scope: String,
}

/// Resolves a finding from its page (and, when asked, the round's other open findings the same
/// way), each a ledger entry as `POST /api/v1/findings/{id}/resolutions` makes it; then back to
/// the page (303). Refused (403) when posted from another site or without the page's token.
#[utoipa::path(operation_id = "workbench_resolve", post, tag = "pages",
    params(("finding_id" = String, Path, description = "`<round ledger index>.<position>`"), FindingPageQuery),
    request_body(content = ResolveFormBody, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "recorded; back to the finding's page"),
              (status = 400, description = "a form or path that cannot be read", body = ErrorBody),
              (status = 403, description = "posted from another site, or without the page's token (the error body); a key that may not resolve now (the page)",
               content((ErrorBody = "application/json"), (String = "text/html"))),
              (status = 404, description = "no such finding", body = ErrorBody),
              (status = 409, description = "the finding's state does not allow this step: the page with the reason", content_type = "text/html", body = String),
              (status = 422, description = "the resolution breaks a rule: the page with the reason", content_type = "text/html", body = String)))]
#[post("/findings/{finding_id}/resolutions")]
pub async fn resolve(
    Authorized { state, caller }: Authorized,
    request: HttpRequest,
    path: web::Path<String>,
    query: web::Query<FindingPageQuery>,
    form: web::Form<ResolveFormBody>,
) -> Result<HttpResponse, ApiError> {
    let form = form.into_inner();
    crate::csrf::check(&request, &state.form_secret, &caller.key_id, &form.token)?;
    let id = finding_id(&path.into_inner())?;
    let language = language(query.lang.as_deref())?;
    let decision = match read_decision(&form, language) {
        Ok(d) => d,
        Err(message) => {
            let said = Said::refused(
                actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                message,
                &form,
            );
            return finding_page(state, caller, id, language, said).await;
        }
    };
    let whole_round = form.scope == "round";
    let (page_state, page_caller) = (state.clone(), caller.clone());
    let outcome = on_primary(
        state,
        move |conn, state| -> Result<Result<usize, ResolutionError>, ApiError> {
            let by = Resolver {
                key_id: &caller.key_id,
                name: &caller.name,
                role: caller.role,
            };
            let (key, now) = (state.operator.signing_key(), Utc::now());
            Ok(if whole_round {
                resolutions::resolve_round(conn, key, id, &decision, by, now).map(|done| done.len())
            } else {
                resolutions::resolve_finding(conn, key, id, &decision, by, now).map(|_| 1)
            })
        },
    )
    .await?;
    match outcome {
        Ok(done) => Ok(HttpResponse::SeeOther()
            .insert_header((
                LOCATION,
                format!(
                    "/workbench/findings/{}.{}?lang={}&resolved={done}",
                    id.0,
                    id.1,
                    language.code()
                ),
            ))
            .finish()),
        Err(ResolutionError::UnknownFinding(_)) => {
            Err(ApiError::not_found("unknown_finding", "no such finding"))
        }
        Err(e) => {
            let status = match e {
                ResolutionError::NotAllowed { .. } => actix_web::http::StatusCode::CONFLICT,
                ResolutionError::KeyMayNotResolve(_) => actix_web::http::StatusCode::FORBIDDEN,
                _ => actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
            };
            let said = Said::refused(status, workbench_page::refusal(&e, language), &form);
            finding_page(page_state, page_caller, id, language, said).await
        }
    }
}

/// The decision the form asks for, or what is wrong with it in words.
fn read_decision(form: &ResolveFormBody, language: Language) -> Result<Decision, String> {
    let decided = FindingState::parse(&form.state)
        .filter(|s| *s != FindingState::Open)
        .ok_or_else(|| {
            language
                .pick("Zvolte nový stav.", "Choose the new state.")
                .to_owned()
        })?;
    let amount = match form.amount_settled.trim() {
        "" => None,
        text => Some(parse_koruny(text).ok_or_else(|| {
            format!(
                "{} `{text}`",
                language.pick(
                    "Částka se píše v korunách, např. 1 234,50, ne",
                    "An amount is written in koruny, e.g. 1 234,50, not"
                )
            )
        })?),
    };
    Ok(Decision {
        state: decided,
        amount_settled_h: amount,
        reason: Some(form.reason.trim().to_owned()).filter(|r| !r.is_empty()),
        comment: form.comment.clone(),
    })
}
