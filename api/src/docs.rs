//! `/docs`: Swagger UI over this server's own OpenAPI document. Its files are compiled into the
//! binary (the `vendored` Swagger UI of `utoipa-swagger-ui`), so the page works on a network
//! with no way out; its content security policy lets it load nothing from elsewhere.

use std::sync::{Arc, LazyLock};

use actix_web::http::header::{self, ContentType};
use actix_web::{web, HttpRequest, HttpResponse};
use utoipa_swagger_ui::Config;

use crate::error::ApiError;
use crate::gate::Public;

pub const DOCS_PATH: &str = "/docs";
/// The document Swagger UI shows: the one the server serves.
pub const DOCUMENT_URL: &str = "/api/v1/openapi.json";

/// Scripts, styles and the document from this server only; Swagger UI's inline styles and its
/// data-URI images are the only exceptions it needs.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static CONFIG: LazyLock<Arc<Config<'static>>> = LazyLock::new(|| {
    Arc::new(
        Config::new([DOCUMENT_URL])
            // No badge from validator.swagger.io: nothing leaves the casino's network.
            .validator_url("none")
            .display_operation_id(true)
            .persist_authorization(false)
            .try_it_out_enabled(false),
    )
});

/// Registers `/docs` and its files, observed like every other request.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(DOCS_PATH)
            .default_service(web::to(crate::routes::fallback::no_route))
            .wrap(actix_web::middleware::from_fn(crate::gate::middleware))
            .wrap(actix_web::middleware::from_fn(crate::observe::observe))
            .route("", web::get().to(to_index))
            .route("/{file:.*}", web::get().to(file)),
    );
}

async fn to_index(_: Public) -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, format!("{DOCS_PATH}/")))
        .finish()
}

async fn file(_: Public, request: HttpRequest) -> Result<HttpResponse, ApiError> {
    let name = request.match_info().get("file").unwrap_or_default();
    let served = utoipa_swagger_ui::serve(name, CONFIG.clone())
        .map_err(|e| ApiError::internal(format!("swagger ui: {e}")))?;
    let Some(found) = served else {
        return Err(ApiError::not_found(
            "no_such_file",
            format!("no file `{name}` in the API docs"),
        ));
    };
    let content_type = if found.content_type.starts_with("text/html") {
        ContentType::html().to_string()
    } else {
        found.content_type
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(found.bytes.into_owned()))
}
