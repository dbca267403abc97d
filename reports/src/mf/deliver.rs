//! A package made ready for delivery: its ZIP, its folder, and its SHA-256 sealed into the
//! ledger (which package was delivered is a fact an inspector asks about later).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ed25519_dalek::SigningKey;
use ledger::storage::published_reports::{self, Publication};

use super::package::Package;

/// Where sealed packages are named in the ledger: `reports/mf/{package}.zip`.
pub const SEALED_PREFIX: &str = "reports/mf/";

pub fn sealed_name(package: &Package) -> String {
    format!("{SEALED_PREFIX}{}.zip", package.name)
}

/// The package's ZIP: its folder with every file, in file order.
pub fn zip_bytes(package: &Package) -> std::io::Result<Vec<u8>> {
    let mut zip = ::zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = ::zip::write::SimpleFileOptions::default()
        .compression_method(::zip::CompressionMethod::Deflated);
    for (file, bytes) in &package.files {
        zip.start_file(format!("{}/{file}", package.name), options)
            .map_err(std::io::Error::other)?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish().map_err(std::io::Error::other)?.into_inner())
}

/// Seals the ZIP's SHA-256 into the ledger as a `report_published` event signed by `operator`
/// in the name of `actor` (the one publication of the package).
pub fn seal(
    conn: &mut PgConnection,
    operator: &SigningKey,
    package: &Package,
    zip: &[u8],
    actor: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Publication>, ledger::LedgerError> {
    published_reports::publish(
        conn,
        operator,
        &[(sealed_name(package), zip.to_vec())],
        actor,
        now,
    )
}

/// Writes the folder and the ZIP into `out`; returns their paths.
pub fn write(out: &Path, package: &Package, zip: &[u8]) -> std::io::Result<(PathBuf, PathBuf)> {
    let folder = out.join(package.name.to_string());
    std::fs::create_dir_all(&folder)?;
    for (file, bytes) in &package.files {
        std::fs::write(folder.join(file), bytes)?;
    }
    let zip_path = out.join(format!("{}.zip", package.name));
    std::fs::write(&zip_path, zip)?;
    Ok((folder, zip_path))
}
