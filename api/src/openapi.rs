//! The OpenAPI document, generated from the real handlers. `dozor openapi` writes it to
//! `openapi/openapi.json`; a test fails when the checked-in file is stale.

use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::access::{self, Access, Lookup};
use crate::routes;

/// The name of the bearer scheme in the document.
pub const SECURITY_SCHEME: &str = "api_key";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "dozor",
        description = "Compliance and audit service for live casino games under a herní plán: signed \
                       round ingest into a hash-chained ledger, re-adjudication, findings and reports. \
                       Money is integer haléře (`*_h`). \
                       Access: an API key (`Authorization: Bearer dzr_…`) whose role the operation \
                       lists in its security requirement (admin, compliance, regulator, reporter); \
                       tables submit records signed with their ed25519 key and no API key; the \
                       checkpoint, proofs, `/health`, `/healthz`, `/readyz` and this document \
                       are public, `/metrics` takes a key of any role. \
                       Every answer carries `X-Request-Id` (the caller's, when it is a plain \
                       token of at most 64 characters); error bodies repeat it as `request_id`.",
        license(name = "Apache-2.0")
    ),
    components(schemas(crate::error::ErrorBody)),
    tags(
        (name = "records", description = "Signed records from the tables"),
        (name = "tables", description = "Gaming tables and their keys"),
        (name = "ledger", description = "The append-only ledger"),
        (name = "tiles", description = "The ledger as C2SP tlog-tiles: checkpoint, hash tiles, entry bundles, verdicts"),
        (name = "findings", description = "Discrepancies found by re-adjudication"),
        (name = "reports", description = "Payout and RTP reports"),
        (name = "access", description = "API keys and their roles"),
        (name = "operations", description = "Liveness, readiness, metrics and this description"),
    )
)]
pub struct ApiDoc;

/// Writes the role table into the document: the bearer scheme, each operation's roles as its
/// security requirement (and in its description), and the answers a refused request gets.
struct AccessRules;

impl Modify for AccessRules {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            SECURITY_SCHEME,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("dzr_<43 characters of base64url>")
                    .description(Some(
                        "An API key from `dozor apikey create` or `POST /api/v1/apikeys`; the \
                         scopes listed by an operation are the roles that may call it.",
                    ))
                    .build(),
            ),
        );
        for (path, item) in openapi.paths.paths.iter_mut() {
            let operations = [
                ("GET", &mut item.get),
                ("POST", &mut item.post),
                ("PUT", &mut item.put),
                ("DELETE", &mut item.delete),
                ("PATCH", &mut item.patch),
            ];
            for (method, operation) in operations {
                if let (Some(operation), Lookup::Found(rule)) =
                    (operation.as_mut(), access::lookup(method, path))
                {
                    apply_rule(operation, rule);
                }
            }
        }
    }
}

fn apply_rule(operation: &mut Operation, rule: Access) {
    let note = match rule {
        Access::Public => "Access: public, no API key.".to_owned(),
        Access::TableSignature => {
            "Access: a gaming table, by the ed25519 signature of each record; no API key."
                .to_owned()
        }
        Access::Roles(_) => format!("Access: API key with role {}.", rule.describe()),
    };
    let description = operation.description.take().unwrap_or_default();
    operation.description = Some(if description.is_empty() {
        note
    } else {
        format!("{description}\n\n{note}")
    });
    let Access::Roles(roles) = rule else {
        return;
    };
    operation.security = Some(vec![SecurityRequirement::new(
        SECURITY_SCHEME,
        roles.iter().map(|r| r.as_str()),
    )]);
    let responses = &mut operation.responses.responses;
    responses.insert(
        "401".into(),
        crate::openapi_answers::error("no API key, or an unknown, revoked or expired one"),
    );
    responses.insert(
        "403".into(),
        crate::openapi_answers::error("the key's role may not call this operation"),
    );
    responses.insert(
        "429".into(),
        crate::openapi_answers::error("the key's rate limit is reached; see Retry-After"),
    );
}

/// The whole document: the operations come from the routes as `routes::configure` registers
/// them (one registration for both), then the role table, the answers every operation can get
/// and the example records are written in.
pub fn build() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt as _;
    let (_, mut document) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes::configure)
        .split_for_parts();
    AccessRules.modify(&mut document);
    crate::openapi_answers::StandardAnswers.modify(&mut document);
    crate::openapi_examples::RecordExamples.modify(&mut document);
    document
}

/// The document as written to `openapi/openapi.json`: [`build`] with the limits the server
/// enforces written into its parameters and bodies.
pub fn document() -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(build())?;
    let plans: Vec<String> = rules::PlanBook::builtin()
        .map(|book| book.ids().map(str::to_owned).collect())
        .unwrap_or_default();
    crate::openapi_constraints::apply(&mut value, &plans);
    let mut text = serde_json::to_string_pretty(&value)?;
    text.push('\n');
    Ok(text)
}

static SERVED: std::sync::LazyLock<Result<String, String>> =
    std::sync::LazyLock::new(|| document().map_err(|e| e.to_string()));

/// The document as `GET /api/v1/openapi.json` serves it: built once.
pub fn served() -> Result<&'static str, String> {
    SERVED.as_deref().map_err(Clone::clone)
}
pub use crate::openapi_examples::{example_key, example_registrations};
