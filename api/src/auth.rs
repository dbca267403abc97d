//! Authentication by API key and authorization by the role table ([`crate::access`]).
//!
//! A request's bearer token is hashed (SHA-256) and looked up in a cache of keys read from the
//! database; only a miss reads the database. A cached key is read again after
//! [`CACHE_FOR`], so a revocation made from the command line takes effect within that time (one
//! made over the API, at once). Tokens are never logged: a refusal names the key only when the
//! token belongs to a known key.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpMessage as _, HttpRequest};
use chrono::{DateTime, Utc};
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ledger::access::{looks_like_token, token_hash, Role};
use ledger::storage::api_keys::{self, ApiKeyRecord};
use serde::Serialize;
use utoipa::ToSchema;

use crate::access::{self, Access, Lookup};
use crate::error::ApiError;
use crate::state::AppState;

/// How long a key read from the database is trusted before it is read again.
pub const CACHE_FOR: Duration = Duration::from_secs(10);

/// The holder of the API key a request was made with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct Caller {
    pub key_id: String,
    pub name: String,
    #[schema(value_type = String, example = "compliance")]
    pub role: Role,
    pub expires_at: Option<DateTime<Utc>>,
}

/// Requests a key may make: `per_second` on average, up to `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub per_second: u32,
    pub burst: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            per_second: 20,
            burst: 60,
        }
    }
}

struct CachedKey {
    record: ApiKeyRecord,
    role: Role,
    read_at: Instant,
}

/// Known keys, per-key and per-address rate limits and the count of refused authentications.
pub struct Gatekeeper {
    keys: RwLock<HashMap<[u8; 32], Arc<CachedKey>>>,
    limiter: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    /// Address checks since the limiter last forgot idle addresses.
    address_checks: AtomicU64,
    refused: AtomicU64,
}

/// How often the per-address limiter forgets addresses that have been quiet long enough.
const FORGET_ADDRESSES_EVERY: u64 = 10_000;

fn quota(limit: RateLimit) -> Quota {
    let per_second = NonZeroU32::new(limit.per_second).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limit.burst).unwrap_or(per_second);
    Quota::per_second(per_second).allow_burst(burst)
}

/// Why a request was not authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    NoToken,
    Malformed,
    Unknown,
    Revoked,
    Expired,
}

impl Refusal {
    fn as_str(self) -> &'static str {
        match self {
            Refusal::NoToken => "no bearer token",
            Refusal::Malformed => "not a dozor API key",
            Refusal::Unknown => "unknown API key",
            Refusal::Revoked => "API key revoked",
            Refusal::Expired => "API key expired",
        }
    }
}

impl Gatekeeper {
    /// `per_key` for each API key; `per_address` for every request under the API from one
    /// client address, with or without a key (tables have none).
    pub fn new(per_key: RateLimit, per_address: RateLimit) -> Gatekeeper {
        Gatekeeper {
            keys: RwLock::new(HashMap::new()),
            limiter: RateLimiter::keyed(quota(per_key)),
            per_address: RateLimiter::keyed(quota(per_address)),
            address_checks: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// The per-address limit: how long to wait if `address` has used up its requests.
    fn throttle_address(&self, address: IpAddr) -> Result<(), Duration> {
        let checks = self.address_checks.fetch_add(1, Ordering::Relaxed);
        if checks.is_multiple_of(FORGET_ADDRESSES_EVERY) {
            self.per_address.retain_recent();
        }
        self.per_address
            .check_key(&address)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Authentications refused since the server started.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// Drops a key from the cache (after its revocation) so the next request reads it again.
    pub fn forget(&self, key_id: &str) {
        if let Ok(mut keys) = self.keys.write() {
            keys.retain(|_, k| k.record.key.key_id != key_id);
        }
    }

    fn cached(&self, hash: &[u8; 32]) -> Option<Arc<CachedKey>> {
        let keys = self.keys.read().ok()?;
        keys.get(hash)
            .filter(|k| k.read_at.elapsed() < CACHE_FOR)
            .cloned()
    }

    /// The key holding `token`, from the cache or else the database.
    async fn key(
        &self,
        state: &web::Data<AppState>,
        token: &str,
    ) -> Result<Option<Arc<CachedKey>>, ApiError> {
        let hash = token_hash(token);
        if let Some(key) = self.cached(&hash) {
            return Ok(Some(key));
        }
        let shared = state.clone();
        let found = web::block(move || -> Result<Option<ApiKeyRecord>, ApiError> {
            Ok(api_keys::find_by_token_hash(&mut *shared.conn()?, &hash)?)
        })
        .await??;
        let Some(record) = found else {
            return Ok(None);
        };
        let key = Arc::new(CachedKey {
            role: record.role()?,
            record,
            read_at: Instant::now(),
        });
        if let Ok(mut keys) = self.keys.write() {
            keys.insert(hash, Arc::clone(&key));
        }
        Ok(Some(key))
    }

    /// The caller of a request, or why it is refused.
    async fn authenticate(
        &self,
        state: &web::Data<AppState>,
        request: &ServiceRequest,
    ) -> Result<Caller, ApiError> {
        let token = match bearer_token(request) {
            Ok(token) => token,
            Err(refusal) => return Err(self.refuse(request, refusal, None)),
        };
        let Some(key) = self.key(state, &token).await? else {
            return Err(self.refuse(request, Refusal::Unknown, None));
        };
        let row = &key.record.key;
        if key.record.revocation.is_some() {
            return Err(self.refuse(request, Refusal::Revoked, Some(row)));
        }
        if row.expires_at.is_some_and(|e| e <= Utc::now()) {
            return Err(self.refuse(request, Refusal::Expired, Some(row)));
        }
        Ok(Caller {
            key_id: row.key_id.clone(),
            name: row.name.clone(),
            role: key.role,
            expires_at: row.expires_at,
        })
    }

    /// Counts and logs a refused authentication (never the token) and makes its answer.
    fn refuse(
        &self,
        request: &ServiceRequest,
        refusal: Refusal,
        key: Option<&ledger::storage::models::ApiKeyRow>,
    ) -> ApiError {
        let count = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
        tracing::warn!(
            reason = refusal.as_str(),
            key_id = key.map(|k| k.key_id.as_str()),
            key_name = key.map(|k| k.name.as_str()),
            peer = %request.connection_info().peer_addr().unwrap_or("-"),
            method = %request.method(),
            path = %request.path(),
            refused_so_far = count,
            "authentication refused"
        );
        let message = match (refusal, key) {
            (Refusal::NoToken, _) => {
                "this route needs an API key: `Authorization: Bearer dzr_…`".to_owned()
            }
            (Refusal::Revoked, Some(k)) => format!("API key `{}` was revoked", k.name),
            (Refusal::Expired, Some(k)) => format!("API key `{}` has expired", k.name),
            (other, _) => other.as_str().to_owned(),
        };
        let code = match refusal {
            Refusal::NoToken => "unauthenticated",
            Refusal::Revoked => "api_key_revoked",
            Refusal::Expired => "api_key_expired",
            Refusal::Malformed | Refusal::Unknown => "invalid_api_key",
        };
        ApiError::Unauthenticated { code, message }
    }

    /// Whether `key_id` may make another request now; if not, how long to wait.
    fn throttle(&self, key_id: &str) -> Result<(), Duration> {
        self.limiter
            .check_key(&key_id.to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The token of `Authorization: Bearer <token>`, or of `Authorization: Basic …` whose password
/// is the token (the user name is not looked at): the scheme a browser asks for itself, so a
/// person can open the report pages with a key.
fn bearer_token(request: &ServiceRequest) -> Result<String, Refusal> {
    use base64::Engine as _;
    let Some(header) = request
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
    else {
        return Err(Refusal::NoToken);
    };
    let text = header.to_str().map_err(|_| Refusal::Malformed)?;
    let (scheme, credentials) = text.split_once(' ').ok_or(Refusal::Malformed)?;
    let credentials = credentials.trim();
    let token = if scheme.eq_ignore_ascii_case("bearer") {
        credentials.to_owned()
    } else if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials)
            .map_err(|_| Refusal::Malformed)?;
        let pair = String::from_utf8(decoded).map_err(|_| Refusal::Malformed)?;
        let (_, password) = pair.split_once(':').ok_or(Refusal::Malformed)?;
        password.to_owned()
    } else {
        return Err(Refusal::Malformed);
    };
    if !looks_like_token(&token) {
        return Err(Refusal::Malformed);
    }
    Ok(token)
}

/// The middleware: every request under the API is held to its route's rule in the role table.
/// A request for an unknown path goes on (to its 404); a known path with another method gets a
/// 405; a route with no rule is refused to everyone. Refusals are answered here, as responses.
pub async fn authorize(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if let Err(refusal) = throttle_address(&request) {
        return Ok(request.error_response(refusal).map_into_right_body());
    }
    match admit(&request).await {
        Ok(Some(caller)) => {
            request.extensions_mut().insert(caller);
        }
        Ok(None) => {}
        Err(refusal) => return Ok(request.error_response(refusal).map_into_right_body()),
    }
    Ok(next.call(request).await?.map_into_left_body())
}

/// The per-address limit, before anything else is looked at. The address is the TCP peer's: a
/// proxy in front of dozor shares one address among its clients (see docs/SECURITY.md).
fn throttle_address(request: &ServiceRequest) -> Result<(), ApiError> {
    let (Some(peer), Some(state)) = (
        request.peer_addr(),
        request.app_data::<web::Data<AppState>>(),
    ) else {
        return Ok(());
    };
    state
        .gatekeeper
        .throttle_address(peer.ip())
        .map_err(|wait| ApiError::RateLimited {
            retry_after_seconds: wait.as_secs_f64().ceil().max(1.0) as u64,
        })
}

/// Whether the request may go on: with the caller when its route needs a key.
async fn admit(request: &ServiceRequest) -> Result<Option<Caller>, ApiError> {
    let Some(pattern) = request.match_pattern() else {
        return Ok(None);
    };
    let roles = match access::lookup(request.method().as_str(), &pattern) {
        Lookup::Found(Access::Public | Access::TableSignature) => return Ok(None),
        Lookup::Found(Access::Roles(roles)) => roles,
        Lookup::OtherMethods(allowed) => return Err(ApiError::MethodNotAllowed { allowed }),
        Lookup::Missing => {
            tracing::error!(%pattern, "a route without a rule in the role table was refused");
            return Err(ApiError::Forbidden {
                message: "this route has no access rule".into(),
                details: serde_json::json!({}),
            });
        }
    };
    let state = request
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("no application state"))?;
    let gatekeeper = &state.gatekeeper;
    let caller = gatekeeper.authenticate(&state, request).await?;
    if let Err(wait) = gatekeeper.throttle(&caller.key_id) {
        return Err(ApiError::RateLimited {
            retry_after_seconds: wait.as_secs_f64().ceil().max(1.0) as u64,
        });
    }
    if !roles.contains(&caller.role) {
        return Err(ApiError::Forbidden {
            message: format!(
                "API key `{}` has the role {}; this route needs {}",
                caller.name,
                caller.role,
                Access::Roles(roles).describe()
            ),
            details: serde_json::json!({
                "role": caller.role.as_str(),
                "allowed_roles": roles.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
            }),
        });
    }
    Ok(Some(caller))
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(req.extensions().get::<Caller>().cloned().ok_or(
            ApiError::Unauthenticated {
                code: "unauthenticated",
                message: "this route needs an API key".into(),
            },
        ))
    }
}
