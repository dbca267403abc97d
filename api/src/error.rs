//! The one error type of the HTTP API: every failure is `{code, message, details}`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

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
    #[error("request body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    /// No key, or one that is unknown, revoked or expired.
    #[error("{message}")]
    Unauthenticated { code: &'static str, message: String },
    /// A valid key whose role may not call the route.
    #[error("{message}")]
    Forbidden { message: String, details: Value },
    #[error("too many requests with this API key; retry after {retry_after_seconds} s")]
    RateLimited { retry_after_seconds: u64 },
    #[error("this route answers only {}", allowed.join(", "))]
    MethodNotAllowed { allowed: Vec<&'static str> },
    #[error("{0}")]
    Unavailable(String),
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
            | ApiError::Conflict { code, .. } => code,
            ApiError::TooLarge { .. } => "payload_too_large",
            ApiError::Unauthenticated { code, .. } => code,
            ApiError::Forbidden { .. } => "forbidden",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::MethodNotAllowed { .. } => "method_not_allowed",
            ApiError::Unavailable(_) => "unavailable",
            ApiError::Internal(_) => "internal",
        }
    }

    /// The `{code, message, details}` body (internal errors are logged, not shown).
    pub fn body(&self) -> ErrorBody {
        if let ApiError::Internal(detail) = self {
            tracing::error!(%detail, "internal error");
        }
        let message = match self {
            ApiError::Internal(_) => "internal error; see the server log".to_owned(),
            other => other.to_string(),
        };
        ErrorBody {
            code: self.code().to_owned(),
            message,
            details: self.details(),
        }
    }

    fn details(&self) -> Value {
        match self {
            ApiError::BadRequest { details, .. }
            | ApiError::Unprocessable { details, .. }
            | ApiError::Conflict { details, .. }
            | ApiError::Forbidden { details, .. } => details.clone(),
            ApiError::TooLarge { limit } => serde_json::json!({ "limit_bytes": limit }),
            ApiError::RateLimited {
                retry_after_seconds,
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
            ApiError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unauthenticated { .. } => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        use actix_web::http::header;
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Unauthenticated { .. } => {
                response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"dozor\""));
            }
            ApiError::RateLimited {
                retry_after_seconds,
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
            ledger::LedgerError::Connection(m) => {
                ApiError::Unavailable(format!("database unavailable: {m}"))
            }
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
        ApiError::Unavailable(format!("database unavailable: {e}"))
    }
}
