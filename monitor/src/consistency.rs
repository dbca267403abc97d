//! Whether two signed trees of one log agree, from the few hash tiles (O(log n)) an RFC 6962
//! consistency proof between them needs: never a walk of the range between them.
//!
//! The tiles are those of the larger tree. From them come the proof and the root of the smaller
//! size; the proof must verify with that root and the larger tree's signed root, which makes the
//! tiles' nodes the larger tree's own (a wrong tile cannot pass). Then the root of the smaller
//! size they give is compared with the smaller tree's root: equal, the larger tree contains the
//! smaller one; different, it does not, and the larger tree's signature is the evidence.

use dozor_log::merkle::{consistency_proof, root, verify_consistency, NodeWishlist};
use dozor_log::tiles::{decode_hashes, tile_of_node, Tile, TileSet};

use crate::checkpoint_check::Held;
use crate::fetch::FetchError;

/// A hash tile's bytes as published (none: not there).
pub type FetchTile<'a> = &'a dyn Fn(&Tile) -> Result<Option<Vec<u8>>, FetchError>;

/// What the tiles of the larger tree say of the smaller one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Consistency {
    /// The larger tree contains the smaller one.
    Contains,
    /// The larger tree's first `smaller.size` leaves make another root.
    Differs,
    /// A tile the proof needs is not published, does not read, or does not make the larger
    /// tree's root: nothing is shown either way.
    Unproven(String),
}

/// The hash tiles of a tree of `larger` leaves that hold the root of `smaller` leaves and the
/// consistency proof between them.
fn proof_tiles(smaller: u64, larger: u64) -> Vec<Tile> {
    let wishlist = NodeWishlist::default();
    // The wishlist answers every node, so neither computation fails for 0 < smaller < larger.
    let _ = root(&wishlist, smaller);
    let _ = consistency_proof(&wishlist, smaller, larger);
    let mut tiles: Vec<Tile> = wishlist
        .into_wanted()
        .into_iter()
        .map(|(level, index)| tile_of_node(level, index, larger))
        .collect();
    tiles.sort_by_key(|t| (t.level(), t.index));
    tiles.dedup();
    tiles
}

/// Does the tree `larger` (its root signed) contain the tree `smaller`, as the published tiles of
/// the larger tree show it? A tile that cannot be fetched now is the error.
pub fn check(fetch: FetchTile<'_>, smaller: Held, larger: Held) -> Result<Consistency, FetchError> {
    if smaller.size == 0 || smaller.size >= larger.size {
        let same = smaller.size < larger.size || smaller.root == larger.root;
        return Ok(if same {
            Consistency::Contains
        } else {
            Consistency::Differs
        });
    }
    let mut set = TileSet::default();
    for tile in proof_tiles(smaller.size, larger.size) {
        let Some(bytes) = fetch(&tile)? else {
            return Ok(Consistency::Unproven(format!(
                "{} is not published",
                tile.path()
            )));
        };
        match decode_hashes(&tile, &bytes) {
            Ok(hashes) => set.insert(&tile, hashes),
            Err(e) => return Ok(Consistency::Unproven(format!("{}: {e}", tile.path()))),
        }
    }
    let proven = root(&set, smaller.size).and_then(|first| {
        consistency_proof(&set, smaller.size, larger.size).map(|proof| (first, proof))
    });
    let (first, proof) = match proven {
        Ok(proven) => proven,
        Err(e) => return Ok(Consistency::Unproven(e.to_string())),
    };
    if !verify_consistency(smaller.size, larger.size, &proof, &first, &larger.root) {
        return Ok(Consistency::Unproven(format!(
            "the tiles do not make the root of the tree of {} entries",
            larger.size
        )));
    }
    Ok(if first == smaller.root {
        Consistency::Contains
    } else {
        Consistency::Differs
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::fetch::{TileSource, HASH_TILE_LIMIT};
    use crate::test_log::TestLog;
    use std::collections::HashMap;

    fn from(
        files: &HashMap<String, Vec<u8>>,
    ) -> impl Fn(&Tile) -> Result<Option<Vec<u8>>, FetchError> + '_ {
        move |tile| TileSource::get(files, &tile.path(), HASH_TILE_LIMIT)
    }

    fn held(log: &TestLog, size: u64) -> Held {
        Held {
            size,
            root: log.root(size),
        }
    }

    #[test]
    fn a_few_tiles_of_the_larger_tree_show_whether_it_contains_the_smaller() {
        let mut log = TestLog::new();
        log.spins(599);
        let files = log.publish(600);
        // 300 within 600: tiles 0/001 (full), 0/002.p/88 and 1/000.p/2, never a walk.
        let paths: Vec<String> = proof_tiles(300, 600).iter().map(Tile::path).collect();
        assert_eq!(paths, ["tile/0/001", "tile/0/002.p/88", "tile/1/000.p/2"]);
        assert_eq!(
            check(&from(&files), held(&log, 300), held(&log, 600)).unwrap(),
            Consistency::Contains
        );
        // Another log whose entry 1 differs: its tree of 300 is not in this one of 600.
        let mut other = TestLog::new();
        other.spin(1, 0);
        other.spins(298);
        assert_eq!(
            check(&from(&files), held(&other, 300), held(&log, 600)).unwrap(),
            Consistency::Differs
        );
        // A wrong tile shows nothing either way.
        let mut wrong = files.clone();
        wrong.get_mut("tile/0/002.p/88").unwrap()[0] ^= 1;
        assert!(matches!(
            check(&from(&wrong), held(&other, 300), held(&log, 600)).unwrap(),
            Consistency::Unproven(_)
        ));
        let mut missing = files.clone();
        missing.remove("tile/0/002.p/88");
        assert_eq!(
            check(&from(&missing), held(&log, 300), held(&log, 600)).unwrap(),
            Consistency::Unproven("tile/0/002.p/88 is not published".into())
        );
    }
}
