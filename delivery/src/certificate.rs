//! Certificates as configuration names them: PEM (one or more) or DER files.

use der::{Decode as _, DecodePem as _, Encode as _};
use sha2::{Digest as _, Sha256};

use crate::error::DeliveryError;

/// An X.509 certificate with its DER encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificate {
    pub(crate) parsed: x509_cert::Certificate,
    der: Vec<u8>,
}

impl Certificate {
    pub fn from_der(der: &[u8]) -> Result<Certificate, DeliveryError> {
        let parsed = x509_cert::Certificate::from_der(der)
            .map_err(|e| DeliveryError::Certificate(e.to_string()))?;
        Certificate::from_parsed(parsed)
    }

    pub(crate) fn from_parsed(
        parsed: x509_cert::Certificate,
    ) -> Result<Certificate, DeliveryError> {
        let der = parsed.to_der()?;
        Ok(Certificate { parsed, der })
    }

    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// PEM, `-----BEGIN CERTIFICATE-----` to `-----END CERTIFICATE-----`, LF line ends.
    pub fn pem(&self) -> Result<String, DeliveryError> {
        use der::EncodePem as _;
        Ok(self.parsed.to_pem(der::pem::LineEnding::LF)?)
    }

    /// The subject as RFC 4514 writes it (`CN=…,O=…`).
    pub fn subject(&self) -> String {
        self.parsed.tbs_certificate.subject.to_string()
    }

    pub fn issuer(&self) -> String {
        self.parsed.tbs_certificate.issuer.to_string()
    }

    /// The serial number in hexadecimal.
    pub fn serial(&self) -> String {
        hex::encode(self.parsed.tbs_certificate.serial_number.as_bytes())
    }

    /// SHA-256 of the DER encoding, in hexadecimal: how a person compares two certificates.
    pub fn fingerprint(&self) -> String {
        hex::encode(Sha256::digest(&self.der))
    }

    /// Whether `at` (seconds since 1970) lies within the certificate's validity.
    pub fn valid_at(&self, at: chrono::DateTime<chrono::Utc>) -> bool {
        let validity = &self.parsed.tbs_certificate.validity;
        let Ok(seconds) = u64::try_from(at.timestamp()) else {
            return false;
        };
        let at = std::time::Duration::from_secs(seconds);
        validity.not_before.to_unix_duration() <= at && at <= validity.not_after.to_unix_duration()
    }

    pub(crate) fn rsa_public_key(&self) -> Result<rsa::RsaPublicKey, DeliveryError> {
        use rsa::pkcs8::DecodePublicKey as _;
        let spki = self
            .parsed
            .tbs_certificate
            .subject_public_key_info
            .to_der()?;
        rsa::RsaPublicKey::from_public_key_der(&spki).map_err(|e| {
            DeliveryError::Key(format!(
                "the key of {} is not an RSA key dozor can use: {e}",
                self.subject()
            ))
        })
    }
}

/// Every certificate of a file: PEM blocks `CERTIFICATE` (one or more), or one DER certificate.
pub fn read_certificates(bytes: &[u8]) -> Result<Vec<Certificate>, DeliveryError> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(vec![Certificate::from_der(bytes)?]);
    };
    if !text.contains("-----BEGIN") {
        return Ok(vec![Certificate::from_der(bytes)?]);
    }
    let mut certificates = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN CERTIFICATE-----") {
        let block = &rest[start..];
        let end_marker = "-----END CERTIFICATE-----";
        let end = block
            .find(end_marker)
            .ok_or_else(|| DeliveryError::Certificate("a PEM block without its end".into()))?
            + end_marker.len();
        let parsed = x509_cert::Certificate::from_pem(&block[..end])
            .map_err(|e| DeliveryError::Certificate(e.to_string()))?;
        certificates.push(Certificate::from_parsed(parsed)?);
        rest = &block[end..];
    }
    if certificates.is_empty() {
        return Err(DeliveryError::Certificate(
            "no `BEGIN CERTIFICATE` block in the PEM file".into(),
        ));
    }
    Ok(certificates)
}
