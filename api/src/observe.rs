//! Every request gets an id, a log line and a latency observation. The id is the caller's
//! `X-Request-Id` when it is a sane token, otherwise a fresh one; it is echoed in the response
//! header, in every error body and in every log line written while the request runs.
//! Neither headers nor query strings are logged: they may carry keys.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use rand::RngCore as _;
use tracing::Instrument as _;

use crate::request_id::REQUEST_ID;

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// A caller's id is kept when it is 1–64 characters of letters, digits, `-`, `_`, `.` or `:`;
/// anything else (control characters, a log-forging newline) is replaced.
fn accepted_request_id(value: &str) -> bool {
    (1..=64).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Every answer: never sniffed into another type (a JSON body read as HTML), never shown in
/// another site's frame. A page that sets its own policy keeps it.
fn protect(headers: &mut actix_web::http::header::HeaderMap) {
    use actix_web::http::header::{X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS};
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if !headers.contains_key(X_FRAME_OPTIONS) {
        headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
}

pub async fn observe(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| accepted_request_id(v))
        .map_or_else(new_request_id, str::to_owned);
    let method = request.method().as_str().to_owned();
    let metrics = crate::gate::metrics(&request);
    let span = tracing::info_span!("request", request_id = %id, %method);
    let header = HeaderValue::from_str(&id).ok();
    let answered = REQUEST_ID
        .scope(id, async move {
            match next.call(request).await {
                Ok(response) => Ok(response),
                // An error that escaped the handlers becomes its response here, inside the
                // scope, so that its body carries the id too.
                Err(error) => Err(error.error_response()),
            }
        })
        .instrument(span.clone())
        .await;
    let took = started.elapsed();
    let observe = |status: u16, route: &str| {
        if let Some(metrics) = &metrics {
            metrics.request_answered(&method, route, status, took);
        }
        span.in_scope(|| {
            tracing::info!(
                %route,
                status,
                millis = took.as_secs_f64() * 1000.0,
                "answered"
            );
        });
    };
    let tag = |headers: &mut actix_web::http::header::HeaderMap| {
        if let Some(value) = header {
            headers.insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
        }
        protect(headers);
    };
    match answered {
        Ok(mut response) => {
            tag(response.headers_mut());
            // The route the gate decided for, never the raw path: bounded labels, no ids in
            // the log, and the same label for every spelling of a route's path.
            let route = crate::gate::decided_route(response.request())
                .unwrap_or_else(|| UNMATCHED.to_owned());
            observe(response.status().as_u16(), &route);
            Ok(response)
        }
        Err(mut response) => {
            tag(response.headers_mut());
            observe(response.status().as_u16(), UNMATCHED);
            let status = response.status();
            Err(InternalError::from_response(status, response).into())
        }
    }
}

/// The route label of a request no route answered.
const UNMATCHED: &str = "unmatched";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_tokens_are_taken_from_the_caller() {
        assert!(accepted_request_id("gw-7f3a.2026:11"));
        assert!(!accepted_request_id(""));
        assert!(!accepted_request_id("a\nforged log line"));
        assert!(!accepted_request_id(&"x".repeat(65)));
        assert_eq!(new_request_id().len(), 24);
    }
}
