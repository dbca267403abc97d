//! Files dozor keeps beside the database (the last verification mark, a walk's progress).

use std::path::Path;

use crate::error::LedgerError;

/// Replaces the file at `path` with `bytes` whole: written under another name in its folder,
/// flushed, renamed over it, and the folder flushed, so that a crash leaves the old file or the
/// new one.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), LedgerError> {
    let io = |e| LedgerError::io(format!("{}", path.display()), e);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut file, bytes).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(path).map_err(|e| io(e.error))?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io)
}
