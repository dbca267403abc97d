//! Where an export is read from, as an inspector holds it: its folder, the folder its ZIP was
//! unpacked into, or the ZIP itself as downloaded (unpacked here into a temporary folder that
//! goes when the verification is done). A path that is none of these is the caller's mistake,
//! told apart from an export that fails verification.

use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use crate::format::{EXPORT_JSON, MANIFEST};

/// Why a path cannot be read as an export: the command was given the wrong thing, nothing is
/// known about the export itself.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{0}: no such file or folder")]
    Missing(PathBuf),
    #[error("{0}: {1}")]
    NotAnExport(PathBuf, String),
    #[error("{0}: cannot be read: {1}")]
    Unreadable(PathBuf, std::io::Error),
}

/// An export found where it was given: [`ExportSource::dir`] is its folder. A ZIP's temporary
/// folder is removed when this is dropped.
#[derive(Debug)]
pub struct ExportSource {
    dir: PathBuf,
    unpacked_into: Option<PathBuf>,
}

impl ExportSource {
    /// The export's folder (the one holding MANIFEST).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the export was given as a ZIP (and unpacked to be read).
    pub fn was_zip(&self) -> bool {
        self.unpacked_into.is_some()
    }
}

impl Drop for ExportSource {
    fn drop(&mut self) {
        if let Some(dir) = &self.unpacked_into {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Finds the export `path` names: a folder holding MANIFEST, a folder holding exactly one such
/// folder (where a ZIP was unpacked), or a ZIP of either.
pub fn locate_export(path: &Path) -> Result<ExportSource, SourceError> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SourceError::Missing(path.to_path_buf()),
        _ => SourceError::Unreadable(path.to_path_buf(), e),
    })?;
    if meta.is_dir() {
        return export_folder(path).map(|dir| ExportSource {
            dir,
            unpacked_into: None,
        });
    }
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut magic))
        .map_err(|e| SourceError::Unreadable(path.to_path_buf(), e))?;
    if read < 4 || &magic[..2] != b"PK" {
        return Err(SourceError::NotAnExport(
            path.to_path_buf(),
            "a file that is not a ZIP: give the export's folder or its ZIP as downloaded".into(),
        ));
    }
    unzip(path)
}

/// Whether `dir` is an export's folder (or what is left of one: a verification says what is
/// wrong with it).
fn is_export(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file() || dir.join(EXPORT_JSON).is_file()
}

/// The export folder at `dir` or, where a ZIP was unpacked, the one folder inside it.
fn export_folder(dir: &Path) -> Result<PathBuf, SourceError> {
    if is_export(dir) {
        return Ok(dir.to_path_buf());
    }
    let unreadable = |e| SourceError::Unreadable(dir.to_path_buf(), e);
    let mut inside = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        inside.push(entry.map_err(unreadable)?.path());
    }
    match inside.as_slice() {
        [only] if only.is_dir() && is_export(only) => Ok(only.clone()),
        _ => Err(SourceError::NotAnExport(
            dir.to_path_buf(),
            format!("a folder without {MANIFEST} (nor one export folder inside it): not an inspection export"),
        )),
    }
}

/// Unpacks the ZIP at `path` into a new temporary folder and finds the export in it. Only
/// plain files and folders are unpacked, each inside that folder.
fn unzip(path: &Path) -> Result<ExportSource, SourceError> {
    let not_export = |why: String| SourceError::NotAnExport(path.to_path_buf(), why);
    let file =
        std::fs::File::open(path).map_err(|e| SourceError::Unreadable(path.to_path_buf(), e))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| not_export(format!("not a readable ZIP: {e}")))?;
    let into = temporary_folder().map_err(|e| SourceError::Unreadable(path.to_path_buf(), e))?;
    // Removed on any failure below, as on success once the caller is done.
    let mut source = ExportSource {
        dir: into.clone(),
        unpacked_into: Some(into.clone()),
    };
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| not_export(format!("not a readable ZIP: {e}")))?;
        let name = entry.name().to_owned();
        let relative = entry
            .enclosed_name()
            .filter(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
            .ok_or_else(|| not_export(format!("holds `{name}`, a path outside its folder")))?;
        let target = into.join(&relative);
        let io = |e| SourceError::Unreadable(target.clone(), e);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(io)?;
            continue;
        }
        if !entry.is_file() {
            return Err(not_export(format!("holds `{name}`, which is not a file")));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut out = std::fs::File::create_new(&target).map_err(io)?;
        std::io::copy(&mut entry, &mut out)
            .map_err(|e| not_export(format!("`{name}` cannot be unpacked: {e}")))?;
    }
    source.dir = export_folder(&into).map_err(|_| {
        not_export(format!(
            "a ZIP without {MANIFEST} (nor one export folder inside it): not an inspection export"
        ))
    })?;
    Ok(source)
}

/// A new, empty folder under the system's temporary directory (`TMPDIR`).
fn temporary_folder() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for attempt in 0..100u32 {
        let dir = base.join(format!(
            "dozor-verify-{}-{nanos}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "no new temporary folder could be made",
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write as _;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn a_folder_its_parent_and_its_zip_all_give_the_export_folder() {
        let dir = tempfile::tempdir().unwrap();
        let export = dir.path().join("dozor-export-2026-11-01-2026-11-30");
        std::fs::create_dir_all(export.join("reports")).unwrap();
        std::fs::write(export.join(MANIFEST), "m").unwrap();
        assert_eq!(locate_export(&export).unwrap().dir(), export);
        assert_eq!(locate_export(dir.path()).unwrap().dir(), export);

        let zip = dir.path().join("export.zip");
        let bytes = zip_of(&[("x/MANIFEST", b"m"), ("x/reports/daily.csv", b"a;b")]);
        std::fs::write(&zip, bytes).unwrap();
        let source = locate_export(&zip).unwrap();
        assert!(source.was_zip());
        let unpacked = source.dir().to_path_buf();
        assert!(unpacked.ends_with("x"), "{unpacked:?}");
        assert_eq!(
            std::fs::read(unpacked.join("reports/daily.csv")).unwrap(),
            b"a;b"
        );
        drop(source);
        assert!(!unpacked.exists(), "the unpacked folder is removed");
    }

    #[test]
    fn a_wrong_path_is_told_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let missing = locate_export(&dir.path().join("nothing")).unwrap_err();
        assert!(matches!(missing, SourceError::Missing(_)), "{missing}");
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello").unwrap();
        let e = locate_export(&text).unwrap_err().to_string();
        assert!(e.contains("a file that is not a ZIP"), "{e}");
        let e = locate_export(dir.path()).unwrap_err().to_string();
        assert!(e.contains("a folder without MANIFEST"), "{e}");
        let zip = dir.path().join("other.zip");
        std::fs::write(&zip, zip_of(&[("a/readme.txt", b"r")])).unwrap();
        let e = locate_export(&zip).unwrap_err().to_string();
        assert!(e.contains("a ZIP without MANIFEST"), "{e}");
        let evil = dir.path().join("evil.zip");
        std::fs::write(&evil, zip_of(&[("../escaped", b"x")])).unwrap();
        let e = locate_export(&evil).unwrap_err().to_string();
        assert!(e.contains("a path outside its folder"), "{e}");
        assert!(!dir.path().parent().unwrap().join("escaped").exists());
    }
}
