//! The partial tiles of every signed checkpoint: tlog-tiles asks a log to serve the partial
//! tiles of each tree size it signed a checkpoint for until the full tile is there, so a reader
//! holding an earlier checkpoint (from a witness, say) can read its tree. A narrower partial is
//! a prefix of the wider tile of the same index: its bytes are cut from those already read.

use dozor_log::tiles::{Tile, TileKind, TILE_HEIGHT, TILE_WIDTH};

/// What a file beside a level-0 index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A hash tile (of any level).
    Hashes,
    /// An entry bundle.
    Bundle,
    /// The verdict lines of a bundle.
    Verdicts,
}

/// The widths narrower than `tile`'s that the checkpoints of `sizes` give the tile's index at
/// its level (a checkpoint whose tree ends inside the tile), each once, in order.
pub fn narrower_widths(tile: &Tile, sizes: &[u64]) -> Vec<u16> {
    let level = u32::from(tile.level());
    let mut widths: Vec<u16> = sizes
        .iter()
        .filter_map(|size| {
            let count = size.checked_shr(TILE_HEIGHT * level)?;
            let width = count % TILE_WIDTH;
            (count / TILE_WIDTH == tile.index && width > 0 && width < u64::from(tile.width))
                .then_some(width as u16)
        })
        .collect();
    widths.sort_unstable();
    widths.dedup();
    widths
}

/// The first `width` hashes, entries or lines of `bytes` (a tile of `part` at least that wide).
pub fn prefix(part: Part, bytes: &[u8], width: u16) -> Option<&[u8]> {
    let width = usize::from(width);
    let end = match part {
        Part::Hashes => width * 32,
        Part::Bundle => {
            let mut at = 0usize;
            for _ in 0..width {
                let length = bytes.get(at..at + 2)?;
                at += 2 + usize::from(u16::from_be_bytes([length[0], length[1]]));
            }
            at
        }
        Part::Verdicts => {
            let mut at = 0usize;
            for _ in 0..width {
                at += bytes.get(at..)?.iter().position(|b| *b == b'\n')? + 1;
            }
            at
        }
    };
    bytes.get(..end)
}

/// The tile of `part` beside `tile` (a hash tile), at `width`.
pub fn at_width(tile: &Tile, part: Part, width: u16) -> Tile {
    let kind = match part {
        Part::Hashes => tile.kind,
        Part::Bundle | Part::Verdicts => TileKind::Entries,
    };
    Tile {
        kind,
        index: tile.index,
        width,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn hashes(level: u8, index: u64, width: u16) -> Tile {
        Tile {
            kind: TileKind::Hashes(level),
            index,
            width,
        }
    }

    #[test]
    fn the_checkpoints_inside_a_partial_tile_give_its_narrower_widths() {
        // Level 0 tile 8 of width 52 (a tree of 2 100): checkpoints at 2 060 and 2 070 end
        // inside it (2 060 − 2 048 = 12, 2 070 − 2 048 = 22); 2 000 ends in tile 7, 2 100 is
        // the tile itself, 2 048 is no partial at all.
        let tile = hashes(0, 8, 52);
        assert_eq!(
            narrower_widths(&tile, &[2_000, 2_048, 2_060, 2_070, 2_070, 2_100]),
            [12, 22]
        );
        // Level 1 tile 0 of width 8: trees of 300 (300 >> 8 = 1) and 1 300 (5) end inside it.
        assert_eq!(
            narrower_widths(&hashes(1, 0, 8), &[200, 300, 1_300]),
            [1, 5]
        );
    }

    #[test]
    fn a_narrower_partial_is_a_prefix_of_the_wider_tile() {
        let bundle = [0, 1, b'a', 0, 2, b'b', b'c', 0, 0];
        assert_eq!(prefix(Part::Bundle, &bundle, 2), Some(&bundle[..7]));
        assert_eq!(prefix(Part::Bundle, &bundle, 3), Some(&bundle[..]));
        assert_eq!(prefix(Part::Bundle, &bundle, 4), None);
        let lines = b"{\"index\":0}\n{\"index\":1}\n";
        assert_eq!(prefix(Part::Verdicts, lines, 1), Some(&lines[..12]));
        assert_eq!(
            prefix(Part::Hashes, &[7u8; 96], 2).map(<[u8]>::len),
            Some(64)
        );
        assert_eq!(
            at_width(&hashes(0, 3, 200), Part::Verdicts, 5),
            Tile {
                kind: TileKind::Entries,
                index: 3,
                width: 5
            }
        );
    }
}
