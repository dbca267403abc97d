//! Stage 1, MANIFEST: every file listed with its SHA-256, and no other.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use dozor_log::parallel::par_map;

use crate::error::{fail, InspectionError};
use crate::files::read_text;
use crate::format::{
    ADJUDICATIONS, CHECKPOINT, CHECKPOINT_LATEST, CONSISTENCY, ENTRIES, EXPORT_JSON, KEYS,
    MANIFEST, REGISTRY, REGISTRY_PROOFS, TREE,
};

/// SHA-256 of a file, read in pieces (exports can be far larger than memory).
pub(super) fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = std::io::Read::read(&mut file, &mut buffer)?;
        if n == 0 {
            return Ok(hex::encode(hasher.finalize()));
        }
        hasher.update(&buffer[..n]);
    }
}

/// Every file under `dir`, as relative paths with `/`.
pub(super) fn list_files(dir: &Path) -> Result<Vec<String>, InspectionError> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|e| fail(dir.display().to_string(), e.to_string()))?;
        for entry in entries {
            let entry = entry.map_err(|e| fail(dir.display().to_string(), e.to_string()))?;
            let path = rel.join(entry.file_name());
            if entry.path().is_dir() {
                stack.push(path);
            } else {
                out.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// MANIFEST, checked but for the files read in the main pass, which are hashed as they are read.
pub(super) struct Manifest {
    pub(super) files: usize,
    /// The listed SHA-256 of each file under `reports/` (checked against the file).
    pub(super) reports: BTreeMap<String, String>,
    /// The listed SHA-256 of each file left to the main pass.
    pub(super) streamed: HashMap<&'static str, String>,
}

impl Manifest {
    /// Compares a file hashed in the main pass with its listed sum.
    pub(super) fn check_streamed(
        &self,
        name: &'static str,
        actual: &str,
    ) -> Result<(), InspectionError> {
        match self.streamed.get(name) {
            Some(sum) if sum == actual => Ok(()),
            Some(sum) => Err(fail(
                name,
                format!("SHA-256 is {actual}, MANIFEST says {sum}"),
            )),
            None => Err(fail(name, "missing from the export")),
        }
    }
}

/// Files read in the main pass: their SHA-256 is computed as they are read there.
pub(super) const STREAMED: [&str; 2] = [ENTRIES, ADJUDICATIONS];

/// Checks MANIFEST: every listed file exists with that SHA-256 (those in [`STREAMED`] only
/// exist, their sums are kept for later), and no file is unlisted.
pub(super) fn check_manifest(dir: &Path) -> Result<Manifest, InspectionError> {
    let text = read_text(dir, MANIFEST)?;
    let mut listed = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let (sum, path) = line.split_once("  ").ok_or_else(|| {
            fail(
                format!("{MANIFEST} line {}", n + 1),
                "expected `<sha256>  <path>`",
            )
        })?;
        if listed.insert(path.to_owned(), sum.to_owned()).is_some() {
            return Err(fail(
                format!("{MANIFEST} line {}", n + 1),
                format!("{path} is listed twice"),
            ));
        }
    }
    let mut streamed = HashMap::new();
    for name in STREAMED {
        if let Some(sum) = listed.get(name) {
            if !dir.join(name).is_file() {
                return Err(fail(name, "listed in MANIFEST but missing"));
            }
            streamed.insert(name, sum.clone());
        }
    }
    let mut files: Vec<(&String, &String)> = listed
        .iter()
        .filter(|(path, _)| !STREAMED.contains(&path.as_str()))
        .collect();
    files.sort_by_cached_key(|(path, _)| {
        std::cmp::Reverse(std::fs::metadata(dir.join(path)).map_or(0, |m| m.len()))
    });
    let hashes = par_map(&files, |_, (path, _)| sha256_file(&dir.join(path)))?;
    for ((path, sum), actual) in files.into_iter().zip(hashes) {
        let actual = actual.map_err(|_| fail(path.clone(), "listed in MANIFEST but missing"))?;
        if &actual != sum {
            return Err(fail(
                path.clone(),
                format!("SHA-256 is {actual}, MANIFEST says {sum}"),
            ));
        }
    }
    for path in list_files(dir)? {
        if path != MANIFEST && !listed.contains_key(&path) {
            return Err(fail(path, "present but not listed in MANIFEST"));
        }
    }
    for required in [
        EXPORT_JSON,
        ENTRIES,
        TREE,
        CHECKPOINT,
        CHECKPOINT_LATEST,
        CONSISTENCY,
        KEYS,
        REGISTRY,
        REGISTRY_PROOFS,
        ADJUDICATIONS,
    ] {
        if !listed.contains_key(required) {
            return Err(fail(required, "missing from the export"));
        }
    }
    let reports = listed
        .iter()
        .filter(|(path, _)| path.starts_with("reports/"))
        .map(|(p, s)| (p.clone(), s.clone()))
        .collect();
    Ok(Manifest {
        files: listed.len(),
        reports,
        streamed,
    })
}
