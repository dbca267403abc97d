//! The ledger as C2SP tlog-tiles, read from the database: hash tiles (leaf hashes of
//! `ledger_entries`, or of `archived_entries` for archived ranges; tree nodes of `merkle_nodes`
//! above), entry bundles (the entries' canonical bytes), the latest checkpoint with its
//! cosignatures, the minimum index, and the casino's verdicts beside each bundle (docs/TILES.md).
//!
//! Bottom layer: imports only the schema, the columns and the checkpoints.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Bytea, Nullable, Text};

use super::checkpoints;
use super::columns::{hash32, to_i64};
use super::models::NewAdjudication;
use super::schema::checkpoints as checkpoints_table;
use super::schema::{archived_entries, checkpoint_cosignatures, ledger_entries, merkle_nodes};
use crate::error::LedgerError;
use dozor_log::merkle::Hash;
use dozor_log::tiles::{encode_hashes, push_bundle_entry, Tile, TileKind, TILE_HEIGHT, TILE_WIDTH};

/// The latest signed checkpoint as the folder and the API serve it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedCheckpoint {
    pub size: u64,
    /// The operator's signed note, the witnesses' cosignature lines after its signature.
    pub text: String,
}

/// Hashes a tree of `size` entries has at tile level `level` (tree level `8 · level`).
fn hashes_at_level(level: u8, size: u64) -> u64 {
    size.checked_shr(TILE_HEIGHT * u32::from(level))
        .unwrap_or(0)
}

/// Refuses a tile the tree of `size` does not have: one beyond it, or of another width than the
/// tree gives it (a full tile once it is complete, the partial of exactly the edge's width before).
pub fn check_in_tree(tile: &Tile, size: u64) -> Result<(), LedgerError> {
    let count = hashes_at_level(tile.level(), size);
    let (full, edge) = (count / TILE_WIDTH, count % TILE_WIDTH);
    let not_found = |why: String| LedgerError::TileNotFound {
        path: tile.path(),
        size,
        why,
    };
    if tile.index < full {
        if tile.is_full() {
            return Ok(());
        }
        return Err(not_found(format!(
            "tile {} is full in this tree: ask for it without `.p/{}`",
            tile.index, tile.width
        )));
    }
    if tile.index == full && edge > 0 {
        if u64::from(tile.width) == edge {
            return Ok(());
        }
        return Err(not_found(format!(
            "the tree's partial tile {} is {edge} wide, not {}",
            tile.index, tile.width
        )));
    }
    Err(not_found(format!(
        "the tree has {full} full tiles and {} partial at this level",
        u64::from(edge > 0)
    )))
}

/// The bytes of `tile` as published in a tree of `size` (hash tile or entry bundle).
pub fn read_tile(conn: &mut PgConnection, tile: &Tile, size: u64) -> Result<Vec<u8>, LedgerError> {
    check_in_tree(tile, size)?;
    match tile.kind {
        TileKind::Hashes(0) => Ok(encode_hashes(&leaf_hashes(conn, tile)?)),
        TileKind::Hashes(level) => Ok(encode_hashes(&node_hashes(conn, tile, level)?)),
        TileKind::Entries => bundle(conn, tile),
    }
}

/// The positions of `tile` as database indices.
fn position_bounds(tile: &Tile) -> Result<(i64, i64), LedgerError> {
    let positions = tile.positions();
    Ok((
        to_i64("tile position", positions.start)?,
        to_i64("tile position", positions.end)?,
    ))
}

/// The leaf hashes of a level-0 tile: from the entries, and for archived entries from what the
/// archive kept of them.
fn leaf_hashes(conn: &mut PgConnection, tile: &Tile) -> Result<Vec<Hash>, LedgerError> {
    let (first, end) = position_bounds(tile)?;
    let mut rows: Vec<(i64, Vec<u8>)> = ledger_entries::table
        .filter(ledger_entries::idx.ge(first))
        .filter(ledger_entries::idx.lt(end))
        .order(ledger_entries::idx.asc())
        .select((ledger_entries::idx, ledger_entries::leaf_hash))
        .load(conn)?;
    if rows.len() != usize::from(tile.width) {
        rows.extend(
            archived_entries::table
                .filter(archived_entries::idx.ge(first))
                .filter(archived_entries::idx.lt(end))
                .select((archived_entries::idx, archived_entries::leaf_hash))
                .load::<(i64, Vec<u8>)>(conn)?,
        );
        rows.sort_unstable_by_key(|(idx, _)| *idx);
    }
    in_order(tile, first, rows, "leaf hash")
}

/// The stored nodes of tree level `8 · level` a hash tile of that level holds.
fn node_hashes(conn: &mut PgConnection, tile: &Tile, level: u8) -> Result<Vec<Hash>, LedgerError> {
    let (first, end) = position_bounds(tile)?;
    let rows = stored_nodes(conn, level, first, end)?;
    in_order(tile, first, rows, "node hash")
}

/// The stored nodes of tree level `8 · level` from index `first` to before `end`, in order.
fn stored_nodes(
    conn: &mut PgConnection,
    level: u8,
    first: i64,
    end: i64,
) -> Result<Vec<(i64, Vec<u8>)>, LedgerError> {
    let tree_level = i16::from(level) * TILE_HEIGHT as i16;
    Ok(merkle_nodes::table
        .filter(merkle_nodes::level.eq(tree_level))
        .filter(merkle_nodes::idx.ge(first))
        .filter(merkle_nodes::idx.lt(end))
        .order(merkle_nodes::idx.asc())
        .select((merkle_nodes::idx, merkle_nodes::hash))
        .load(conn)?)
}

/// `rows` as the tile's hashes, each at its position: a missing one means the database lacks
/// part of a tree its checkpoints cover.
fn in_order(
    tile: &Tile,
    first: i64,
    rows: Vec<(i64, Vec<u8>)>,
    what: &'static str,
) -> Result<Vec<Hash>, LedgerError> {
    let mut hashes = Vec::with_capacity(rows.len());
    for (n, (idx, hash)) in rows.into_iter().enumerate() {
        if idx != first + n as i64 {
            break;
        }
        hashes.push(hash32(&hash, what)?);
    }
    if hashes.len() != usize::from(tile.width) {
        return Err(missing(tile, first + hashes.len() as i64, what));
    }
    Ok(hashes)
}

fn missing(tile: &Tile, position: i64, what: &str) -> LedgerError {
    LedgerError::BadStoredValue {
        what: "tile",
        owner: tile.path(),
        value: format!("the database has no {what} at position {position}"),
    }
}

/// An entry bundle: each entry's canonical bytes, its length before it.
fn bundle(conn: &mut PgConnection, tile: &Tile) -> Result<Vec<u8>, LedgerError> {
    let (first, end) = position_bounds(tile)?;
    let rows: Vec<(i64, Vec<u8>)> = ledger_entries::table
        .filter(ledger_entries::idx.ge(first))
        .filter(ledger_entries::idx.lt(end))
        .order(ledger_entries::idx.asc())
        .select((ledger_entries::idx, ledger_entries::entry))
        .load(conn)?;
    if rows.len() != usize::from(tile.width) {
        return Err(not_all_there(conn, tile, first, end, rows.len())?);
    }
    let mut bytes = Vec::with_capacity(rows.iter().map(|(_, e)| e.len() + 2).sum());
    for (n, (idx, entry)) in rows.iter().enumerate() {
        if *idx != first + n as i64 {
            return Err(missing(tile, first + n as i64, "entry"));
        }
        push_bundle_entry(&mut bytes, entry)?;
    }
    Ok(bytes)
}

/// Why a bundle's range does not hold `found` entries of its width: archived ones (pruned), or
/// entries the database lacks.
fn not_all_there(
    conn: &mut PgConnection,
    tile: &Tile,
    first: i64,
    end: i64,
    found: usize,
) -> Result<LedgerError, LedgerError> {
    let archived: i64 = archived_entries::table
        .filter(archived_entries::idx.ge(first))
        .filter(archived_entries::idx.lt(end))
        .count()
        .get_result(conn)?;
    if archived > 0 {
        return Ok(LedgerError::TilePruned {
            path: tile.path(),
            minimum_index: minimum_index(conn)?,
        });
    }
    Ok(missing(tile, first + found as i64, "entry"))
}

/// The latest signed checkpoint with every cosignature kept for it, as one note text.
pub fn published_checkpoint(
    conn: &mut PgConnection,
) -> Result<Option<PublishedCheckpoint>, LedgerError> {
    match checkpoints::latest(conn)? {
        Some(row) => Ok(Some(with_cosignatures(conn, row)?)),
        None => Ok(None),
    }
}

/// A step of a long catch-up: the largest signed checkpoint above `from` and at most `to`, or if
/// there is none the smallest above `to`, with its cosignatures (`None`: none above `from`).
pub fn published_checkpoint_between(
    conn: &mut PgConnection,
    from: u64,
    to: u64,
) -> Result<Option<PublishedCheckpoint>, LedgerError> {
    let (from, to) = (
        to_i64("checkpoint size", from)?,
        to_i64("checkpoint size", to)?,
    );
    let mut row = checkpoints_table::table
        .filter(checkpoints_table::size.gt(from))
        .filter(checkpoints_table::size.le(to))
        .order(checkpoints_table::size.desc())
        .select(checkpoints::CheckpointRow::as_select())
        .first(conn)
        .optional()?;
    if row.is_none() {
        row = checkpoints::covering(conn, (to as u64).saturating_add(1))?;
    }
    row.map(|row| with_cosignatures(conn, row)).transpose()
}

/// The operator's note of `row` with the cosignature lines kept for it, in witness order.
fn with_cosignatures(
    conn: &mut PgConnection,
    row: checkpoints::CheckpointRow,
) -> Result<PublishedCheckpoint, LedgerError> {
    let lines: Vec<String> = checkpoint_cosignatures::table
        .filter(checkpoint_cosignatures::size.eq(row.size))
        .order(checkpoint_cosignatures::witness.asc())
        .select(checkpoint_cosignatures::line)
        .load(conn)?;
    let mut text = row.note;
    for line in lines {
        // Each was checked under its witness's key when it was kept; one that is not a single
        // signature line would break the note for every reader, so it is left out.
        if is_signature_line(&line) {
            text.push_str(&line);
        } else {
            tracing::warn!(
                size = row.size,
                "a kept cosignature is not one signature line"
            );
        }
    }
    Ok(PublishedCheckpoint {
        size: u64::try_from(row.size).unwrap_or(0),
        text,
    })
}

/// `— <name> <base64>\n`, one line.
fn is_signature_line(line: &str) -> bool {
    line.strip_prefix("\u{2014} ")
        .and_then(|rest| rest.strip_suffix('\n'))
        .is_some_and(|rest| !rest.contains('\n') && rest.split(' ').count() == 2)
}

/// The sizes of the checkpoints signed between `from` and `to` (both left out), in order.
pub fn checkpoint_sizes_between(
    conn: &mut PgConnection,
    from: u64,
    to: u64,
) -> Result<Vec<u64>, LedgerError> {
    let sizes: Vec<i64> = checkpoints_table::table
        .filter(checkpoints_table::size.gt(to_i64("checkpoint size", from)?))
        .filter(checkpoints_table::size.lt(to_i64("checkpoint size", to)?))
        .order(checkpoints_table::size.asc())
        .select(checkpoints_table::size)
        .load(conn)?;
    Ok(sizes.into_iter().map(|s| s as u64).collect())
}

/// The tile minimum index of the latest signed checkpoint; see [`minimum_index_at`].
pub fn minimum_index(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    let size = checkpoints::latest(conn)?.map_or(0, |row| u64::try_from(row.size).unwrap_or(0));
    minimum_index_at(conn, size)
}

/// The tile minimum index in a tree of `size`: the first entry of the first bundle holding no
/// archived entry (archived ranges run from entry 0 without a gap, so the end of the last one
/// rounded up to a whole bundle), but never above `size`, as tlog-tiles requires. Below a
/// bundle boundary it is `size` itself: the edge bundle still holds archived entries, and its
/// end index is then not above the minimum index, so it may be refused.
pub fn minimum_index_at(conn: &mut PgConnection, size: u64) -> Result<u64, LedgerError> {
    let last: Option<i64> = archived_entries::table
        .select(diesel::dsl::max(archived_entries::idx))
        .first(conn)?;
    let below = last.map_or(0, |last| u64::try_from(last).unwrap_or(0) + 1);
    Ok((below.div_ceil(TILE_WIDTH) * TILE_WIDTH).min(size))
}

/// An entry of a bundle's range with the verdict stored for it, if it is a judged round: read
/// from the database, or handed over by ingest's writer as it committed them
/// (`tile_publish::handoff`).
#[derive(Debug, QueryableByName)]
pub(crate) struct EntryRow {
    #[diesel(sql_type = BigInt)]
    pub(crate) idx: i64,
    #[diesel(sql_type = Bytea)]
    leaf_hash: Vec<u8>,
    /// Empty when not asked for.
    #[diesel(sql_type = Bytea)]
    pub(crate) entry: Vec<u8>,
    #[diesel(sql_type = Nullable<Text>)]
    plan_id: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    rules_version: Option<String>,
    #[diesel(sql_type = Nullable<Bool>)]
    void: Option<bool>,
    #[diesel(sql_type = Nullable<BigInt>)]
    stakes_h: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    expected_paid_h: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    paid_h: Option<i64>,
    #[diesel(sql_type = Nullable<diesel::sql_types::Integer>)]
    finding_count: Option<i32>,
    /// The verdict's JSON, read only when it has findings.
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) verdict: Option<String>,
}

impl EntryRow {
    /// The row of an entry just written with its verdict row (if a round), as a read of both
    /// would give it back.
    pub(crate) fn written(
        idx: i64,
        leaf_hash: Vec<u8>,
        entry: Vec<u8>,
        verdict: Option<&NewAdjudication<'_>>,
    ) -> EntryRow {
        EntryRow {
            idx,
            leaf_hash,
            entry,
            plan_id: verdict.map(|v| v.plan_id.to_owned()),
            rules_version: verdict.map(|v| v.rules_version.to_owned()),
            void: verdict.map(|v| v.void),
            stakes_h: verdict.map(|v| v.stakes_h),
            expected_paid_h: verdict.map(|v| v.expected_paid_h),
            paid_h: verdict.map(|v| v.paid_h),
            finding_count: verdict.map(|v| v.finding_count),
            verdict: verdict
                .filter(|v| v.finding_count > 0)
                .map(|v| v.verdict.to_owned()),
        }
    }

    #[cfg(test)]
    pub(crate) fn without_verdict(idx: i64, leaf_hash: [u8; 32], entry: Vec<u8>) -> EntryRow {
        EntryRow::written(idx, leaf_hash.to_vec(), entry, None)
    }

    /// The entry's leaf hash.
    pub(crate) fn leaf_hash(&self) -> Result<Hash, LedgerError> {
        hash32(&self.leaf_hash, "leaf hash")
    }
}

/// The entries of an entry bundle's range with their verdicts, in order, each at its position;
/// refused when any is archived (pruned) or missing.
fn entry_rows(
    conn: &mut PgConnection,
    tile: &Tile,
    with_entry: bool,
) -> Result<Vec<EntryRow>, LedgerError> {
    let (first, end) = bundle_bounds(tile)?;
    let rows = rows_between(conn, first, end, with_entry)?;
    check_rows(conn, tile, &rows)?;
    Ok(rows)
}

/// An entry bundle's positions.
fn bundle_bounds(tile: &Tile) -> Result<(i64, i64), LedgerError> {
    if tile.kind != TileKind::Entries {
        return Err(LedgerError::TileNotFound {
            path: tile.path(),
            size: 0,
            why: "entries and their verdicts are read by entry bundle".into(),
        });
    }
    position_bounds(tile)
}

/// The entries from `first` to before `end` with their verdicts, in order, in one query.
fn rows_between(
    conn: &mut PgConnection,
    first: i64,
    end: i64,
    with_entry: bool,
) -> Result<Vec<EntryRow>, LedgerError> {
    let entry = if with_entry { "e.entry" } else { "''::bytea" };
    Ok(diesel::sql_query(format!(
        "SELECT e.idx, e.leaf_hash, {entry} AS entry, a.plan_id, a.rules_version, a.void, \
                a.stakes_h, a.expected_paid_h, a.paid_h, a.finding_count, \
                CASE WHEN a.finding_count > 0 THEN a.verdict END AS verdict \
         FROM ledger_entries e \
         LEFT JOIN adjudications a ON a.ledger_index = e.idx \
              AND a.ledger_index >= $1 AND a.ledger_index < $2 \
         WHERE e.idx >= $1 AND e.idx < $2 ORDER BY e.idx"
    ))
    .bind::<BigInt, _>(first)
    .bind::<BigInt, _>(end)
    .load(conn)?)
}

/// `rows` must be every entry of bundle `tile`, each at its position.
fn check_rows(conn: &mut PgConnection, tile: &Tile, rows: &[EntryRow]) -> Result<(), LedgerError> {
    let (first, end) = position_bounds(tile)?;
    if rows.len() != usize::from(tile.width) {
        return Err(match not_all_there(conn, tile, first, end, rows.len())? {
            LedgerError::BadStoredValue { .. } => LedgerError::TileNotFound {
                path: tile.path(),
                size: first as u64 + rows.len() as u64,
                why: "the ledger does not hold every entry of this bundle".into(),
            },
            other => other,
        });
    }
    for (n, row) in rows.iter().enumerate() {
        if row.idx != first + n as i64 {
            return Err(missing(tile, first + n as i64, "entry"));
        }
    }
    Ok(())
}

/// The casino's own verdicts for the rounds of an entry bundle's range, as JSON lines: one per
/// entry, in order (docs/TILES.md).
pub fn read_verdict_lines(conn: &mut PgConnection, tile: &Tile) -> Result<Vec<u8>, LedgerError> {
    verdict_lines(&entry_rows(conn, tile, false)?)
}

fn verdict_lines(rows: &[EntryRow]) -> Result<Vec<u8>, LedgerError> {
    let mut lines = Vec::with_capacity(rows.len() * 32);
    for row in rows {
        verdict_line(row, &mut lines)?;
        lines.push(b'\n');
    }
    Ok(lines)
}

/// What publishing reads for each 256 entries: the level-0 hash tile, the entry bundle and the
/// verdict lines of one entry bundle, each the bytes [`read_tile`] and [`read_verdict_lines`]
/// give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryTiles {
    pub hashes: Vec<u8>,
    pub bundle: Vec<u8>,
    pub verdicts: Vec<u8>,
}

/// The [`EntryTiles`] of consecutive entry bundles (each starting where the one before ends) in
/// a tree of `size`, in one query: a query a bundle cost publishing more than the bundles' bytes.
pub fn read_entry_tiles_run(
    conn: &mut PgConnection,
    bundles: &[Tile],
    size: u64,
) -> Result<Vec<EntryTiles>, LedgerError> {
    let (Some(first_bundle), Some(last_bundle)) = (bundles.first(), bundles.last()) else {
        return Ok(Vec::new());
    };
    let mut bounds = Vec::with_capacity(bundles.len());
    for bundle in bundles {
        check_in_tree(bundle, size)?;
        let (first, end) = bundle_bounds(bundle)?;
        if bounds.last().is_some_and(|(_, before)| *before != first) {
            return Err(LedgerError::TileNotFound {
                path: bundle.path(),
                size,
                why: "bundles read together must follow one another".into(),
            });
        }
        bounds.push((first, end));
    }
    let (first, _) = bundle_bounds(first_bundle)?;
    let (_, end) = bundle_bounds(last_bundle)?;
    let mut rows = rows_between(conn, first, end, true)?.into_iter().peekable();
    let mut read = Vec::with_capacity(bundles.len());
    for (bundle, (_, end)) in bundles.iter().zip(bounds) {
        let mut of_bundle = Vec::with_capacity(usize::from(bundle.width));
        while let Some(row) = rows.next_if(|row| row.idx < end) {
            of_bundle.push(row);
        }
        check_rows(conn, bundle, &of_bundle)?;
        read.push(entry_tiles(bundle, &of_bundle)?);
    }
    Ok(read)
}

/// The three files of a bundle from its rows (every entry of the bundle, in order).
pub(crate) fn entry_tiles(bundle: &Tile, rows: &[EntryRow]) -> Result<EntryTiles, LedgerError> {
    let mut tiles = EntryTiles {
        hashes: Vec::with_capacity(bundle.hash_bytes()),
        bundle: Vec::with_capacity(rows.iter().map(|r| r.entry.len() + 2).sum()),
        verdicts: verdict_lines(rows)?,
    };
    for row in rows {
        tiles.hashes.extend(hash32(&row.leaf_hash, "leaf hash")?);
        push_bundle_entry(&mut tiles.bundle, &row.entry)?;
    }
    Ok(tiles)
}

/// The roots of the subtrees of full entry bundles `bundles` (tree level 8, the node each
/// bundle's level-0 tile hashes to), as the database's tree holds them; one query.
pub(crate) fn bundle_roots(
    conn: &mut PgConnection,
    bundles: &[Tile],
) -> Result<Vec<Hash>, LedgerError> {
    let (Some(first), Some(last)) = (bundles.first(), bundles.last()) else {
        return Ok(Vec::new());
    };
    let (first, end) = (
        to_i64("tile", first.index)?,
        to_i64("tile", last.index + 1)?,
    );
    let rows = stored_nodes(conn, 1, first, end)?;
    let mut roots = Vec::with_capacity(bundles.len());
    for bundle in bundles {
        let at = to_i64("tile", bundle.index)?;
        let Some((_, hash)) = rows.iter().find(|(idx, _)| *idx == at) else {
            return Err(missing(bundle, at, "subtree root"));
        };
        roots.push(hash32(hash, "subtree root")?);
    }
    Ok(roots)
}

/// The findings of a stored verdict, in the verdict's order.
#[derive(serde::Deserialize)]
struct StoredFindings {
    findings: Vec<rules::Finding>,
}

/// A verdict line. Fields are declared in sorted order (as are a finding's), so that serde's
/// output is RFC 8785 canonical JSON, as the verdict's own is.
#[derive(serde::Serialize)]
struct Line<'a> {
    index: u64,
    verdict: Option<LineVerdict<'a>>,
}

#[derive(serde::Serialize)]
struct LineVerdict<'a> {
    expected_paid_h: i64,
    findings: Vec<rules::Finding>,
    paid_h: i64,
    plan_id: &'a str,
    rules_version: &'a str,
    stakes_h: i64,
    void: bool,
}

/// Appends one entry's line (without its newline) to `out`.
fn verdict_line(row: &EntryRow, out: &mut Vec<u8>) -> Result<(), LedgerError> {
    let index = row.idx as u64;
    let verdict = match row {
        EntryRow {
            plan_id: Some(plan_id),
            rules_version: Some(rules_version),
            void: Some(void),
            stakes_h: Some(stakes_h),
            expected_paid_h: Some(expected_paid_h),
            paid_h: Some(paid_h),
            finding_count: Some(finding_count),
            verdict,
            ..
        } => Some(LineVerdict {
            expected_paid_h: *expected_paid_h,
            findings: stored_findings(index, *finding_count, verdict.as_deref())?,
            paid_h: *paid_h,
            plan_id,
            rules_version,
            stakes_h: *stakes_h,
            void: *void,
        }),
        _ => None,
    };
    serde_json::to_writer(out, &Line { index, verdict }).map_err(|source| {
        LedgerError::VerdictJson {
            index: Some(index),
            source,
        }
    })
}

/// The findings of the verdict of entry `index`: none without reading its JSON when it counts
/// none (most rounds), else as its JSON holds them (which must be as many).
fn stored_findings(
    index: u64,
    count: i32,
    verdict: Option<&str>,
) -> Result<Vec<rules::Finding>, LedgerError> {
    let Some(verdict) = verdict.filter(|_| count > 0) else {
        return Ok(Vec::new());
    };
    let stored: StoredFindings =
        serde_json::from_str(verdict).map_err(|source| LedgerError::VerdictJson {
            index: Some(index),
            source,
        })?;
    if stored.findings.len() != count as usize {
        return Err(LedgerError::BadStoredValue {
            what: "finding count",
            owner: format!("the verdict of entry {index}"),
            value: format!("{count}, its JSON holds {}", stored.findings.len()),
        });
    }
    Ok(stored.findings)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn tile(kind: TileKind, index: u64, width: u16) -> Tile {
        Tile { kind, index, width }
    }

    #[test]
    fn a_tile_is_in_a_tree_only_at_the_width_the_tree_gives_it() {
        let found = |t: Tile, size: u64| check_in_tree(&t, size).is_ok();
        // 600 entries: level 0 has full tiles 0 and 1 (512 entries) and a partial 2 of
        // 600 − 512 = 88; level 1 has 600 >> 8 = 2 hashes: a partial tile 0 of width 2.
        assert!(found(tile(TileKind::Hashes(0), 1, 256), 600));
        assert!(found(tile(TileKind::Entries, 2, 88), 600));
        assert!(!found(tile(TileKind::Entries, 2, 87), 600));
        assert!(!found(tile(TileKind::Hashes(0), 1, 200), 600));
        assert!(!found(tile(TileKind::Hashes(0), 3, 1), 600));
        assert!(found(tile(TileKind::Hashes(1), 0, 2), 600));
        assert!(!found(tile(TileKind::Hashes(1), 0, 256), 600));
        assert!(!found(tile(TileKind::Hashes(2), 0, 1), 600));
        // 65 536 entries: level 1 is one full tile, level 2 a partial of width 1.
        assert!(found(tile(TileKind::Hashes(1), 0, 256), 65_536));
        assert!(found(tile(TileKind::Hashes(2), 0, 1), 65_536));
        // Exactly 512: no partial at level 0.
        assert!(!found(tile(TileKind::Hashes(0), 2, 1), 512));
        // A level whose shift is past 64 bits has nothing, and does not panic.
        assert!(!found(tile(TileKind::Hashes(63), 0, 1), u64::MAX));
    }

    #[test]
    fn a_cosignature_line_is_one_signature_line() {
        assert!(is_signature_line("\u{2014} w.example/log abcd==\n"));
        assert!(!is_signature_line(
            "\u{2014} w.example/log abcd==\n\u{2014} x y\n"
        ));
        assert!(!is_signature_line("w.example/log abcd==\n"));
        assert!(!is_signature_line("\u{2014} w.example/log abcd=="));
    }
}
