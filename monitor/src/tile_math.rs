//! Small pure helpers over tiles the monitor's checks share: the root of any run of leaf hashes,
//! the check of a tile's leaves that the held tree already covers, and where the casino's
//! verdicts for an entry bundle are published.

use dozor_log::merkle::{Frontier, Hash};
use dozor_log::tiles::{Tile, TILE_HEIGHT, TILE_WIDTH};

/// The RFC 6962 root of `hashes` taken as the leaves of a tree of their own.
pub fn run_root(hashes: &[Hash]) -> Hash {
    let mut frontier = Frontier::default();
    for hash in hashes {
        frontier.push(*hash);
    }
    frontier.root()
}

/// A tile that starts at tree position `start` (a multiple of 256) holds, before the held
/// tree's size, the leaves `hashes` (fewer than 256): they must be the leaves the held tree's
/// frontier was built from. Its perfect subtrees of those leaves are exactly the frontier's
/// subtrees below level 8, largest first. `Err` with the first position that differs.
pub fn check_prefix(held: &Frontier, start: u64, hashes: &[Hash]) -> Result<(), u64> {
    let before = held.size().saturating_sub(start);
    if before == 0 {
        return Ok(());
    }
    if before >= TILE_WIDTH || hashes.len() as u64 != before {
        return Err(start);
    }
    let roots = held.subtree_roots();
    let low = before.count_ones() as usize;
    let Some(held_low) = roots.get(roots.len().saturating_sub(low)..) else {
        return Err(start);
    };
    let mut offset = 0usize;
    let mut held_low = held_low.iter();
    for level in (0..TILE_HEIGHT).rev() {
        if before & (1 << level) == 0 {
            continue;
        }
        let width = 1usize << level;
        let run = hashes.get(offset..offset + width).ok_or(start)?;
        if held_low.next() != Some(&dozor_log::tiles::perfect_root(run)) {
            return Err(start + offset as u64);
        }
        offset += width;
    }
    Ok(())
}

/// `verdicts/<N>[.p/<W>]`: the casino's verdicts for the entries of `bundle`, beside its tiles.
pub fn verdicts_path(bundle: &Tile) -> String {
    let path = bundle.path();
    let rest = path.strip_prefix("tile/entries/").unwrap_or(&path);
    format!("verdicts/{rest}")
}

/// A partial tile's bytes taken from `wider`'s, a wider or full tile of the same index
/// (tlog-tiles lets a client read a partial tile's content as the prefix of the full one, once
/// the partial is gone): the first `width` hashes, the first `width` entries of a bundle, or the
/// first `width` lines of verdicts. None when `bytes` do not hold them.
pub fn cut_to_width(tile: &Tile, wider: &Tile, bytes: &[u8], verdicts: bool) -> Option<Vec<u8>> {
    let width = usize::from(tile.width);
    if verdicts {
        let mut end = 0;
        for _ in 0..width {
            end += bytes.get(end..)?.iter().position(|b| *b == b'\n')? + 1;
        }
        return Some(bytes[..end].to_vec());
    }
    match tile.kind {
        dozor_log::tiles::TileKind::Hashes(_) => bytes.get(..width * 32).map(<[u8]>::to_vec),
        dozor_log::tiles::TileKind::Entries => {
            let entries = dozor_log::tiles::decode_bundle(wider, bytes).ok()?;
            dozor_log::tiles::encode_bundle(entries.into_iter().take(width)).ok()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dozor_log::merkle::{root, MemoryTree};
    use dozor_log::tiles::TileKind;

    fn leaves(n: u64) -> Vec<Hash> {
        (0..n)
            .map(|i| dozor_log::leaf_hash(&i.to_be_bytes()))
            .collect()
    }

    #[test]
    fn the_root_of_a_run_is_the_tree_s_root() {
        for n in [0u64, 1, 2, 3, 255, 256, 300] {
            let hashes = leaves(n);
            let tree = MemoryTree::from_leaves(&hashes);
            assert_eq!(run_root(&hashes), root(&tree, n).unwrap(), "{n}");
        }
    }

    #[test]
    fn the_leaves_a_held_tree_covers_are_checked_against_its_frontier() {
        // A held tree of 256 + 13 leaves: the tile from 256 holds 13 of them, 13 = 8 + 4 + 1.
        let hashes = leaves(300);
        let held = Frontier::from_subtree_roots(269, &{
            let mut f = Frontier::default();
            hashes[..269].iter().for_each(|h| {
                f.push(*h);
            });
            f.subtree_roots()
        })
        .unwrap();
        assert_eq!(check_prefix(&held, 256, &hashes[256..269]), Ok(()));
        let mut changed = hashes[256..269].to_vec();
        changed[9][0] ^= 1;
        // Leaf 265 is in the run of 4 from 264.
        assert_eq!(check_prefix(&held, 256, &changed), Err(264));
        assert_eq!(check_prefix(&held, 256, &hashes[256..268]), Err(256));
        // A tile that starts at the held size has nothing to check.
        assert_eq!(check_prefix(&held, 512, &[]), Ok(()));
    }

    #[test]
    fn a_partial_tile_is_the_prefix_of_a_wider_one() {
        let tile = |kind, width| Tile {
            kind,
            index: 0,
            width,
        };
        let (partial, full_tile) = (tile(TileKind::Hashes(0), 2), tile(TileKind::Hashes(0), 256));
        let full: Vec<u8> = (0..=255u8).flat_map(|b| [b; 32]).collect();
        assert_eq!(
            cut_to_width(&partial, &full_tile, &full, false),
            Some(full[..64].to_vec())
        );
        // A bundle of 5 entries "0" … "4", cut to its first 3: each a length of 1 (0x00 0x01)
        // and its digit.
        let entries: Vec<Vec<u8>> = (0..5u32).map(|i| i.to_string().into_bytes()).collect();
        let bundle = dozor_log::tiles::encode_bundle(entries.iter().map(Vec::as_slice)).unwrap();
        let (three, five) = (tile(TileKind::Entries, 3), tile(TileKind::Entries, 5));
        let cut = cut_to_width(&three, &five, &bundle, false);
        assert_eq!(cut, Some(b"\x00\x010\x00\x011\x00\x012".to_vec()));
        // Read as a bundle of another width, the bytes are refused.
        assert_eq!(
            cut_to_width(&three, &tile(TileKind::Entries, 256), &bundle, false),
            None
        );
        let lines = b"{\"index\":0}\n{\"index\":1}\n{\"index\":2}\n";
        let cut = cut_to_width(&tile(TileKind::Entries, 2), &three, lines, true);
        assert_eq!(cut, Some(b"{\"index\":0}\n{\"index\":1}\n".to_vec()));
        assert_eq!(cut_to_width(&partial, &full_tile, &full[..40], false), None);
    }

    #[test]
    fn verdicts_sit_beside_the_bundle_under_the_same_index() {
        let bundle = Tile {
            kind: TileKind::Entries,
            index: 1_234_067,
            width: 5,
        };
        assert_eq!(verdicts_path(&bundle), "verdicts/x001/x234/067.p/5");
        let full = Tile {
            kind: TileKind::Entries,
            index: 3,
            width: 256,
        };
        assert_eq!(verdicts_path(&full), "verdicts/003");
    }
}
