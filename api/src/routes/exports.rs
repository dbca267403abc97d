//! Inspection exports as zip files.

use std::io::Seek as _;

use actix_web::{get, web, HttpResponse};
use chrono::{NaiveDate, Utc};
use reports::inspection::zip::zip_dir;
use reports::inspection::{write_export_reading, ExportError, ExportRequest, ExportWitnesses};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::blocking;

/// Longest period one request may export; longer periods: `dozor export` on the server.
const MAX_DAYS: i64 = 93;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// First gaming day, YYYY-MM-DD.
    pub from: NaiveDate,
    /// Last gaming day (inclusive), YYYY-MM-DD.
    pub to: NaiveDate,
}

/// Bytes of the archive sent at a time; with [`CHUNKS_AHEAD`], all of it the response holds.
const CHUNK: usize = 64 * 1024;
const CHUNKS_AHEAD: usize = 4;

/// The archive file, read in chunks by a blocking thread and handed over as the client takes
/// them: a download of any size holds a few chunks in memory, never the export.
fn stream_file(
    mut file: std::fs::File,
    keep: tempfile::TempDir,
) -> impl futures_util::Stream<Item = Result<web::Bytes, std::io::Error>> {
    let (chunks, received) = tokio::sync::mpsc::channel(CHUNKS_AHEAD);
    std::thread::spawn(move || {
        let _keep = keep; // the export's files live until the archive is sent
        loop {
            let mut chunk = vec![0u8; CHUNK];
            let sent = match std::io::Read::read(&mut file, &mut chunk) {
                Ok(0) => return,
                Ok(n) => {
                    chunk.truncate(n);
                    chunks.blocking_send(Ok(web::Bytes::from(chunk)))
                }
                Err(e) => chunks.blocking_send(Err(e)),
            };
            if sent.is_err() {
                return; // the client went away
            }
        }
    });
    futures_util::stream::unfold(received, |mut received| async move {
        received.recv().await.map(|chunk| (chunk, received))
    })
}

/// How long an export waits for the configured witnesses to cosign the checkpoint it signs.
const WITNESS_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Inspection export of a period as a zip (format: docs/EXPORT.md); verify it offline as
/// downloaded with `dozor verify EXPORT.zip --operator-key KEY` (or the folder it unpacks to).
#[utoipa::path(operation_id = "export_period", get, tag = "ledger", params(ExportQuery),
    responses((status = 200, description = "zip of the export directory", content_type = "application/zip"),
              (status = 400, body = ErrorBody),
              (status = 409, description = "the period's entries are archived (`period_archived`)", body = ErrorBody),
              (status = 503, description = "no checkpoint covers the period yet", body = ErrorBody)))]
#[get("/exports")]
pub async fn export(
    Authorized { state, caller }: Authorized,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    if q.to < q.from || (q.to - q.from).num_days() >= MAX_DAYS {
        return Err(ApiError::bad_request(
            "invalid_period",
            format!("give 1 to {MAX_DAYS} gaming days, from <= to"),
        ));
    }
    let name = format!("dozor-export-{}-{}", q.from, q.to);
    let zip_name = name.clone();
    let (archive, temp) = blocking(state, move |state| -> Result<_, ApiError> {
        let temp = tempfile::tempdir().map_err(ApiError::internal)?;
        let dir = temp.path().join(&zip_name);
        // The seals are written on the primary; the entries are read on the replica when one
        // is configured and has replayed the checkpoint that covers them.
        let mut replica = state.replica.as_ref().and_then(|pool| pool.get().ok());
        let days = (q.from, q.to);
        let request = ExportRequest {
            nightly_from: state.data_dir.as_deref(),
            witnesses: ExportWitnesses::all(state.witnesses.keys(), WITNESS_WAIT),
            ..ExportRequest::new(
                &state.clock,
                &state.operator,
                &caller.name,
                days,
                &dir,
                Utc::now(),
            )
        };
        write_export_reading(
            &mut *state.conn()?,
            replica.as_deref_mut(),
            &request,
            &mut |_, _| {},
        )
        .map_err(|e| match e {
            ExportError::NoCheckpoint => ApiError::Unavailable {
                reason: "no checkpoint has been signed yet",
                cause: e.to_string(),
            },
            ExportError::BadPeriod { .. } => ApiError::bad_request("invalid_period", e.to_string()),
            ExportError::Archived {
                archived_below,
                first_index,
            } => ApiError::Conflict {
                code: "period_archived",
                details: serde_json::json!({
                    "archived_below": archived_below,
                    "first_index": first_index,
                }),
                message: e.to_string(),
            },
            ExportError::Ledger(e) => e.into(),
            other => ApiError::internal(other),
        })?;
        // The archive goes to a file beside the export, then to the client from there.
        let mut archive = zip_dir(
            &dir,
            &zip_name,
            tempfile::tempfile_in(temp.path()).map_err(ApiError::internal)?,
        )
        .map_err(ApiError::internal)?;
        archive
            .seek(std::io::SeekFrom::Start(0))
            .map_err(ApiError::internal)?;
        Ok((archive, temp))
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{name}.zip\""),
        ))
        .streaming(stream_file(archive, temp)))
}
