//! The Ministry's packages as delivered: an issued version encrypted and sealed once, the file
//! kept byte for byte and its SHA-256 sealed into the ledger. Asking again answers the same
//! file; a new version of the package is a new delivery.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use ed25519_dalek::SigningKey;

use super::columns::insert_row;
use super::position::{lock_and_position, Position};
use super::published_reports::{seal_kept_file, KeptFile};
use super::registry_append::{append_registry_event, last_registry_event, RegistryReceipt};
use super::schema::{mf_confirmations, mf_deliveries, registry_entries};
use crate::error::LedgerError;
use dozor_log::registry_event::{DeliveryStep, RegistryEvent};

/// A package's sealed file as delivered.
#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = mf_deliveries, check_for_backend(diesel::pg::Pg))]
pub struct SealedDelivery {
    /// The package's name, `{IČO}-M-{YYYYMM}-Z-{místo}-{NN}`.
    pub package: String,
    /// `{package}.zip.p7e.p7s`: the ZIP encrypted, then sealed.
    pub sealed_file: Vec<u8>,
    /// The ledger index of the `report_published` event that sealed the file's SHA-256.
    pub sealed_at: i64,
}

impl SealedDelivery {
    /// SHA-256 of the sealed file, lower-case hex: what its seal in the ledger says.
    pub fn sha256(&self) -> String {
        use sha2::{Digest as _, Sha256};
        hex::encode(Sha256::digest(&self.sealed_file))
    }
}

/// The file's name as published: `{package}.zip.p7e.p7s`.
pub fn file_name(package: &str) -> String {
    format!("{package}.zip.p7e.p7s")
}

/// The name under which the file is sealed: `reports/mf/{package}.zip.p7e.p7s`.
pub fn sealed_name(package: &str) -> String {
    format!("reports/mf/{}", file_name(package))
}

/// The delivery of `package`, made by `make` (the sealed file) and sealed the first time it is
/// asked for; after that, the file made then. The second value says whether it is new.
pub fn deliver_once(
    conn: &mut PgConnection,
    operator: &SigningKey,
    package: &str,
    make: impl FnOnce() -> Result<Vec<u8>, String>,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<(SealedDelivery, bool), LedgerError> {
    conn.transaction(|conn| {
        // Under the append lock: two requests at once deliver one file.
        lock_and_position(conn, now)?;
        if let Some(made) = of_package(conn, package)? {
            return Ok((made, false));
        }
        let sealed_file = make().map_err(|e| LedgerError::Io {
            context: format!("sealing {package}"),
            source: std::io::Error::other(e),
        })?;
        let file = (sealed_name(package), sealed_file.clone());
        let sealed_at = seal_kept_file(conn, operator, file, actor, now)?;
        let row = SealedDelivery {
            package: package.to_owned(),
            sealed_file,
            sealed_at,
        };
        Ok((insert_row(conn, mf_deliveries::table, row)?, true))
    })
}

/// The delivered file of `package`, if it was delivered.
pub fn of_package(
    conn: &mut PgConnection,
    package: &str,
) -> Result<Option<SealedDelivery>, LedgerError> {
    Ok(mf_deliveries::table
        .find(package)
        .select(SealedDelivery::as_select())
        .first(conn)
        .optional()?)
}

/// A delivery's seal without its file: the package, the seal's ledger index, the file's
/// SHA-256 (hex, computed by PostgreSQL).
#[derive(Debug, Clone, PartialEq, Eq, diesel::QueryableByName)]
pub struct DeliverySeal {
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub package: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pub sealed_at: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub sha256: String,
}

/// Every delivery's seal, by package name, without reading the files out.
pub fn seals(conn: &mut PgConnection) -> Result<Vec<DeliverySeal>, LedgerError> {
    Ok(diesel::sql_query(
        "SELECT package, sealed_at, encode(sha256(sealed_file), 'hex') AS sha256 \
         FROM mf_deliveries ORDER BY package",
    )
    .load(conn)?)
}

/// Every delivery, by package name.
pub fn all(conn: &mut PgConnection) -> Result<Vec<SealedDelivery>, LedgerError> {
    Ok(mf_deliveries::table
        .order(mf_deliveries::package)
        .select(SealedDelivery::as_select())
        .load(conn)?)
}

impl SealedDelivery {
    /// The kept delivered file, as the seal that names it is checked.
    pub(crate) fn kept(&self) -> KeptFile<'_> {
        KeptFile {
            sealed_at: self.sealed_at,
            sealed_name: sealed_name(&self.package),
            bytes: &self.sealed_file,
            what: format!("the delivered file of {}", self.package),
        }
    }
}

/// A step of a delivery on the Ministry's side, to be recorded.
#[derive(Debug, Clone)]
pub struct Step {
    pub step: DeliveryStep,
    pub package: String,
    pub file: String,
    pub sha256: Option<String>,
    pub subject: Option<String>,
    pub fingerprint: Option<String>,
    pub detail: Option<String>,
}

/// The longest detail kept (a notification's body, a confirmation's report), in characters.
pub const MAX_DETAIL_CHARS: usize = 4_000;

/// Records `step` as a `package_delivery` registry event signed by `operator`; a confirmation's
/// file (`evidence`: its name and bytes) is kept beside it, whatever it holds.
pub fn record_step(
    conn: &mut PgConnection,
    operator: &SigningKey,
    step: Step,
    evidence: Option<(&str, &[u8])>,
    now: DateTime<Utc>,
) -> Result<RegistryReceipt, LedgerError> {
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        let evidence = evidence.map(|(file_name, file)| Evidence {
            file_name,
            file,
            sealed_content_sha256: None,
        });
        append_step(conn, &position, operator, step, evidence)
    })
}

/// A confirmation's file kept beside its entry.
struct Evidence<'a> {
    file_name: &'a str,
    file: &'a [u8],
    sealed_content_sha256: Option<&'a str>,
}

fn append_step(
    conn: &mut PgConnection,
    position: &Position,
    operator: &SigningKey,
    step: Step,
    evidence: Option<Evidence<'_>>,
) -> Result<RegistryReceipt, LedgerError> {
    let detail = step
        .detail
        .map(|d| d.chars().take(MAX_DETAIL_CHARS).collect::<String>());
    let event = RegistryEvent::PackageDelivery {
        previous: last_registry_event(conn)?,
        step: step.step,
        package: step.package,
        file: step.file,
        sha256: step.sha256,
        subject: step.subject,
        fingerprint: step.fingerprint,
        detail,
    };
    let receipt = append_registry_event(conn, position, &event, operator)?;
    if let Some(evidence) = evidence {
        diesel::insert_into(mf_confirmations::table)
            .values((
                mf_confirmations::ledger_index.eq(i64::try_from(receipt.index).map_err(|_| {
                    LedgerError::OutOfRange {
                        what: "ledger index",
                        value: i128::from(receipt.index),
                    }
                })?),
                mf_confirmations::file_name.eq(evidence.file_name),
                mf_confirmations::file.eq(evidence.file),
                mf_confirmations::sealed_content_sha256.eq(evidence.sealed_content_sha256),
            ))
            .execute(conn)?;
    }
    Ok(receipt)
}

/// A file offered as the Ministry's confirmation of a package, as read: the step its content
/// says (`confirmed`, `rejected`, or `confirmation_refused` already) and what binds it.
#[derive(Debug, Clone)]
pub struct OfferedConfirmation<'a> {
    /// `package` is the one its file name names; `sha256` the file's.
    pub step: Step,
    /// SHA-256 (hex) of the content its seal covers; none when the seal did not hold.
    pub sealed_content_sha256: Option<String>,
    /// When its seal says it was made (CAdES signing-time).
    pub sealed_at: Option<DateTime<Utc>>,
    /// The file's name and bytes, kept as evidence whatever it holds.
    pub file_name: &'a str,
    pub file: &'a [u8],
}

/// How much earlier than the package's first download a confirmation's seal may say it was
/// made: the Ministry's clock and dozor's are not the same clock.
pub const CLOCK_TOLERANCE_MINUTES: i64 = 10;

/// Records a confirmation offered for a package. Under the ledger's append lock, a confirmation
/// or rejection counts only for a package dozor delivered and the Ministry downloaded (its
/// delivered file), sealed no earlier than that download, and whose sealed content (or file)
/// has not counted for another package before; otherwise it is recorded as
/// `confirmation_refused`, with why. Either way the file is kept. Answers the entry and the
/// step as recorded.
pub fn record_confirmation(
    conn: &mut PgConnection,
    operator: &SigningKey,
    offered: OfferedConfirmation<'_>,
    now: DateTime<Utc>,
) -> Result<(RegistryReceipt, Step), LedgerError> {
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        let mut step = offered.step;
        if matches!(step.step, DeliveryStep::Confirmed | DeliveryStep::Rejected) {
            let refusal = binding_refusal(
                conn,
                &step,
                offered.sealed_content_sha256.as_deref(),
                offered.sealed_at,
            )?;
            if let Some(why) = refusal {
                step.step = DeliveryStep::ConfirmationRefused;
                step.detail = Some(why);
            }
        }
        let evidence = Evidence {
            file_name: offered.file_name,
            file: offered.file,
            sealed_content_sha256: offered.sealed_content_sha256.as_deref(),
        };
        let receipt = append_step(conn, &position, operator, step.clone(), Some(evidence))?;
        Ok((receipt, step))
    })
}

/// Why a confirmation read as `step` cannot count for its package; none when it can.
fn binding_refusal(
    conn: &mut PgConnection,
    step: &Step,
    sealed_content: Option<&str>,
    sealed_at: Option<DateTime<Utc>>,
) -> Result<Option<String>, LedgerError> {
    let package = step.package.as_str();
    let Some(delivered) = seals(conn)?.into_iter().find(|d| d.package == package) else {
        return Ok(Some(format!(
            "it is offered as the confirmation of {package}, which dozor has not delivered"
        )));
    };
    let recorded = steps(conn)?;
    let first_download = recorded.iter().find_map(|s| match &s.event {
        RegistryEvent::PackageDelivery {
            step: DeliveryStep::Downloaded,
            package: named,
            sha256: Some(served),
            ..
        } if named == package && *served == delivered.sha256 => Some(s.received_at),
        _ => None,
    });
    let Some(first_download) = first_download else {
        return Ok(Some(format!(
            "the Ministry has not downloaded {package} (no download of {} is recorded), so \
             this cannot be its confirmation",
            file_name(package)
        )));
    };
    if let Some(sealed_at) = sealed_at {
        if sealed_at + chrono::Duration::minutes(CLOCK_TOLERANCE_MINUTES) < first_download {
            return Ok(Some(format!(
                "sealed at {}, before the Ministry first downloaded {package} at {}: it \
                 confirms something else",
                sealed_at.to_rfc3339(),
                first_download.to_rfc3339()
            )));
        }
    }
    let same_content: Vec<i64> = match sealed_content {
        Some(digest) => mf_confirmations::table
            .filter(mf_confirmations::sealed_content_sha256.eq(digest))
            .select(mf_confirmations::ledger_index)
            .load(conn)?,
        None => Vec::new(),
    };
    for earlier in &recorded {
        let RegistryEvent::PackageDelivery {
            step: DeliveryStep::Confirmed | DeliveryStep::Rejected,
            package: counted_for,
            sha256,
            ..
        } = &earlier.event
        else {
            continue;
        };
        let same_file = sha256.is_some() && *sha256 == step.sha256;
        let same_seal = i64::try_from(earlier.index).is_ok_and(|i| same_content.contains(&i));
        if counted_for != package && (same_file || same_seal) {
            return Ok(Some(format!(
                "this confirmation counted for {counted_for} already (ledger index {}); one \
                 confirmation counts for one package",
                earlier.index
            )));
        }
    }
    Ok(None)
}

/// A recorded step: where it is in the ledger, when, and what it says.
#[derive(Debug, Clone)]
pub struct RecordedStep {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    pub event: RegistryEvent,
}

/// Every recorded step, in ledger order.
pub fn steps(conn: &mut PgConnection) -> Result<Vec<RecordedStep>, LedgerError> {
    let rows: Vec<(i64, DateTime<Utc>, Vec<u8>)> = registry_entries::table
        .filter(registry_entries::record_type.eq("package_delivery"))
        .order(registry_entries::idx)
        .select((
            registry_entries::idx,
            registry_entries::received_at,
            registry_entries::entry,
        ))
        .load(conn)?;
    rows.into_iter()
        .map(|(idx, received_at, entry)| {
            let index = u64::try_from(idx).unwrap_or_default();
            let event = RegistryEvent::from_entry(&entry).map_err(|found| {
                LedgerError::MislabelledEntry {
                    index,
                    stored: "package_delivery",
                    found,
                }
            })?;
            Ok(RecordedStep {
                index,
                received_at,
                event,
            })
        })
        .collect()
}
