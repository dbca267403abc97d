//! The quarter's gambling tax (zákon č. 187/2016 Sb.), under the operator's rate table
//! (`serve --tax-rates`) or the bundled one.

use actix_web::{get, web, HttpResponse};
use reports::tax::{self, Quarter, RateTable, TaxError, TaxReport};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TaxQuery {
    /// Quarter of gaming days: `YYYYQn` (e.g. `2026Q3`), `this` or `last`.
    pub quarter: String,
    /// `json` (default), `csv`, `csv-cz` (for a spreadsheet in a Czech office) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
}

impl From<TaxError> for ApiError {
    fn from(e: TaxError) -> Self {
        match e {
            // A quarter before the law, or after the rate table's end: there is no tax report
            // to make for it.
            TaxError::NoRate { .. } => ApiError::not_found("no_rate", e.to_string()),
            TaxError::Report(e) => e.into(),
            other => ApiError::internal(other),
        }
    }
}

/// The quarter's gambling tax: per category of the rate table (one partial base each) the
/// stakes, returned stakes and wins, the base rounded up to whole hundreds of koruny (a negative
/// difference is a base of 0 and is not carried over), the rate and the law version it comes
/// from, the tax; the total and the day it is due. Amounts in haléře.
#[utoipa::path(operation_id = "tax_report", get, tag = "reports", params(TaxQuery),
    responses((status = 200, description = "JSON or CSV (RFC 4180)", body = TaxReport), (status = 400, body = ErrorBody),
              (status = 404, description = "no rate of the rate table covers the quarter", body = ErrorBody)))]
#[get("/reports/tax")]
pub async fn report(
    Authorized { state, .. }: Authorized,
    query: web::Query<TaxQuery>,
) -> Result<HttpResponse, ApiError> {
    let TaxQuery {
        quarter,
        format,
        lang,
    } = query.into_inner();
    let parsed = Quarter::parse_named(&quarter, &state.clock, chrono::Utc::now())
        .map_err(|m| ApiError::bad_request("invalid_query", format!("quarter: {m}")))?;
    let rates = match &state.configured.current().tax_rates {
        Some(table) => table.clone(),
        None => std::sync::Arc::new(RateTable::bundled()?),
    };
    // A quarter the table has no rate for is refused before the database is read.
    tax::segments(parsed, &rates)?;
    let build =
        move |conn: &mut diesel::PgConnection,
              cut: ledger::storage::read_cut::LedgerCut,
              state: &AppState| { tax::build_at(conn, cut, &state.clock, parsed, &rates) };
    crate::routes::reading::report_for_people(
        state,
        (format, lang),
        build,
        tax::to_csv,
        tax::sheet,
        format!("tax-{parsed}"),
    )
    .await
}
