//! Reports sealed into the ledger: each publication is a registry event carrying the report's
//! SHA-256, signed by the operator, so that a verifier can tell a report file from an export
//! was not changed after it was published.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;
use sha2::{Digest as _, Sha256};

use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event};
use super::schema::registry_entries;
use super::verify_failure::VerifyFailure;
use crate::error::LedgerError;
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::PUBLISHERS;

/// Where a report's seal is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    pub name: String,
    /// Ledger index of its `report_published` event.
    pub index: u64,
    pub sha256: String,
    /// Whether this call appended the event (an unchanged report is not published again).
    pub appended: bool,
}

/// The latest publication of every report name: ledger index and SHA-256.
pub fn latest_publications(
    conn: &mut PgConnection,
) -> Result<HashMap<String, (u64, String)>, LedgerError> {
    let rows: Vec<(i64, Vec<u8>)> = registry_entries::table
        .filter(registry_entries::record_type.eq("report_published"))
        .order(registry_entries::idx.asc())
        .select((registry_entries::idx, registry_entries::entry))
        .load(conn)?;
    let mut latest = HashMap::new();
    for (index, entry) in rows {
        match RegistryEvent::from_entry(&entry) {
            Ok(RegistryEvent::ReportPublished { name, sha256, .. }) => {
                latest.insert(name, (index as u64, sha256));
            }
            Ok(other) => {
                return Err(LedgerError::MislabelledEntry {
                    index: index as u64,
                    stored: "report_published",
                    found: format!("a {}", other.record_type()),
                })
            }
            Err(e) => {
                return Err(LedgerError::MislabelledEntry {
                    index: index as u64,
                    stored: "report_published",
                    found: format!("no registry event ({e})"),
                })
            }
        }
    }
    Ok(latest)
}

/// Seals each report (name, bytes) into the ledger, in one transaction: a `report_published`
/// event signed by `operator` naming `actor` (who asked), unless its latest publication has
/// the same SHA-256 already.
pub fn publish(
    conn: &mut PgConnection,
    operator: &SigningKey,
    reports: &[(String, Vec<u8>)],
    actor: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Publication>, LedgerError> {
    conn.transaction(|conn| {
        let mut position = lock_and_position(conn, now)?;
        super::actors::check_actor(conn, operator, actor, PUBLISHERS, &position)?;
        let latest = latest_publications(conn)?;
        let mut previous = last_registry_event(conn)?;
        let mut out = Vec::with_capacity(reports.len());
        for (name, bytes) in reports {
            let sha256 = hex::encode(Sha256::digest(bytes));
            if let Some((index, _)) = latest.get(name).filter(|(_, s)| *s == sha256) {
                out.push(Publication {
                    name: name.clone(),
                    index: *index,
                    sha256,
                    appended: false,
                });
                continue;
            }
            let event = RegistryEvent::ReportPublished {
                previous,
                name: name.clone(),
                sha256: sha256.clone(),
                size_bytes: bytes.len() as u64,
                actor: Some(actor.to_owned()),
            };
            let receipt = append_registry_event(conn, &position, &event, operator)?;
            previous = Some(receipt.index);
            position = lock_and_position(conn, now)?;
            out.push(Publication {
                name: name.clone(),
                index: receipt.index,
                sha256,
                appended: true,
            });
        }
        Ok(out)
    })
}

/// Seals one file kept beside the ledger ([`publish`] of it alone): the index of the entry
/// that names it, as the file's row keeps it.
pub(crate) fn seal_kept_file(
    conn: &mut PgConnection,
    operator: &SigningKey,
    file: (String, Vec<u8>),
    actor: &str,
    now: DateTime<Utc>,
) -> Result<i64, LedgerError> {
    let sealed = publish(conn, operator, &[file], actor, now)?;
    let sealed_at = sealed.first().map_or(0, |p| p.index);
    i64::try_from(sealed_at).map_err(|_| LedgerError::OutOfRange {
        what: "ledger index",
        value: i128::from(sealed_at),
    })
}

/// A file kept beside the ledger is the one its seal names: the entry at `index` is a
/// `report_published` event of `name` whose SHA-256 is that of `bytes`. `what` names the file
/// in the failure (`package …`).
pub(crate) fn check_kept(
    conn: &mut PgConnection,
    index: i64,
    name: &str,
    bytes: &[u8],
    what: &str,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    let index = u64::try_from(index).unwrap_or(0);
    let fail = |reason: String| Ok(Err(VerifyFailure { index, reason }));
    let Some(row) = super::reads::entry(conn, index)? else {
        return fail(format!(
            "{what} names its seal at entry {index}, which the ledger does not hold"
        ));
    };
    let kept = hex::encode(Sha256::digest(bytes));
    match RegistryEvent::from_entry(&row.entry) {
        Ok(RegistryEvent::ReportPublished {
            name: sealed,
            sha256,
            ..
        }) if sealed == name && sha256 == kept => Ok(Ok(())),
        _ => fail(format!(
            "{what} as kept (SHA-256 {kept}) is not what entry {index} seals"
        )),
    }
}

/// A file kept beside the ledger, with the seal it names.
pub(crate) struct KeptFile<'a> {
    /// The index of the `report_published` event that sealed it, and the name it sealed.
    pub sealed_at: i64,
    pub sealed_name: String,
    pub bytes: &'a [u8],
    /// The file, as a failure names it.
    pub what: String,
}

/// [`check_kept`] of each of `files` in order: the first failure.
pub(crate) fn check_all_kept<'a>(
    conn: &mut PgConnection,
    files: impl IntoIterator<Item = KeptFile<'a>>,
) -> Result<Result<(), VerifyFailure>, LedgerError> {
    for file in files {
        let held = check_kept(
            conn,
            file.sealed_at,
            &file.sealed_name,
            file.bytes,
            &file.what,
        )?;
        if held.is_err() {
            return Ok(held);
        }
    }
    Ok(Ok(()))
}
