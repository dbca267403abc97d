//! HTTP routes, one file per resource. Handlers extract, call the domain, map the result.

pub mod apikeys;
pub mod blocking;
pub mod body;
pub mod deliveries;
pub mod exports;
pub mod fallback;
pub mod filters;
pub mod findings;
pub mod health;
pub mod ledger;
pub mod mf;
pub mod reading;
pub mod records;
pub mod reports;
pub mod rounds;
pub mod tables;
pub mod tax;
pub mod tiles;
pub mod workbench;

use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::web;
use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::ApiError;
use crate::in_flight::InFlight;
use crate::paths::{API_PREFIX, PAGES_PREFIX, WORKBENCH_PREFIX};
use fallback::no_route;

/// Registers every route together with its OpenAPI operation: a handler is added through
/// `utoipa_actix_web`, which takes only handlers that carry `#[utoipa::path]`, so no route can
/// exist without its entry in the document.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        // Every answer, a refusal or an unknown route too, is observed with its request id;
        // inside that, the gate resolves the presented key before routing (each handler's
        // extractor decides for its own route).
        // Innermost, files and exports wait for their turn among those made at once.
        scope("")
            .wrap(actix_web::middleware::from_fn(
                crate::in_flight::files_in_turn,
            ))
            .wrap(actix_web::middleware::from_fn(crate::gate::middleware))
            .wrap(actix_web::middleware::from_fn(crate::observe::observe))
            .configure(routes),
    );
}

fn routes(cfg: &mut ServiceConfig) {
    cfg.default_service(web::to(no_route));
    cfg.service(health::health)
        .service(health::healthz)
        .service(health::readyz)
        .service(health::metrics)
        .service(
            // Pages people read in a browser: the same keys and roles as the API.
            scope_under(PAGES_PREFIX).service(reports::month_page),
        )
        .service(
            // The officer's workbench: pages, the same keys and roles.
            scope_under(WORKBENCH_PREFIX)
                .service(workbench::list)
                .service(workbench::show)
                .service(workbench::resolve),
        )
        .service(
            scope_under(API_PREFIX)
                .service(records::submit_batch)
                .service(records::submit)
                .service(tables::register)
                .service(tables::list)
                .service(tables::get)
                .service(tables::add_key)
                .service(tables::revoke_key)
                .service(tables::set_limits)
                .service(tables::show_limits)
                .service(tables::gaps)
                .service(rounds::by_seq_no)
                .service(rounds::by_round_id)
                .service(ledger::head)
                .service(ledger::checkpoint)
                .service(ledger::entry)
                .service(ledger::inclusion_proof)
                .service(ledger::consistency_proof)
                .service(ledger::gaps)
                .service(ledger::significant_events)
                .service(tiles::checkpoint)
                .service(tiles::tile)
                .service(tiles::verdicts)
                .service(tiles::minimum_index)
                .service(findings::list)
                .service(findings::get)
                .service(findings::resolve)
                .service(reports::daily)
                .service(reports::shoes)
                .service(reports::fantasy)
                .service(reports::time_collection)
                .service(reports::table_audit)
                .service(reports::wheels)
                .service(reports::rtp)
                .service(tax::report)
                // Before `mf::package`: its path is a prefix of theirs.
                .service(deliveries::list)
                .service(deliveries::deliver)
                .service(deliveries::confirm)
                .service(mf::package)
                .service(mf::periods)
                .service(exports::export)
                .service(apikeys::list)
                .service(apikeys::create)
                .service(apikeys::revoke)
                .service(apikeys::whoami)
                .service(health::openapi),
        );
}

/// A scope of routes under `prefix` that answers an unknown route as the application does: a
/// nested scope falls back to the application's default, not its parent's.
fn scope_under(
    prefix: &str,
) -> utoipa_actix_web::scope::Scope<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    scope(prefix).default_service(web::to(no_route))
}

/// Extractor settings that turn malformed input into our `{code, message, details}` errors,
/// and the bounds of what requests in flight hold (shared by every worker).
pub fn extractor_configs(
    cfg: &mut web::ServiceConfig,
    body_limit: usize,
    in_flight: std::sync::Arc<InFlight>,
) {
    cfg.app_data(in_flight)
        .app_data(
            web::JsonConfig::default()
                .limit(body_limit)
                .error_handler(|e, _| {
                    use actix_web::error::JsonPayloadError as J;
                    match e {
                        J::Overflow { limit } | J::OverflowKnownLength { limit, .. } => {
                            ApiError::TooLarge { limit }.into()
                        }
                        J::ContentType => ApiError::UnsupportedMediaType.into(),
                        other => ApiError::bad_request("malformed_json", other.to_string()).into(),
                    }
                }),
        )
        .app_data(
            web::FormConfig::default()
                .limit(16 * 1024)
                .error_handler(|e, _| {
                    ApiError::bad_request("malformed_form", e.to_string()).into()
                }),
        )
        .app_data(
            web::QueryConfig::default()
                .error_handler(|e, _| ApiError::bad_request("invalid_query", e.to_string()).into()),
        )
        .app_data(
            web::PathConfig::default()
                .error_handler(|e, _| ApiError::bad_request("invalid_path", e.to_string()).into()),
        );
}
