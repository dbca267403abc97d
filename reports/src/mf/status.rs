//! Where each package stands with the Ministry: generated, sealed (and so published: the
//! Ministry's listener serves every sealed package), downloaded, confirmed or rejected, with
//! the times, from the ledger.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use serde::Serialize;

use dozor_log::registry_event::{DeliveryStep, RegistryEvent};
use ledger::storage::{deliveries, packages, reads};

use crate::ReportError;

/// The Ministry's answer, as received.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ConfirmationSeen {
    /// `confirmed` or `rejected`.
    pub result: String,
    pub at: DateTime<Utc>,
    /// `OK: YYYYMMDD-HHMMSS`, or the errors the Ministry listed.
    pub detail: String,
    pub sealed_by: Option<String>,
    pub ledger_index: u64,
}

/// One package version and its delivery.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct DeliveryStatus {
    pub package: String,
    /// `YYYY-MM`.
    pub month: String,
    pub premises: String,
    pub version: i32,
    /// `generated`, `sealed` (published: the Ministry may download it), `downloaded`,
    /// `confirmed` or `rejected`.
    pub state: String,
    /// When the package's ZIP was sealed into the ledger.
    pub generated_at: DateTime<Utc>,
    /// When its encrypted and sealed file was (none: not delivered).
    pub sealed_at: Option<DateTime<Utc>>,
    pub sealed_file_sha256: Option<String>,
    pub downloads: u32,
    pub first_download_at: Option<DateTime<Utc>>,
    pub last_download_at: Option<DateTime<Utc>>,
    /// The certificates that downloaded it (subjects).
    pub downloaded_by: Vec<String>,
    pub notifications: u32,
    pub last_notification_at: Option<DateTime<Utc>>,
    /// The latest confirmation whose seal held.
    pub confirmation: Option<ConfirmationSeen>,
    /// Files offered as its confirmation that were not trusted (kept as evidence).
    pub refused_confirmations: u32,
}

fn time_of(conn: &mut PgConnection, index: i64) -> Result<DateTime<Utc>, ReportError> {
    let index = u64::try_from(index).unwrap_or_default();
    reads::entry(conn, index)?
        .map(|row| row.received_at)
        .ok_or(ReportError::Ledger(ledger::LedgerError::OutOfRange {
            what: "a seal's ledger index",
            value: i128::from(index),
        }))
}

/// Every package issued, newest month first, with its delivery.
pub fn statuses(conn: &mut PgConnection) -> Result<Vec<DeliveryStatus>, ReportError> {
    // Neither the ZIPs nor the sealed files are read: their seals and digests say enough.
    let issued = packages::versions(conn)?;
    let delivered: BTreeMap<String, deliveries::DeliverySeal> = deliveries::seals(conn)?
        .into_iter()
        .map(|d| (d.package.clone(), d))
        .collect();
    let steps = deliveries::steps(conn)?;
    let mut out = Vec::with_capacity(issued.len());
    for package in issued {
        let generated_at = time_of(conn, package.sealed_at)?;
        let sealed = delivered.get(&package.name);
        let sealed_at = match sealed {
            Some(d) => Some(time_of(conn, d.sealed_at)?),
            None => None,
        };
        let mut status = DeliveryStatus {
            package: package.name.clone(),
            month: package.month.clone(),
            premises: package.premises.clone(),
            version: package.version,
            state: String::new(),
            generated_at,
            sealed_at,
            sealed_file_sha256: sealed.map(|d| d.sha256.clone()),
            downloads: 0,
            first_download_at: None,
            last_download_at: None,
            downloaded_by: Vec::new(),
            notifications: 0,
            last_notification_at: None,
            confirmation: None,
            refused_confirmations: 0,
        };
        for recorded in &steps {
            let RegistryEvent::PackageDelivery {
                step,
                package: named,
                subject,
                detail,
                ..
            } = &recorded.event
            else {
                continue;
            };
            if *named != package.name {
                continue;
            }
            let at = recorded.received_at;
            match step {
                DeliveryStep::Downloaded => {
                    status.downloads += 1;
                    status.first_download_at.get_or_insert(at);
                    status.last_download_at = Some(at);
                    if let Some(who) = subject {
                        if !status.downloaded_by.contains(who) {
                            status.downloaded_by.push(who.clone());
                        }
                    }
                }
                DeliveryStep::Notified => {
                    status.notifications += 1;
                    status.last_notification_at = Some(at);
                }
                DeliveryStep::Confirmed | DeliveryStep::Rejected => {
                    status.confirmation = Some(ConfirmationSeen {
                        result: step.as_str().to_owned(),
                        at,
                        detail: detail.clone().unwrap_or_default(),
                        sealed_by: subject.clone(),
                        ledger_index: recorded.index,
                    });
                }
                DeliveryStep::ConfirmationRefused => status.refused_confirmations += 1,
            }
        }
        status.state = match (&status.confirmation, status.downloads, sealed) {
            (Some(c), _, _) => c.result.clone(),
            (None, n, _) if n > 0 => "downloaded".into(),
            (None, _, Some(_)) => "sealed".into(),
            (None, _, None) => "generated".into(),
        };
        out.push(status);
    }
    out.sort_by(|a, b| (&b.month, &a.premises, b.version).cmp(&(&a.month, &b.premises, a.version)));
    Ok(out)
}

/// A package the Ministry has not confirmed: the latest version of its month and premises.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Unconfirmed {
    pub package: String,
    /// `generated`, `sealed`, `downloaded` or `rejected`.
    pub state: String,
}

/// The latest version of each month and premises that the Ministry has not confirmed, oldest
/// month first.
pub fn unconfirmed(conn: &mut PgConnection) -> Result<Vec<Unconfirmed>, ReportError> {
    let mut latest: BTreeMap<(String, String), DeliveryStatus> = BTreeMap::new();
    for status in statuses(conn)? {
        let key = (status.month.clone(), status.premises.clone());
        if latest.get(&key).is_none_or(|l| l.version < status.version) {
            latest.insert(key, status);
        }
    }
    Ok(latest
        .into_values()
        .filter(|s| s.state != "confirmed")
        .map(|s| Unconfirmed {
            package: s.package,
            state: s.state,
        })
        .collect())
}
