//! A throwaway public-key infrastructure for rehearsing a delivery: certificate authorities and
//! the RSA certificates under them that a delivery needs (the Ministry's encryption, seal and
//! TLS client certificates; the operator's seal, encryption and TLS server certificates), each
//! with the key usages and extended key usages its job asks for, and PKCS#12 files as an
//! operator receives them. Made here, in Rust, so that a rehearsal needs no openssl; nothing
//! made here is ever a real certificate (every subject says `rehearsal`).

use der::asn1::{BitString, Ia5String, OctetString};
use der::{Decode as _, Encode as _};
use rsa::pkcs8::{EncodePrivateKey as _, EncodePublicKey as _};
use sha1::Digest as _;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    SubjectAltName, SubjectKeyIdentifier,
};
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::time::{Time, Validity};
use x509_cert::{TbsCertificate, Version};

use crate::certificate::Certificate;
use crate::error::DeliveryError;
use crate::identity::Identity;

/// The size of every key made: what the Ministry's own certificates and the qualified seals
/// of Czech trust service providers use at the least.
pub const KEY_BITS: usize = 2048;

/// What a certificate is for: its key usages, extended key usages and names follow from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// A certificate authority: signs certificates (keyCertSign, cRLSign; CA:TRUE).
    Authority,
    /// A key packages are encrypted to (keyEncipherment, dataEncipherment).
    Encryption,
    /// A seal (digitalSignature, nonRepudiation), as a qualified electronic seal is.
    Seal,
    /// A TLS client (digitalSignature; clientAuth): the Ministry's download client.
    TlsClient,
    /// A TLS server for these DNS names and IP addresses (digitalSignature,
    /// keyEncipherment; serverAuth): the operator's listener.
    TlsServer {
        dns: Vec<String>,
        ips: Vec<std::net::IpAddr>,
    },
}

/// A key with its certificate, and the authority above it (none for an authority).
pub struct Issued {
    key: rsa::RsaPrivateKey,
    certificate: Certificate,
    authority: Option<Certificate>,
}

impl std::fmt::Debug for Issued {
    // The key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issued")
            .field("certificate", &self.certificate.subject())
            .finish_non_exhaustive()
    }
}

fn cms(e: impl std::fmt::Display) -> DeliveryError {
    DeliveryError::Cms(e.to_string())
}

fn time(at: chrono::DateTime<chrono::Utc>) -> Result<Time, DeliveryError> {
    let seconds = u64::try_from(at.timestamp()).map_err(cms)?;
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    Time::try_from(at).map_err(cms)
}

fn extension<T: der::Encode + const_oid::AssociatedOid>(
    value: &T,
    critical: bool,
) -> Result<Extension, DeliveryError> {
    Ok(Extension {
        extn_id: T::OID,
        critical,
        extn_value: OctetString::new(value.to_der()?)?,
    })
}

/// SHA-1 of the public key's bits: the key identifier RFC 5280 (4.2.1.2, method 1) describes.
fn key_identifier(spki: &SubjectPublicKeyInfoOwned) -> Result<OctetString, DeliveryError> {
    Ok(OctetString::new(
        sha1::Sha1::digest(spki.subject_public_key.raw_bytes()).to_vec(),
    )?)
}

/// The extensions a certificate for `purpose` carries.
fn extensions(
    purpose: &Purpose,
    subject_key: &SubjectPublicKeyInfoOwned,
    issuer_key: &SubjectPublicKeyInfoOwned,
) -> Result<Vec<Extension>, DeliveryError> {
    use const_oid::db::rfc5280::{ID_KP_CLIENT_AUTH, ID_KP_SERVER_AUTH};
    let usage = |flags: &[KeyUsages]| {
        let mut set = KeyUsage(flags[0].into()).0;
        for flag in &flags[1..] {
            set |= *flag;
        }
        KeyUsage(set)
    };
    let mut out = vec![
        extension(
            &BasicConstraints {
                ca: *purpose == Purpose::Authority,
                path_len_constraint: None,
            },
            true,
        )?,
        extension(&SubjectKeyIdentifier(key_identifier(subject_key)?), false)?,
        extension(
            &AuthorityKeyIdentifier {
                key_identifier: Some(key_identifier(issuer_key)?),
                authority_cert_issuer: None,
                authority_cert_serial_number: None,
            },
            false,
        )?,
    ];
    let (key_usage, extended) = match purpose {
        Purpose::Authority => (usage(&[KeyUsages::KeyCertSign, KeyUsages::CRLSign]), None),
        Purpose::Encryption => (
            usage(&[KeyUsages::KeyEncipherment, KeyUsages::DataEncipherment]),
            None,
        ),
        Purpose::Seal => (
            usage(&[KeyUsages::DigitalSignature, KeyUsages::NonRepudiation]),
            None,
        ),
        Purpose::TlsClient => (
            usage(&[KeyUsages::DigitalSignature]),
            Some(ID_KP_CLIENT_AUTH),
        ),
        Purpose::TlsServer { .. } => (
            usage(&[KeyUsages::DigitalSignature, KeyUsages::KeyEncipherment]),
            Some(ID_KP_SERVER_AUTH),
        ),
    };
    out.push(extension(&key_usage, true)?);
    if let Some(oid) = extended {
        out.push(extension(&ExtendedKeyUsage(vec![oid]), false)?);
    }
    if let Purpose::TlsServer { dns, ips } = purpose {
        let mut names = Vec::new();
        for name in dns {
            names.push(GeneralName::DnsName(Ia5String::new(name)?));
        }
        names.extend(ips.iter().map(|ip| GeneralName::from(*ip)));
        out.push(extension(&SubjectAltName(names), false)?);
    }
    Ok(out)
}

/// What signs a certificate: the subject itself (an authority) or an authority.
struct Signer<'a> {
    key: &'a rsa::RsaPrivateKey,
    name: Name,
    spki: SubjectPublicKeyInfoOwned,
}

fn public_key_info(key: &rsa::RsaPrivateKey) -> Result<SubjectPublicKeyInfoOwned, DeliveryError> {
    let der = key.to_public_key().to_public_key_der().map_err(cms)?;
    Ok(SubjectPublicKeyInfoOwned::from_der(der.as_bytes())?)
}

/// A certificate for `key` named `subject`, signed by `signer` (sha256WithRSAEncryption),
/// valid from an hour before `now` (the two clocks may differ) for `days` days.
fn certify(
    key: &rsa::RsaPrivateKey,
    subject: Name,
    purpose: &Purpose,
    signer: &Signer<'_>,
    now: chrono::DateTime<chrono::Utc>,
    days: i64,
) -> Result<Certificate, DeliveryError> {
    use rand::RngCore as _;
    use rsa::signature::{SignatureEncoding as _, Signer as _};
    let spki = public_key_info(key)?;
    let mut serial = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut serial);
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    let algorithm = AlgorithmIdentifierOwned {
        oid: const_oid::db::rfc5912::SHA_256_WITH_RSA_ENCRYPTION,
        parameters: Some(der::Any::null()),
    };
    let tbs = TbsCertificate {
        version: Version::V3,
        serial_number: SerialNumber::new(&serial)?,
        signature: algorithm.clone(),
        issuer: signer.name.clone(),
        validity: Validity {
            not_before: time(now - chrono::Duration::hours(1))?,
            not_after: time(now + chrono::Duration::days(days))?,
        },
        subject,
        extensions: Some(extensions(purpose, &spki, &signer.spki)?),
        subject_public_key_info: spki,
        issuer_unique_id: None,
        subject_unique_id: None,
    };
    let signing = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(signer.key.clone());
    let signature = signing.try_sign(&tbs.to_der()?).map_err(cms)?;
    Certificate::from_parsed(x509_cert::Certificate {
        tbs_certificate: tbs,
        signature_algorithm: algorithm,
        signature: BitString::from_bytes(&signature.to_vec())?,
    })
}

fn name(subject: &str) -> Result<Name, DeliveryError> {
    subject
        .parse()
        .map_err(|e| DeliveryError::Certificate(format!("{subject}: {e}")))
}

fn new_key() -> Result<rsa::RsaPrivateKey, DeliveryError> {
    rsa::RsaPrivateKey::new(&mut rand::thread_rng(), KEY_BITS).map_err(cms)
}

/// A password for a throwaway PKCS#12 file: 24 random letters and digits.
pub fn random_password() -> String {
    use rand::Rng as _;
    rand::thread_rng()
        .sample_iter(rand::distributions::Alphanumeric)
        .take(24)
        .map(char::from)
        .collect()
}

impl Issued {
    /// A self-signed certificate authority named `subject` (`CN=…,O=…,C=CZ`), valid for
    /// `days` days from now.
    pub fn authority(
        subject: &str,
        now: chrono::DateTime<chrono::Utc>,
        days: i64,
    ) -> Result<Issued, DeliveryError> {
        let key = new_key()?;
        let signer = Signer {
            key: &key,
            name: name(subject)?,
            spki: public_key_info(&key)?,
        };
        let certificate = certify(
            &key,
            name(subject)?,
            &Purpose::Authority,
            &signer,
            now,
            days,
        )?;
        Ok(Issued {
            key,
            certificate,
            authority: None,
        })
    }

    /// A new key and its certificate for `purpose`, issued by this authority.
    pub fn issue(
        &self,
        subject: &str,
        purpose: &Purpose,
        now: chrono::DateTime<chrono::Utc>,
        days: i64,
    ) -> Result<Issued, DeliveryError> {
        let key = new_key()?;
        let signer = Signer {
            key: &self.key,
            name: self.certificate.parsed.tbs_certificate.subject.clone(),
            spki: self
                .certificate
                .parsed
                .tbs_certificate
                .subject_public_key_info
                .clone(),
        };
        let certificate = certify(&key, name(subject)?, purpose, &signer, now, days)?;
        Ok(Issued {
            key,
            certificate,
            authority: Some(self.certificate.clone()),
        })
    }

    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// The certificate and the authority's, PEM, the certificate first: a TLS server's chain.
    pub fn chain_pem(&self) -> Result<String, DeliveryError> {
        let mut pem = self.certificate.pem()?;
        if let Some(authority) = &self.authority {
            pem.push_str(&authority.pem()?);
        }
        Ok(pem)
    }

    /// The private key, PKCS#8 PEM (unencrypted: for a TLS server or client key file).
    pub fn key_pem(&self) -> Result<String, DeliveryError> {
        let pem = self
            .key
            .to_pkcs8_pem(der::pem::LineEnding::LF)
            .map_err(cms)?;
        Ok(pem.as_str().to_owned())
    }

    /// A PKCS#12 file of the key, its certificate and the authority's, under `password`
    /// (PBES2 with AES-256 and an HMAC-SHA-256 MAC, as OpenSSL 3 writes it).
    pub fn pkcs12(&self, password: &str) -> Result<Vec<u8>, DeliveryError> {
        let pkcs12 = |e: p12_keystore::error::Error| DeliveryError::Pkcs12(e.to_string());
        let key = self.key.to_pkcs8_der().map_err(cms)?;
        let mut chain =
            vec![p12_keystore::Certificate::from_der(self.certificate.der()).map_err(pkcs12)?];
        if let Some(authority) = &self.authority {
            chain.push(p12_keystore::Certificate::from_der(authority.der()).map_err(pkcs12)?);
        }
        let local_key_id = sha1::Sha1::digest(self.certificate.der());
        let mut store = p12_keystore::KeyStore::new();
        store.add_entry(
            "1",
            p12_keystore::KeyStoreEntry::PrivateKeyChain(p12_keystore::PrivateKeyChain::new(
                key.as_bytes(),
                local_key_id,
                chain,
            )),
        );
        store.writer(password).write().map_err(pkcs12)
    }

    /// The key and certificate as an [`Identity`] (what a PKCS#12 file opens to).
    pub fn identity(&self) -> Result<Identity, DeliveryError> {
        let password = "rehearsal";
        Identity::from_pkcs12(&self.pkcs12(password)?, password)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_made_here_opens_with_the_authority_and_its_pkcs12_file_holds_it() {
        let now = chrono::Utc::now();
        let ca = Issued::authority("CN=Rehearsal CA,O=dozor rehearsal,C=CZ", now, 30).unwrap();
        let seal = ca
            .issue(
                "CN=Rehearsal seal,O=dozor rehearsal,C=CZ",
                &Purpose::Seal,
                now,
                30,
            )
            .unwrap();
        let identity = seal.identity().unwrap();
        assert_eq!(identity.certificate(), seal.certificate());
        assert_eq!(identity.chain(), std::slice::from_ref(ca.certificate()));
        assert!(seal.certificate().valid_at(now));
        assert!(!seal
            .certificate()
            .valid_at(now + chrono::Duration::days(31)));
        let sealed = crate::seal(b"package", &identity, now).unwrap();
        let opened = crate::open_seal(&sealed, std::slice::from_ref(seal.certificate())).unwrap();
        assert_eq!(opened.content, b"package");
        // A wrong password does not open it.
        assert!(Identity::from_pkcs12(&seal.pkcs12("a").unwrap(), "b").is_err());
    }
}
