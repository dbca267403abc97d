//! Payout/RTP reports.

use actix_web::{get, web, HttpResponse};
use chrono::NaiveDate;
use diesel::PgConnection;
use reports::daily::{self as daily_report, DailyReport};
use reports::fantasy::{self as fantasy_report, FantasyAudit};
use reports::monthly::{self as monthly_report, RtpReport, RtpRequest};
use reports::shoes::{self as shoe_report, ShoeAudit};
use reports::table_audit::{self as table_report, TableAudit};
use reports::time_audit::{self as time_report, TimeCollectionAudit};
use reports::wheels::{self as wheel_report, WheelStatistics};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use ledger::storage::read_cut::LedgerCut;

use crate::download;
use crate::error::{ApiError, ErrorBody};
use crate::gate::{Authorized, State};
use crate::routes::blocking::blocking;
use crate::routes::filters;
use crate::routes::reading::{covered, read_report, report_for_people, CsvWriter, PeopleSheet};
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DailyQuery {
    /// Gaming day: `YYYY-MM-DD`, `today`, `yesterday` or `last` (the last that has closed).
    pub day: String,
    /// `json` (default), `csv`, `csv-cz` (for a spreadsheet in a Czech office) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
}

/// Daily per-game and per-table payout/RTP report: rounds, stakes, payouts, returned stakes,
/// GGR, actual and theoretical RTP, deviation, findings.
#[utoipa::path(operation_id = "daily_report", get, tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = DailyReport), (status = 400, body = ErrorBody)))]
#[get("/reports/daily")]
pub async fn daily(
    Authorized { state, .. }: Authorized,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    DAILY.answer(state, query.into_inner()).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct MonthQuery {
    /// Month of gaming days: `YYYY-MM`, `this` or `last`.
    pub month: String,
    /// `json` (default), `csv`, `csv-cz` (for a spreadsheet in a Czech office) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
}

/// Wheel statistics of a month: how often each number of each roulette wheel and each segment
/// of each money wheel came up, a chi-square test against equally likely cells (`uneven` when
/// p < 0.001, with every cell expected at least 5 times) and the neighbour sector of five that
/// deviates most (`sector_bias` at |z| ≥ 4.2).
#[utoipa::path(operation_id = "wheel_statistics", get, tag = "reports", params(MonthQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = WheelStatistics), (status = 400, body = ErrorBody)))]
#[get("/reports/wheels")]
pub async fn wheels(
    Authorized { state, .. }: Authorized,
    query: web::Query<MonthQuery>,
) -> Result<HttpResponse, ApiError> {
    let MonthQuery {
        month,
        format,
        lang,
    } = query.into_inner();
    let first = filters::month(&state.clock, &month)?;
    let build = move |conn: &mut PgConnection, cut: LedgerCut, state: &AppState| {
        wheel_report::build_at(conn, cut, &state.clock, first)
    };
    report_for_people(
        state,
        (format, lang),
        build,
        wheel_report::to_csv,
        wheel_report::sheet,
        format!("wheels-{month}"),
    )
    .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RtpQuery {
    /// Month of gaming days: `YYYY-MM`, `this` or `last`.
    pub month: String,
    /// The last gaming day included, `YYYY-MM-DD` (month to date); the whole month without it.
    pub through: Option<NaiveDate>,
    /// Only this game (e.g. `roulette`).
    pub game: Option<String>,
    /// Only this table.
    pub table_id: Option<String>,
    /// `json` (default), `csv`, `csv-cz` (for a spreadsheet in a Czech office) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
}

impl RtpQuery {
    fn request(&self, state: &State) -> Result<RtpRequest, ApiError> {
        Ok(RtpRequest {
            month: filters::month(&state.clock, &self.month)?,
            through: self.through,
            game: filters::game_filter(self.game.clone())?,
            table_id: self.table_id.clone(),
        })
    }
}

/// Monthly payout/RTP report: per game, table and gaming day and for the month — rounds,
/// stakes, payouts, returned stakes, GGR, actual RTP, the theoretical RTP of the bets placed,
/// the deviation in standard deviations (|z| > 3 flagged, with the rounds a flag needs to mean
/// anything), the same per bet kind, and findings by kind, amount and resolution.
#[utoipa::path(operation_id = "rtp_report", get, tag = "reports", params(RtpQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = RtpReport), (status = 400, body = ErrorBody)))]
#[get("/reports/rtp")]
pub async fn rtp(
    Authorized { state, .. }: Authorized,
    query: web::Query<RtpQuery>,
) -> Result<HttpResponse, ApiError> {
    let request = query.request(&state)?;
    let file = format!("rtp-{}", request.month);
    let build = move |conn: &mut PgConnection, cut: LedgerCut, state: &AppState| {
        monthly_report::build_at(conn, cut, &state.clock, &request)
    };
    let RtpQuery { format, lang, .. } = query.into_inner();
    report_for_people(
        state,
        (format, lang),
        build,
        monthly_report::to_csv,
        monthly_report::sheet,
        file,
    )
    .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    /// The last gaming day included, `YYYY-MM-DD`; the whole month without it.
    pub through: Option<NaiveDate>,
    /// Only this game.
    pub game: Option<String>,
    /// Only this table.
    pub table_id: Option<String>,
    /// `cs` (default) or `en`.
    pub lang: Option<String>,
}

/// The monthly RTP report as a page to read and print (A4): actual against theoretical RTP per
/// game over the days of the month with the ±3σ band, GGR per table, findings per day, bet
/// kinds. One self-contained HTML document: inline SVG and CSS, nothing fetched.
#[utoipa::path(operation_id = "month_page", get, tag = "reports",
    params(("month" = String, Path, description = "Month of gaming days, `YYYY-MM`"), PageQuery),
    responses((status = 200, description = "the page (text/html)", content_type = "text/html", body = String),
              (status = 400, body = ErrorBody)))]
#[get("/month/{month}")]
pub async fn month_page(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let PageQuery {
        through,
        game,
        table_id,
        lang,
    } = query.into_inner();
    let language = download::language(lang.as_deref())?;
    let request = RtpRequest {
        month: filters::month(&state.clock, &path.into_inner())?,
        through,
        game: filters::game_filter(game)?,
        table_id,
    };
    let (page, cut) = blocking(state, move |state| -> Result<_, ApiError> {
        let (report, cut) = read_report(state, |conn, cut, state| {
            monthly_report::build_at(conn, cut, &state.clock, &request)
        })?;
        Ok((
            reports::month_page::render_in(&report, &state.plans, language),
            cut,
        ))
    })
    .await?;
    Ok(covered(cut)
        .content_type("text/html; charset=utf-8")
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ))
        .body(page))
}

/// Shoe audit of a gaming day: every blackjack shoe with a round in the day, its cards counted
/// across its rounds from the shuffle, and any card dealt more often than the shoe holds it.
#[utoipa::path(operation_id = "shoe_audit", get, tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = ShoeAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/shoes")]
pub async fn shoes(
    Authorized { state, .. }: Authorized,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    SHOES.answer(state, query.into_inner()).await
}

/// Fantasy-land audit of a gaming day: each Open Face Chinese hand's fantasy-land deals
/// against what the table's previous hand earned (a hand's verdict sees that hand only).
#[utoipa::path(operation_id = "fantasy_audit", get, tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = FantasyAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/fantasy")]
pub async fn fantasy(
    Authorized { state, .. }: Authorized,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    FANTASY.answer(state, query.into_inner()).await
}

/// Time collection audit of a gaming day: each poker cash or Open Face Chinese hand played for
/// time instead of rake against the periods its table collected time for.
#[utoipa::path(operation_id = "time_collection_audit", get, tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = TimeCollectionAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/time-collection")]
pub async fn time_collection(
    Authorized { state, .. }: Authorized,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    TIME_COLLECTION.answer(state, query.into_inner()).await
}

/// Table audit of a gaming day: each roulette spin against the table's spin before it (the
/// wheel reversed every spin) and each poker cash hand against the hand before it (the button
/// and the big blind moved one player).
#[utoipa::path(operation_id = "table_audit", get, tag = "reports", params(DailyQuery),
    responses((status = 200, description = "JSON, CSV (RFC 4180), CSV for a Czech office or XLSX", body = TableAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/table-audit")]
pub async fn table_audit(
    Authorized { state, .. }: Authorized,
    query: web::Query<DailyQuery>,
) -> Result<HttpResponse, ApiError> {
    TABLE_AUDIT.answer(state, query.into_inner()).await
}

/// Builds a report of one gaming day.
type DayReportBuild<R> = fn(
    &mut PgConnection,
    LedgerCut,
    &rules::gaming_day::GamingDayClock,
    NaiveDate,
    &rules::PlanBook,
) -> Result<R, reports::ReportError>;

/// A report of one gaming day: how it is built and written, and the name its files take.
struct DayReport<R> {
    build: DayReportBuild<R>,
    to_csv: CsvWriter<R>,
    to_sheet: PeopleSheet<R>,
    name: &'static str,
}

const DAILY: DayReport<DailyReport> = DayReport {
    // The daily report takes no plan book.
    build: |conn, cut, clock, day, _| daily_report::build_at(conn, cut, clock, day),
    to_csv: daily_report::to_csv,
    to_sheet: daily_report::sheet,
    name: "daily",
};
const SHOES: DayReport<ShoeAudit> = DayReport {
    build: shoe_report::build_at,
    to_csv: shoe_report::to_csv,
    to_sheet: shoe_report::sheet,
    name: "shoes",
};
const FANTASY: DayReport<FantasyAudit> = DayReport {
    build: fantasy_report::build_at,
    to_csv: fantasy_report::to_csv,
    to_sheet: fantasy_report::sheet,
    name: "fantasy",
};
const TIME_COLLECTION: DayReport<TimeCollectionAudit> = DayReport {
    build: time_report::build_at,
    to_csv: time_report::to_csv,
    to_sheet: time_report::sheet,
    name: "time-collection",
};
const TABLE_AUDIT: DayReport<TableAudit> = DayReport {
    build: table_report::build_at,
    to_csv: table_report::to_csv,
    to_sheet: table_report::sheet,
    name: "table-audit",
};

impl<R: Serialize + Send + 'static> DayReport<R> {
    /// The report of the day the query names, in the format it asks for.
    async fn answer(
        &self,
        state: State,
        DailyQuery { day, format, lang }: DailyQuery,
    ) -> Result<HttpResponse, ApiError> {
        let day = filters::gaming_day(&state.clock, &day)?;
        let build = self.build;
        let build = move |conn: &mut PgConnection, cut: LedgerCut, state: &AppState| {
            build(conn, cut, &state.clock, day, &state.plans)
        };
        report_for_people(
            state,
            (format, lang),
            build,
            self.to_csv,
            self.to_sheet,
            format!("{}-{day}", self.name),
        )
        .await
    }
}
