//! HTTP routes, one file per resource. Handlers extract, call the domain, map the result.

pub mod apikeys;
pub mod deliveries;
pub mod exports;
pub mod findings;
pub mod health;
pub mod ledger;
pub mod mf;
pub mod records;
pub mod reports;
pub mod rounds;
pub mod tables;
pub mod tax;
pub mod workbench;

use std::time::Duration;

use actix_web::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::HttpRequest;
use futures_util::StreamExt as _;

use utoipa_actix_web::scope;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::ApiError;
use crate::in_flight::{Body, InFlight};

pub const API_PREFIX: &str = "/api/v1";
pub const PAGES_PREFIX: &str = "/reports";
pub const WORKBENCH_PREFIX: &str = "/workbench";

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
            scope(PAGES_PREFIX)
                .default_service(web::to(no_route))
                .service(reports::month_page),
        )
        .service(
            // The officer's workbench: pages, the same keys and roles.
            scope(WORKBENCH_PREFIX)
                .default_service(web::to(no_route))
                .service(workbench::list)
                .service(workbench::show)
                .service(workbench::resolve),
        )
        .service(
            scope(API_PREFIX)
                // A nested scope falls back to the application's default, not its parent's.
                .default_service(web::to(no_route))
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

/// Every path no route serves: the same JSON error body as everything else; a 405 naming the
/// methods when the path is a route's and only the method is wrong. The path is the one the
/// router matched on (percent-encoded letters decoded), so every spelling of a route's path
/// gets the same answer.
pub(crate) async fn no_route(request: HttpRequest) -> Result<actix_web::HttpResponse, ApiError> {
    let allowed = crate::access::methods_of_path(request.match_info().as_str());
    if !allowed.is_empty() {
        return Err(ApiError::MethodNotAllowed { allowed });
    }
    Err(ApiError::not_found(
        "no_such_route",
        format!("no route `{}`", request.path()),
    ))
}

/// A game filter names a game dozor knows: an unknown one is a mistake to point out, not a
/// filter that silently matches nothing.
pub fn game_filter(game: Option<String>) -> Result<Option<String>, ApiError> {
    match game {
        Some(code) if rules::GameCode::parse(&code).is_none() => Err(ApiError::bad_request(
            "invalid_query",
            format!("unknown game `{code}`"),
        )),
        other => Ok(other),
    }
}

/// How long a client may take to send a request body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Refuses a body that is not declared `application/json` (parameters such as `charset` aside).
pub fn require_json(request: &HttpRequest) -> Result<(), ApiError> {
    let declared = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(str::trim);
    match declared {
        Some(t) if t.eq_ignore_ascii_case("application/json") => Ok(()),
        _ => Err(ApiError::UnsupportedMediaType),
    }
}

/// Reads a JSON request body, refusing more than `limit` bytes or a body that takes longer
/// than [`BODY_TIMEOUT`] to arrive. Its bytes are held within the budget of all bodies in
/// flight: room for the declared length (the whole `limit` when none is declared) is taken
/// before anything is read, waiting a little when the budget is spent, then `server_busy`.
pub async fn read_json_body(
    request: &HttpRequest,
    payload: web::Payload,
    limit: usize,
) -> Result<Body, ApiError> {
    require_json(request)?;
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(length) = declared {
        if length > limit {
            return Err(ApiError::TooLarge { limit });
        }
    }
    let in_flight = request
        .app_data::<std::sync::Arc<InFlight>>()
        .ok_or_else(|| ApiError::internal("the in-flight limits are not registered"))?;
    let expected = declared.unwrap_or(limit);
    let room = in_flight.reserve_body(expected).await?;
    let bytes = actix_web::rt::time::timeout(BODY_TIMEOUT, read_body(payload, limit, expected))
        .await
        .map_err(|_| ApiError::RequestTimeout {
            seconds: BODY_TIMEOUT.as_secs(),
        })??;
    Ok(Body::new(bytes, room))
}

/// The body, at most `limit` bytes; `expected` of them are allocated at once (the room held
/// for them), so a body read to its declared length never grows its buffer.
async fn read_body(
    mut payload: web::Payload,
    limit: usize,
    expected: usize,
) -> Result<Bytes, ApiError> {
    let mut body = BytesMut::with_capacity(expected.min(limit));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request("unreadable_body", e.to_string()))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// A JSON array's items as text, refused once it holds more than `most`: the items are counted
/// as they are read, so a body of millions of tiny items never becomes a list of millions.
pub fn bounded_array(
    body: &[u8],
    most: usize,
) -> Result<Vec<&serde_json::value::RawValue>, BoundedArrayError> {
    use serde::de::{Deserializer as _, Error as _, SeqAccess, Visitor};
    struct Items<'f> {
        most: usize,
        too_many: &'f std::cell::Cell<bool>,
    }
    impl<'de> Visitor<'de> for Items<'_> {
        type Value = Vec<&'de serde_json::value::RawValue>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                if items.len() == self.most {
                    // Stops reading here; the parser's own error is not the reason.
                    self.too_many.set(true);
                    return Err(A::Error::custom("too many items"));
                }
                items.push(item);
            }
            Ok(items)
        }
    }
    let too_many = std::cell::Cell::new(false);
    let mut reader = serde_json::Deserializer::from_slice(body);
    let read = reader
        .deserialize_seq(Items {
            most,
            too_many: &too_many,
        })
        .and_then(|items| reader.end().map(|()| items));
    match read {
        Ok(items) => Ok(items),
        Err(_) if too_many.get() => Err(BoundedArrayError::TooMany),
        Err(e) => Err(BoundedArrayError::Json(e)),
    }
}

/// Why [`bounded_array`] refused.
#[derive(Debug, thiserror::Error)]
pub enum BoundedArrayError {
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("more items than allowed")]
    TooMany,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_is_counted_as_it_is_read() {
        let items = bounded_array(br#"[{"a":1}, 2 ,"x"]"#, 3).unwrap();
        let texts: Vec<&str> = items.iter().map(|i| i.get()).collect();
        assert_eq!(texts, [r#"{"a":1}"#, "2", r#""x""#]);
        assert!(matches!(
            bounded_array(b"[1,2,3,4]", 3),
            Err(BoundedArrayError::TooMany)
        ));
        // Refused at the item past the limit, before the malformed rest is read.
        assert!(matches!(
            bounded_array(b"[1,2,3,4,!!!", 3),
            Err(BoundedArrayError::TooMany)
        ));
        for malformed in [&b"{}"[..], b"[1,2", b"[1] 2", b""] {
            assert!(matches!(
                bounded_array(malformed, 3),
                Err(BoundedArrayError::Json(_))
            ));
        }
    }
}
