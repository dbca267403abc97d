//! The gate: the access decision of every request, made for the route the router matched.
//!
//! A handler reaches the server's state only through one of the gate's extractors, and each
//! of them decides for the route whose handler is running (its pattern, as the router matched
//! it on the decoded path, never the raw path the client sent):
//!
//! - [`Authorized`] — the route's rule names roles; the caller holds one of them. It carries
//!   the [`Caller`].
//! - [`Public`] — the route's rule says public.
//! - [`TableSigned`] — the route's rule says tables authenticate by their signatures.
//!
//! An extractor whose kind is not the route's rule refuses (a route with no rule is refused to
//! everyone), so a handler cannot serve a keyed route without taking the authorised caller,
//! and the state is registered under a type only this module can open and handed out as a
//! [`State`], which is no extractor: a handler that forgets its extractor has no database to
//! read (and `web::Data` is a disallowed type outside this module, see clippy.toml). Whatever still answers 2xx or 3xx without
//! a decision of the gate is turned into a refusal by [`middleware`].
//!
//! Put the gate's extractor first among a handler's arguments: the presented key is already
//! resolved by [`middleware`], so it decides at once, before any body or query is read.

// The one module that holds the state as actix's application data.
#![allow(clippy::disallowed_types)]

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, FromRequest, HttpMessage as _, HttpRequest};

use crate::access::{self, Access};
use crate::auth::{Caller, KeyRegistry, Presented};
use crate::error::ApiError;
use crate::state::AppState;

/// The state as the application holds it: opened only by the gate's extractors.
pub struct GatedState {
    state: web::Data<AppState>,
}

/// The server's state as a handler holds it. Only the gate's extractors make one, and it is no
/// extractor itself: a handler cannot ask for the state without passing the gate.
#[derive(Clone)]
pub struct State(web::Data<AppState>);

impl std::ops::Deref for State {
    type Target = AppState;

    fn deref(&self) -> &AppState {
        &self.0
    }
}

/// Registers the state behind the gate.
pub fn register(cfg: &mut web::ServiceConfig, state: AppState) {
    cfg.app_data(web::Data::new(GatedState {
        state: web::Data::new(state),
    }));
}

/// What the gate decided for a request, kept in its extensions: the route it decided for
/// (the metrics label and the request log name it) and whether it let the request through.
#[derive(Debug, Clone)]
pub struct Decision {
    pub route: String,
    pub admitted: bool,
}

/// The route a request was decided for, if the gate decided.
pub fn decided_route(request: &HttpRequest) -> Option<String> {
    request
        .extensions()
        .get::<Decision>()
        .map(|d| d.route.clone())
}

fn gated(request: &HttpRequest) -> Result<&GatedState, ApiError> {
    request
        .app_data::<web::Data<GatedState>>()
        .map(|d| d.get_ref())
        .ok_or_else(|| ApiError::internal("the gate's state is not registered"))
}

/// The metrics of the server, for the request observer (no database in them).
pub fn metrics(request: &ServiceRequest) -> Option<std::sync::Arc<crate::metrics::Metrics>> {
    request
        .app_data::<web::Data<GatedState>>()
        .map(|g| g.state.metrics.clone())
}

/// The kind of rule an extractor stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Roles,
    Public,
    TableSignature,
}

impl Kind {
    fn of(access: Access) -> Kind {
        match access {
            Access::Public => Kind::Public,
            Access::TableSignature => Kind::TableSignature,
            Access::Roles(_) => Kind::Roles,
        }
    }
}

/// Decides for `request` with an extractor of `kind`: the state and, behind a key, the caller.
fn decide(request: &HttpRequest, kind: Kind) -> Result<(State, Option<Caller>), ApiError> {
    let gated = gated(request)?;
    // The pattern of the resource the router matched for this handler (the routing marks the
    // resource before the handler runs, so this is never a guess from the raw path).
    let route = request
        .match_pattern()
        .map(|pattern| access::table_pattern(&pattern).into_owned());
    let rule = route
        .as_deref()
        .and_then(|pattern| access::rule(request.method().as_str(), pattern));
    let route_name = route.clone().unwrap_or_else(|| "unmatched".to_owned());
    let record = |admitted: bool| {
        request.extensions_mut().insert(Decision {
            route: route_name.clone(),
            admitted,
        });
    };
    let Some(rule) = rule else {
        record(false);
        tracing::error!(route = %route_name, "a route without a rule in the role table was refused");
        return Err(no_rule());
    };
    if Kind::of(rule) != kind {
        record(false);
        tracing::error!(route = %route_name, rule = %rule.describe(), extractor = ?kind,
            "a handler's gate does not match its route's rule; refused");
        return Err(no_rule());
    }
    let caller = match rule {
        Access::Roles(roles) => {
            let presented = request.extensions().get::<Presented>().cloned();
            let outcome = match presented {
                None => Err(ApiError::internal("no authentication ran before the gate")),
                Some(presented) => gated.state.gatekeeper.admit(presented, roles, &route_name),
            };
            record(outcome.is_ok());
            Some(outcome?)
        }
        Access::Public | Access::TableSignature => {
            record(true);
            None
        }
    };
    // Admitted: the parameters' text is the next thing every route refuses alike.
    crate::parameters::check(request)?;
    Ok((State(gated.state.clone()), caller))
}

fn no_rule() -> ApiError {
    ApiError::Forbidden {
        message: "this route has no access rule".into(),
        details: serde_json::json!({}),
    }
}

/// A request on a route behind a key, by a caller whose role the route allows.
pub struct Authorized {
    pub caller: Caller,
    pub state: State,
}

/// A request on a public route.
pub struct Public {
    pub state: State,
}

/// A request on a route where gaming tables authenticate by the signature of each record.
pub struct TableSigned {
    pub state: State,
}

impl FromRequest for Authorized {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Authorized, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(decide(request, Kind::Roles).and_then(|(state, caller)| {
            let caller =
                caller.ok_or_else(|| ApiError::internal("a keyed route without a caller"))?;
            Ok(Authorized { caller, state })
        }))
    }
}

impl FromRequest for Public {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Public, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(decide(request, Kind::Public).map(|(state, _)| Public { state }))
    }
}

impl FromRequest for TableSigned {
    type Error = ApiError;
    type Future = std::future::Ready<Result<TableSigned, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(
            decide(request, Kind::TableSignature).map(|(state, _)| TableSigned { state }),
        )
    }
}

/// Before routing: the per-address limit, and the key the request presents, resolved (not yet
/// judged: that is the route's extractor's). After: an answer of 2xx or 3xx that no extractor
/// of the gate admitted is refused — a handler that skipped the gate serves nothing.
pub async fn middleware(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(gated) = request.app_data::<web::Data<GatedState>>().cloned() else {
        let refusal = ApiError::internal("the gate's state is not registered");
        return Ok(request.error_response(refusal).map_into_right_body());
    };
    let state = &gated.state;
    if let Some(peer) = request.peer_addr() {
        if let Err(wait) = state.gatekeeper.throttle_address(peer.ip()) {
            let refusal = ApiError::RateLimited {
                retry_after_seconds: wait.as_secs_f64().ceil().max(1.0) as u64,
            };
            return Ok(request.error_response(refusal).map_into_right_body());
        }
    }
    let registry = KeyRegistry {
        pool: &state.pool,
        ingest: &state.ingest,
    };
    let presented = state
        .gatekeeper
        .identify(&registry, request.headers())
        .await;
    request.extensions_mut().insert(presented);
    let response = next.call(request).await?;
    let status = response.status();
    let admitted = response
        .request()
        .extensions()
        .get::<Decision>()
        .is_some_and(|d| d.admitted);
    if (status.is_success() || status.is_redirection()) && !admitted {
        tracing::error!(status = status.as_u16(), route = ?response.request().match_pattern(),
            "an answer without the gate's decision was withheld");
        let (request, _) = response.into_parts();
        let refusal = no_rule();
        let refused = ServiceResponse::from_err(refusal, request);
        return Ok(refused.map_into_right_body());
    }
    Ok(response.map_into_left_body())
}
