//! The tree a new checkpoint signs, checked from its tiles: the level-0 hashes of the new range
//! are pushed into a copy of the frontier the monitor holds, so the root it reaches must be the
//! checkpoint's (which proves at once that the new tree extends the held one and that those
//! hashes are its leaves); on the way, the tree must pass through the held checkpoint's root, and
//! every node completed at a tile boundary (levels 8, 16, …) must be the hash the higher tile
//! publishes. What is kept of the new leaves is one root per level-0 tile, against which each
//! entry bundle is checked later: memory stays bounded by the range, never the whole log.

use std::collections::BTreeMap;

use dozor_log::checkpoint::Checkpoint;
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::tiles::{decode_hashes, Tile, TileKind, TILE_HEIGHT, TILE_WIDTH};

use crate::checkpoint_check::Held;
use crate::tile_math::{check_prefix, run_root};

/// The verified leaves of one level-0 tile from `from` (the first the monitor had not followed
/// yet) to its end, as one root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileSummary {
    pub tile: Tile,
    pub from: u64,
    pub root: Hash,
    /// The tile's last leaf: what the next tile's first entry links to.
    pub last: Hash,
}

/// Why the tiles do not make the checkpoint's tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeProblem {
    #[error("{path}: {why}")]
    Unreadable { path: String, why: String },
    #[error(
        "{path}: the hash of leaf {position} differs from the tree the monitor verified before"
    )]
    Rewritten { path: String, position: u64 },
    #[error("{path}: its hashes make node ({level}, {index}) {made}, but {higher} publishes {published}")]
    LeafTile {
        path: String,
        level: u32,
        index: u64,
        made: String,
        higher: String,
        published: String,
    },
    #[error(
        "the level-0 tiles from {first} give the root {made}, not the checkpoint's {expected}"
    )]
    Root {
        first: String,
        made: String,
        expected: String,
    },
    #[error("{path}: node ({level}, {index}) is published as {published}, but the verified leaves make it {made}")]
    HigherTile {
        path: String,
        level: u32,
        index: u64,
        made: String,
        published: String,
    },
    #[error("no higher tile holds node ({level}, {index})")]
    MissingNode { level: u32, index: u64 },
    /// The signed tree does not pass through the held checkpoint: both are signed, a fork.
    #[error("the checkpoint of size {size} signs a tree that does not contain the held tree of size {held}")]
    NotExtending { held: u64, size: u64 },
}

fn b64(hash: &Hash) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(hash)
}

/// A node completed at a tile boundary while pushing, and the level-0 tile that completed it.
#[derive(Debug, Clone, Copy)]
struct Boundary {
    hash: Hash,
    completed_by: Tile,
    checked: bool,
}

/// The walk from the followed size to a new checkpoint's.
#[derive(Debug)]
pub struct TreeWalk {
    frontier: Frontier,
    held: Held,
    /// Whether the walk passed through the held checkpoint's root (unknown until it reaches it).
    through_held: Option<bool>,
    target: Checkpoint,
    boundaries: BTreeMap<(u32, u64), Boundary>,
    summaries: Vec<TileSummary>,
    first_tile: Option<Tile>,
    wrong_higher: Option<TreeProblem>,
}

/// What a walk established: the frontier at the checkpoint's size, and the verified roots of the
/// level-0 tiles of the range.
#[derive(Debug, Clone)]
pub struct WalkedTree {
    pub frontier: Frontier,
    pub summaries: Vec<TileSummary>,
}

/// The level-0 and higher tiles that hold the leaves from `from` to `size` and the nodes they
/// complete.
pub fn tiles_to_fetch(from: u64, size: u64) -> (Vec<Tile>, Vec<Tile>) {
    let tiles = dozor_log::tiles::tiles_between(from, size);
    let mut level0 = Vec::new();
    let mut higher = Vec::new();
    for tile in tiles {
        match tile.kind {
            TileKind::Hashes(0) => level0.push(tile),
            TileKind::Hashes(_) => higher.push(tile),
            TileKind::Entries => {}
        }
    }
    // The first leaves to push may sit in a tile the followed tree already partly covered, which
    // `tiles_between` leaves out when its width did not change: never, since the size grew.
    (level0, higher)
}

impl TreeWalk {
    /// A walk from `followed` (the frontier of the entries followed so far) to `target`, which
    /// must pass through `held` (the last verified checkpoint, at or after the followed size).
    pub fn new(followed: Frontier, held: Held, target: Checkpoint) -> TreeWalk {
        let through_held = (followed.size() == held.size).then(|| followed.root() == held.root);
        TreeWalk {
            frontier: followed,
            held,
            through_held,
            target,
            boundaries: BTreeMap::new(),
            summaries: Vec::new(),
            first_tile: None,
            wrong_higher: None,
        }
    }

    /// Pushes a level-0 tile's new leaves (the tiles in order, from the one holding the followed
    /// size); its leaves before that size must be those already verified.
    pub fn push_level0(&mut self, tile: &Tile, bytes: &[u8]) -> Result<(), TreeProblem> {
        let hashes = decode_hashes(tile, bytes).map_err(|e| TreeProblem::Unreadable {
            path: tile.path(),
            why: e.to_string(),
        })?;
        let start = tile.index * TILE_WIDTH;
        let size = self.frontier.size();
        if start > size || start + hashes.len() as u64 <= size {
            return Err(TreeProblem::Unreadable {
                path: tile.path(),
                why: format!("it does not continue the tree at leaf {size}"),
            });
        }
        let before = (size - start) as usize;
        check_prefix(&self.frontier, start, &hashes[..before]).map_err(|position| {
            TreeProblem::Rewritten {
                path: tile.path(),
                position,
            }
        })?;
        self.first_tile.get_or_insert(*tile);
        for hash in &hashes[before..] {
            for (level, index, node) in self.frontier.push(*hash) {
                if level % TILE_HEIGHT == 0 {
                    self.boundaries.insert(
                        (level, index),
                        Boundary {
                            hash: node,
                            completed_by: *tile,
                            checked: false,
                        },
                    );
                }
            }
            if self.frontier.size() == self.held.size {
                self.through_held = Some(self.frontier.root() == self.held.root);
            }
        }
        self.summaries.push(TileSummary {
            tile: *tile,
            from: start + before as u64,
            root: run_root(&hashes[before..]),
            last: hashes[hashes.len() - 1],
        });
        Ok(())
    }

    /// Compares a higher tile's hashes with the nodes the pushed leaves completed.
    pub fn check_higher(&mut self, tile: &Tile, bytes: &[u8]) -> Result<(), TreeProblem> {
        let hashes = decode_hashes(tile, bytes).map_err(|e| TreeProblem::Unreadable {
            path: tile.path(),
            why: e.to_string(),
        })?;
        let level = TILE_HEIGHT * u32::from(tile.level());
        for (position, published) in tile.positions().zip(&hashes) {
            let Some(boundary) = self.boundaries.get_mut(&(level, position)) else {
                continue;
            };
            boundary.checked = true;
            if boundary.hash != *published && self.wrong_higher.is_none() {
                let (made, published) = (b64(&boundary.hash), b64(published));
                // Which of the two is wrong is known once the root is: kept as both.
                self.wrong_higher = Some(TreeProblem::LeafTile {
                    path: boundary.completed_by.path(),
                    level,
                    index: position,
                    made: made.clone(),
                    higher: tile.path(),
                    published: published.clone(),
                });
            }
        }
        Ok(())
    }

    /// The end of the walk: the checkpoint's root reached, through the held one, every boundary
    /// node as published.
    pub fn finish(self) -> Result<WalkedTree, TreeProblem> {
        let root = self.frontier.root();
        if self.frontier.size() != self.target.size || root != self.target.root {
            // A wrong level-0 tile shows as a boundary node its higher tile disagrees with;
            // otherwise it is in the range no full higher tile covers.
            return Err(match self.wrong_higher {
                Some(wrong @ TreeProblem::LeafTile { .. }) => wrong,
                _ => TreeProblem::Root {
                    first: self
                        .first_tile
                        .map_or_else(|| "the followed size".to_owned(), |t| t.path()),
                    made: b64(&root),
                    expected: b64(&self.target.root),
                },
            });
        }
        if self.through_held != Some(true) {
            return Err(TreeProblem::NotExtending {
                held: self.held.size,
                size: self.target.size,
            });
        }
        // The leaves are right (the root says so): a disagreeing node is the higher tile's.
        if let Some(TreeProblem::LeafTile {
            level,
            index,
            made,
            higher,
            published,
            ..
        }) = self.wrong_higher
        {
            return Err(TreeProblem::HigherTile {
                path: higher,
                level,
                index,
                made,
                published,
            });
        }
        if let Some(((level, index), _)) = self.boundaries.iter().find(|(_, b)| !b.checked) {
            return Err(TreeProblem::MissingNode {
                level: *level,
                index: *index,
            });
        }
        Ok(WalkedTree {
            frontier: self.frontier,
            summaries: self.summaries,
        })
    }
}

#[cfg(test)]
mod tests;
