//! The monitor's own HTTP listener (`[http] listen`): the regulator's view as a page, JSON and
//! CSV, one round proven from the casino's tiles, and the Prometheus metrics (`/metrics`). Every route needs a bearer token whose
//! SHA-256 is in the configuration (401 without one, 403 with another); only a listener on the
//! loopback address may be configured without tokens, and then it answers only requests naming
//! it by a loopback name and its port (`Host`), so a web page whose name a browser on this
//! machine resolves to 127.0.0.1 (DNS rebinding) reads nothing.
//! Tokens are compared by their hashes and never logged.
#![allow(clippy::disallowed_types)]

use std::sync::Arc;

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use chrono::Utc;
use serde_json::json;
use sha2::Digest as _;

use crate::config::MonitorConfig;
use crate::fetch::HttpSource;
use crate::store::connection::connect;
use crate::view::figures::Month;
use crate::view::round::{round_view, RoundError};
use crate::view::{csv, html, overview};

/// What every request is served from: the configuration and the monitor's database.
pub struct ViewState {
    pub config: MonitorConfig,
    pub database_url: String,
}

/// Serves the view on `listener` until stopped.
pub fn server(
    state: Arc<ViewState>,
    listener: std::net::TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::from(state);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .wrap(headers())
            .configure(routes)
    })
    .workers(2)
    .listen(listener)?
    .run())
}

/// Every route of the listener.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/", web::get().to(overview_page))
        .route("/view.json", web::get().to(overview_json))
        .route("/view.csv", web::get().to(overview_csv))
        .route("/casino/{name}/round/{index}", web::get().to(round))
        .route("/metrics", web::get().to(metrics))
        .default_service(web::to(|| async {
            problem(
                StatusCode::NOT_FOUND,
                "not_found",
                "no such page",
                json!({}),
            )
        }));
}

/// What every answer carries: casinos' business figures are never kept by a cache on the way,
/// and a page fetches nothing.
pub fn headers() -> actix_web::middleware::DefaultHeaders {
    actix_web::middleware::DefaultHeaders::new()
        .add((header::CACHE_CONTROL, "no-store"))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ))
}

/// `{code, message, details}` with `status`.
fn problem(
    status: StatusCode,
    code: &str,
    message: &str,
    details: serde_json::Value,
) -> HttpResponse {
    HttpResponse::build(status).json(json!({"code": code, "message": message, "details": details}))
}

/// Equal bytes, in a time that does not depend on where they differ.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Whether the request names this listener by a loopback name (`127.0.0.1:<port>`,
/// `[::1]:<port>`, `localhost:<port>`, the port the listener's own). A page in a browser on
/// this machine whose name was rebound to 127.0.0.1 sends its own name, and is refused.
fn loopback_host(request: &HttpRequest) -> bool {
    let port = request.app_config().local_addr().port();
    let Some(host) = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let (name, given) = match host.rsplit_once(':') {
        Some((name, p)) if !name.is_empty() && !p.contains(']') => (name, Some(p)),
        _ => (host.as_str(), None),
    };
    // A browser leaves out port 80 only.
    let port_matches = match given {
        Some(p) => p.parse::<u16>().ok() == Some(port),
        None => port == 80,
    };
    port_matches && matches!(name, "127.0.0.1" | "[::1]" | "localhost")
}

/// Whether the request may read the view: none when it may, else the answer refusing it.
/// Without tokens (a loopback listener), only a request naming the listener by a loopback name
/// may (DNS rebinding); with tokens, only one presenting an allowed token.
pub fn refused(request: &HttpRequest, allowed: &[[u8; 32]]) -> Option<HttpResponse> {
    if allowed.is_empty() {
        if loopback_host(request) {
            return None;
        }
        return Some(problem(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "without a bearer token the view answers only requests to this machine's loopback address and the listener's port",
            json!({"host": request.headers().get(header::HOST).and_then(|v| v.to_str().ok())}),
        ));
    }
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = presented else {
        let mut answer = problem(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a bearer token is needed",
            json!({}),
        );
        answer.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer realm=\"dozor monitor\""),
        );
        return Some(answer);
    };
    let hash: [u8; 32] = sha2::Sha256::digest(token.as_bytes()).into();
    if allowed.iter().any(|a| same(a, &hash)) {
        None
    } else {
        Some(problem(
            StatusCode::FORBIDDEN,
            "forbidden",
            "the token is not one allowed to read the view",
            json!({}),
        ))
    }
}

fn tokens(state: &ViewState) -> &[[u8; 32]] {
    state
        .config
        .http
        .as_ref()
        .map_or(&[], |h| h.token_sha256.as_slice())
}

#[derive(serde::Deserialize)]
struct MonthQuery {
    month: Option<String>,
}

/// The month asked for (this month in Prague by default), or the answer refusing it.
fn month(query: &MonthQuery) -> Result<Month, Box<HttpResponse>> {
    match query.month.as_deref().filter(|m| !m.is_empty()) {
        None => Ok(Month::of(Utc::now())),
        Some(text) => Month::parse(text).ok_or_else(|| {
            Box::new(problem(
                StatusCode::BAD_REQUEST,
                "bad_month",
                "month must be YYYY-MM, e.g. 2026-11",
                json!({"month": text}),
            ))
        }),
    }
}

fn internal(why: impl std::fmt::Display) -> HttpResponse {
    tracing::error!("the view: {why}");
    problem(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "the view could not be built",
        json!({}),
    )
}

/// The overview of the asked month, or the answer refusing or failing it.
async fn build(
    state: web::Data<ViewState>,
    request: &HttpRequest,
    query: &MonthQuery,
) -> Result<(overview::Overview, Month), Box<HttpResponse>> {
    if let Some(refusal) = refused(request, tokens(&state)) {
        return Err(Box::new(refusal));
    }
    let month = month(query)?;
    let state = state.into_inner();
    let built = web::block(move || {
        let mut conn = connect(&state.database_url)?;
        overview::overview(&mut conn, &state.config, month, Utc::now())
    })
    .await;
    match built {
        Ok(Ok(view)) => Ok((view, month)),
        Ok(Err(e)) => Err(Box::new(internal(e))),
        Err(e) => Err(Box::new(internal(e))),
    }
}

async fn overview_page(
    state: web::Data<ViewState>,
    request: HttpRequest,
    query: web::Query<MonthQuery>,
) -> HttpResponse {
    match build(state, &request, &query).await {
        Ok((view, month)) => HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .body(html::overview_page(&view, month)),
        Err(answer) => *answer,
    }
}

async fn overview_json(
    state: web::Data<ViewState>,
    request: HttpRequest,
    query: web::Query<MonthQuery>,
) -> HttpResponse {
    match build(state, &request, &query).await {
        Ok((view, _)) => HttpResponse::Ok().json(view),
        Err(answer) => *answer,
    }
}

async fn overview_csv(
    state: web::Data<ViewState>,
    request: HttpRequest,
    query: web::Query<MonthQuery>,
) -> HttpResponse {
    match build(state, &request, &query).await {
        Ok((view, month)) => HttpResponse::Ok()
            .content_type("text/csv; charset=utf-8")
            .insert_header((
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"dozor-monitor-{month}.csv\""),
            ))
            .body(csv::overview_csv(&view)),
        Err(answer) => *answer,
    }
}

/// The monitor's Prometheus metrics (`crate::metrics`), behind the same tokens as the view.
async fn metrics(state: web::Data<ViewState>, request: HttpRequest) -> HttpResponse {
    if let Some(refusal) = refused(&request, tokens(&state)) {
        return refusal;
    }
    let state = state.into_inner();
    let rendered = web::block(move || {
        let mut conn = connect(&state.database_url)?;
        crate::metrics::render_metrics(&mut conn, &state.config, Utc::now())
    })
    .await;
    match rendered {
        Ok(Ok(text)) => HttpResponse::Ok()
            .content_type("text/plain; version=0.0.4; charset=utf-8")
            .body(text),
        Ok(Err(e)) => internal(e),
        Err(e) => internal(e),
    }
}

async fn round(
    state: web::Data<ViewState>,
    request: HttpRequest,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    if let Some(refusal) = refused(&request, tokens(&state)) {
        return refusal;
    }
    let (name, index) = path.into_inner();
    let (index, as_json) = match index.strip_suffix(".json") {
        Some(i) => (i.to_owned(), true),
        None => (index, false),
    };
    let Ok(index) = index.parse::<u64>() else {
        return problem(
            StatusCode::BAD_REQUEST,
            "bad_index",
            "the round is named by its ledger index, a whole number",
            json!({"index": index}),
        );
    };
    let state = state.into_inner();
    let Some(casino) = state
        .config
        .casinos
        .iter()
        .find(|c| c.name == name)
        .cloned()
    else {
        return problem(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such casino",
            json!({"casino": name}),
        );
    };
    let timeout = state.config.timeout;
    let url = state.database_url.clone();
    let built = web::block(move || {
        let source = HttpSource::new(&casino, timeout).map_err(RoundError::Casino)?;
        let mut conn = connect(&url)?;
        round_view(&mut conn, &casino, &source, index)
    })
    .await;
    let view = match built {
        Ok(Ok(view)) => view,
        Ok(Err(RoundError::NotFound(why))) => {
            return problem(
                StatusCode::NOT_FOUND,
                "not_found",
                &why,
                json!({"index": index}),
            )
        }
        Ok(Err(RoundError::Casino(why))) => {
            return problem(
                StatusCode::BAD_GATEWAY,
                "casino",
                &why,
                json!({"index": index}),
            )
        }
        Ok(Err(e)) => return internal(e),
        Err(e) => return internal(e),
    };
    if as_json {
        HttpResponse::Ok().json(view)
    } else {
        HttpResponse::Ok()
            .content_type("text/html; charset=utf-8")
            .body(html::round_page(&view))
    }
}

#[cfg(test)]
mod tests;

/// Binds `[http] listen` (when configured) and serves the view from a thread of its own for as
/// long as the process runs; the address bound.
pub fn spawn(
    config: &MonitorConfig,
    database_url: &str,
) -> std::io::Result<Option<std::net::SocketAddr>> {
    let Some(http) = &config.http else {
        return Ok(None);
    };
    let listener = std::net::TcpListener::bind(http.listen)?;
    let address = listener.local_addr()?;
    let state = Arc::new(ViewState {
        config: config.clone(),
        database_url: database_url.to_owned(),
    });
    std::thread::Builder::new()
        .name("monitor view".into())
        .spawn(move || {
            let served = actix_web::rt::System::new()
                .block_on(async move { server(state, listener)?.await });
            if let Err(e) = served {
                tracing::error!("the view's listener stopped: {e}");
            }
        })?;
    tracing::info!(%address, tokens = http.token_sha256.len(), "the regulator's view is served");
    Ok(Some(address))
}
