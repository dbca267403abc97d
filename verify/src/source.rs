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

/// The most entries a ZIP may hold to be unpacked: an export holds a file per report and per
/// ledger segment, far fewer than this.
const MAX_ZIP_ENTRIES: usize = 1_000_000;

/// The most bytes a ZIP may unpack to (16 GiB): an export is made by the inspected casino, and
/// one over this bound is refused before it fills the inspector's disk.
const MAX_ZIP_BYTES: u64 = 16 << 30;

/// How much a ZIP may hold to be unpacked.
#[derive(Debug, Clone, Copy)]
struct ZipLimits {
    entries: usize,
    bytes: u64,
}

/// An export found where it was given: [`ExportSource::dir`] is its folder. A ZIP's temporary
/// folder is removed when this is dropped.
#[derive(Debug)]
pub struct ExportSource {
    dir: PathBuf,
    unpacked_into: Option<tempfile::TempDir>,
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
    unzip(
        path,
        ZipLimits {
            entries: MAX_ZIP_ENTRIES,
            bytes: MAX_ZIP_BYTES,
        },
    )
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

/// `bytes` as people read a limit: whole gibibytes as such, anything else in bytes.
fn size(bytes: u64) -> String {
    const GIB: u64 = 1 << 30;
    if bytes >= GIB && bytes.is_multiple_of(GIB) {
        format!("{} GiB", bytes / GIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Unpacks the ZIP at `path` into a new temporary folder and finds the export in it. Only
/// plain files and folders are unpacked, each inside that folder, and no more than `limits`
/// allow: the sizes the ZIP declares are checked before anything is written, the bytes
/// actually unpacked as they are written.
fn unzip(path: &Path, limits: ZipLimits) -> Result<ExportSource, SourceError> {
    let not_export = |why: String| SourceError::NotAnExport(path.to_path_buf(), why);
    let too_large = || {
        not_export(format!(
            "a ZIP that unpacks to more than {}, the most an export is unpacked to: refused",
            size(limits.bytes)
        ))
    };
    let file =
        std::fs::File::open(path).map_err(|e| SourceError::Unreadable(path.to_path_buf(), e))?;
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| not_export(format!("not a readable ZIP: {e}")))?;
    if archive.len() > limits.entries {
        return Err(not_export(format!(
            "a ZIP of {} entries, more than the {} an export may hold: refused",
            archive.len(),
            limits.entries
        )));
    }
    let mut declared = 0u64;
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| not_export(format!("not a readable ZIP: {e}")))?;
        declared = declared
            .checked_add(entry.size())
            .filter(|&total| total <= limits.bytes)
            .ok_or_else(too_large)?;
    }
    let folder = tempfile::Builder::new()
        .prefix("dozor-verify-")
        .tempdir()
        .map_err(|e| SourceError::Unreadable(path.to_path_buf(), e))?;
    let into = folder.path().to_path_buf();
    // Removed on any failure below, as on success once the caller is done.
    let mut source = ExportSource {
        dir: into.clone(),
        unpacked_into: Some(folder),
    };
    let mut written = 0u64;
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
        // One byte past what is left tells an entry that overruns the limit from one that
        // fills it exactly; `written` never exceeds `limits.bytes` here.
        let remaining = limits.bytes - written;
        let copied = std::io::copy(
            &mut (&mut entry).take(remaining.saturating_add(1)),
            &mut out,
        )
        .map_err(|e| not_export(format!("`{name}` cannot be unpacked: {e}")))?;
        if copied > remaining {
            return Err(too_large());
        }
        written += copied;
    }
    source.dir = export_folder(&into).map_err(|_| {
        not_export(format!(
            "a ZIP without {MANIFEST} (nor one export folder inside it): not an inspection export"
        ))
    })?;
    Ok(source)
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

    fn write_zip(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let zip = dir.join(name);
        std::fs::write(&zip, bytes).unwrap();
        zip
    }

    #[test]
    fn a_zip_over_the_byte_limit_is_refused_and_one_at_it_unpacked() {
        let dir = tempfile::tempdir().unwrap();
        // 1 + 4 + 5 = 10 bytes unpacked.
        let zip = write_zip(
            dir.path(),
            "export.zip",
            &zip_of(&[
                ("x/MANIFEST", b"m"),
                ("x/a.csv", b"a;b\n"),
                ("x/b.csv", b"c;d;e"),
            ]),
        );
        let at = |bytes| ZipLimits { entries: 10, bytes };
        let source = unzip(&zip, at(10)).unwrap();
        assert_eq!(std::fs::read(source.dir().join("b.csv")).unwrap(), b"c;d;e");
        drop(source);
        let e = unzip(&zip, at(9)).unwrap_err();
        assert!(matches!(e, SourceError::NotAnExport(..)), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("unpacks to more than 9 bytes"), "{e}");
        assert!(e.starts_with(&zip.display().to_string()), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert_eq!(size(MAX_ZIP_BYTES), "16 GiB");
    }

    #[test]
    fn a_zip_understating_its_sizes_is_stopped_while_unpacking() {
        let dir = tempfile::tempdir().unwrap();
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("x/MANIFEST", stored).unwrap();
        zip.write_all(&[b'm'; 100]).unwrap();
        let mut bytes = zip.finish().unwrap().into_inner();
        // The central directory's record (signature PK\x01\x02) holds the uncompressed size at
        // offset 24: declare 1 byte where 100 are stored, as a crafted export could.
        let record = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        bytes[record + 24..record + 28].copy_from_slice(&1u32.to_le_bytes());
        let zip = write_zip(dir.path(), "lying.zip", &bytes);
        let limits = ZipLimits {
            entries: 10,
            bytes: 50,
        };
        let e = unzip(&zip, limits).unwrap_err().to_string();
        assert!(e.contains("unpacks to more than 50 bytes"), "{e}");
    }

    #[test]
    fn a_zip_over_the_entry_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<(String, &[u8])> = (0..5)
            .map(|i| (format!("x/{i}.csv"), b"a".as_slice()))
            .chain([("x/MANIFEST".to_owned(), b"m".as_slice())])
            .collect();
        let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), *b)).collect();
        // 5 reports and MANIFEST: 6 entries.
        let zip = write_zip(dir.path(), "export.zip", &zip_of(&files));
        let at = |entries| ZipLimits {
            entries,
            bytes: 1 << 20,
        };
        assert!(unzip(&zip, at(6)).unwrap().dir().join("4.csv").is_file());
        let e = unzip(&zip, at(5)).unwrap_err();
        assert!(matches!(e, SourceError::NotAnExport(..)), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("a ZIP of 6 entries, more than the 5 an export may hold"),
            "{e}"
        );
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
