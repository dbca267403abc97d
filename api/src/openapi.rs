//! The OpenAPI document, generated from the real handlers. `dozor openapi` writes it to
//! `openapi/openapi.json`; a test fails when the checked-in file is stale.

use utoipa::OpenApi;

use crate::routes;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "dozor",
        description = "Compliance and audit service for live casino games under a herní plán: signed \
                       round ingest into a hash-chained ledger, re-adjudication, findings and reports. \
                       Money is integer haléře (`*_h`).",
        license(name = "Apache-2.0")
    ),
    paths(
        routes::health::health,
        routes::health::openapi,
        routes::records::submit,
        routes::records::submit_batch,
        routes::tables::register,
        routes::tables::list,
        routes::tables::get,
        routes::tables::add_key,
        routes::tables::revoke_key,
        routes::tables::gaps,
        routes::ledger::head,
        routes::ledger::checkpoint,
        routes::ledger::entry,
        routes::ledger::inclusion_proof,
        routes::ledger::consistency_proof,
        routes::ledger::gaps,
        routes::ledger::significant_events,
        routes::findings::list,
        routes::reports::daily,
        routes::reports::shoes,
        routes::reports::fantasy,
        routes::reports::wheels,
        routes::exports::export,
    ),
    tags(
        (name = "records", description = "Signed records from the tables"),
        (name = "tables", description = "Gaming tables and their keys"),
        (name = "ledger", description = "The append-only ledger"),
        (name = "findings", description = "Discrepancies found by re-adjudication"),
        (name = "reports", description = "Payout and RTP reports"),
        (name = "operations", description = "Health and API description"),
    )
)]
pub struct ApiDoc;

/// The document as written to `openapi/openapi.json`.
pub fn document() -> Result<String, serde_json::Error> {
    let mut text = ApiDoc::openapi().to_pretty_json()?;
    text.push('\n');
    Ok(text)
}
