//! The ledger as C2SP tlog-tiles (docs/TILES.md): the latest signed checkpoint with its
//! cosignatures, hash tiles, entry bundles, the casino's verdicts beside each bundle and the
//! minimum index — the bytes of the publish folder, to the regulator (and admin) roles. A tile
//! is one of the tree of the latest signed checkpoint.

use actix_web::http::header::CACHE_CONTROL;
use actix_web::{get, web, HttpResponse};
use diesel::PgConnection;
use dozor_log::tiles::{Tile, TileError};
use ledger::storage::tiles;

use crate::error::{ApiError, ErrorBody};
use crate::gate::Authorized;
use crate::routes::blocking::on_primary;

/// A tile's bytes never change (a partial tile's neither: a wider one has another name). Kept
/// by the caller only: the answer was given to a key, and a shared cache would hand it out
/// without one.
const IMMUTABLE: &str = "private, max-age=31536000, immutable";
/// What changes as the ledger grows or is archived: asked again on every use.
const CHANGING: &str = "no-cache";

/// The latest signed checkpoint (C2SP tlog-checkpoint in a signed note by the operator key),
/// followed by the witnesses' cosignature lines kept for it: the `checkpoint` of the tiles.
#[utoipa::path(operation_id = "tiles_checkpoint", get, tag = "tiles",
    responses(
        (status = 200, description = "the signed note with its cosignatures (text/plain; charset=utf-8)", content_type = "text/plain", body = String),
        (status = 404, description = "no checkpoint has been signed yet (`no_checkpoint`)", body = ErrorBody)))]
#[get("/tiles/checkpoint")]
pub async fn checkpoint(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let published = on_primary(state, |conn, _| tiles::published_checkpoint(conn))
        .await?
        .ok_or_else(no_checkpoint)?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((CACHE_CONTROL, CHANGING))
        .body(published.text))
}

/// A hash tile (`<L>/<N>[.p/<W>]`: the hashes of tree level 8·L at positions 256·N …, 32 bytes
/// each) or an entry bundle (`entries/<N>[.p/<W>]`: each entry as its big-endian `u16` length
/// and its bytes), of the tree of the latest signed checkpoint.
#[utoipa::path(operation_id = "tiles_tile", get, tag = "tiles",
    params(("path" = String, Path, description = "the tile's path after `tile/`: `0/x001/234.p/5`, `entries/000`")),
    responses(
        (status = 200, description = "the tile's bytes", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 400, description = "not a tile path (`invalid_path`)", body = ErrorBody),
        (status = 404, description = "no checkpoint yet, or a tile the tree of the latest checkpoint does not have: beyond its size, or of another width (`no_such_tile`)", body = ErrorBody),
        (status = 410, description = "an entry bundle holding archived entries, below the minimum index (`tile_pruned`)", body = ErrorBody)))]
#[get("/tiles/tile/{path:.*}")]
pub async fn tile(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tile = parse("tile/", &path.into_inner())?;
    let bytes = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let size = tree_size(conn)?;
        Ok(tiles::read_tile(conn, &tile, size)?)
    })
    .await?;
    Ok(immutable("application/octet-stream", bytes))
}

/// The casino's own verdicts of the entries of the entry bundle of the same name
/// (`tile/entries/<N>[.p/<W>]`): one line of canonical JSON per entry, in order, `null` for an
/// entry that is not a judged round (docs/TILES.md).
#[utoipa::path(operation_id = "tiles_verdicts", get, tag = "tiles",
    params(("path" = String, Path, description = "the bundle's path after `tile/entries/`: `000`, `x001/234.p/5`")),
    responses(
        (status = 200, description = "one JSON line per entry of the bundle", content_type = "application/x-ndjson", body = String),
        (status = 400, description = "not a bundle's path (`invalid_path`)", body = ErrorBody),
        (status = 404, description = "no checkpoint yet, or a bundle the tree of the latest checkpoint does not have (`no_such_tile`)", body = ErrorBody),
        (status = 410, description = "a bundle holding archived entries, below the minimum index (`tile_pruned`)", body = ErrorBody)))]
#[get("/tiles/verdicts/{path:.*}")]
pub async fn verdicts(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let bundle = parse("tile/entries/", &path.into_inner())?;
    let lines = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let size = tree_size(conn)?;
        tiles::check_in_tree(&bundle, size)?;
        Ok(tiles::read_verdict_lines(conn, &bundle)?)
    })
    .await?;
    Ok(immutable("application/x-ndjson", lines))
}

/// The minimum index: entry bundles (and their verdicts) below it hold archived entries and are
/// not served. Decimal digits and a newline.
#[utoipa::path(operation_id = "tiles_minimum_index", get, tag = "tiles",
    responses((status = 200, description = "the minimum index, e.g. `0\\n` (text/plain)", content_type = "text/plain", body = String)))]
#[get("/tiles/minimum-index")]
pub async fn minimum_index(Authorized { state, .. }: Authorized) -> Result<HttpResponse, ApiError> {
    let index = on_primary(state, |conn, _| tiles::minimum_index(conn)).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((CACHE_CONTROL, CHANGING))
        .body(format!("{index}\n")))
}

/// The tile named by `tail` after `prefix` (`tile/` or `tile/entries/`), or a 400 naming what
/// is wrong with it as the client spelled it.
fn parse(prefix: &str, tail: &str) -> Result<Tile, ApiError> {
    let full = format!("{prefix}{tail}");
    Tile::parse(&full).map_err(|e| {
        let why = match &e {
            TileError::Path { why, .. } => why.to_string(),
            other => other.to_string(),
        };
        let shown: String = tail.chars().take(200).collect();
        ApiError::BadRequest {
            code: "invalid_path",
            message: format!("`{shown}` is not a tile's path: {why}"),
            details: serde_json::json!({ "parameter": "path" }),
        }
    })
}

/// A tile's answer: bytes that never change under its name.
fn immutable(content_type: &'static str, bytes: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((CACHE_CONTROL, IMMUTABLE))
        .body(bytes)
}

/// The size of the tree tiles are served of: the latest signed checkpoint's.
fn tree_size(conn: &mut PgConnection) -> Result<u64, ApiError> {
    Ok(tiles::published_checkpoint(conn)?
        .ok_or_else(no_checkpoint)?
        .size)
}

fn no_checkpoint() -> ApiError {
    ApiError::not_found("no_checkpoint", "no checkpoint has been signed yet")
}
