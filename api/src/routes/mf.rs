//! The Ministry of Finance's monthly package and the period audit it is built on.

use actix_web::{get, web, HttpResponse};
use reports::mf::{self, OperatorConfig, PackageError, PackageRequest};
use reports::periods::{self as period_audit, AuditSettings};
use rules::gaming_day::Month;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::on_primary;
use crate::routes::filters;
use crate::state::AppState;
use diesel::PgConnection;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PackageQuery {
    /// Month of gaming days: `YYYY-MM`, `this` or `last`.
    pub month: String,
    /// The premises' id, as in the configuration's `[[premises]]`.
    pub misto: String,
    /// A version issued before, 1-99, as it was issued; without it, the package as the ledger
    /// stands (the version issued last if its content is the same, else the next one).
    pub version: Option<u8>,
}

/// The package of `premises` for `month` as the ledger stands now (version 1 unless asked
/// otherwise); unknown premises are refused.
pub(super) fn package_request<'a>(
    config: &'a OperatorConfig,
    premises: &'a str,
    month: Month,
    state: &'a AppState,
) -> Result<PackageRequest<'a>, ApiError> {
    if config.premises(premises).is_none() {
        return Err(PackageError::UnknownPremises(premises.to_owned()).into());
    }
    Ok(PackageRequest {
        config,
        premises,
        month,
        version: 1,
        clock: state.clock,
        plans: &state.plans,
        now: chrono::Utc::now(),
    })
}

impl From<PackageError> for ApiError {
    fn from(e: PackageError) -> Self {
        match e {
            PackageError::UnknownPremises(_) => {
                ApiError::not_found("unknown_premises", e.to_string())
            }
            PackageError::BadVersion => ApiError::bad_request("invalid_query", e.to_string()),
            PackageError::NotIssued(_) => ApiError::not_found("package_not_issued", e.to_string()),
            PackageError::StationsWithoutPremises(ref stations) => ApiError::Conflict {
                code: "stations_without_premises",
                details: serde_json::json!({ "stations": stations }),
                message: e.to_string(),
            },
            PackageError::MonthNotOver { ref month, ends_at } => ApiError::Conflict {
                code: "month_not_over",
                details: serde_json::json!({ "month": month, "ends_at": ends_at }),
                message: e.to_string(),
            },
            PackageError::Report(e) => e.into(),
            PackageError::Invalid { ref errors, .. } => ApiError::Conflict {
                code: "package_invalid",
                details: serde_json::json!({
                    "errors": errors.iter().map(ToString::to_string).collect::<Vec<_>>()
                }),
                message: e.to_string(),
            },
            other => ApiError::internal(other),
        }
    }
}

/// The Ministry of Finance's monthly package of one premises (vyhláška 10/2019 Sb., model M,
/// live game Z) as its ZIP. A package is issued once per content: asked again while the ledger
/// gives the same content, the version issued before is answered byte for byte and nothing is
/// sealed; a changed content is issued as the next version, its ZIP's SHA-256 sealed into the
/// ledger as a `report_published` event named `reports/mf/{package}.zip` (`X-Dozor-Sealed-At`:
/// its ledger index; `X-Dozor-Issued`: `new` or `before`; `X-Dozor-Provisional`: `true` while
/// the month is not over, when the package will still change). Refused (409) while a station with
/// activity in the month belongs to no premises.
#[utoipa::path(operation_id = "mf_package", get, tag = "reports", params(PackageQuery),
    responses((status = 200, description = "the package's ZIP (application/zip)", content_type = "application/zip", body = Vec<u8>),
              (status = 400, body = ErrorBody),
              (status = 404, description = "unknown premises, or a version not issued", body = ErrorBody),
              (status = 409, description = "no operator and premises configured, or stations with activity in no premises", body = ErrorBody)))]
#[get("/reports/mf")]
pub async fn package(
    Authorized { state, caller }: Authorized,
    query: web::Query<PackageQuery>,
) -> Result<HttpResponse, ApiError> {
    let PackageQuery {
        month: text,
        misto,
        version,
    } = query.into_inner();
    let month = filters::month(&state.clock, &text)?;
    if version.is_some_and(|v| !(1..=99).contains(&v)) {
        return Err(PackageError::BadVersion.into());
    }
    let config = state
        .configured
        .current()
        .operator_config
        .clone()
        .ok_or_else(|| ApiError::Conflict {
            code: "not_configured",
            message: "the operator and its premises are not configured: [operator] and [[premises]] in dozor.toml, then `kill -HUP` the server".into(),
            details: serde_json::json!({}),
        })?;
    let (issued, new, provisional) = on_primary(state, move |conn, state| -> Result<_, ApiError> {
        let request = package_request(&config, &misto, month, state)?;
        Ok(match version {
            Some(v) => (
                mf::deliver::issued_version(conn, &request, v)?,
                false,
                false,
            ),
            None => {
                let issued =
                    mf::deliver::issue(conn, state.operator.signing_key(), &request, &caller.name)?;
                (issued.package, issued.new, issued.summary.provisional)
            }
        })
    })
    .await?;
    let sha256 = mf::deliver::zip_sha256(&issued);
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{}.zip\"", issued.name),
        ))
        .insert_header(("X-Dozor-Sealed-At", issued.sealed_at.to_string()))
        .insert_header(("X-Dozor-Sha256", sha256))
        .insert_header(("X-Dozor-Issued", if new { "new" } else { "before" }))
        .insert_header(("X-Dozor-Provisional", provisional.to_string()))
        .body(issued.zip))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PeriodsQuery {
    /// Month of gaming days: `YYYY-MM`, `this` or `last`.
    pub month: String,
    /// `json` (default: the whole audit), or the table periods as `csv`, `csv-cz` (for a
    /// spreadsheet in a Czech office) or `xlsx`.
    pub format: Option<String>,
    /// Headings and words of `csv-cz` and `xlsx`: `cs` (default) or `en`.
    pub lang: Option<String>,
}

/// Period audit of a month: each table's and cage's operating periods from their signed
/// records, each table period's win by the count against its rounds (a difference beyond the
/// configured tolerance is a `drop_not_reconciled` finding), and the rounds played while their
/// table had no open period.
#[utoipa::path(operation_id = "period_audit", get, tag = "reports", params(PeriodsQuery),
    responses((status = 200, description = "the period audit as JSON, or its table periods as CSV (RFC 4180), CSV for a Czech office or XLSX", body = reports::periods::PeriodAudit), (status = 400, body = ErrorBody)))]
#[get("/reports/periods")]
pub async fn periods(
    Authorized { state, .. }: Authorized,
    query: web::Query<PeriodsQuery>,
) -> Result<HttpResponse, ApiError> {
    let PeriodsQuery {
        month: text,
        format,
        lang,
    } = query.into_inner();
    let month = filters::month(&state.clock, &text)?;
    let tolerance_h = state
        .configured
        .current()
        .operator_config
        .as_ref()
        .map_or(0, |c| c.reconciliation.tolerance_h);
    let build = move |conn: &mut PgConnection,
                      cut: ledger::storage::read_cut::LedgerCut,
                      state: &AppState| {
        let settings = AuditSettings {
            clock: state.clock,
            tolerance_h,
        };
        period_audit::build_at(conn, cut, &settings, month)
    };
    crate::routes::reading::report_for_people(
        state,
        (format, lang),
        build,
        period_audit::to_csv,
        period_audit::sheet,
        format!("periods-{month}"),
    )
    .await
}
