//! Authentication by API key; the gate ([`crate::gate`]) judges it for the matched route.
//!
//! A request's bearer token is hashed (SHA-256) and looked up among the API keys the ledger's
//! operator-signed registry events define, never among database rows. Keys found are cached
//! for [`CACHE_FOR`]; a lookup reads the registry events appended since the last one, so a
//! revocation made from the command line takes effect within that time (one made over the API,
//! at once). Tokens are never logged: a refusal names the key only when the token belongs to a
//! known key.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use actix_web::http::header::HeaderMap;
use actix_web::web;
use chrono::{DateTime, Utc};
use dozor_log::access::{looks_like_token, token_hash, Role};
use dozor_log::registry_history::HistoricApiKey;
use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ledger::ingest::Ingest;
use ledger::storage::PgPool;
use serde::Serialize;
use utoipa::ToSchema;

use crate::access::Access;
use crate::error::ApiError;

/// How long a key read from the database is trusted before it is read again.
pub const CACHE_FOR: Duration = Duration::from_secs(10);

/// How long a token found to be no key's is refused without reading the registry again.
const UNKNOWN_FOR: Duration = Duration::from_secs(1);
/// Most unknown tokens remembered at once.
const MAX_UNKNOWN: usize = 10_000;

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

/// An API key as the ledger's registry events give it, and when it was read.
struct CachedKey {
    key: HistoricApiKey,
    read_at: Instant,
}

/// The key a request presents, resolved before routing and judged by the gate for the route
/// the router matched (a public route ignores it).
#[derive(Debug, Clone)]
pub enum Presented {
    NoToken,
    /// A token that is no key's, or a key that may not act (revoked, expired); the key's id
    /// and name when the token is a known key's.
    Refused {
        refusal: Refusal,
        key: Option<(String, String)>,
    },
    Key(Caller),
    /// The keys could not be read (the database does not answer); `cause` is for the log.
    Unavailable {
        cause: String,
    },
}

/// Where the keys are read from: the ledger's registry events, through the ingest's directory.
pub struct KeyRegistry<'a> {
    pub pool: &'a PgPool,
    pub ingest: &'a Arc<Ingest>,
}

/// Known keys, per-key and per-address rate limits and the count of refused authentications.
pub struct Gatekeeper {
    keys: RwLock<HashMap<[u8; 32], Arc<CachedKey>>>,
    /// Tokens no key holds, and when that was read: the same unknown token sent again and
    /// again is refused without reading the registry each time.
    unknown: RwLock<HashMap<[u8; 32], Instant>>,
    limiter: DefaultKeyedRateLimiter<String>,
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    /// Address checks since the limiter last forgot idle addresses.
    address_checks: AtomicU64,
    /// Bumped by every [`Gatekeeper::forget`]: a key read before a revocation is not cached
    /// after it.
    generation: AtomicU64,
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
pub enum Refusal {
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
            unknown: RwLock::new(HashMap::new()),
            limiter: RateLimiter::keyed(quota(per_key)),
            per_address: RateLimiter::keyed(quota(per_address)),
            address_checks: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// The per-address limit: how long to wait if `address` has used up its requests.
    pub(crate) fn throttle_address(&self, address: IpAddr) -> Result<(), Duration> {
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
        self.generation.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut keys) = self.keys.write() {
            keys.retain(|_, k| k.key.key_id != key_id);
        }
    }

    fn cached(&self, hash: &[u8; 32]) -> Option<Arc<CachedKey>> {
        let keys = self.keys.read().ok()?;
        keys.get(hash)
            .filter(|k| k.read_at.elapsed() < CACHE_FOR)
            .cloned()
    }

    /// Whether `hash` was found to be no key's within the last [`UNKNOWN_FOR`].
    fn known_unknown(&self, hash: &[u8; 32]) -> bool {
        self.unknown
            .read()
            .ok()
            .and_then(|unknown| unknown.get(hash).map(|at| at.elapsed() < UNKNOWN_FOR))
            .unwrap_or(false)
    }

    fn remember_unknown(&self, hash: [u8; 32]) {
        if let Ok(mut unknown) = self.unknown.write() {
            if unknown.len() >= MAX_UNKNOWN {
                unknown.retain(|_, at| at.elapsed() < UNKNOWN_FOR);
                if unknown.len() >= MAX_UNKNOWN {
                    unknown.clear();
                }
            }
            unknown.insert(hash, Instant::now());
        }
    }

    /// The key holding `token`, from the cache or else the ledger's registry events.
    async fn key(
        &self,
        registry: &KeyRegistry<'_>,
        token: &str,
    ) -> Result<Option<Arc<CachedKey>>, ApiError> {
        let hash = token_hash(token);
        if let Some(key) = self.cached(&hash) {
            return Ok(Some(key));
        }
        if self.known_unknown(&hash) {
            return Ok(None);
        }
        let pool = registry.pool.clone();
        let ingest = registry.ingest.clone();
        let generation = self.generation.load(Ordering::SeqCst);
        let found = web::block(move || ingest.directory().api_key(&pool, &hash))
            .await?
            .map_err(ApiError::from)?;
        let Some(key) = found else {
            self.remember_unknown(hash);
            return Ok(None);
        };
        let key = Arc::new(CachedKey {
            key,
            read_at: Instant::now(),
        });
        if let Ok(mut keys) = self.keys.write() {
            // A revocation over the API since the read may not be in what was read: then this
            // answer stands for this request only, and the next one reads again.
            if self.generation.load(Ordering::SeqCst) == generation {
                keys.insert(hash, Arc::clone(&key));
            }
        }
        Ok(Some(key))
    }

    /// The key a request presents, resolved: who it is, or why it would be refused.
    pub async fn identify(&self, registry: &KeyRegistry<'_>, headers: &HeaderMap) -> Presented {
        let token = match bearer_token(headers) {
            Ok(token) => token,
            Err(Refusal::NoToken) => return Presented::NoToken,
            Err(refusal) => return Presented::Refused { refusal, key: None },
        };
        let key = match self.key(registry, &token).await {
            Ok(Some(key)) => key,
            Ok(None) => {
                return Presented::Refused {
                    refusal: Refusal::Unknown,
                    key: None,
                }
            }
            Err(e) => {
                return Presented::Unavailable {
                    cause: e.to_string(),
                }
            }
        };
        let k = &key.key;
        let named = || Some((k.key_id.clone(), k.name.clone()));
        if k.revocation.is_some() {
            return Presented::Refused {
                refusal: Refusal::Revoked,
                key: named(),
            };
        }
        if k.expires_at.is_some_and(|e| e <= Utc::now()) {
            return Presented::Refused {
                refusal: Refusal::Expired,
                key: named(),
            };
        }
        Presented::Key(Caller {
            key_id: k.key_id.clone(),
            name: k.name.clone(),
            role: k.role,
            expires_at: k.expires_at,
        })
    }

    /// The gate's judgement of a presented key on a route open to `roles`, named `route`.
    pub fn admit(
        &self,
        presented: Presented,
        roles: &'static [Role],
        route: &str,
    ) -> Result<Caller, ApiError> {
        let caller = match presented {
            Presented::Key(caller) => caller,
            Presented::NoToken => return Err(self.refuse(route, Refusal::NoToken, None)),
            Presented::Refused { refusal, key } => return Err(self.refuse(route, refusal, key)),
            Presented::Unavailable { cause } => {
                return Err(ApiError::Unavailable {
                    reason: "the API keys cannot be read",
                    cause,
                })
            }
        };
        if let Err(wait) = self.throttle(&caller.key_id) {
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
        Ok(caller)
    }

    /// Counts and logs a refused authentication (never the token) and makes its answer.
    fn refuse(&self, route: &str, refusal: Refusal, key: Option<(String, String)>) -> ApiError {
        let count = self.refused.fetch_add(1, Ordering::Relaxed) + 1;
        let (key_id, key_name) = match &key {
            Some((id, name)) => (Some(id.as_str()), Some(name.as_str())),
            None => (None, None),
        };
        tracing::warn!(
            reason = refusal.as_str(),
            key_id,
            key_name,
            %route,
            refused_so_far = count,
            "authentication refused"
        );
        let message = match (refusal, key_name) {
            (Refusal::NoToken, _) => {
                "this route needs an API key: `Authorization: Bearer dzr_…`".to_owned()
            }
            (Refusal::Revoked, Some(name)) => format!("API key `{name}` was revoked"),
            (Refusal::Expired, Some(name)) => format!("API key `{name}` has expired"),
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
fn bearer_token(headers: &HeaderMap) -> Result<String, Refusal> {
    use base64::Engine as _;
    let Some(header) = headers.get(actix_web::http::header::AUTHORIZATION) else {
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
