//! Reports in an export are sealed: each file's SHA-256 is in a `report_published` registry
//! event the latest checkpoint covers. A report changed after it was published, or left out,
//! fails verification even with MANIFEST recomputed.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::error::{fail, InspectionError};
use crate::format::{report_names, ExportInfo, EXPORT_JSON};
use dozor_log::registry_history::RegistryHistory;

/// Every report of the period is present, and every report file hashes to a publication of it
/// in the registry. `listed` holds the MANIFEST sums of the files under `reports/` (already
/// checked against the files). Returns how many were checked.
pub(super) fn check_sealed_reports(
    listed: &BTreeMap<String, String>,
    history: &RegistryHistory,
    info: &ExportInfo,
) -> Result<u64, InspectionError> {
    let day = |text: &str| {
        text.parse::<NaiveDate>()
            .map_err(|_| fail(EXPORT_JSON, format!("`{text}` is not a gaming day")))
    };
    let (from, to) = (day(&info.from)?, day(&info.to)?);
    for d in from.iter_days().take_while(|d| *d <= to) {
        for name in report_names(d) {
            if !listed.contains_key(&name) {
                return Err(fail(name, "missing from the export"));
            }
        }
    }
    // Every night of the period the nightly job sealed travels with the export.
    for (name, _, _) in history.published_under(crate::format::NIGHTLY_PREFIX) {
        let night = name
            .strip_prefix(crate::format::NIGHTLY_PREFIX)
            .and_then(|rest| rest.split('/').next())
            .and_then(|d| d.parse::<NaiveDate>().ok());
        if night.is_some_and(|d| from <= d && d <= to) && !listed.contains_key(name) {
            return Err(fail(
                name,
                "sealed by the nightly job, but missing from the export",
            ));
        }
    }
    for (name, sum) in listed {
        let publications = history.published_report(name);
        if publications.iter().any(|(_, sealed)| sealed == sum) {
            continue;
        }
        return Err(fail(
            name.clone(),
            match publications.last() {
                Some((index, sealed)) => format!(
                    "SHA-256 is {sum}, but the report_published event at index {index} seals {sealed}: the report was changed after it was published"
                ),
                None => "no report_published event in the registry seals it".to_owned(),
            },
        ));
    }
    Ok(listed.len() as u64)
}
