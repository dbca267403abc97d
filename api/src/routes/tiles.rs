//! The ledger as C2SP tlog-tiles (docs/TILES.md): the latest signed checkpoint with its
//! cosignatures, hash tiles, entry bundles, the casino's verdicts beside each bundle and the
//! minimum index — the bytes of the publish folder, to the regulator (and admin) roles. A tile
//! is one of the tree of the latest signed checkpoint, or a partial tile of an earlier one.

use actix_web::http::header::CACHE_CONTROL;
use actix_web::{get, web, HttpResponse};
use diesel::PgConnection;
use dozor_log::tiles::{Tile, TileError, TILE_HEIGHT};
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
/// and its bytes), of the tree of the latest signed checkpoint. Compressed with gzip for
/// a client that accepts it (`Accept-Encoding`), as tlog-tiles asks of entry bundles.
#[utoipa::path(operation_id = "tiles_tile", get, tag = "tiles",
    params(("path" = String, Path, description = "the tile's path after `tile/`: `0/x001/234.p/5`, `entries/000`")),
    responses(
        (status = 200, description = "the tile's bytes", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 400, description = "not a tile path (`invalid_path`)", body = ErrorBody),
        (status = 404, description = "no checkpoint yet, or a tile the tree of the latest checkpoint does not hold: beyond its size, or a partial tile wider than its edge (`no_such_tile`); a partial tile is served at every width the tree holds, as for every checkpoint the log produced", body = ErrorBody),
        (status = 410, description = "an entry bundle holding archived entries, below the minimum index (`tile_pruned`)", body = ErrorBody)))]
#[get(
    "/tiles/tile/{path:.*}",
    wrap = "actix_web::middleware::Compress::default()"
)]
pub async fn tile(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tile = parse("tile/", &path.into_inner())?;
    let bytes = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let size = serving_size(&tile, tree_size(conn)?);
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
        (status = 404, description = "no checkpoint yet, or a bundle the tree of the latest checkpoint does not hold (`no_such_tile`); a partial bundle is served at every width the tree holds", body = ErrorBody),
        (status = 410, description = "a bundle holding archived entries, below the minimum index (`tile_pruned`)", body = ErrorBody)))]
#[get(
    "/tiles/verdicts/{path:.*}",
    wrap = "actix_web::middleware::Compress::default()"
)]
pub async fn verdicts(
    Authorized { state, .. }: Authorized,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let bundle = parse("tile/entries/", &path.into_inner())?;
    let lines = on_primary(state, move |conn, _| -> Result<_, ApiError> {
        let size = serving_size(&bundle, tree_size(conn)?);
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

/// The size of the tree `wanted` is read from, in a log whose latest checkpoint is of `size`: that
/// size for a full tile; for a partial one, the tree whose edge it is, when the latest tree holds
/// every hash of it. tlog-tiles asks a log to serve the partial tiles of every checkpoint it
/// produced, so a reader holding an earlier checkpoint reads its tree while the log grows (its
/// bytes are the same in every tree that holds them). `size` otherwise: the tile is not there,
/// as the read then says.
fn serving_size(wanted: &Tile, size: u64) -> u64 {
    if wanted.is_full() {
        return size;
    }
    let hashes = wanted.positions().end;
    let per_hash = 1u64.checked_shl(TILE_HEIGHT * u32::from(wanted.level()));
    match per_hash.and_then(|per_hash| hashes.checked_mul(per_hash)) {
        Some(edge) if edge <= size => edge,
        _ => size,
    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_partial_tile_is_read_from_the_tree_whose_edge_it_is() {
        let at = |path: &str| Tile::parse(path).unwrap();
        // 305 = 256 + 49 entries; level 1 holds one hash (the first full tile's).
        assert_eq!(serving_size(&at("tile/0/000"), 305), 305);
        assert_eq!(serving_size(&at("tile/0/001.p/49"), 305), 305);
        // Narrower: the tree of 256 + 17 entries, whose edge it is.
        assert_eq!(serving_size(&at("tile/0/001.p/17"), 305), 273);
        assert_eq!(serving_size(&at("tile/entries/001.p/17"), 305), 273);
        // A partial of a tile full since: the tree of 9 entries.
        assert_eq!(serving_size(&at("tile/0/000.p/9"), 305), 9);
        // Level 1, width 1: the tree of 256 entries.
        assert_eq!(serving_size(&at("tile/1/000.p/1"), 305), 256);
        // Wider than the tree holds, beyond it, or too high to count: the latest size, which
        // does not have it.
        assert_eq!(serving_size(&at("tile/0/001.p/50"), 305), 305);
        assert_eq!(serving_size(&at("tile/0/002.p/1"), 305), 305);
        assert_eq!(serving_size(&at("tile/1/000.p/2"), 305), 305);
        assert_eq!(serving_size(&at("tile/63/000.p/1"), 305), 305);
    }
}
