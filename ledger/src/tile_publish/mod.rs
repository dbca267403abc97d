//! Publishing the ledger as C2SP tlog-tiles to a folder any web server can serve: from the
//! size the folder's checkpoint holds to the latest signed checkpoint, tiles first and the
//! checkpoint last (docs/TILES.md). `thread` runs it beside the server.

pub mod error;
pub mod folder;
pub mod handoff;
pub mod partials;
pub mod thread;

use std::path::Path;
use std::sync::Arc;

use diesel::PgConnection;
use dozor_log::checkpoint::Checkpoint;
use dozor_log::tiles::{tiles_between, Tile, TileKind};

use crate::storage::tiles::{self as stored, PublishedCheckpoint};
use crate::storage::tree;
use error::PublishError;
use folder::{verdicts_path, Folder, Written, CHECKPOINT, MINIMUM_INDEX};
use handoff::{handed_tiles, Handoff};
use partials::{at_width, narrower_widths, prefix, Part};

/// What a publication did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    /// The ledger has no signed checkpoint yet.
    NoCheckpoint,
    /// The folder holds the latest checkpoint already, cosignatures and all.
    UpToDate { size: u64 },
    /// Only the checkpoint's cosignatures changed: the checkpoint file was replaced.
    Cosignatures { size: u64 },
    /// The folder grew from `from` to `to` entries (short of the latest checkpoint's `latest`
    /// when a long catch-up goes by steps).
    Grew {
        from: u64,
        to: u64,
        latest: u64,
        /// Files written (tiles, bundles, verdicts), and of them those already there.
        written: usize,
        kept: usize,
        /// Entry bundles written from what ingest handed over, not read from the database.
        handed: usize,
    },
}

impl Published {
    /// The size of the checkpoint the folder holds after the publication (0: none).
    pub fn size(&self) -> u64 {
        match self {
            Published::NoCheckpoint => 0,
            Published::UpToDate { size } | Published::Cosignatures { size } => *size,
            Published::Grew { to, .. } => *to,
        }
    }
}

/// The text of the `minimum-index` file (and of the API's answer): decimal and a newline.
pub fn minimum_index_text(minimum_index: u64) -> String {
    format!("{minimum_index}\n")
}

/// Entries a publication adds to the folder at most, if a signed checkpoint allows: a long
/// catch-up goes by steps, each visible (its checkpoint written) when it is done.
pub const STEP: u64 = 65_536;

/// Full files flushed to disk together (16 level-0 tiles with their bundles and verdicts).
const FLUSH_TOGETHER: usize = 48;

/// Publishes a ledger to one folder; remembers across publications whether it has swept the
/// folder of what an earlier run left behind.
#[derive(Debug)]
pub struct Publisher {
    folder: Folder,
    swept: bool,
    step: u64,
    /// What ingest's writer hands over as it commits, when the publisher runs beside it.
    handoff: Option<Arc<Handoff>>,
    /// Fail after this many tile files (tests of a publication stopped half-way).
    fail_after: Option<usize>,
}

impl Publisher {
    /// A publisher to `dir` (created if missing).
    pub fn new(dir: &Path) -> Result<Publisher, PublishError> {
        Ok(Publisher {
            folder: Folder::open(dir)?,
            swept: false,
            step: STEP,
            handoff: None,
            fail_after: None,
        })
    }

    /// Takes full entry bundles from what ingest's writer hands over where it can, instead of
    /// reading them back from the database.
    pub fn take_handed(&mut self, handoff: Arc<Handoff>) {
        self.handoff = Some(handoff);
    }

    /// Entries a publication adds at most, if a signed checkpoint allows (default [`STEP`]).
    pub fn set_step(&mut self, entries: u64) {
        self.step = entries.max(1);
    }

    #[cfg(any(test, feature = "testing"))]
    /// The next publications stop with [`PublishError::Injected`] after `files` tile files,
    /// before the checkpoint: what a crash half-way leaves.
    pub fn fail_after(&mut self, files: Option<usize>) {
        self.fail_after = files;
    }

    /// Publishes up to the latest signed checkpoint.
    pub fn publish(&mut self, conn: &mut PgConnection) -> Result<Published, PublishError> {
        let _held = self.folder.lock()?;
        let Some(latest) = stored::published_checkpoint(conn)? else {
            return Ok(Published::NoCheckpoint);
        };
        let there = self.folder.read_text(CHECKPOINT)?;
        let outcome = if there.as_deref() == Some(latest.text.as_str()) {
            // What a server polling every second mostly finds: nothing more to read.
            Published::UpToDate { size: latest.size }
        } else {
            let from = match &there {
                None => 0,
                Some(text) => self.folder_size(conn, text, &latest)?,
            };
            if from == latest.size {
                self.write_checkpoint(&latest)?;
                Published::Cosignatures { size: from }
            } else if latest.size - from > self.step {
                let step = stored::published_checkpoint_between(conn, from, from + self.step)?;
                self.grow(conn, from, step.as_ref().unwrap_or(&latest), latest.size)?
            } else {
                self.grow(conn, from, &latest, latest.size)?
            }
        };
        if !self.swept {
            self.folder.sweep()?;
            self.swept = true;
        }
        Ok(outcome)
    }

    /// The size of the folder's checkpoint `text`, checked to be of this ledger: not beyond its
    /// latest checkpoint, and its root the ledger's at that size.
    fn folder_size(
        &self,
        conn: &mut PgConnection,
        text: &str,
        latest: &PublishedCheckpoint,
    ) -> Result<u64, PublishError> {
        let path = self.folder.root().join(CHECKPOINT);
        let there = Checkpoint::parse(text).map_err(|e| {
            PublishError::Folder(format!("{} is not a checkpoint: {e}", path.display()))
        })?;
        if there.size > latest.size {
            return Err(PublishError::Folder(format!(
                "{} is of {} entries, beyond the ledger's latest checkpoint of {}: was the ledger rolled back, or is the folder another ledger's?",
                path.display(),
                there.size,
                latest.size
            )));
        }
        let root = tree::root(conn, there.size).map_err(crate::error::LedgerError::from)?;
        if root != there.root {
            return Err(PublishError::Folder(format!(
                "{} is of a tree of {} entries with another root than this ledger's: the folder is another ledger's",
                path.display(),
                there.size
            )));
        }
        Ok(there.size)
    }

    /// Writes the tiles from `from` to the size of checkpoint `target` (the latest, of size
    /// `latest`, or a step towards it), then the minimum index, then the checkpoint, then
    /// removes the partial tiles no longer needed.
    fn grow(
        &mut self,
        conn: &mut PgConnection,
        from: u64,
        target: &PublishedCheckpoint,
        latest: u64,
    ) -> Result<Published, PublishError> {
        let size = target.size;
        let minimum = stored::minimum_index_at(conn, size)?;
        let tiles = tiles_between(from, size);
        // The checkpoints signed since the last publication: their partial tiles too.
        let signed = stored::checkpoint_sizes_between(conn, from, size)?;
        let (mut written, mut kept) = (0, 0);
        let mut read_ahead = BundlesRead {
            handoff: self.handoff.clone(),
            ..BundlesRead::default()
        };
        for tile in &tiles {
            // Entry bundles are written with their level-0 tile.
            if tile.kind == TileKind::Entries {
                continue;
            }
            let bundle = read_ahead.take(conn, &tiles, tile, (size, minimum))?;
            let files = self.write_tile(conn, tile, (size, &signed), bundle)?;
            written += files.len();
            kept += files.iter().filter(|f| **f == Written::Same).count();
            if self.folder.staged() >= FLUSH_TOGETHER {
                self.folder.commit()?;
            }
            if self.fail_after.is_some_and(|n| written >= n) {
                // What was written is on disk, as a crash after it would leave it.
                self.folder.commit()?;
                return Err(PublishError::Injected(written));
            }
        }
        self.folder.commit()?;
        let minimum_text = minimum_index_text(minimum);
        if self.folder.read_text(MINIMUM_INDEX)?.as_deref() != Some(minimum_text.as_str()) {
            self.folder
                .replace(MINIMUM_INDEX, minimum_text.as_bytes())?;
        }
        self.folder.sync()?;
        self.write_checkpoint(target)?;
        for tile in &tiles {
            self.folder.remove_partials_beside(tile)?;
        }
        Ok(Published::Grew {
            from,
            to: size,
            latest,
            written,
            kept,
            handed: read_ahead.handed,
        })
    }

    /// Writes hash tile `tile` of the tree of `size`, a level-0 one with its entry bundle and
    /// verdicts when they were read (`bundle`; not for archived entries): once if full; if
    /// partial, replaced, with the narrower partials of the checkpoints `signed` since the last
    /// publication.
    fn write_tile(
        &mut self,
        conn: &mut PgConnection,
        tile: &Tile,
        (size, signed): (u64, &[u64]),
        bundle: Option<stored::EntryTiles>,
    ) -> Result<Vec<Written>, PublishError> {
        let files = match bundle {
            Some(read) => vec![
                (Part::Hashes, read.hashes),
                (Part::Bundle, read.bundle),
                (Part::Verdicts, read.verdicts),
            ],
            None => vec![(Part::Hashes, stored::read_tile(conn, tile, size)?)],
        };
        if tile.is_full() {
            return files
                .iter()
                .map(|(part, bytes)| {
                    let staged = self.folder.stage_once(&file_name(tile, *part), bytes)?;
                    Ok(staged.unwrap_or(Written::New))
                })
                .collect();
        }
        let mut written = Vec::new();
        for width in narrower_widths(tile, signed) {
            for (part, bytes) in &files {
                let narrower = at_width(tile, *part, width);
                let cut = prefix(*part, bytes, width).ok_or_else(|| {
                    PublishError::Folder(format!("{} is narrower than {width}", tile.path()))
                })?;
                self.folder.replace(&file_name(&narrower, *part), cut)?;
                written.push(Written::New);
            }
        }
        for (part, bytes) in &files {
            self.folder.replace(&file_name(tile, *part), bytes)?;
            written.push(Written::New);
        }
        Ok(written)
    }

    /// Replaces the checkpoint, flushed, and flushes the folder that names it.
    fn write_checkpoint(&mut self, latest: &PublishedCheckpoint) -> Result<(), PublishError> {
        self.folder.replace(CHECKPOINT, latest.text.as_bytes())?;
        self.folder.sync()
    }
}

/// How many consecutive bundles are read in one query.
const BUNDLES_READ_TOGETHER: usize = 16;

/// The bundles of the level-0 tiles of a publication, read [`BUNDLES_READ_TOGETHER`] at a
/// time ahead of the tile being written.
#[derive(Default)]
struct BundlesRead {
    ahead: std::collections::VecDeque<(Tile, stored::EntryTiles)>,
    handoff: Option<Arc<Handoff>>,
    /// Bundles taken from the hand-off.
    handed: usize,
}

impl BundlesRead {
    /// The bundle beside `tile` (a level-0 tile of `tiles`, in order) when it is published:
    /// read with the bundles of the level-0 tiles after it unless it was read already. None
    /// for a higher tile, or a level-0 one of archived entries (below `minimum`).
    fn take(
        &mut self,
        conn: &mut PgConnection,
        tiles: &[Tile],
        tile: &Tile,
        (size, minimum): (u64, u64),
    ) -> Result<Option<stored::EntryTiles>, PublishError> {
        let with_bundle =
            |t: &Tile| t.kind == TileKind::Hashes(0) && t.entry_range().start >= minimum;
        if !with_bundle(tile) {
            return Ok(None);
        }
        if self.ahead.front().is_none_or(|(t, _)| t != tile) {
            let bundles: Vec<Tile> = tiles
                .iter()
                .skip_while(|t| *t != tile)
                .take_while(|t| with_bundle(t))
                .take(BUNDLES_READ_TOGETHER)
                .map(|t| Tile {
                    kind: TileKind::Entries,
                    ..*t
                })
                .collect();
            let read = self.read(conn, &bundles, size)?;
            self.ahead = bundles
                .iter()
                .map(|b| Tile {
                    kind: TileKind::Hashes(0),
                    ..*b
                })
                .zip(read)
                .collect();
        }
        Ok(self.ahead.pop_front().map(|(_, read)| read))
    }

    /// The files of consecutive `bundles`: those handed over whole, and the others read from
    /// the database, each run of them in one query.
    fn read(
        &mut self,
        conn: &mut PgConnection,
        bundles: &[Tile],
        size: u64,
    ) -> Result<Vec<stored::EntryTiles>, PublishError> {
        let mut handed = match &self.handoff {
            Some(handoff) => handed_tiles(handoff, conn, bundles)?,
            None => bundles.iter().map(|_| None).collect(),
        };
        let mut read = Vec::with_capacity(bundles.len());
        let mut at = 0;
        while at < bundles.len() {
            if let Some(tiles) = handed[at].take() {
                read.push(tiles);
                self.handed += 1;
                at += 1;
                continue;
            }
            let run = handed[at..].iter().take_while(|t| t.is_none()).count();
            read.extend(stored::read_entry_tiles_run(
                conn,
                &bundles[at..at + run],
                size,
            )?);
            at += run;
        }
        Ok(read)
    }
}

/// The name in the folder of the file of `part` beside hash tile `tile` (or of `tile` itself).
fn file_name(tile: &Tile, part: Part) -> String {
    let beside = at_width(tile, part, tile.width);
    match part {
        Part::Hashes | Part::Bundle => beside.path(),
        Part::Verdicts => verdicts_path(&beside),
    }
}
