//! The publish folder's files: written once (full tiles), replaced whole (partial tiles, the
//! checkpoint, the minimum index), flushed to disk before the checkpoint names them, and the
//! partial tiles a larger tree no longer needs removed (docs/TILES.md).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use dozor_log::tiles::{Tile, TileKind};

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
    /// Files written once, waiting under a temporary name to be flushed and linked.
    staged: Vec<Staged>,
}

/// A file to write once, written under a temporary name, not yet flushed nor linked.
#[derive(Debug)]
struct Staged {
    file: tempfile::NamedTempFile,
    path: PathBuf,
}

/// Threads that flush staged files at once: the disk's journal commits them together.
const FLUSHERS: usize = 8;

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> PublishError + '_ {
    move |error| PublishError::Io {
        path: path.to_path_buf(),
        error,
    }
}

impl Folder {
    /// The folder at `root`, created if missing, and its lock file (so a folder that cannot be
    /// written is refused here, not at the first publication).
    pub fn open(root: &Path) -> Result<Folder, PublishError> {
        fs::create_dir_all(root).map_err(io_error(root))?;
        let lock = root.join(LOCK);
        lock_file(&lock).map_err(io_error(&lock))?;
        Ok(Folder {
            root: root.to_path_buf(),
            touched: BTreeSet::new(),
            staged: Vec::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Waits until no other publication holds the folder, then holds it until the file given
    /// back is dropped.
    pub fn lock(&self) -> Result<File, PublishError> {
        let path = self.root.join(LOCK);
        let file = lock_file(&path).map_err(io_error(&path))?;
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

    /// A new temporary file beside `path` holding `bytes` (not flushed).
    fn unflushed(
        &mut self,
        path: &Path,
        bytes: &[u8],
    ) -> Result<tempfile::NamedTempFile, PublishError> {
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        self.touch_parents_of_missing(&dir);
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        let mut file = tempfile::Builder::new()
            .prefix(TEMPORARY)
            .tempfile_in(&dir)
            .map_err(io_error(&dir))?;
        file.write_all(bytes).map_err(io_error(path))?;
        self.touched.insert(dir);
        Ok(file)
    }

    /// A new temporary file beside `path` holding `bytes`, flushed to disk.
    fn temporary(
        &mut self,
        path: &Path,
        bytes: &[u8],
    ) -> Result<tempfile::NamedTempFile, PublishError> {
        let file = self.unflushed(path, bytes)?;
        file.as_file().sync_all().map_err(io_error(path))?;
        Ok(file)
    }

    /// Writes `name` once: created whole (written under a temporary name, flushed, then linked
    /// to its name, never replacing anything); a file already there is kept if it holds
    /// `bytes`, and is an error if it holds anything else.
    pub fn write_once(&mut self, name: &str, bytes: &[u8]) -> Result<Written, PublishError> {
        let staged = self.stage_once(name, bytes)?;
        let linked = self.commit()?;
        Ok(staged.unwrap_or(if linked == 1 {
            Written::New
        } else {
            Written::Same
        }))
    }

    /// [`Folder::write_once`] with the flush and the link left to [`Folder::commit`], for
    /// several files at once; what is known now (`Same` for a file there with these bytes).
    pub fn stage_once(
        &mut self,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<Written>, PublishError> {
        let path = self.root.join(name);
        if path.exists() {
            return self.same_bytes(&path, bytes).map(Some);
        }
        let file = self.unflushed(&path, bytes)?;
        self.staged.push(Staged { file, path });
        Ok(None)
    }

    /// Files staged and not yet committed.
    pub fn staged(&self) -> usize {
        self.staged.len()
    }

    /// Flushes the staged files to disk, several at once, then links each to its name; how
    /// many were linked (a file there by then with the same bytes is kept, with others an
    /// error).
    pub fn commit(&mut self) -> Result<usize, PublishError> {
        let staged = std::mem::take(&mut self.staged);
        flush_all(&staged)?;
        let mut linked = 0;
        for Staged { file, path } in staged {
            match file.persist_noclobber(&path) {
                Ok(_) => linked += 1,
                Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => {
                    let bytes = fs::read(e.file.path()).map_err(io_error(&path))?;
                    self.same_bytes(&path, &bytes)?;
                }
                Err(e) => return Err(io_error(&path)(e.error)),
            }
        }
        Ok(linked)
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

    /// Marks as touched the parent of each folder on the way to `dir` that is not there yet: a
    /// folder created is an entry of its parent. Folders already there are not flushed again,
    /// since each flush of a folder is a flush of the disk that PostgreSQL's commits wait behind.
    fn touch_parents_of_missing(&mut self, dir: &Path) {
        let mut missing = Some(dir);
        while let Some(folder) = missing.filter(|d| d.starts_with(&self.root) && !d.is_dir()) {
            missing = folder.parent();
            if let Some(parent) = missing {
                self.touched.insert(parent.to_path_buf());
            }
        }
    }

    /// Flushes every folder whose entries changed to disk, each once: the files written so far
    /// are there after a crash.
    pub fn sync(&mut self) -> Result<(), PublishError> {
        for dir in std::mem::take(&mut self.touched) {
            sync_dir(&dir)?;
        }
        Ok(())
    }

    /// Removes the partial tiles of `tile`'s index (and of its bundle and verdicts) once it is
    /// full: tlog-tiles lets a log delete them then, and not before (a partial tile of every
    /// signed checkpoint is kept until the full tile is there).
    pub fn remove_partials_beside(&self, tile: &Tile) -> Result<(), PublishError> {
        if !tile.is_full() {
            return Ok(());
        }
        let mut names = vec![tile.path()];
        if tile.kind == TileKind::Entries {
            names.push(verdicts_path(tile));
        }
        for name in names {
            remove_dir(&self.root.join(format!("{name}.p")))?;
        }
        Ok(())
    }

    /// Removes what a publication stopped before its clean-up left behind: temporary files, and
    /// the partial tiles of an index whose full tile is there. Walks the whole folder.
    pub fn sweep(&self) -> Result<(), PublishError> {
        for top in ["tile", "verdicts"] {
            let dir = self.root.join(top);
            if dir.is_dir() {
                sweep_dir(&dir)?;
            }
        }
        Ok(())
    }
}

fn sweep_dir(dir: &Path) -> Result<(), PublishError> {
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(TEMPORARY) {
            remove_file(&path)?;
        } else if let Some(full) = name.strip_suffix(".p") {
            if dir.join(full).is_file() {
                remove_dir(&path)?;
            } else {
                sweep_dir(&path)?;
            }
        } else if path.is_dir() {
            sweep_dir(&path)?;
        }
    }
    Ok(())
}

/// The lock file, created if missing.
fn lock_file(path: &Path) -> io::Result<File> {
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

/// Flushes `staged` to disk, up to [`FLUSHERS`] files at a time.
fn flush_all(staged: &[Staged]) -> Result<(), PublishError> {
    let chunk = staged.len().div_ceil(FLUSHERS).max(1);
    std::thread::scope(|scope| {
        let flushers: Vec<_> = staged
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .try_for_each(|s| s.file.as_file().sync_all().map_err(io_error(&s.path)))
                })
            })
            .collect();
        for flusher in flushers {
            flusher
                .join()
                .map_err(|_| PublishError::Folder("a thread flushing tiles panicked".into()))??;
        }
        Ok(())
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
    fn partials_go_once_the_full_tile_is_there_and_not_before() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Folder::open(dir.path()).unwrap();
        let names = [
            "tile/entries/000.p/3",
            "tile/entries/000.p/7",
            "verdicts/000.p/3",
        ];
        for name in names {
            folder.replace(name, b"x").unwrap();
        }
        // A wider partial: the narrower ones stay (a reader may hold their checkpoints).
        folder.remove_partials_beside(&entries(0, 7)).unwrap();
        assert!(names.iter().all(|n| dir.path().join(n).exists()));
        folder.remove_partials_beside(&entries(0, 256)).unwrap();
        assert!(!dir.path().join("tile/entries/000.p").exists());
        assert!(!dir.path().join("verdicts/000.p").exists());
        // A sweep removes temporary files and the partials of a full tile, nothing else.
        for name in ["tile/0/001.p/4", "tile/0/000.p/5", "tile/0/.tmp-x"] {
            folder.replace(name, b"x").unwrap();
        }
        folder.replace("tile/0/000", b"full").unwrap();
        folder.sweep().unwrap();
        assert!(dir.path().join("tile/0/001.p/4").exists());
        assert!(!dir.path().join("tile/0/000.p").exists());
        assert!(dir.path().join("tile/0/000").exists());
        assert!(!dir.path().join("tile/0/.tmp-x").exists());
    }
}
