//! An export directory as one zip archive, for download. The archive is written to a file (or
//! any seekable writer), never assembled in memory: exports can be far larger than memory.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

/// Writes every file under `dir` into a zip at `out`, under the folder `name`, in path order.
pub fn zip_dir<W: Write + Seek>(dir: &Path, name: &str, out: W) -> std::io::Result<W> {
    let mut zip = ::zip::ZipWriter::new(out);
    let options = ::zip::write::SimpleFileOptions::default()
        .compression_method(::zip::CompressionMethod::Deflated)
        .large_file(true);
    for path in files_under(dir)? {
        zip.start_file(format!("{name}/{}", path.to_string_lossy()), options)
            .map_err(std::io::Error::other)?;
        let mut file = std::fs::File::open(dir.join(&path))?;
        std::io::copy(&mut file, &mut zip)?;
    }
    zip.finish().map_err(std::io::Error::other)
}

/// Every file under `dir`, as paths relative to it, sorted.
fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    #[test]
    fn every_file_of_the_directory_is_in_the_archive_under_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("reports")).unwrap();
        std::fs::write(dir.path().join("MANIFEST"), "m").unwrap();
        std::fs::write(dir.path().join("reports/daily-2026-11-01.csv"), "a;b\r\n").unwrap();
        let archive = zip_dir(dir.path(), "x", tempfile::tempfile().unwrap()).unwrap();
        let mut zip = ::zip::ZipArchive::new(archive).unwrap();
        let names: Vec<String> = zip.file_names().map(str::to_owned).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, ["x/MANIFEST", "x/reports/daily-2026-11-01.csv"]);
        let mut text = String::new();
        zip.by_name("x/reports/daily-2026-11-01.csv")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "a;b\r\n");
    }
}
