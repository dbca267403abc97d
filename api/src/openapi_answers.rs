//! The answers any operation can get besides its own: written into every operation of the
//! document from what the server does for all of them, so the document lists every status the
//! server can send (a handler's own description of a status wins).

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa::Modify;

pub struct StandardAnswers;

/// A response whose body is the error body.
pub(crate) fn error(description: &str) -> RefOr<utoipa::openapi::Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                Content::new(Some(Ref::from_schema_name("ErrorBody"))),
            )
            .build(),
    )
}

fn add(operation: &mut Operation, status: &str, description: &str) {
    operation
        .responses
        .responses
        .entry(status.to_owned())
        .or_insert_with(|| error(description));
}

/// Whether the operation goes through the API's gate (the per-address limit applies).
fn gated(path: &str) -> bool {
    path.starts_with(crate::paths::API_PREFIX)
        || path.starts_with(crate::paths::PAGES_PREFIX)
        || path.starts_with(crate::paths::WORKBENCH_PREFIX)
        || path == "/metrics"
}

impl Modify for StandardAnswers {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
                &mut item.patch,
            ];
            for operation in operations.into_iter().flatten() {
                let parameters = operation.parameters.as_deref().unwrap_or_default();
                let has_query = parameters
                    .iter()
                    .any(|p| matches!(p.parameter_in, ParameterIn::Query));
                let has_path = parameters
                    .iter()
                    .any(|p| matches!(p.parameter_in, ParameterIn::Path));
                let has_body = operation.request_body.is_some();
                if has_query || has_path || has_body {
                    add(operation, "400", "a parameter or the body is malformed");
                }
                if has_body {
                    add(operation, "408", "the body did not arrive within 30 s");
                    add(
                        operation,
                        "413",
                        "the body is larger than the server's limit",
                    );
                    add(
                        operation,
                        "415",
                        "the body is not declared `application/json`",
                    );
                }
                if gated(path) {
                    add(
                        operation,
                        "429",
                        "too many requests from this address or key; see Retry-After",
                    );
                }
                // All but those that answer without the database (the metrics then leave the
                // ledger's series out).
                if !["/healthz", "/metrics", "/api/v1/openapi.json"].contains(&path.as_str()) {
                    add(
                        operation,
                        "503",
                        "the database is unreachable, or the server holds as many request bodies or makes as many files as it may at once (`server_busy`, Retry-After); nothing was changed, retry later",
                    );
                }
            }
        }
    }
}
