//! C2SP tlog-tiles: the ledger's Merkle tree and entries as immutable files (`tile/<L>/<N>[.p/<W>]`
//! hash tiles, `tile/entries/<N>[.p/<W>]` entry bundles), their paths, their bytes, and the tree
//! read back from them.
//!
//! A hash tile at level `l` holds the hashes of tree level `8·l`: level 0 the leaf hashes, level 1
//! the roots of full level-0 tiles, and so on. An entry bundle holds the entries of a level-0 tile,
//! each as a big-endian `u16` length and the entry's bytes, which are exactly what its leaf hash is
//! computed over. Hence an entry's size is bounded by [`MAX_ENTRY_BYTES`].

use std::collections::HashMap;
use std::ops::Range;

use crate::entry::leaf_hash;
use crate::merkle::{node_hash, Hash, NodeSource, NodeWishlist, ProofError};

/// Tree levels one tile spans.
pub const TILE_HEIGHT: u32 = 8;
/// Hashes (or entries) in a full tile.
pub const TILE_WIDTH: u64 = 1 << TILE_HEIGHT;
/// The largest entry a bundle can hold (its length is a `u16`).
pub const MAX_ENTRY_BYTES: usize = u16::MAX as usize;
/// The highest tile level the format allows.
pub const MAX_LEVEL: u8 = 63;

/// What is wrong with a tile's path or bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    #[error("`{path}` is not a tile path: {why}")]
    Path { path: String, why: &'static str },
    #[error("tile {tile} holds {actual} bytes, but {expected} hashes of 32 bytes were expected")]
    HashBytes {
        tile: String,
        expected: u64,
        actual: usize,
    },
    #[error("entry bundle {tile}: {why}")]
    Bundle { tile: String, why: String },
    #[error("an entry of {size} bytes is over the tile format's limit of {MAX_ENTRY_BYTES} bytes")]
    EntryTooLarge { size: usize },
}

/// Which sequence a tile belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TileKind {
    /// Hashes of tree level `8 · level`.
    Hashes(u8),
    /// The entries whose leaf hashes the level-0 tile of the same index holds.
    Entries,
}

/// One tile: its sequence, its index in it, and its width (1 to 256; 256 is a full tile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    pub kind: TileKind,
    pub index: u64,
    pub width: u16,
}

impl Tile {
    pub fn is_full(&self) -> bool {
        u64::from(self.width) == TILE_WIDTH
    }

    /// The hash tile level, 0 for an entry bundle (whose entries are level 0's leaves).
    pub fn level(&self) -> u8 {
        match self.kind {
            TileKind::Hashes(level) => level,
            TileKind::Entries => 0,
        }
    }

    /// The positions, at its own level, of the hashes (or entries) the tile holds.
    pub fn positions(&self) -> Range<u64> {
        let first = self.index * TILE_WIDTH;
        first..first + u64::from(self.width)
    }

    /// The ledger entries the tile's hashes span: `[n·256^(l+1), …)`, cut at its width.
    pub fn entry_range(&self) -> Range<u64> {
        let per_hash = 1u64 << (TILE_HEIGHT * u32::from(self.level()));
        let positions = self.positions();
        positions.start.saturating_mul(per_hash)..positions.end.saturating_mul(per_hash)
    }

    /// The path under a log's prefix, e.g. `tile/0/x001/x234/067.p/5`.
    pub fn path(&self) -> String {
        let level = match self.kind {
            TileKind::Hashes(level) => level.to_string(),
            TileKind::Entries => "entries".to_owned(),
        };
        let mut path = format!("tile/{level}/{}", index_path(self.index));
        if !self.is_full() {
            path.push_str(&format!(".p/{}", self.width));
        }
        path
    }

    /// Reads a path written by [`Tile::path`], refusing every other spelling.
    pub fn parse(path: &str) -> Result<Tile, TileError> {
        let bad = |why: &'static str| TileError::Path {
            path: path.chars().take(200).collect(),
            why,
        };
        let rest = path
            .strip_prefix("tile/")
            .ok_or(bad("it does not start with `tile/`"))?;
        let (level, rest) = rest.split_once('/').ok_or(bad("it has no index"))?;
        let kind = if level == "entries" {
            TileKind::Entries
        } else {
            let level = decimal(level).ok_or(bad("the level is not a decimal number"))?;
            if level > u64::from(MAX_LEVEL) {
                return Err(bad("the level is above 63"));
            }
            TileKind::Hashes(level as u8)
        };
        let (index_part, width) = match rest.split_once(".p/") {
            Some((index_part, width)) => {
                let width = decimal(width).ok_or(bad("the width is not a decimal number"))?;
                if width == 0 || width >= TILE_WIDTH {
                    return Err(bad("a partial tile's width is between 1 and 255"));
                }
                (index_part, width as u16)
            }
            None => (rest, TILE_WIDTH as u16),
        };
        let index = parse_index_path(index_part).ok_or(bad(
            "the index is not in groups of three digits, each but the last with `x`",
        ))?;
        let tile = Tile { kind, index, width };
        // A tile whose entries lie past 2^64 names no part of any tree (and its positions
        // would not fit in a u64).
        let last_index = u64::MAX
            .checked_shr(TILE_HEIGHT * (u32::from(tile.level()) + 1))
            .unwrap_or(0);
        if tile.index > last_index {
            return Err(bad("the index is past any tree's end"));
        }
        Ok(tile)
    }

    /// Bytes a tile of this width holds when it is a hash tile.
    pub fn hash_bytes(&self) -> usize {
        usize::from(self.width) * 32
    }
}

/// A decimal number without leading zeros (other than `0` itself).
fn decimal(text: &str) -> Option<u64> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten()
}

/// `1234067` as `x001/x234/067`.
fn index_path(index: u64) -> String {
    let mut groups = vec![format!("{:03}", index % 1000)];
    let mut rest = index / 1000;
    while rest > 0 {
        groups.push(format!("x{:03}", rest % 1000));
        rest /= 1000;
    }
    groups.reverse();
    groups.join("/")
}

fn parse_index_path(text: &str) -> Option<u64> {
    let groups: Vec<&str> = text.split('/').collect();
    let (last, leading) = groups.split_last()?;
    let mut index: u64 = 0;
    for (n, group) in leading.iter().enumerate() {
        let digits = group.strip_prefix('x')?;
        // The first group carries no leading zero group: `x000/…` is not how an index is written.
        if n == 0 && digits == "000" {
            return None;
        }
        index = index
            .checked_mul(1000)?
            .checked_add(three_digits(digits)?)?;
    }
    index.checked_mul(1000)?.checked_add(three_digits(last)?)
}

fn three_digits(text: &str) -> Option<u64> {
    (text.len() == 3 && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// The width of the rightmost tile at `level` in a tree of `size` (0: none, 256: full).
fn edge_width(level: u32, size: u64) -> u64 {
    let at_level = size >> (TILE_HEIGHT * level);
    at_level % TILE_WIDTH
}

/// Full tiles at `level` in a tree of `size`.
fn full_tiles(level: u32, size: u64) -> u64 {
    size >> (TILE_HEIGHT * (level + 1))
}

/// The tiles a tree of `new_size` has that one of `old_size` had not: the full tiles completed
/// since, and the partial tiles at `new_size` (a partial tile is replaced as it grows). Hash tiles
/// of every level, and the entry bundles beside level 0's.
pub fn tiles_between(old_size: u64, new_size: u64) -> Vec<Tile> {
    let mut tiles = Vec::new();
    for level in 0..=u32::from(MAX_LEVEL) {
        if new_size >> (TILE_HEIGHT * level) == 0 {
            break;
        }
        let kinds: &[TileKind] = if level == 0 {
            &[TileKind::Hashes(0), TileKind::Entries]
        } else {
            &[TileKind::Hashes(level as u8)]
        };
        let first_new_full = full_tiles(level, old_size.min(new_size));
        let full = full_tiles(level, new_size);
        let partial = edge_width(level, new_size);
        let old_partial =
            (full_tiles(level, old_size) == full).then(|| edge_width(level, old_size));
        for &kind in kinds {
            for index in first_new_full..full {
                tiles.push(Tile {
                    kind,
                    index,
                    width: TILE_WIDTH as u16,
                });
            }
            if partial > 0 && old_partial != Some(partial) {
                tiles.push(Tile {
                    kind,
                    index: full,
                    width: partial as u16,
                });
            }
        }
    }
    tiles
}

/// The hash tile holding tree node `(level, index)` as it is served in a tree of `size`: the full
/// tile once it is complete, the partial tile of that size before.
pub fn tile_of_node(level: u32, index: u64, size: u64) -> Tile {
    let tile_level = level / TILE_HEIGHT;
    let below = level % TILE_HEIGHT;
    // The node's first hash at the tile's own level.
    let position = index << below;
    let tile_index = position / TILE_WIDTH;
    let full = full_tiles(tile_level, size);
    let width = if tile_index < full {
        TILE_WIDTH
    } else {
        edge_width(tile_level, size)
    };
    Tile {
        kind: TileKind::Hashes(tile_level as u8),
        index: tile_index,
        width: width as u16,
    }
}

/// The hash tiles from which the root of a tree of `size` is computed.
pub fn tiles_for_root(size: u64) -> Result<Vec<Tile>, ProofError> {
    let wishlist = NodeWishlist::default();
    crate::merkle::root(&wishlist, size)?;
    let mut tiles: Vec<Tile> = wishlist
        .into_wanted()
        .into_iter()
        .map(|(level, index)| tile_of_node(level, index, size))
        .collect();
    tiles.sort_unstable();
    tiles.dedup();
    Ok(tiles)
}

/// A hash tile's bytes: its hashes, concatenated.
pub fn encode_hashes(hashes: &[Hash]) -> Vec<u8> {
    hashes.iter().flatten().copied().collect()
}

/// A hash tile's hashes, its length checked against its width.
pub fn decode_hashes(tile: &Tile, bytes: &[u8]) -> Result<Vec<Hash>, TileError> {
    if bytes.len() != tile.hash_bytes() {
        return Err(TileError::HashBytes {
            tile: tile.path(),
            expected: u64::from(tile.width),
            actual: bytes.len(),
        });
    }
    Ok(bytes
        .chunks_exact(32)
        .map(|chunk| {
            let mut hash = [0u8; 32];
            hash.copy_from_slice(chunk);
            hash
        })
        .collect())
}

/// Appends an entry to a bundle being written; refuses one over [`MAX_ENTRY_BYTES`].
pub fn push_bundle_entry(bundle: &mut Vec<u8>, entry: &[u8]) -> Result<(), TileError> {
    let length =
        u16::try_from(entry.len()).map_err(|_| TileError::EntryTooLarge { size: entry.len() })?;
    bundle.extend_from_slice(&length.to_be_bytes());
    bundle.extend_from_slice(entry);
    Ok(())
}

/// An entry bundle's bytes.
pub fn encode_bundle<'a>(
    entries: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Vec<u8>, TileError> {
    let mut bundle = Vec::new();
    for entry in entries {
        push_bundle_entry(&mut bundle, entry)?;
    }
    Ok(bundle)
}

/// An entry bundle's entries; exactly `tile.width` of them, with nothing left over.
pub fn decode_bundle<'b>(tile: &Tile, bytes: &'b [u8]) -> Result<Vec<&'b [u8]>, TileError> {
    let bad = |why: String| TileError::Bundle {
        tile: tile.path(),
        why,
    };
    let mut entries = Vec::with_capacity(usize::from(tile.width));
    let mut rest = bytes;
    while !rest.is_empty() {
        let (length, tail) = rest
            .split_first_chunk::<2>()
            .ok_or_else(|| bad("it ends inside an entry's length".into()))?;
        let length = usize::from(u16::from_be_bytes(*length));
        if tail.len() < length {
            return Err(bad(format!(
                "entry {} says {length} bytes, but {} remain",
                entries.len(),
                tail.len()
            )));
        }
        let (entry, tail) = tail.split_at(length);
        entries.push(entry);
        rest = tail;
    }
    if entries.len() != usize::from(tile.width) {
        return Err(bad(format!(
            "it holds {} entries, but its width is {}",
            entries.len(),
            tile.width
        )));
    }
    Ok(entries)
}

/// The leaf hashes of a bundle's entries, for comparison with the level-0 tile.
pub fn bundle_leaf_hashes(entries: &[&[u8]]) -> Vec<Hash> {
    entries.iter().map(|entry| leaf_hash(entry)).collect()
}

/// The root of a perfect run of hashes (a power of two of them): a full tile's hash one tile
/// level up, or a node inside a tile.
pub fn perfect_root(hashes: &[Hash]) -> Hash {
    let mut level: Vec<Hash> = hashes.to_vec();
    while level.len() > 1 {
        level = level
            .chunks_exact(2)
            .map(|pair| node_hash(&pair[0], &pair[1]))
            .collect();
    }
    level
        .first()
        .copied()
        .unwrap_or_else(crate::merkle::empty_root)
}

/// Hash tiles held in memory, as a [`NodeSource`]: a node between tile levels is computed from
/// the tile hashes below it.
#[derive(Debug, Clone, Default)]
pub struct TileSet {
    tiles: HashMap<(u8, u64), Vec<Hash>>,
}

impl TileSet {
    /// Adds a hash tile (a wider one of the same index replaces a narrower one).
    pub fn insert(&mut self, tile: &Tile, hashes: Vec<Hash>) {
        if let TileKind::Hashes(level) = tile.kind {
            let slot = self.tiles.entry((level, tile.index)).or_default();
            if hashes.len() >= slot.len() {
                *slot = hashes;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
}

impl NodeSource for TileSet {
    fn node(&self, level: u32, index: u64) -> Result<Hash, ProofError> {
        let missing = ProofError::MissingNode { level, index };
        let tile_level = u8::try_from(level / TILE_HEIGHT).map_err(|_| missing.clone())?;
        let below = level % TILE_HEIGHT;
        let first = index.checked_shl(below).ok_or(missing.clone())?;
        let hashes = self
            .tiles
            .get(&(tile_level, first / TILE_WIDTH))
            .ok_or(missing.clone())?;
        let start = (first % TILE_WIDTH) as usize;
        let run = hashes
            .get(start..start + (1usize << below))
            .ok_or(missing)?;
        Ok(perfect_root(run))
    }
}

#[cfg(test)]
mod tests;
