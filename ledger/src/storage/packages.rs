//! The Ministry's packages as issued: one version per distinct content of a month and
//! premises, each sealed once. Asking again for a package whose content has not changed
//! answers the version issued before, byte for byte, and seals nothing.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;

use super::columns::insert_row;
use super::position::lock_and_position;
use super::published_reports::{latest_publications, seal_kept_file, KeptFile};
use super::schema::mf_packages;
use crate::error::LedgerError;

/// A version of a package as issued.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = mf_packages, check_for_backend(diesel::pg::Pg))]
pub struct IssuedPackage {
    /// The package's name, `{IČO}-M-{YYYYMM}-Z-{místo}-{NN}`.
    pub name: String,
    /// `YYYY-MM`.
    pub month: String,
    pub premises: String,
    pub version: i32,
    /// SHA-256 of the content: each file's name and its bytes after the first line.
    pub content_sha256: Vec<u8>,
    pub zip: Vec<u8>,
    /// The ledger index of the `report_published` event that sealed the ZIP.
    pub sealed_at: i64,
}

/// What to issue: the month's package of a premises, by the digest of its content.
#[derive(Debug, Clone)]
pub struct PackageToIssue<'a> {
    pub month: &'a str,
    pub premises: &'a str,
    /// The name every version shares up to its `NN`: `{IČO}-M-{YYYYMM}-Z-{místo}-`.
    pub name_stem: &'a str,
    pub content_sha256: [u8; 32],
}

/// The name under which a package's ZIP is sealed: `reports/mf/{name}.zip`.
pub fn sealed_name(name: &str) -> String {
    format!("reports/mf/{name}.zip")
}

/// The highest version of the stem sealed in the ledger, also by dozor before packages were
/// kept (their ZIPs are not here, but their versions are taken).
fn highest_sealed(conn: &mut PgConnection, stem: &str) -> Result<i32, LedgerError> {
    let prefix = sealed_name(stem);
    let prefix = prefix.trim_end_matches(".zip");
    Ok(latest_publications(conn)?
        .keys()
        .filter_map(|name| name.strip_prefix(prefix)?.strip_suffix(".zip"))
        .filter(|nn| nn.len() == 2 && nn.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|nn| nn.parse::<i32>().ok())
        .max()
        .unwrap_or(0))
}

/// The package to answer for `wanted`: the latest version of its month and premises when
/// its content is the same (nothing sealed), else a new version, made by `zip_of(version)`
/// (the package's name and ZIP), sealed and kept. The second value says whether it is new.
pub fn issue(
    conn: &mut PgConnection,
    operator: &SigningKey,
    wanted: &PackageToIssue<'_>,
    zip_of: impl Fn(u8) -> Result<(String, Vec<u8>), String>,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(IssuedPackage, bool), LedgerError> {
    conn.transaction(|conn| {
        // Under the append lock: two requests at once issue one version.
        lock_and_position(conn, now)?;
        let latest: Option<IssuedPackage> = mf_packages::table
            .filter(mf_packages::month.eq(wanted.month))
            .filter(mf_packages::premises.eq(wanted.premises))
            .order(mf_packages::version.desc())
            .select(IssuedPackage::as_select())
            .first(conn)
            .optional()?;
        if let Some(latest) = latest {
            if latest.content_sha256 == wanted.content_sha256 {
                return Ok((latest, false));
            }
        }
        let taken = mf_packages::table
            .filter(mf_packages::month.eq(wanted.month))
            .filter(mf_packages::premises.eq(wanted.premises))
            .select(diesel::dsl::max(mf_packages::version))
            .first::<Option<i32>>(conn)?
            .unwrap_or(0)
            .max(highest_sealed(conn, wanted.name_stem)?);
        let version =
            u8::try_from(taken + 1)
                .ok()
                .filter(|v| *v <= 99)
                .ok_or(LedgerError::OutOfRange {
                    what: "package version (01-99 are issued)",
                    value: i128::from(taken) + 1,
                })?;
        let (name, zip) = zip_of(version).map_err(|e| LedgerError::Io {
            context: "making the package".into(),
            source: std::io::Error::other(e),
        })?;
        let file = (sealed_name(&name), zip.clone());
        let sealed_at = seal_kept_file(conn, operator, file, actor, now)?;
        let row = IssuedPackage {
            name,
            month: wanted.month.to_owned(),
            premises: wanted.premises.to_owned(),
            version: i32::from(version),
            content_sha256: wanted.content_sha256.to_vec(),
            zip,
            sealed_at,
        };
        Ok((insert_row(conn, mf_packages::table, row)?, true))
    })
}

/// A version as issued, without its ZIP: what a listing needs.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable)]
#[diesel(table_name = mf_packages, check_for_backend(diesel::pg::Pg))]
pub struct IssuedVersion {
    pub name: String,
    pub month: String,
    pub premises: String,
    pub version: i32,
    pub sealed_at: i64,
}

/// Every version issued, without the ZIPs, oldest first.
pub fn versions(conn: &mut PgConnection) -> Result<Vec<IssuedVersion>, LedgerError> {
    Ok(mf_packages::table
        .order((
            mf_packages::month,
            mf_packages::premises,
            mf_packages::version,
        ))
        .select(IssuedVersion::as_select())
        .load(conn)?)
}

/// Every package issued, oldest first.
pub fn all(conn: &mut PgConnection) -> Result<Vec<IssuedPackage>, LedgerError> {
    Ok(mf_packages::table
        .order((
            mf_packages::month,
            mf_packages::premises,
            mf_packages::version,
        ))
        .select(IssuedPackage::as_select())
        .load(conn)?)
}

impl IssuedPackage {
    /// The kept ZIP, as the seal that names it is checked.
    pub(crate) fn kept(&self) -> KeptFile<'_> {
        KeptFile {
            sealed_at: self.sealed_at,
            sealed_name: sealed_name(&self.name),
            bytes: &self.zip,
            what: format!("package {}", self.name),
        }
    }
}
