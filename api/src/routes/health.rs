//! Operations: liveness, readiness, metrics and the API description.

use actix_web::{get, web, HttpRequest, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{ApiError, ErrorBody};
use crate::gate::{Authorized, Public};
use crate::routes::blocking::on_primary;

/// The process answers and the database is reachable, with the ledger's size (kept for
/// existing monitors; `/healthz` and `/readyz` split the two questions).
#[utoipa::path(operation_id = "health", tag = "operations",
    responses((status = 200, description = "up, database reachable", body = HealthView),
              (status = 503, description = "database unreachable", body = ErrorBody)))]
#[get("/health")]
pub async fn health(Public { state }: Public) -> Result<HttpResponse, ApiError> {
    let size = on_primary(state, |conn, _| ledger::storage::reads::size(conn)).await?;
    Ok(HttpResponse::Ok().json(HealthView {
        status: "ok".into(),
        ledger_size: size,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HealthView {
    /// Always `ok`.
    pub status: String,
    pub ledger_size: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Liveness {
    /// Always `alive`.
    pub status: String,
}

/// The process is alive and answers HTTP. Touches nothing else: a database outage does not
/// make an orchestrator restart dozor.
#[utoipa::path(operation_id = "liveness", tag = "operations",
    responses((status = 200, description = "the process answers", body = Liveness)))]
#[get("/healthz")]
pub async fn healthz(_: Public) -> HttpResponse {
    HttpResponse::Ok().json(Liveness {
        status: "alive".into(),
    })
}

/// One readiness check and how it went.
#[derive(Debug, Serialize, ToSchema)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    /// Why it failed; absent when it passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Readiness {
    /// `ready` when every check passed, otherwise `not_ready`.
    pub status: String,
    /// `database` (reachable), `migrations` (the schema is this dozor's), `ledger_writer`
    /// (the single writer thread runs and has read the ledger's head from the database it
    /// reaches now: after a lost connection or a failover it is not ready until it has).
    pub checks: Vec<Check>,
    /// How far each configured witness has cosigned. A witness that lags or is down does not
    /// make dozor unready: records are taken and checkpoints signed regardless.
    pub witnesses: Vec<crate::witness_progress::WitnessProgress>,
    /// The replica reports, exports and lists read from, when one is configured. A replica that
    /// lags or is down does not make dozor unready: reads go to the primary while it is down.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<ReplicaProgress>,
}

/// How far the replica has come.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplicaProgress {
    /// Whether it answered.
    pub reachable: bool,
    /// The largest signed checkpoint it holds: what a report read there covers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covered_size: Option<u64>,
    /// Entries on the primary that a report read on the replica does not cover yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lag_entries: Option<u64>,
}

/// Ready to take records: the database answers, every migration is applied and the ledger
/// writer runs. A load balancer sends traffic only while this says 200.
#[utoipa::path(operation_id = "readiness", tag = "operations",
    responses((status = 200, description = "ready", body = Readiness),
              (status = 503, description = "not ready; the failed checks say why", body = Readiness)))]
#[get("/readyz")]
pub async fn readyz(Public { state }: Public) -> HttpResponse {
    let writer_alive = state.ingest.writer().alive();
    let writer_head = state.ingest.writer().head_problem();
    let shared = state.clone();
    let database = web::block(move || -> Result<(), ledger::LedgerError> {
        let mut conn = shared
            .pool
            .get()
            .map_err(|e| ledger::LedgerError::Connection(e.to_string()))?;
        ledger::storage::reads::ready(&mut conn)
    })
    .await
    .unwrap_or_else(|e| Err(ledger::LedgerError::Connection(e.to_string())));
    // The 503 names the failed check in words of its own; what the driver said (a socket
    // path, a host name) goes to the log only.
    let (reachable, migrated) = match &database {
        Ok(()) => (Ok(()), Ok(())),
        Err(ledger::LedgerError::Migration(cause)) => {
            tracing::warn!(%cause, "readiness: the schema is not this dozor's");
            (
                Ok(()),
                Err("the database's schema is not this dozor's: migrations are pending".to_owned()),
            )
        }
        Err(cause) => {
            tracing::warn!(%cause, "readiness: the database does not answer");
            (
                Err("the database does not answer".to_owned()),
                Err("not checked: no database".to_owned()),
            )
        }
    };
    let check = |name: &str, result: Result<(), String>| Check {
        name: name.into(),
        ok: result.is_ok(),
        problem: result.err(),
    };
    let checks = vec![
        check("database", reachable),
        check("migrations", migrated),
        check(
            "ledger_writer",
            match (writer_alive, writer_head) {
                (false, _) => Err("the ledger writer is not running".into()),
                // After start, a lost connection or a failover: it appends nothing until it
                // has read the ledger's head from the database it now reaches.
                (true, Some(problem)) => Err(problem),
                (true, None) => Ok(()),
            },
        ),
    ];
    let ready = checks.iter().all(|c| c.ok);
    let replica = match state.replica.clone() {
        // A replica that does not answer in time is shown as unreachable, never awaited.
        Some(replica) => Some(
            actix_web::rt::time::timeout(
                std::time::Duration::from_secs(2),
                replica_progress(state.pool.clone(), replica),
            )
            .await
            .unwrap_or(ReplicaProgress {
                reachable: false,
                covered_size: None,
                lag_entries: None,
            }),
        ),
        None => None,
    };
    let body = Readiness {
        status: if ready { "ready" } else { "not_ready" }.into(),
        checks,
        witnesses: state.witnesses.progress(),
        replica,
    };
    if ready {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}

async fn replica_progress(
    primary: ledger::storage::PgPool,
    replica: ledger::storage::PgPool,
) -> ReplicaProgress {
    use ledger::storage::read_cut::{cut, ReadSource};
    let covered = web::block(move || {
        let mut conn = replica.get().ok()?;
        let covered = cut(&mut conn, ReadSource::Replica).ok()?.size;
        let primary_size = primary
            .get()
            .ok()
            .and_then(|mut conn| ledger::storage::reads::size(&mut conn).ok());
        Some((covered, primary_size))
    })
    .await
    .ok()
    .flatten();
    ReplicaProgress {
        reachable: covered.is_some(),
        covered_size: covered.map(|(size, _)| size),
        lag_entries: covered
            .and_then(|(size, primary)| primary.map(|primary| primary.saturating_sub(size))),
    }
}

/// Prometheus metrics in the text exposition format: records ingested by game and result,
/// request latency by route, findings by kind, ledger size, seconds since the last checkpoint,
/// the writer's queue depth and the database pool.
#[utoipa::path(operation_id = "metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format 0.0.4", content_type = "text/plain", body = String)))]
#[get("/metrics")]
pub async fn metrics(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let shared = state.clone();
    // A database that does not answer leaves the ledger's series out; the rest still report.
    let figures = web::block(move || {
        let mut conn = shared.pool.get().ok()?;
        ledger::storage::reads::figures(&mut conn).ok()
    })
    .await
    .ok()
    .flatten();
    let pool = state.pool.state();
    let snapshot = crate::metrics::Snapshot {
        ledger: figures,
        writer_queue: state.ingest.writer().queued(),
        writer_alive: state.ingest.writer().alive(),
        pool_connections: pool.connections,
        pool_idle: pool.idle_connections,
        pool_max: state.pool.max_size(),
        now: Some(chrono::Utc::now()),
    };
    let text = state
        .metrics
        .render(&snapshot)
        .map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok()
        .content_type(prometheus::TEXT_FORMAT)
        .body(text))
}

/// Where `GET /api/v1/openapi.json` takes its text from. The document is made from these very
/// routes, so the server's assembly (above both) hands the source in as application data.
#[derive(Clone, Copy)]
pub struct DocumentSource(pub fn() -> Result<&'static str, String>);

/// This API's OpenAPI 3.1 description.
#[utoipa::path(operation_id = "openapi_document", tag = "operations",
    responses((status = 200, description = "OpenAPI document", content_type = "application/json", body = Object)))]
#[get("/openapi.json")]
pub async fn openapi(_: Public, request: HttpRequest) -> Result<HttpResponse, ApiError> {
    let source = request
        .app_data::<DocumentSource>()
        .ok_or_else(|| ApiError::internal("the API document is not registered"))?;
    let document = (source.0)().map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(document))
}
