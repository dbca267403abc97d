//! The export's files as they are written: each hashed for the manifest, the large ones
//! streamed, and all of them made durable before the export is reported written.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use dozor_verify::format as fmt;
use sha2::Digest as _;

use super::error::ExportError;

pub(super) struct Writer {
    dir: PathBuf,
    sums: BTreeMap<String, String>,
}

impl Writer {
    /// Creates `dir`, which must not exist or be empty.
    pub(super) fn create(dir: &Path) -> Result<Writer, ExportError> {
        if dir.exists()
            && std::fs::read_dir(dir)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true)
        {
            return Err(ExportError::NotEmpty(dir.to_path_buf()));
        }
        std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Writer {
            dir: dir.to_path_buf(),
            sums: BTreeMap::new(),
        })
    }

    /// The export's folder.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the manifest of every file written and makes them all durable; how many files
    /// the export holds, the manifest included.
    pub(super) fn finish(self) -> Result<usize, ExportError> {
        let mut manifest = Vec::new();
        for (path, sum) in &self.sums {
            let _ = writeln!(manifest, "{sum}  {path}");
        }
        let path = self.dir.join(fmt::MANIFEST);
        std::fs::write(&path, manifest).map_err(|source| ExportError::Io { path, source })?;
        let written: Vec<&str> = self.sums.keys().map(String::as_str).collect();
        make_durable(&self.dir, written.iter().copied().chain([fmt::MANIFEST]))?;
        Ok(self.sums.len() + 1)
    }

    pub(super) fn file(&mut self, name: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ExportError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, bytes).map_err(|source| ExportError::Io { path, source })?;
        self.sums.insert(name.to_owned(), fmt::sha256_hex(bytes));
        Ok(())
    }

    /// A large file written a piece at a time: `fill` gets a sink to write into.
    pub(super) fn stream(
        &mut self,
        name: &str,
        fill: impl FnOnce(&mut StreamSink) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        let path = self.dir.join(name);
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        let mut sink = StreamSink {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: sha2::Sha256::new(),
            path: path.clone(),
        };
        fill(&mut sink)?;
        sink.out
            .flush()
            .map_err(|source| ExportError::Io { path, source })?;
        self.sums
            .insert(name.to_owned(), hex::encode(sink.hasher.finalize()));
        Ok(())
    }

    pub(super) fn json(
        &mut self,
        name: &str,
        value: &impl serde::Serialize,
    ) -> Result<(), ExportError> {
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        self.file(name, &bytes)
    }
}

/// Where a streamed file goes: written and hashed as it is filled.
pub(super) struct StreamSink {
    out: std::io::BufWriter<std::fs::File>,
    hasher: sha2::Sha256,
    path: PathBuf,
}

impl StreamSink {
    pub(super) fn line(&mut self, bytes: &[u8]) -> Result<(), ExportError> {
        use sha2::Digest as _;
        self.hasher.update(bytes);
        self.hasher.update(b"\n");
        self.out
            .write_all(bytes)
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|source| ExportError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

/// Flushes the files and their directories to disk, so that an export reported as written
/// survives a crash.
fn make_durable<'a>(dir: &Path, files: impl Iterator<Item = &'a str>) -> Result<(), ExportError> {
    let sync = |path: PathBuf| {
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(|source| ExportError::Io { path, source })
    };
    let mut dirs = std::collections::BTreeSet::new();
    // The directory's own entry in its parent too.
    match dir.parent() {
        Some(parent) if parent.as_os_str().is_empty() => dirs.insert(PathBuf::from(".")),
        Some(parent) => dirs.insert(parent.to_path_buf()),
        None => false,
    };
    for name in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            dirs.insert(parent.to_path_buf());
        }
        sync(path)?;
    }
    dirs.into_iter().try_for_each(sync)
}
