//! The Ministry's answer to a delivered package: a confirmation package (`{package}.Ok.zip.p7e.p7s`
//! when accepted) sealed by the Ministry and encrypted to the operator. Its seal is checked
//! against the Ministry's configured seal certificates and it is decrypted with the operator's
//! key; a file whose seal does not hold, or that does not open, is kept as evidence and flagged,
//! never counted as a confirmation. Either way it is a ledger entry.

use chrono::{DateTime, Utc};
use diesel::PgConnection;
use ed25519_dalek::SigningKey;
use serde::Serialize;

use ledger::registry_event::DeliveryStep;
use ledger::storage::deliveries::{self, Step};

use super::keys::DeliveryKeys;
use super::PackageError;

/// What a confirmation file said, once recorded.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ConfirmationOutcome {
    /// The package it is about (from its file name).
    pub package: String,
    /// `confirmed`, `rejected` or `confirmation_refused`.
    #[schema(value_type = String)]
    pub step: DeliveryStep,
    /// The report's first line (`OK: YYYYMMDD-HHMMSS`), the errors the Ministry listed, or
    /// why the file is not trusted.
    pub detail: String,
    /// The Ministry's sealing certificate, when the seal held.
    pub sealed_by: Option<String>,
    /// The ledger entry that records it.
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

/// The report inside the decrypted confirmation: the text of the ZIP's first file, or the
/// content itself when it is text and not a ZIP.
fn report_text(content: &[u8]) -> Result<String, String> {
    if let Ok(mut archive) = ::zip::ZipArchive::new(std::io::Cursor::new(content)) {
        for i in 0..archive.len() {
            let mut file = archive.by_index(i).map_err(|e| e.to_string())?;
            if file.is_dir() {
                continue;
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut file, &mut text)
                .map_err(|_| "the confirmation's report is not UTF-8 text".to_owned())?;
            return Ok(text.trim_start_matches('\u{feff}').trim().to_owned());
        }
        return Err("the confirmation's ZIP holds no file".into());
    }
    String::from_utf8(content.to_vec())
        .map(|t| t.trim_start_matches('\u{feff}').trim().to_owned())
        .map_err(|_| "the confirmation is neither a ZIP nor text".into())
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
    let delivered = deliveries::of_package(conn, package)
        .map_err(|e| PackageError::Report(e.into()))?
        .is_some();
    let opened = delivery::open_seal(file, &keys.ministry_seals);
    let sealer = opened.as_ref().ok().map(|o| o.sealer.clone());
    let (step, detail) = match opened {
        Err(e) => (DeliveryStep::ConfirmationRefused, e.to_string()),
        Ok(_) if !delivered => (
            DeliveryStep::ConfirmationRefused,
            format!("it confirms {package}, which dozor has not delivered"),
        ),
        Ok(opened) => match delivery::decrypt(&opened.content, &keys.encryption)
            .map_err(|e| e.to_string())
            .and_then(|content| report_text(&content))
        {
            Err(why) => (
                DeliveryStep::ConfirmationRefused,
                format!("sealed by the Ministry, but {why}"),
            ),
            Ok(text) if text.starts_with("OK:") => (
                DeliveryStep::Confirmed,
                text.lines().next().unwrap_or_default().to_owned(),
            ),
            Ok(text) => (DeliveryStep::Rejected, text),
        },
    };
    let sha256 = {
        use sha2::{Digest as _, Sha256};
        hex::encode(Sha256::digest(file))
    };
    let receipt = deliveries::record_step(
        conn,
        operator,
        Step {
            step,
            package: package.to_owned(),
            file: file_name.to_owned(),
            sha256: Some(sha256),
            subject: sealer.as_ref().map(|c| c.subject()),
            fingerprint: sealer.as_ref().map(|c| c.fingerprint()),
            detail: Some(detail.clone()),
        },
        Some((file_name, file)),
        now,
    )
    .map_err(|e| PackageError::Report(e.into()))?;
    Ok(ConfirmationOutcome {
        package: package.to_owned(),
        step,
        detail,
        sealed_by: sealer.map(|c| c.subject()),
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
            report_text(b"\xef\xbb\xbfOK: 20261103-101500\r\n").as_deref(),
            Ok("OK: 20261103-101500")
        );
        assert!(report_text(&[0xff, 0xfe, 0x00]).is_err());
    }
}
