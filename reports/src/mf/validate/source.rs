//! A package as the validator reads it: its folder or its ZIP.

use std::path::Path;

/// A package's files, from its folder or its ZIP.
#[derive(Debug, Clone, Default)]
pub struct PackageSource {
    /// The folder's name (the ZIP's without `.zip`).
    pub name: String,
    pub files: Vec<(String, Vec<u8>)>,
    /// Anything in the package that is not a file (a folder).
    pub other_entries: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct SourceError {
    pub path: String,
    pub reason: String,
}

impl PackageSource {
    /// Reads a package folder, or a ZIP holding the folder.
    pub fn read(path: &Path) -> Result<PackageSource, SourceError> {
        let fail = |reason: String| SourceError {
            path: path.display().to_string(),
            reason,
        };
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| fail("has no name".into()))?;
        if path.is_dir() {
            let mut source = PackageSource {
                name: file_name.to_owned(),
                ..PackageSource::default()
            };
            let entries = std::fs::read_dir(path).map_err(|e| fail(e.to_string()))?;
            for entry in entries {
                let entry = entry.map_err(|e| fail(e.to_string()))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_file() {
                    let bytes = std::fs::read(entry.path()).map_err(|e| fail(e.to_string()))?;
                    source.files.push((name, bytes));
                } else {
                    source.other_entries.push(name);
                }
            }
            source.files.sort();
            return Ok(source);
        }
        let Some(name) = file_name.strip_suffix(".zip") else {
            return Err(fail("is neither a package folder nor its .zip".into()));
        };
        let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
        PackageSource::from_zip(name, &bytes).map_err(|e| fail(e.reason))
    }

    /// Reads a package's ZIP from memory: `name` is the package's (the ZIP's without `.zip`).
    pub fn from_zip(name: &str, bytes: &[u8]) -> Result<PackageSource, SourceError> {
        let fail = |reason: String| SourceError {
            path: format!("{name}.zip"),
            reason,
        };
        let mut archive =
            zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| fail(e.to_string()))?;
        let mut source = PackageSource {
            name: name.to_owned(),
            ..PackageSource::default()
        };
        let folder = format!("{name}/");
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(|e| fail(e.to_string()))?;
            let inner = entry.name().to_owned();
            let inner = inner.strip_prefix(&folder).unwrap_or(&inner).to_owned();
            if inner.is_empty() {
                continue;
            }
            if entry.is_dir() || inner.contains('/') {
                source.other_entries.push(inner);
                continue;
            }
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(|e| fail(e.to_string()))?;
            source.files.push((inner, bytes));
        }
        source.files.sort();
        Ok(source)
    }
}
