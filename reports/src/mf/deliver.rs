//! A package made ready for delivery: its ZIP, its folder, and its SHA-256 sealed into the
//! ledger (which package was delivered is a fact an inspector asks about later).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use diesel::PgConnection;
use ed25519_dalek::SigningKey;

use ledger::storage::deliveries::{self, SealedDelivery};
use ledger::storage::packages::{self, IssuedPackage, PackageToIssue};

use super::package::{build, Package, PackageError, PackageRequest, PackageSummary};

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

/// A package as issued for a request.
#[derive(Debug, Clone)]
pub struct Issued {
    pub package: IssuedPackage,
    /// Whether this request issued it (a new version, sealed now) or found it issued before
    /// with the same content (nothing sealed).
    pub new: bool,
    pub summary: PackageSummary,
}

/// SHA-256 of an issued package's ZIP, hex: what its seal in the ledger says.
pub fn zip_sha256(issued: &IssuedPackage) -> String {
    use sha2::{Digest as _, Sha256};
    hex::encode(Sha256::digest(&issued.zip))
}

/// The month's package of a premises as it stands: the version issued last when its content
/// is the same (byte for byte, nothing sealed), else the next version, sealed into the ledger
/// in the name of `actor` and kept.
pub fn issue(
    conn: &mut PgConnection,
    operator: &SigningKey,
    request: &PackageRequest<'_>,
    actor: &str,
) -> Result<Issued, PackageError> {
    let package = build(conn, request)?;
    issue_built(conn, operator, request, package, actor)
}

/// [`issue`] of a package already built for `request`.
fn issue_built(
    conn: &mut PgConnection,
    operator: &SigningKey,
    request: &PackageRequest<'_>,
    package: Package,
    actor: &str,
) -> Result<Issued, PackageError> {
    let name = package.name.to_string();
    let stem = name
        .get(..name.len().saturating_sub(2))
        .unwrap_or(&name)
        .to_owned();
    let month = request.month.to_string();
    let wanted = PackageToIssue {
        month: &month,
        premises: request.premises,
        name_stem: &stem,
        content_sha256: package.content_sha256(),
    };
    let (issued, new) = packages::issue(
        conn,
        operator,
        &wanted,
        |version| {
            let versioned = package.with_version(version);
            let zip = zip_bytes(&versioned).map_err(|e| e.to_string())?;
            Ok((versioned.name.to_string(), zip))
        },
        actor,
        request.now,
    )
    .map_err(|e| PackageError::Report(e.into()))?;
    Ok(Issued {
        summary: PackageSummary {
            package: issued.name.clone(),
            ..package.summary
        },
        package: issued,
        new,
    })
}

/// A version issued before, as it was issued.
pub fn issued_version(
    conn: &mut PgConnection,
    request: &PackageRequest<'_>,
    version: u8,
) -> Result<IssuedPackage, PackageError> {
    let month = request.month.to_string();
    packages::all(conn)
        .map_err(|e| PackageError::Report(e.into()))?
        .into_iter()
        .find(|p| {
            p.month == month && p.premises == request.premises && p.version == i32::from(version)
        })
        .ok_or(PackageError::NotIssued(version))
}

/// Writes an issued package's ZIP into `out`, and its files into a folder of its name beside
/// it; returns their paths.
pub fn write_issued(out: &Path, issued: &IssuedPackage) -> std::io::Result<(PathBuf, PathBuf)> {
    let folder = out.join(&issued.name);
    std::fs::create_dir_all(&folder)?;
    let mut archive = ::zip::ZipArchive::new(std::io::Cursor::new(issued.zip.as_slice()))
        .map_err(std::io::Error::other)?;
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(std::io::Error::other)?;
        let Some(name) = file
            .enclosed_name()
            .and_then(|p| p.file_name().map(|n| n.to_owned()))
        else {
            continue;
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes)?;
        std::fs::write(folder.join(name), bytes)?;
    }
    let zip_path = out.join(format!("{}.zip", issued.name));
    std::fs::write(&zip_path, &issued.zip)?;
    Ok((folder, zip_path))
}

/// What the Ministry's rules find wrong with `package` (nothing: it may be delivered).
fn validation_errors(
    package: &Package,
    request: &PackageRequest<'_>,
) -> Result<Vec<super::validate::MfError>, PackageError> {
    let name = package.name.to_string();
    let zip = zip_bytes(package).map_err(|e| PackageError::Delivery(e.to_string()))?;
    let source = super::validate::PackageSource::from_zip(&name, &zip)
        .map_err(|e| PackageError::Delivery(e.to_string()))?;
    let schema =
        super::schema::Schema::embedded().map_err(|e| PackageError::Schema(e.to_string()))?;
    let settings = super::validate::ValidationSettings {
        now: request.now,
        clock: request.clock,
    };
    Ok(super::validate::validate(schema, &source, &settings))
}

/// A package as delivered: the version issued for the request, and its sealed file.
#[derive(Debug, Clone)]
pub struct Delivered {
    pub issued: Issued,
    pub sealed: SealedDelivery,
    /// Whether this request sealed the file (else it was sealed before for this version).
    pub new: bool,
}

/// The month's package of a premises delivered: issued (the same version while its content is
/// the same), checked against the Ministry's rules (a package that fails is not delivered),
/// encrypted to the Ministry and the operator, sealed with the operator's seal, and kept with
/// its SHA-256 sealed into the ledger — once per version.
pub fn deliver(
    conn: &mut PgConnection,
    operator: &SigningKey,
    request: &PackageRequest<'_>,
    keys: &super::keys::DeliveryKeys,
    actor: &str,
) -> Result<Delivered, PackageError> {
    let package = build(conn, request)?;
    deliver_built(conn, operator, request, package, keys, actor)
}

/// [`deliver`] of a package already built for `request`. It is checked before anything is
/// issued: a package of a month not over, or one the Ministry's rules refuse, takes no version
/// number and seals nothing.
pub fn deliver_built(
    conn: &mut PgConnection,
    operator: &SigningKey,
    request: &PackageRequest<'_>,
    package: Package,
    keys: &super::keys::DeliveryKeys,
    actor: &str,
) -> Result<Delivered, PackageError> {
    if package.summary.provisional {
        return Err(PackageError::MonthNotOver {
            month: request.month.to_string(),
            ends_at: request.clock.month_bounds(request.month).1,
        });
    }
    let errors = validation_errors(&package, request)?;
    if !errors.is_empty() {
        return Err(PackageError::Invalid {
            name: package.name.to_string(),
            errors,
        });
    }
    let issued = issue_built(conn, operator, request, package, actor)?;
    let name = issued.package.name.clone();
    let zip = issued.package.zip.clone();
    let (sealed, new) = deliveries::deliver_once(
        conn,
        operator,
        &name,
        || {
            let encrypted = delivery::encrypt(&zip, &keys.recipients).map_err(|e| e.to_string())?;
            delivery::seal(&encrypted, &keys.seal, request.now).map_err(|e| e.to_string())
        },
        actor,
        request.now,
    )
    .map_err(|e| PackageError::Report(e.into()))?;
    Ok(Delivered {
        issued,
        sealed,
        new,
    })
}
