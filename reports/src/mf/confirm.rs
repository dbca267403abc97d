//! The Ministry's answer to a delivered package: a confirmation package (`{package}.Ok.zip.p7e.p7s`
//! when accepted) sealed by the Ministry and encrypted to the operator. Its seal is checked
//! against the Ministry's configured seal certificates and it is decrypted with the operator's
//! key; a file whose seal does not hold, or that does not open, is kept as evidence and flagged,
//! never counted as a confirmation. Either way it is a ledger entry.
//!
//! The Ministry's format ("Validace balíčku", its reference client) gives the report one line,
//! `OK: YYYYMMDD-HHMMSS`, or the errors found; neither names the package or its digest, and the
//! names of the files inside the ZIP are not specified. So a confirmation is bound to its
//! package by what there is: a package named inside it (a file's name, the report's text) must
//! be the one its file name claims; the package must be one dozor delivered and the Ministry
//! downloaded, no later than the seal says it was made; and what the seal covers never counts
//! for two packages (checked under the ledger's append lock,
//! [`ledger::storage::deliveries::record_confirmation`]).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ed25519_dalek::SigningKey;
use serde::Serialize;

use dozor_log::registry_event::DeliveryStep;
use ledger::storage::deliveries::{self, OfferedConfirmation, Step};

use super::keys::DeliveryKeys;
use super::name::PackageName;
use super::package::PackageError;

/// What a confirmation file said, once recorded.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ConfirmationOutcome {
    /// The package it is about (from its file name).
    pub package: String,
    /// `confirmed`, `rejected` or `confirmation_refused`.
    #[schema(value_type = String)]
    pub step: DeliveryStep,
    /// The report's first line (`OK: YYYYMMDD-HHMMSS`), the errors the Ministry listed, or
    /// why the file does not count as the package's confirmation.
    pub detail: String,
    /// The Ministry's sealing certificate, when the seal held.
    pub sealed_by: Option<String>,
    /// SHA-256 of what the seal covers, when it held: one confirmation counts for one package.
    pub sealed_content_sha256: Option<String>,
    /// The ledger entry that records it (the file is kept beside it).
    pub ledger_index: u64,
}

/// The package a confirmation file names: what comes before its first `.`
/// (`12345679-M-202610-Z-kasino_1-01.Ok.zip.p7e.p7s`).
pub fn package_of(file_name: &str) -> Option<&str> {
    let package = file_name.split('.').next()?;
    let ok = !package.is_empty()
        && package.len() <= 100
        && package
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'));
    ok.then_some(package)
}

/// The decrypted confirmation: the names of the files in its ZIP and its report (the first
/// file's text, or the content itself when it is text and not a ZIP).
#[derive(Debug, Default)]
struct Report {
    names: Vec<String>,
    text: String,
}

fn read_report(content: &[u8]) -> Result<Report, String> {
    let clean = |t: &str| t.trim_start_matches('\u{feff}').trim().to_owned();
    if let Ok(mut archive) = ::zip::ZipArchive::new(std::io::Cursor::new(content)) {
        let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
        for i in 0..archive.len() {
            let mut file = archive.by_index(i).map_err(|e| e.to_string())?;
            if file.is_dir() {
                continue;
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut file, &mut text)
                .map_err(|_| "the confirmation's report is not UTF-8 text".to_owned())?;
            return Ok(Report {
                names,
                text: clean(&text),
            });
        }
        return Err("the confirmation's ZIP holds no file".into());
    }
    String::from_utf8(content.to_vec())
        .map(|t| Report {
            names: Vec::new(),
            text: clean(&t),
        })
        .map_err(|_| "the confirmation is neither a ZIP nor text".into())
}

/// The packages `text` names: its words (letters, digits, `_` and `-`) that read as a
/// package's name.
fn packages_named(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|word| PackageName::parse(word).is_some())
        .map(str::to_owned)
        .collect()
}

/// Why the report cannot be `package`'s: a file inside named after another package, or a
/// report that names packages but not this one. None when nothing inside says otherwise.
fn names_another(report: &Report, package: &str) -> Option<String> {
    let in_names: BTreeSet<String> = report
        .names
        .iter()
        .flat_map(|n| packages_named(n))
        .collect();
    let in_text = packages_named(&report.text);
    let others: Vec<&str> = in_names
        .iter()
        .filter(|p| *p != package)
        .chain(in_text.iter().filter(|_| !in_text.contains(package)))
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    (!others.is_empty()).then(|| {
        format!(
            "sealed by the Ministry, but its content names {}, not {package}",
            others.join(", ")
        )
    })
}

/// What the confirmation says, read with the operator's key: the step and its detail.
fn read_step(sealed_content: &[u8], keys: &DeliveryKeys, package: &str) -> (DeliveryStep, String) {
    let report = delivery::decrypt(sealed_content, &keys.encryption)
        .map_err(|e| e.to_string())
        .and_then(|content| read_report(&content));
    match report {
        Err(why) => (
            DeliveryStep::ConfirmationRefused,
            format!("sealed by the Ministry, but {why}"),
        ),
        Ok(report) => match names_another(&report, package) {
            Some(why) => (DeliveryStep::ConfirmationRefused, why),
            None if report.text.starts_with("OK:") => (
                DeliveryStep::Confirmed,
                report.text.lines().next().unwrap_or_default().to_owned(),
            ),
            None => (DeliveryStep::Rejected, report.text),
        },
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest as _, Sha256};
    hex::encode(Sha256::digest(bytes))
}

/// Reads a confirmation file and records what it says (kept beside the entry, whatever it is).
pub fn receive(
    conn: &mut PgConnection,
    operator: &SigningKey,
    keys: &DeliveryKeys,
    file_name: &str,
    file: &[u8],
    now: DateTime<Utc>,
) -> Result<ConfirmationOutcome, PackageError> {
    let package = package_of(file_name).ok_or_else(|| {
        PackageError::Delivery(format!(
            "`{file_name}` is not a confirmation's file name ({{package}}.Ok.zip.p7e.p7s)"
        ))
    })?;
    let opened = delivery::open_seal(file, &keys.ministry_seals);
    let sealer = opened.as_ref().ok().map(|o| o.sealer.clone());
    let sealed_content_sha256 = opened.as_ref().ok().map(|o| sha256_hex(&o.content));
    let sealed_at = opened.as_ref().ok().and_then(|o| o.signing_time);
    let (step, detail) = match &opened {
        Err(e) => (DeliveryStep::ConfirmationRefused, e.to_string()),
        Ok(opened) => read_step(&opened.content, keys, package),
    };
    let offered = OfferedConfirmation {
        step: Step {
            step,
            package: package.to_owned(),
            file: file_name.to_owned(),
            sha256: Some(sha256_hex(file)),
            subject: sealer.as_ref().map(|c| c.subject()),
            fingerprint: sealer.as_ref().map(|c| c.fingerprint()),
            detail: Some(detail),
        },
        sealed_content_sha256: sealed_content_sha256.clone(),
        sealed_at,
        file_name,
        file,
    };
    let (receipt, recorded) = deliveries::record_confirmation(conn, operator, offered, now)
        .map_err(|e| PackageError::Report(e.into()))?;
    Ok(ConfirmationOutcome {
        package: package.to_owned(),
        step: recorded.step,
        detail: recorded.detail.unwrap_or_default(),
        sealed_by: sealer.map(|c| c.subject()),
        sealed_content_sha256,
        ledger_index: receipt.index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_is_named_by_the_file() {
        assert_eq!(
            package_of("12345679-M-202610-Z-kasino_1-01.Ok.zip.p7e.p7s"),
            Some("12345679-M-202610-Z-kasino_1-01")
        );
        assert_eq!(package_of("../etc/passwd"), None);
        assert_eq!(package_of(".Ok.zip"), None);
    }

    #[test]
    fn the_report_is_read_from_the_zip_or_as_text() {
        assert_eq!(
            read_report(b"\xef\xbb\xbfOK: 20261103-101500\r\n")
                .map(|r| r.text)
                .as_deref(),
            Ok("OK: 20261103-101500")
        );
        assert!(read_report(&[0xff, 0xfe, 0x00]).is_err());
    }

    fn report(names: &[&str], text: &str) -> Report {
        Report {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_report_that_names_another_package_is_not_this_ones() {
        let one = "12345679-M-202610-Z-kasino_1-01";
        let two = "12345679-M-202610-Z-kasino_1-02";
        // Nothing inside names a package (the Ministry's OK report is one line): no objection.
        assert_eq!(
            names_another(&report(&["potvrzeni.txt"], "OK: 20261103-101500"), two),
            None
        );
        // A file inside named after the package, or a report naming it: this package's.
        let own = format!("{two}.Ok.txt");
        assert_eq!(
            names_another(&report(&[&own], "OK: 20261103-101500"), two),
            None
        );
        let errors = format!("ERR_FILE_BAD_RECORD_COUNT [{two}/misto.csv]: 2");
        assert_eq!(names_another(&report(&["chyby.txt"], &errors), two), None);
        // Named after package 01, offered as 02's: refused, naming what it names.
        let other = format!("{one}/{one}.Ok.txt");
        let why = names_another(&report(&[&other], "OK: 20261103-101500"), two).unwrap();
        assert!(why.contains(&format!("names {one}, not {two}")), "{why}");
        let errors = format!("ERR_FILE_BAD_RECORD_COUNT [{one}/misto.csv]: 2");
        assert!(names_another(&report(&["chyby.txt"], &errors), two).is_some());
        // A report that names this package among others (an error quoting a wrong metadata
        // line) is still this package's.
        let both = format!("ERR_META_FIELD_BAD_PACKAGE [{two}/misto.csv][1]: {one}");
        assert_eq!(names_another(&report(&["chyby.txt"], &both), two), None);
    }
}
