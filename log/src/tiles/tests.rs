//! The spec's own examples (c2sp.org/tlog-tiles) and trees built from tiles against trees built
//! from leaves.

use rand::{Rng as _, SeedableRng as _};

use super::*;
use crate::merkle::{root, MemoryTree};

fn tile(kind: TileKind, index: u64, width: u16) -> Tile {
    Tile { kind, index, width }
}

#[test]
fn paths_are_written_in_groups_of_three_digits_as_the_spec_spells_them() {
    // The spec's example: index 1234067 is `x001/x234/067`.
    assert_eq!(
        tile(TileKind::Hashes(0), 1_234_067, 256).path(),
        "tile/0/x001/x234/067"
    );
    assert_eq!(tile(TileKind::Hashes(2), 0, 1).path(), "tile/2/000.p/1");
    assert_eq!(
        tile(TileKind::Entries, 1000, 112).path(),
        "tile/entries/x001/000.p/112"
    );
    assert_eq!(tile(TileKind::Hashes(1), 999, 256).path(), "tile/1/999");
    for t in [
        tile(TileKind::Hashes(0), 1_234_067, 256),
        tile(TileKind::Hashes(0), (u64::MAX >> 8) - 1, 255),
        tile(TileKind::Hashes(63), 0, 255),
        tile(TileKind::Entries, 0, 1),
        tile(TileKind::Entries, 1_000_000, 256),
    ] {
        assert_eq!(Tile::parse(&t.path()), Ok(t), "{}", t.path());
    }
}

#[test]
fn every_other_spelling_of_a_path_is_refused() {
    for path in [
        "tile/0/1",            // not three digits
        "tile/00/001",         // level with a leading zero
        "tile/64/001",         // level above 63
        "tile/0/001/002",      // a leading group without `x`
        "tile/0/x000/001",     // a leading zero group
        "tile/0/001.p/0",      // empty partial
        "tile/0/001.p/256",    // a partial as wide as a full tile
        "tile/0/001.p/05",     // width with a leading zero
        "tile/entries/x1/001", // a group of one digit
        "tiles/0/001",
        "tile/0/",
        "tile/0/x99999999999999999/000", // does not fit
        // 2^56 = 72 057 594 037 927 936: level-0 tile 2^56 starts at entry 2^64.
        "tile/0/x072/x057/x594/x037/x927/936",
        "tile/7/001", // level 7 starts at 2^64 from its second tile on
    ] {
        assert!(Tile::parse(path).is_err(), "{path} was read");
    }
}

#[test]
fn the_spec_s_tree_of_70_000_entries_has_the_tiles_it_lists() {
    // 70 000 = 273 × 256 + 112: 273 full level-0 tiles and one of width 112;
    // 70 000 / 256 = 273 = 1 × 256 + 17: one full level-1 tile and one of width 17;
    // 70 000 / 65 536 = 1: one level-2 tile of width 1.
    let tiles = tiles_between(0, 70_000);
    let at = |kind: TileKind| -> Vec<(u64, u16)> {
        tiles
            .iter()
            .filter(|t| t.kind == kind)
            .map(|t| (t.index, t.width))
            .collect()
    };
    let level0 = at(TileKind::Hashes(0));
    assert_eq!(level0.len(), 274);
    assert_eq!(level0.iter().filter(|(_, w)| *w == 256).count(), 273);
    assert_eq!(level0.last(), Some(&(273, 112)));
    assert_eq!(at(TileKind::Entries), level0);
    assert_eq!(at(TileKind::Hashes(1)), vec![(0, 256), (1, 17)]);
    assert_eq!(at(TileKind::Hashes(2)), vec![(0, 1)]);
    assert!(at(TileKind::Hashes(3)).is_empty());
    // "A tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile
    // of width 1."
    let tiles = tiles_between(0, 256);
    assert_eq!(
        tiles,
        vec![
            tile(TileKind::Hashes(0), 0, 256),
            tile(TileKind::Entries, 0, 256),
            tile(TileKind::Hashes(1), 0, 1),
        ]
    );
}

#[test]
fn growing_a_tree_adds_only_the_tiles_completed_and_the_new_edge() {
    // 300 → 600: level-0 tile 1 completes (entries 256..512), tile 2 is the new partial of
    // 600 − 512 = 88; level 1 grows from width 1 to width 2.
    let tiles = tiles_between(300, 600);
    assert_eq!(
        tiles,
        vec![
            tile(TileKind::Hashes(0), 1, 256),
            tile(TileKind::Hashes(0), 2, 88),
            tile(TileKind::Entries, 1, 256),
            tile(TileKind::Entries, 2, 88),
            tile(TileKind::Hashes(1), 0, 2),
        ]
    );
    // 600 → 610: only the level-0 edge moves (level 1 stays at width 2).
    assert_eq!(
        tiles_between(600, 610),
        vec![
            tile(TileKind::Hashes(0), 2, 98),
            tile(TileKind::Entries, 2, 98)
        ]
    );
    assert!(tiles_between(610, 610).is_empty());
}

fn random_leaves(count: usize, seed: u64) -> Vec<Hash> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(|_| rng.gen()).collect()
}

/// Every hash tile of the tree of the first `size` leaves of `tree`, as a log writes them (a
/// perfect subtree's hash does not change as the tree grows, so the whole tree serves any size).
fn tile_set(tree: &MemoryTree, size: u64) -> TileSet {
    tile_set_of(tree, tiles_between(0, size))
}

fn tile_set_of(tree: &MemoryTree, tiles: Vec<Tile>) -> TileSet {
    let mut set = TileSet::default();
    for t in tiles {
        let TileKind::Hashes(level) = t.kind else {
            continue;
        };
        let hashes = t
            .positions()
            .map(|p| tree.node(TILE_HEIGHT * u32::from(level), p).unwrap())
            .collect();
        set.insert(&t, hashes);
    }
    set
}

#[test]
fn the_root_read_from_tiles_is_the_root_of_the_leaves_for_every_size() {
    let leaves = random_leaves(70_100, 7);
    let tree = MemoryTree::from_leaves(&leaves);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    let mut sizes: Vec<u64> = vec![
        1, 2, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, 70_000,
    ];
    sizes.extend((0..40).map(|_| rng.gen_range(1..=70_100)));
    for size in sizes {
        // The root of the first `size` leaves, from a tree built of exactly those.
        let expected = root(&MemoryTree::from_leaves(&leaves[..size as usize]), size).unwrap();
        assert_eq!(
            root(&tile_set(&tree, size), size).unwrap(),
            expected,
            "size {size}"
        );
        // The tiles the root needs are enough on their own.
        let needed = tile_set_of(&tree, tiles_for_root(size).unwrap());
        assert_eq!(root(&needed, size).unwrap(), expected, "size {size}");
    }
}

#[test]
fn a_changed_hash_in_a_tile_changes_the_root() {
    let leaves = random_leaves(1000, 9);
    let mut set = tile_set(&MemoryTree::from_leaves(&leaves), 1000);
    let good = root(&set, 1000).unwrap();
    // Level-0 tile 1 (leaves 256..512), hash 3 flipped.
    let t = tile(TileKind::Hashes(0), 1, 256);
    let mut hashes: Vec<Hash> = leaves[256..512].to_vec();
    hashes[3][0] ^= 1;
    set.tiles.remove(&(0, 1));
    set.insert(&t, hashes);
    // The level-1 tile still holds the true hash of tile 1, but the root is computed from
    // level 1 only where level 1 has it: a node of height < 8 inside tile 1 now differs.
    assert_ne!(
        set.node(1, 129).unwrap(),
        MemoryTree::from_leaves(&leaves).node(1, 129).unwrap()
    );
    assert_eq!(
        root(&set, 1000).unwrap(),
        good,
        "the root uses the level-1 hash of a full tile"
    );
    let first_300 = MemoryTree::from_leaves(&leaves[..300]);
    assert_ne!(
        root(&set, 300).unwrap(),
        root(&first_300, 300).unwrap(),
        "a tree ending inside tile 1 reads the changed hash"
    );
}

#[test]
fn bundles_hold_length_prefixed_entries_and_refuse_what_does_not_fit() {
    let entries: Vec<Vec<u8>> = vec![b"{}".to_vec(), vec![], vec![7u8; 65_535]];
    let bundle = encode_bundle(entries.iter().map(Vec::as_slice)).unwrap();
    // 2 + 2, 2 + 0, 2 + 65 535 bytes.
    assert_eq!(bundle.len(), 4 + 2 + 65_537);
    assert_eq!(&bundle[..4], &[0, 2, b'{', b'}']);
    assert_eq!(&bundle[6..8], &[0xff, 0xff]);
    let t = tile(TileKind::Entries, 0, 3);
    let read = decode_bundle(&t, &bundle).unwrap();
    assert_eq!(read, entries.iter().map(Vec::as_slice).collect::<Vec<_>>());
    assert_eq!(
        encode_bundle([vec![0u8; 65_536].as_slice()]),
        Err(TileError::EntryTooLarge { size: 65_536 })
    );
    // Too few for its width; cut inside an entry; cut inside a length.
    assert!(decode_bundle(&tile(TileKind::Entries, 0, 4), &bundle).is_err());
    assert!(decode_bundle(&t, &bundle[..bundle.len() - 1]).is_err());
    assert!(decode_bundle(&tile(TileKind::Entries, 0, 1), &[0]).is_err());
}

#[test]
fn hash_tiles_are_read_only_at_their_width() {
    let t = tile(TileKind::Hashes(0), 0, 2);
    let hashes = random_leaves(2, 1);
    let bytes = encode_hashes(&hashes);
    assert_eq!(bytes.len(), 64);
    assert_eq!(decode_hashes(&t, &bytes).unwrap(), hashes);
    assert!(decode_hashes(&t, &bytes[..63]).is_err());
    assert!(decode_hashes(&tile(TileKind::Hashes(0), 0, 3), &bytes).is_err());
}

#[test]
fn a_node_names_the_tile_it_is_served_in() {
    // Node (9, 3) spans level-8 positions 6..8 → level-1 tile 0, which in a tree of
    // 70 000 entries is full (70 000 ≥ 65 536).
    assert_eq!(
        tile_of_node(9, 3, 70_000),
        tile(TileKind::Hashes(1), 0, 256)
    );
    // Leaf 69 999 is in level-0 tile 273, partial of width 112 at 70 000.
    assert_eq!(
        tile_of_node(0, 69_999, 70_000),
        tile(TileKind::Hashes(0), 273, 112)
    );
}
