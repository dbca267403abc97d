//! The publish folder's files: written once (full tiles), replaced whole (partial tiles, the
//! checkpoint, the minimum index), flushed to disk before the checkpoint names them, and the
//! partial tiles a larger tree no longer needs removed (docs/TILES.md).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use dozor_log::tiles::{Tile, TileKind, TILE_HEIGHT, TILE_WIDTH};

use super::error::PublishError;

/// The name of the checkpoint's file.
pub const CHECKPOINT: &str = "checkpoint";
/// The name of the minimum index's file.
pub const MINIMUM_INDEX: &str = "minimum-index";
/// Where the verdict lines of entry bundles are, beside `tile/`.
const VERDICTS: &str = "verdicts/";
const ENTRIES: &str = "tile/entries/";
/// Temporary files start with this (hidden from a listing, never a tile's name).
const TEMPORARY: &str = ".tmp-";
/// The file a publication holds locked: one publication at a time (`serve`'s thread and
/// `dozor log publish-tiles` may share a folder).
const LOCK: &str = ".publish-lock";

/// The path of the verdict lines of an entry bundle: `verdicts/<N>[.p/<W>]`.
pub fn verdicts_path(bundle: &Tile) -> String {
    let path = bundle.path();
    format!(
        "{VERDICTS}{}",
        path.strip_prefix(ENTRIES).unwrap_or(path.as_str())
    )
}

/// What writing a file once found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    New,
    /// It was there already with these bytes.
    Same,
}

/// A publish folder being written: the folders whose entries changed since the last flush.
#[derive(Debug)]
pub struct Folder {
    root: PathBuf,
    touched: BTreeSet<PathBuf>,
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> PublishError + '_ {
    move |source| PublishError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Folder {
    /// The folder at `root`, created if missing.
    pub fn open(root: &Path) -> Result<Folder, PublishError> {
        fs::create_dir_all(root).map_err(io_error(root))?;
        Ok(Folder {
            root: root.to_path_buf(),
            touched: BTreeSet::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Waits until no other publication holds the folder, then holds it until the file given
    /// back is dropped.
    pub fn lock(&self) -> Result<File, PublishError> {
        let path = self.root.join(LOCK);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_error(&path))?;
        file.lock().map_err(io_error(&path))?;
        Ok(file)
    }

    /// The text of a small file of the folder (`checkpoint`, `minimum-index`), if it exists.
    pub fn read_text(&self, name: &str) -> Result<Option<String>, PublishError> {
        let path = self.root.join(name);
        match fs::read(&path) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| PublishError::Folder(format!("{} is not UTF-8 text", path.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path)(e)),
        }
    }

    /// A new temporary file beside `path` holding `bytes`, flushed to disk.
    fn temporary(
        &mut self,
        path: &Path,
        bytes: &[u8],
    ) -> Result<tempfile::NamedTempFile, PublishError> {
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        let mut file = tempfile::Builder::new()
            .prefix(TEMPORARY)
            .tempfile_in(&dir)
            .map_err(io_error(&dir))?;
        file.write_all(bytes).map_err(io_error(path))?;
        file.as_file().sync_all().map_err(io_error(path))?;
        self.touched.insert(dir);
        Ok(file)
    }

    /// Writes `name` once: created whole (written under a temporary name, then linked to its
    /// name, never replacing anything); a file already there is kept if it holds `bytes`, and is
    /// an error if it holds anything else.
    pub fn write_once(&mut self, name: &str, bytes: &[u8]) -> Result<Written, PublishError> {
        let path = self.root.join(name);
        if path.exists() {
            return self.same_bytes(&path, bytes);
        }
        let file = self.temporary(&path, bytes)?;
        match file.persist_noclobber(&path) {
            Ok(_) => Ok(Written::New),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
                self.same_bytes(&path, bytes)
            }
            Err(e) => Err(io_error(&path)(e.error)),
        }
    }

    fn same_bytes(&self, path: &Path, bytes: &[u8]) -> Result<Written, PublishError> {
        let there = fs::read(path).map_err(io_error(path))?;
        if there == bytes {
            Ok(Written::Same)
        } else {
            Err(PublishError::Conflict {
                path: path.to_path_buf(),
            })
        }
    }

    /// Replaces `name` whole: written under a temporary name and renamed over it.
    pub fn replace(&mut self, name: &str, bytes: &[u8]) -> Result<(), PublishError> {
        let path = self.root.join(name);
        let file = self.temporary(&path, bytes)?;
        file.persist(&path).map_err(|e| io_error(&path)(e.error))?;
        Ok(())
    }

    /// Flushes every folder whose entries changed to disk: the files written so far are there
    /// after a crash.
    pub fn sync(&mut self) -> Result<(), PublishError> {
        for dir in std::mem::take(&mut self.touched) {
            sync_dir(&dir)?;
            // A folder created for this publication is an entry of its parent.
            let mut parent = dir.parent();
            while let Some(p) = parent {
                if !p.starts_with(&self.root) {
                    break;
                }
                sync_dir(p)?;
                if p == self.root {
                    break;
                }
                parent = p.parent();
            }
        }
        Ok(())
    }

    /// Removes what a larger tree no longer needs beside `tile` (just published): the partial
    /// tiles of its index once it is full, the partials of other widths when it is partial.
    pub fn remove_partials_beside(&self, tile: &Tile) -> Result<(), PublishError> {
        let mut names = vec![tile.path()];
        if tile.kind == TileKind::Entries {
            names.push(verdicts_path(tile));
        }
        for name in names {
            let (dir, keep) = match name.split_once(".p/") {
                Some((stem, width)) => {
                    (self.root.join(format!("{stem}.p")), Some(width.to_owned()))
                }
                None => (self.root.join(format!("{name}.p")), None),
            };
            match keep {
                None => remove_dir(&dir)?,
                Some(width) => remove_files_but(&dir, &width)?,
            }
        }
        Ok(())
    }

    /// Removes every partial tile (and temporary file) a tree of `size` does not have: those a
    /// publication stopped before its clean-up left behind. Walks the whole folder.
    pub fn sweep(&self, size: u64) -> Result<(), PublishError> {
        for top in ["tile", "verdicts"] {
            let dir = self.root.join(top);
            if dir.is_dir() {
                self.sweep_dir(&dir, size)?;
            }
        }
        Ok(())
    }

    fn sweep_dir(&self, dir: &Path, size: u64) -> Result<(), PublishError> {
        for entry in fs::read_dir(dir).map_err(io_error(dir))? {
            let entry = entry.map_err(io_error(dir))?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(TEMPORARY) {
                remove_file(&path)?;
            } else if path.is_dir() && name.ends_with(".p") {
                for width in fs::read_dir(&path).map_err(io_error(&path))? {
                    let width = width.map_err(io_error(&path))?.path();
                    if !self.is_partial_of(&width, size) {
                        remove_file(&width)?;
                    }
                }
                let _ = fs::remove_dir(&path);
            } else if path.is_dir() {
                self.sweep_dir(&path, size)?;
            }
        }
        Ok(())
    }

    /// Whether the file at `path` is a partial tile (or its verdicts) of the tree of `size`.
    fn is_partial_of(&self, path: &Path, size: u64) -> bool {
        let Some(relative) = path.strip_prefix(&self.root).ok().and_then(Path::to_str) else {
            return false;
        };
        let as_tile = match relative.strip_prefix(VERDICTS) {
            Some(rest) => format!("{ENTRIES}{rest}"),
            None => relative.to_owned(),
        };
        Tile::parse(&as_tile).is_ok_and(|tile| edge_of(tile.kind, size) == Some(tile))
    }
}

/// The partial tile of `kind` at the edge of a tree of `size`, if it has one.
pub fn edge_of(kind: TileKind, size: u64) -> Option<Tile> {
    let level = match kind {
        TileKind::Hashes(level) => level,
        TileKind::Entries => 0,
    };
    let count = size
        .checked_shr(TILE_HEIGHT * u32::from(level))
        .unwrap_or(0);
    let width = count % TILE_WIDTH;
    (width > 0).then_some(Tile {
        kind,
        index: count / TILE_WIDTH,
        width: width as u16,
    })
}

fn sync_dir(dir: &Path) -> Result<(), PublishError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir))
}

fn remove_file(path: &Path) -> Result<(), PublishError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

fn remove_dir(dir: &Path) -> Result<(), PublishError> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_error(dir)(e)),
        _ => Ok(()),
    }
}

/// Removes the files of `dir` other than `keep`.
fn remove_files_but(dir: &Path, keep: &str) -> Result<(), PublishError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(dir)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io_error(dir))?;
        if entry.file_name().to_str() != Some(keep) {
            remove_file(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entries(index: u64, width: u16) -> Tile {
        Tile {
            kind: TileKind::Entries,
            index,
            width,
        }
    }

    #[test]
    fn verdicts_sit_beside_the_bundles_under_the_same_index() {
        assert_eq!(
            verdicts_path(&entries(1_234_067, 256)),
            "verdicts/x001/x234/067"
        );
        assert_eq!(verdicts_path(&entries(2, 5)), "verdicts/002.p/5");
    }

    #[test]
    fn the_edge_of_a_tree_is_its_partial_tile_at_each_level() {
        // 600 entries: 600 = 2·256 + 88 at level 0; 600 >> 8 = 2 hashes at level 1.
        assert_eq!(edge_of(TileKind::Entries, 600), Some(entries(2, 88)));
        assert_eq!(
            edge_of(TileKind::Hashes(1), 600),
            Some(Tile {
                kind: TileKind::Hashes(1),
                index: 0,
                width: 2
            })
        );
        assert_eq!(edge_of(TileKind::Hashes(0), 512), None);
        assert_eq!(edge_of(TileKind::Hashes(2), 600), None);
    }

    #[test]
    fn a_file_is_written_once_and_other_bytes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Folder::open(dir.path()).unwrap();
        assert_eq!(
            folder.write_once("tile/0/000", b"abc").unwrap(),
            Written::New
        );
        assert_eq!(
            folder.write_once("tile/0/000", b"abc").unwrap(),
            Written::Same
        );
        assert!(matches!(
            folder.write_once("tile/0/000", b"abd"),
            Err(PublishError::Conflict { .. })
        ));
        assert_eq!(fs::read(dir.path().join("tile/0/000")).unwrap(), b"abc");
        folder.sync().unwrap();
    }

    #[test]
    fn one_publication_holds_the_folder_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Folder::open(dir.path()).unwrap();
        let held = folder.lock().unwrap();
        let other = File::options()
            .write(true)
            .open(dir.path().join(LOCK))
            .unwrap();
        assert!(other.try_lock().is_err());
        drop(held);
        assert!(other.try_lock().is_ok());
    }

    #[test]
    fn partials_go_once_the_full_tile_or_a_wider_one_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Folder::open(dir.path()).unwrap();
        for name in [
            "tile/entries/000.p/3",
            "tile/entries/000.p/7",
            "verdicts/000.p/3",
        ] {
            folder.replace(name, b"x").unwrap();
        }
        folder.remove_partials_beside(&entries(0, 7)).unwrap();
        assert!(!dir.path().join("tile/entries/000.p/3").exists());
        assert!(dir.path().join("tile/entries/000.p/7").exists());
        assert!(!dir.path().join("verdicts/000.p/3").exists());
        folder.remove_partials_beside(&entries(0, 256)).unwrap();
        assert!(!dir.path().join("tile/entries/000.p").exists());
        // A sweep keeps only the edge of the tree it is told of: 256 + 9 entries.
        for name in [
            "tile/0/001.p/4",
            "tile/0/001.p/9",
            "tile/0/000.p/5",
            "tile/0/.tmp-x",
        ] {
            folder.replace(name, b"x").unwrap();
        }
        folder.sweep(265).unwrap();
        assert!(dir.path().join("tile/0/001.p/9").exists());
        assert!(!dir.path().join("tile/0/001.p/4").exists());
        assert!(!dir.path().join("tile/0/000.p").exists());
        assert!(!dir.path().join("tile/0/.tmp-x").exists());
    }
}
