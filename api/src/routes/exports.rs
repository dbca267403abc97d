//! Inspection exports as zip files.

use std::io::Write as _;
use std::path::Path;

use actix_web::{get, web, HttpResponse};
use chrono::{NaiveDate, Utc};
use reports::export::{write_export, ExportError};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

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

fn zip_dir(dir: &Path, name: &str) -> Result<Vec<u8>, ApiError> {
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel)).map_err(ApiError::internal)? {
            let entry = entry.map_err(ApiError::internal)?;
            let path = rel.join(entry.file_name());
            if entry.path().is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for path in files {
        let bytes = std::fs::read(dir.join(&path)).map_err(ApiError::internal)?;
        zip.start_file(format!("{name}/{}", path.to_string_lossy()), options)
            .map_err(ApiError::internal)?;
        zip.write_all(&bytes).map_err(ApiError::internal)?;
    }
    Ok(zip.finish().map_err(ApiError::internal)?.into_inner())
}

/// Inspection export of a period as a zip (format: docs/EXPORT.md); verify it offline with
/// `dozor verify DIR --operator-key KEY` after unpacking.
#[utoipa::path(get, path = "/api/v1/exports", tag = "ledger", params(ExportQuery),
    responses((status = 200, description = "zip of the export directory", content_type = "application/zip"),
              (status = 400, body = ErrorBody), (status = 503, description = "no checkpoint covers the period yet", body = ErrorBody)))]
#[get("/exports")]
pub async fn export(
    state: web::Data<AppState>,
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
    let body = web::block(move || -> Result<Vec<u8>, ApiError> {
        let temp = tempfile::tempdir().map_err(ApiError::internal)?;
        let dir = temp.path().join(&zip_name);
        write_export(
            &mut *state.conn()?,
            &state.clock,
            &state.operator,
            q.from,
            q.to,
            &dir,
            Utc::now(),
        )
        .map_err(|e| match e {
            ExportError::NoCheckpoint => ApiError::Unavailable {
                reason: "no checkpoint has been signed yet",
                cause: e.to_string(),
            },
            ExportError::BadPeriod { .. } => ApiError::bad_request("invalid_period", e.to_string()),
            other => ApiError::internal(other),
        })?;
        zip_dir(&dir, &zip_name)
    })
    .await??;
    Ok(HttpResponse::Ok()
        .content_type("application/zip")
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"{name}.zip\""),
        ))
        .body(body))
}
