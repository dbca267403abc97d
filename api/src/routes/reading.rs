//! Reading for an answer: reports and lists read on the reads' connection at a ledger cut, and
//! answered with what they cover; a report for people written as JSON, CSV or a sheet.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::{HttpResponse, HttpResponseBuilder};
use diesel::PgConnection;
use ledger::storage::read_cut::{read_at_cut, LedgerCut, ReadSource};
use ledger::storage::reads::{sequence_gaps, SeqGap};
use reports::sheet::{Language, Sheet};
use serde::Serialize;
use utoipa::ToSchema;

use crate::download::{self, Format};
use crate::error::ApiError;
use crate::gate::State;
use crate::routes::blocking::blocking;
use crate::state::AppState;

/// Writes a report as CSV for programs.
pub(super) type CsvWriter<R> = fn(&R) -> Result<String, reports::ReportError>;

/// A report's sheet for people, in a language.
pub type PeopleSheet<R> = fn(&R, &rules::PlanBook, Language) -> Sheet;

/// A report built off the async workers, answered as JSON, as a CSV file for programs named
/// `dozor-<file>.csv`, or as a sheet for people (`csv-cz`, `xlsx`).
pub async fn report_for_people<R, E>(
    state: State,
    (format, lang): (Option<String>, Option<String>),
    build: impl Fn(&mut PgConnection, LedgerCut, &AppState) -> Result<R, E> + Send + 'static,
    to_csv: CsvWriter<R>,
    to_sheet: PeopleSheet<R>,
    file: String,
) -> Result<HttpResponse, ApiError>
where
    R: Serialize + Send + 'static,
    E: Send + 'static,
    ApiError: From<E>,
{
    let format = Format::parse(format.as_deref())?;
    let language = download::language(lang.as_deref())?;
    let plans = state.plans.clone();
    // The caller's `E` is not the helper's: the read answers an `ApiError` already.
    let (report, cut) =
        blocking::<_, ApiError>(state, move |state| read_report(state, build)).await?;
    let (size, source) = coverage_headers(cut);
    let mut response = match format {
        Format::Json => Ok(HttpResponse::Ok().json(report)),
        Format::Csv => Ok(HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                "Content-Disposition",
                format!("attachment; filename=\"dozor-{file}.csv\""),
            ))
            .body(to_csv(&report)?)),
        people => {
            download::sheet_file(to_sheet(&report, &plans, language), people, language, &file).await
        }
    }?;
    response.headers_mut().insert(size.0, size.1);
    response.headers_mut().insert(source.0, source.1);
    Ok(response)
}

/// Builds a report on the reads' connection (the replica's when one is configured and answers),
/// in one snapshot, of the entries below that snapshot's cut; with the cut. A read that fails on
/// the replica (a dropped connection, a query cancelled by replay) is read again on the primary.
pub fn read_report<R, E>(
    state: &AppState,
    build: impl Fn(&mut PgConnection, LedgerCut, &AppState) -> Result<R, E>,
) -> Result<(R, LedgerCut), ApiError>
where
    ApiError: From<E>,
{
    let read = |conn: &mut PgConnection, source| {
        read_at_cut(conn, source, |conn, cut| {
            build(conn, cut, state)
                .map(|report| (report, cut))
                .map_err(ApiError::from)
        })
    };
    let (mut conn, source) = state.read_conn()?;
    match read(&mut conn, source) {
        Err(cause) if source == ReadSource::Replica => {
            tracing::warn!(%cause, "a read failed on the replica; reading on the primary");
            drop(conn);
            read(&mut *state.conn()?, ReadSource::Primary)
        }
        done => done,
    }
}

/// `X-Dozor-Ledger-Size` (the entries a report covers: `0..size`) and `X-Dozor-Read-From`
/// (`primary` or `replica`): every report says what it covers, in any format.
pub fn coverage_headers(cut: LedgerCut) -> ((HeaderName, HeaderValue), (HeaderName, HeaderValue)) {
    (
        (
            HeaderName::from_static("x-dozor-ledger-size"),
            HeaderValue::from(cut.size),
        ),
        (
            HeaderName::from_static("x-dozor-read-from"),
            HeaderValue::from_static(cut.source.as_str()),
        ),
    )
}

/// An answer of 200 that says what it covers ([`coverage_headers`]).
pub fn covered(cut: LedgerCut) -> HttpResponseBuilder {
    let (size, source) = coverage_headers(cut);
    let mut response = HttpResponse::Ok();
    response.insert_header(size).insert_header(source);
    response
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GapView {
    pub table_id: String,
    pub after_seq_no: i64,
    pub before_seq_no: i64,
    pub missing: i64,
}

impl From<SeqGap> for GapView {
    fn from(g: SeqGap) -> Self {
        GapView {
            table_id: g.table_id,
            after_seq_no: g.after_seq_no,
            before_seq_no: g.before_seq_no,
            missing: g.missing,
        }
    }
}

/// Gaps in the `seq_no` sequence of one table, or of every table: records numbered but never
/// delivered.
pub async fn gaps(state: State, table_id: Option<String>) -> Result<HttpResponse, ApiError> {
    let (gaps, cut): (Vec<SeqGap>, _) = blocking(state, move |state| {
        read_report(state, |conn, cut, _| {
            sequence_gaps(conn, cut, table_id.as_deref())
        })
    })
    .await?;
    Ok(covered(cut).json(gaps.into_iter().map(GapView::from).collect::<Vec<_>>()))
}
