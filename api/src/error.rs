//! The one error type of the HTTP API: every failure is `{code, message, details}`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use dozor_log::tiles::MAX_ENTRY_BYTES;

/// Error body of every 4xx/5xx answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Stable machine-readable code, e.g. `bad_signature`.
    pub code: String,
    /// One sentence for a human.
    pub message: String,
    /// Context (field, ids, the existing receipt on a conflict, ...).
    #[schema(value_type = Object)]
    pub details: Value,
    /// The request's id, as in its `X-Request-Id` response header and the server's log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    BadRequest {
        code: &'static str,
        message: String,
        details: Value,
    },
    #[error("{message}")]
    Unprocessable {
        code: &'static str,
        message: String,
        details: Value,
    },
    #[error("{message}")]
    NotFound { code: &'static str, message: String },
    #[error("{message}")]
    Conflict {
        code: &'static str,
        message: String,
        details: Value,
    },
    /// What was asked for was there and is no longer (an archived entry): where it went is in
    /// `details`.
    #[error("{message}")]
    Gone {
        code: &'static str,
        message: String,
        details: Value,
    },
    #[error("request body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    /// A record or registry event whose ledger entry would be over what an entry bundle of the
    /// published log holds: nothing was appended. `details` names the sizes.
    #[error("{message}")]
    EntryTooLarge { message: String, details: Value },
    /// No key, or one that is unknown, revoked or expired.
    #[error("{message}")]
    Unauthenticated { code: &'static str, message: String },
    /// A valid key whose role may not call the route.
    #[error("{message}")]
    Forbidden { message: String, details: Value },
    /// A page's form posted from elsewhere than the page (cross-site request forgery).
    #[error("{message}")]
    CrossSite { message: String },
    #[error("too many requests; retry after {retry_after_seconds} s")]
    RateLimited { retry_after_seconds: u64 },
    #[error("send the body as application/json (Content-Type: application/json)")]
    UnsupportedMediaType,
    #[error("the request body did not arrive within {seconds} s")]
    RequestTimeout { seconds: u64 },
    #[error("this route answers only {}", allowed.join(", "))]
    MethodNotAllowed { allowed: Vec<&'static str> },
    /// Not now: `reason` is shown; `cause` (what the database driver said, say) is logged only.
    #[error("{reason}; nothing was changed, retry later")]
    Unavailable { reason: &'static str, cause: String },
    /// The server holds as much for requests in flight as it may (bodies, files): nothing was
    /// read or changed; retry after a while.
    #[error("{message}; retry after {retry_after_seconds} s")]
    Busy {
        message: &'static str,
        retry_after_seconds: u64,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::BadRequest {
            code,
            message: message.into(),
            details: Value::Object(Default::default()),
        }
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>, details: Value) -> Self {
        ApiError::Unprocessable {
            code,
            message: message.into(),
            details,
        }
    }

    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::NotFound {
            code,
            message: message.into(),
        }
    }

    pub fn internal(e: impl std::fmt::Display) -> Self {
        ApiError::Internal(e.to_string())
    }

    fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest { code, .. }
            | ApiError::Unprocessable { code, .. }
            | ApiError::NotFound { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Gone { code, .. } => code,
            ApiError::TooLarge { .. } => "payload_too_large",
            ApiError::EntryTooLarge { .. } => "entry_too_large",
            ApiError::Unauthenticated { code, .. } => code,
            ApiError::Forbidden { .. } => "forbidden",
            ApiError::CrossSite { .. } => "cross_site_request",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::RequestTimeout { .. } => "request_timeout",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Unavailable { .. } => "unavailable",
            ApiError::Busy { .. } => "server_busy",
            ApiError::Internal(_) => "internal",
        }
    }

    /// The `{code, message, details}` body. Internal and database errors are logged under an
    /// incident id, which the body gives instead of the cause; input quoted back is shortened.
    pub fn body(&self) -> ErrorBody {
        let incident = match self {
            ApiError::Internal(cause) => {
                let id = incident_id();
                tracing::error!(incident = %id, %cause, "internal error");
                Some(id)
            }
            ApiError::Unavailable { reason, cause } => {
                let id = incident_id();
                tracing::warn!(incident = %id, %cause, "{reason}");
                Some(id)
            }
            _ => None,
        };
        let message = match self {
            ApiError::Internal(_) => "internal error; see the server log".to_owned(),
            other => shorten_quotes(&other.to_string()),
        };
        let mut details = self.details();
        shorten_strings(&mut details);
        if let (Some(id), Value::Object(map)) = (incident, &mut details) {
            map.insert("incident".into(), Value::String(id));
        }
        ErrorBody {
            code: self.code().to_owned(),
            message,
            details,
            request_id: crate::request_id::current_request_id(),
        }
    }

    fn details(&self) -> Value {
        match self {
            ApiError::BadRequest { details, .. }
            | ApiError::Unprocessable { details, .. }
            | ApiError::Conflict { details, .. }
            | ApiError::Gone { details, .. }
            | ApiError::EntryTooLarge { details, .. }
            | ApiError::Forbidden { details, .. } => details.clone(),
            ApiError::TooLarge { limit } => serde_json::json!({ "limit_bytes": limit }),
            ApiError::RateLimited {
                retry_after_seconds,
            }
            | ApiError::Busy {
                retry_after_seconds,
                ..
            } => serde_json::json!({ "retry_after_seconds": retry_after_seconds }),
            ApiError::MethodNotAllowed { allowed } => serde_json::json!({ "allowed": allowed }),
            _ => Value::Object(Default::default()),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::NotFound { .. } => StatusCode::NOT_FOUND,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Gone { .. } => StatusCode::GONE,
            ApiError::TooLarge { .. } | ApiError::EntryTooLarge { .. } => {
                StatusCode::PAYLOAD_TOO_LARGE
            }
            ApiError::Unauthenticated { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } | ApiError::CrossSite { .. } => StatusCode::FORBIDDEN,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::RequestTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unavailable { .. } | ApiError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        use actix_web::http::header;
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Unauthenticated { .. } => {
                // Basic too, so that a browser asks for the key of a report page itself (the
                // key is the password).
                response.append_header((header::WWW_AUTHENTICATE, "Bearer realm=\"dozor\""));
                response.append_header((
                    header::WWW_AUTHENTICATE,
                    "Basic realm=\"dozor\", charset=\"UTF-8\"",
                ));
            }
            ApiError::RateLimited {
                retry_after_seconds,
            }
            | ApiError::Busy {
                retry_after_seconds,
                ..
            } => {
                response.insert_header((header::RETRY_AFTER, retry_after_seconds.to_string()));
            }
            ApiError::MethodNotAllowed { allowed } => {
                response.insert_header((header::ALLOW, allowed.join(", ")));
            }
            _ => {}
        }
        response.json(self.body())
    }
}

impl From<ledger::LedgerError> for ApiError {
    fn from(e: ledger::LedgerError) -> Self {
        match e {
            ledger::LedgerError::Connection(cause) => ApiError::Unavailable {
                reason: DATABASE_UNAVAILABLE,
                cause,
            },
            // The caller's key was revoked or expired between the gate and the append, or
            // its role may not record what the route records.
            ledger::LedgerError::ActorNotAllowed { why, .. } => ApiError::Forbidden {
                message: why,
                details: serde_json::json!({}),
            },
            ledger::LedgerError::TileFormat(dozor_log::tiles::TileError::EntryTooLarge {
                size,
            }) => ApiError::EntryTooLarge {
                message: format!(
                    "the ledger entry would be {size} bytes, over the limit of {MAX_ENTRY_BYTES} bytes of an entry (the published log's entry bundles write each entry's length in two bytes); nothing was appended"
                ),
                details: serde_json::json!({ "entry_bytes": size, "limit_bytes": MAX_ENTRY_BYTES }),
            },
            not_found @ ledger::LedgerError::TileNotFound { .. } => {
                ApiError::not_found("no_such_tile", not_found.to_string())
            }
            ledger::LedgerError::TilePruned {
                path,
                minimum_index,
            } => ApiError::Gone {
                code: "tile_pruned",
                message: format!(
                    "{path} holds archived entries, whose bytes left the database: entry bundles below the minimum index {minimum_index} are no longer served (the inspection export of each archived range holds them)"
                ),
                details: serde_json::json!({ "path": path, "minimum_index": minimum_index }),
            },
            other => ApiError::internal(other),
        }
    }
}

impl From<ledger::ingest::IngestError> for ApiError {
    fn from(e: ledger::ingest::IngestError) -> Self {
        use ledger::ingest::IngestError;
        match e {
            IngestError::Envelope(e) => ApiError::BadRequest {
                code: IngestError::envelope_code(&e),
                details: serde_json::json!({ "line": e.line(), "column": e.column() }),
                message: IngestError::Envelope(e).to_string(),
            },
            IngestError::Refused {
                code,
                message,
                details,
            } => ApiError::Unprocessable {
                code,
                message,
                details,
            },
            IngestError::EntryTooLarge { size, record_size } => ApiError::EntryTooLarge {
                message: IngestError::EntryTooLarge { size, record_size }.to_string(),
                details: serde_json::json!({
                    "entry_bytes": size,
                    "limit_bytes": MAX_ENTRY_BYTES,
                    "record_bytes": record_size,
                    "record_limit_bytes": record_size.saturating_sub(size - MAX_ENTRY_BYTES),
                }),
            },
            IngestError::Unavailable { reason, cause } => ApiError::Unavailable { reason, cause },
            IngestError::Ledger(e) => e.into(),
            other => ApiError::internal(other),
        }
    }
}

impl From<reports::ReportError> for ApiError {
    fn from(e: reports::ReportError) -> Self {
        match e {
            reports::ReportError::InvalidFilter(m) => ApiError::bad_request("invalid_query", m),
            reports::ReportError::Ledger(e) => e.into(),
            other => ApiError::internal(other),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> Self {
        ApiError::internal(e)
    }
}

impl From<diesel::r2d2::PoolError> for ApiError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        ApiError::Unavailable {
            reason: DATABASE_UNAVAILABLE,
            cause: e.to_string(),
        }
    }
}

const DATABASE_UNAVAILABLE: &str = "the database is unavailable";

/// Most characters of input an error quotes back (between backticks, or as a detail).
pub const MAX_QUOTED_CHARS: usize = 100;
/// Most characters of an error message, whatever it quotes.
const MAX_MESSAGE_CHARS: usize = 600;

fn shorten(text: &str, max: usize) -> Option<String> {
    let mut chars = text.char_indices();
    let (cut, _) = chars.nth(max)?;
    Some(format!("{}…", &text[..cut]))
}

/// `text` with each backtick-quoted part (how messages quote input) cut to
/// [`MAX_QUOTED_CHARS`], and the whole to `MAX_MESSAGE_CHARS`.
fn shorten_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_MESSAGE_CHARS));
    for (n, part) in text.split('`').enumerate() {
        if n > 0 {
            out.push('`');
        }
        match (n % 2 == 1)
            .then(|| shorten(part, MAX_QUOTED_CHARS))
            .flatten()
        {
            Some(short) => out.push_str(&short),
            None => out.push_str(part),
        }
    }
    shorten(&out, MAX_MESSAGE_CHARS).unwrap_or(out)
}

fn shorten_strings(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Some(short) = shorten(s, MAX_QUOTED_CHARS) {
                *s = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_strings),
        Value::Object(map) => map.values_mut().for_each(shorten_strings),
        _ => {}
    }
}

/// A short id to find an incident in the log by.
fn incident_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let started = chrono::Utc::now().timestamp_micros();
    format!("{started:x}-{n}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_input_is_cut_and_causes_are_not_shown() {
        let long = "x".repeat(5_000);
        let body = ApiError::unprocessable(
            "unknown_table",
            format!("table `{long}` is not registered"),
            serde_json::json!({ "table_id": long }),
        )
        .body();
        let quoted = format!("{}…", "x".repeat(MAX_QUOTED_CHARS));
        assert_eq!(body.message, format!("table `{quoted}` is not registered"));
        assert_eq!(body.details["table_id"], quoted.as_str());

        let body = ApiError::Unavailable {
            reason: DATABASE_UNAVAILABLE,
            cause: "connection to server on socket \"/tmp/pg/.s.PGSQL.5432\" failed".into(),
        }
        .body();
        assert!(
            !body.message.contains("PGSQL") && !body.message.contains("/tmp"),
            "{}",
            body.message
        );
        assert!(body.details["incident"].is_string());
        let body = ApiError::internal("duplicate key value violates unique constraint").body();
        assert!(!body.message.contains("constraint"));
        assert!(body.details["incident"].is_string());
    }

    #[test]
    fn the_ledgers_tile_and_entry_errors_are_answered_by_what_they_are() {
        let answer = |e: ledger::LedgerError| {
            let e = ApiError::from(e);
            (e.status_code().as_u16(), e.body())
        };
        let (status, body) = answer(ledger::LedgerError::TilePruned {
            path: "tile/entries/000".into(),
            minimum_index: 512,
        });
        assert_eq!((status, body.code.as_str()), (410, "tile_pruned"));
        assert!(body.message.contains("512"), "{}", body.message);
        assert_eq!(body.details["minimum_index"], 512);
        let (status, body) = answer(ledger::LedgerError::TileNotFound {
            path: "tile/0/001".into(),
            size: 300,
            why: "the tree has 1 full tiles".into(),
        });
        assert_eq!((status, body.code.as_str()), (404, "no_such_tile"));
        assert!(body.message.contains("tile/0/001"), "{}", body.message);
        let (status, body) = answer(ledger::LedgerError::TileFormat(
            dozor_log::tiles::TileError::EntryTooLarge { size: 70_123 },
        ));
        assert_eq!((status, body.code.as_str()), (413, "entry_too_large"));
        assert!(body.message.contains("70123 bytes"), "{}", body.message);
        assert_eq!(body.details["entry_bytes"], 70_123);
        assert_eq!(body.details["limit_bytes"], 65_535);
        // Another error of the tile format is the server's.
        let (status, _) = answer(ledger::LedgerError::TileFormat(
            dozor_log::tiles::TileError::HashBytes {
                tile: "tile/0/000".into(),
                expected: 256,
                actual: 31,
            },
        ));
        assert_eq!(status, 500);
    }
}
