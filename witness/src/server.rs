//! The witness's HTTP server: `POST /add-checkpoint` as C2SP `tlog-witness` gives it, and
//! `GET /<hex SHA-256 of the origin>/checkpoint` (the latest checkpoint cosigned for a log, with
//! the cosignature). Everything else is 404 (405 for another method on those paths).
//!
//! Both routes are public by the protocol: what authenticates a request is the log's signature
//! on its checkpoint. dozor's API gate (keys and roles) is not this server's, so the witness
//! holds its state in `web::Data` directly.
#![allow(clippy::disallowed_types)]

use std::sync::Arc;

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{web, App, HttpResponse, HttpServer};

use crate::witness::{Refusal, Witness};

/// Requests larger than this are refused (a checkpoint with a few signatures and 63 proof lines
/// is under 4 KiB).
pub const MAX_BODY: usize = 16 * 1024;

/// Serves `witness` on `listener` until stopped.
pub fn server(
    witness: Arc<Witness>,
    listener: std::net::TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    let data = web::Data::from(witness);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(MAX_BODY))
            .route("/add-checkpoint", web::post().to(add_checkpoint))
            .route(
                "/{origin_hash}/checkpoint",
                web::get().to(latest_checkpoint),
            )
            .default_service(web::to(|| async {
                text(StatusCode::NOT_FOUND, "not found\n".into())
            }))
    })
    .workers(2)
    .listen(listener)?
    .run())
}

fn text(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type(ContentType::plaintext())
        .body(body)
}

async fn add_checkpoint(witness: web::Data<Witness>, body: web::Bytes) -> HttpResponse {
    let now = chrono::Utc::now();
    let timestamp = u64::try_from(now.timestamp()).unwrap_or(0);
    let received_at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let witness = witness.into_inner();
    let answer = web::block(move || witness.add_checkpoint(&body, timestamp, &received_at)).await;
    match answer {
        Ok(Ok(cosignature)) => text(StatusCode::OK, cosignature),
        Ok(Err(Refusal::Conflict(size))) => HttpResponse::Conflict()
            .content_type("text/x.tlog.size")
            .body(format!("{size}\n")),
        Ok(Err(refusal)) => {
            let status =
                StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            if status.is_server_error() {
                tracing::error!(error = %refusal, "add-checkpoint failed");
            } else {
                tracing::info!(status = status.as_u16(), why = %refusal, "checkpoint refused");
            }
            text(status, format!("{refusal}\n"))
        }
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}

async fn latest_checkpoint(
    witness: web::Data<Witness>,
    origin_hash: web::Path<String>,
) -> HttpResponse {
    let witness = witness.into_inner();
    let wanted = origin_hash.into_inner();
    let found = web::block(move || witness.store().latest_cosigned_by_hash(&wanted)).await;
    match found {
        Ok(Ok(Some(note))) => text(StatusCode::OK, note),
        Ok(Ok(None)) => text(
            StatusCode::NOT_FOUND,
            "no checkpoint cosigned for that log\n".into(),
        ),
        Ok(Err(e)) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}
