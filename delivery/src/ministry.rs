//! The Ministry's side of a delivery, as its communication interface does it, for rehearsing a
//! delivery before the Ministry is involved: a downloaded file's seal checked against the
//! operator's registered seal certificates and the package decrypted with the Ministry's key;
//! the answer (`OK: YYYYMMDD-HHMMSS` or the errors found) zipped, encrypted to the operator's
//! encryption certificate and sealed with the Ministry's seal. Bytes in, bytes out.

use std::io::Write as _;

use chrono::{DateTime, Utc};
use sha2::{Digest as _, Sha256};

use crate::certificate::Certificate;
use crate::error::DeliveryError;
use crate::identity::Identity;

/// A downloaded package as the Ministry opens it.
#[derive(Debug, Clone)]
pub struct Received {
    /// The package's ZIP.
    pub zip: Vec<u8>,
    /// Who sealed it (one of the operator's registered seal certificates).
    pub sealer: Certificate,
    /// When the seal says it was made.
    pub signing_time: Option<DateTime<Utc>>,
}

/// SHA-256 of `bytes`, lower-case hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A downloaded `{package}.zip.p7e.p7s` opened: its seal must hold and be made with one of
/// `operator_seals`; what it seals must be encrypted to `ministry_key`.
pub fn receive(
    sealed_file: &[u8],
    operator_seals: &[Certificate],
    ministry_key: &Identity,
) -> Result<Received, DeliveryError> {
    let opened = crate::seal::open_seal(sealed_file, operator_seals)?;
    let zip = crate::envelope::decrypt(&opened.content, ministry_key)?;
    Ok(Received {
        zip,
        sealer: opened.sealer,
        signing_time: opened.signing_time,
    })
}

/// The Ministry's report: `OK: YYYYMMDD-HHMMSS` (Prague time) when `errors` is empty, else
/// the errors, a line each; CRLF after every line.
pub fn report(errors: &[String], at: DateTime<Utc>) -> String {
    if errors.is_empty() {
        let local = at.with_timezone(&chrono_tz::Europe::Prague);
        return format!("OK: {}\r\n", local.format("%Y%m%d-%H%M%S"));
    }
    errors.iter().map(|e| format!("{e}\r\n")).collect()
}

/// The Ministry's answer to `package`: `report` as the one file of a ZIP (`{package}.txt`),
/// encrypted to `operator_encryption`, sealed with `ministry_seal` at `now` — the
/// `{package}.Ok.zip.p7e.p7s` (or `.Err.`) file an operator receives.
pub fn answer(
    package: &str,
    report: &str,
    operator_encryption: &Certificate,
    ministry_seal: &Identity,
    now: DateTime<Utc>,
) -> Result<Vec<u8>, DeliveryError> {
    let zip = (|| -> zip::result::ZipResult<Vec<u8>> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        writer.start_file(format!("{package}.txt"), options)?;
        writer.write_all(report.as_bytes())?;
        Ok(writer.finish()?.into_inner())
    })()
    .map_err(|e| DeliveryError::Cms(format!("the answer's ZIP: {e}")))?;
    let encrypted = crate::envelope::encrypt(&zip, std::slice::from_ref(operator_encryption))?;
    crate::seal::seal(&encrypted, ministry_seal, now)
}

/// The name of the Ministry's answer to `package`: `.Ok.` when it is accepted, `.Err.` when
/// not.
pub fn answer_name(package: &str, accepted: bool) -> String {
    format!(
        "{package}.{}.zip.p7e.p7s",
        if accepted { "Ok" } else { "Err" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pki::{Issued, Purpose};

    #[test]
    fn the_report_says_ok_in_prague_time_or_lists_the_errors() {
        let summer: DateTime<Utc> = "2026-10-03T08:15:00Z".parse().unwrap();
        let winter: DateTime<Utc> = "2026-11-03T09:15:00Z".parse().unwrap();
        // 08:15 UTC is 10:15 in Prague before 25 October (CEST), 09:15 UTC is 10:15 after.
        assert_eq!(report(&[], summer), "OK: 20261003-101500\r\n");
        assert_eq!(report(&[], winter), "OK: 20261103-101500\r\n");
        let errors = [
            "ERR_PKG_MISSING_FILE misto.csv".to_owned(),
            "ERR_FILE".to_owned(),
        ];
        assert_eq!(
            report(&errors, winter),
            "ERR_PKG_MISSING_FILE misto.csv\r\nERR_FILE\r\n"
        );
    }

    #[test]
    fn a_package_goes_there_and_the_answer_comes_back() {
        let now = Utc::now();
        let ca = Issued::authority("CN=CA,O=rehearsal", now, 2).unwrap();
        let issue = |cn: &str, purpose| {
            ca.issue(&format!("CN={cn},O=rehearsal"), &purpose, now, 2)
                .unwrap()
                .identity()
                .unwrap()
        };
        let (operator_seal, operator_key) = (
            issue("seal", Purpose::Seal),
            issue("enc", Purpose::Encryption),
        );
        let (ministry_seal, ministry_key) = (
            issue("mf-seal", Purpose::Seal),
            issue("mf-enc", Purpose::Encryption),
        );
        let encrypted = crate::envelope::encrypt(
            b"the package",
            &[
                ministry_key.certificate().clone(),
                operator_key.certificate().clone(),
            ],
        )
        .unwrap();
        let sealed = crate::seal::seal(&encrypted, &operator_seal, now).unwrap();
        let received = receive(
            &sealed,
            std::slice::from_ref(operator_seal.certificate()),
            &ministry_key,
        )
        .unwrap();
        assert_eq!(received.zip, b"the package");
        assert_eq!(&received.sealer, operator_seal.certificate());
        // Sealed by anyone else: refused.
        assert!(receive(
            &sealed,
            std::slice::from_ref(ministry_seal.certificate()),
            &ministry_key
        )
        .is_err());

        let answer = answer(
            "P",
            "OK: 20261103-101500\r\n",
            operator_key.certificate(),
            &ministry_seal,
            now,
        )
        .unwrap();
        let opened =
            crate::seal::open_seal(&answer, std::slice::from_ref(ministry_seal.certificate()))
                .unwrap();
        let zip = crate::envelope::decrypt(&opened.content, &operator_key).unwrap();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("P.txt").unwrap(), &mut text).unwrap();
        assert_eq!(text, "OK: 20261103-101500\r\n");
        assert_eq!(answer_name("P", false), "P.Err.zip.p7e.p7s");
    }
}
