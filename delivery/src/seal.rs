//! CAdES baseline-B enveloping seals (ETSI EN 319 122-1): CMS SignedData holding the content,
//! SHA-256, RSA PKCS #1 v1.5, the signed attributes content-type, message-digest, signing-time
//! and signing-certificate-v2, and the sealer's certificate chain; and a seal opened again,
//! checked against the certificates allowed to make it.

use chrono::{DateTime, Utc};
use cms::builder::{SignedDataBuilder, SignerInfoBuilder};
use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::content_info::ContentInfo;
use cms::signed_data::{EncapsulatedContentInfo, SignedData, SignerIdentifier, SignerInfo};
use const_oid::db::{rfc5911, rfc5912};
use der::asn1::{OctetString, SetOfVec};
use der::{Any, Decode as _, Encode as _, Tag, Tagged as _};
use sha2::{Digest as _, Sha256, Sha384, Sha512};
use x509_cert::attr::Attribute;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::spki::AlgorithmIdentifierOwned;
use x509_cert::time::Time;

use crate::certificate::Certificate;
use crate::error::DeliveryError;
use crate::ess::{EssCertIdV2, IssuerSerial, SigningCertificateV2};
use crate::identity::Identity;

fn cms_error(e: impl std::fmt::Debug) -> DeliveryError {
    DeliveryError::Cms(format!("{e:?}"))
}

fn broken(why: impl Into<String>) -> DeliveryError {
    DeliveryError::Seal(why.into())
}

fn attribute(oid: der::oid::ObjectIdentifier, value: Any) -> Result<Attribute, DeliveryError> {
    let mut values = SetOfVec::new();
    values.insert(value)?;
    Ok(Attribute { oid, values })
}

/// `content` sealed by `identity` at `signing_time`: a DER `ContentInfo` of type signedData
/// holding the content (what the Ministry's `.p7s` file is).
pub fn seal(
    content: &[u8],
    identity: &Identity,
    signing_time: DateTime<Utc>,
) -> Result<Vec<u8>, DeliveryError> {
    let sealer = identity.certificate();
    let tbs = &sealer.parsed.tbs_certificate;
    let encapsulated = EncapsulatedContentInfo {
        econtent_type: rfc5911::ID_DATA,
        econtent: Some(Any::new(Tag::OctetString, content)?),
    };
    let sha256 = AlgorithmIdentifierOwned {
        oid: rfc5912::ID_SHA_256,
        parameters: None,
    };
    let signer = rsa::pkcs1v15::SigningKey::<Sha256>::new(identity.key.clone());
    let sid = SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
        issuer: tbs.issuer.clone(),
        serial_number: tbs.serial_number.clone(),
    });
    let mut signer_info = SignerInfoBuilder::new(&signer, sid, sha256.clone(), &encapsulated, None)
        .map_err(cms_error)?;
    let seconds = u64::try_from(signing_time.timestamp())
        .map_err(|_| DeliveryError::Cms("a signing time before 1970".into()))?;
    let since_1970 = std::time::Duration::from_secs(seconds);
    // UTCTime until 2049, GeneralizedTime after (RFC 5652 § 11.3).
    let time = match der::asn1::UtcTime::from_unix_duration(since_1970) {
        Ok(utc) => Time::UtcTime(utc),
        Err(_) => Time::GeneralTime(der::asn1::GeneralizedTime::from_unix_duration(since_1970)?),
    };
    signer_info
        .add_signed_attribute(attribute(
            rfc5911::ID_SIGNING_TIME,
            Any::encode_from(&time)?,
        )?)
        .map_err(cms_error)?;
    let signing_certificate = SigningCertificateV2 {
        certs: vec![EssCertIdV2 {
            hash_algorithm: None,
            cert_hash: OctetString::new(Sha256::digest(sealer.der()).to_vec())?,
            issuer_serial: Some(IssuerSerial {
                issuer: vec![GeneralName::DirectoryName(tbs.issuer.clone())],
                serial_number: tbs.serial_number.clone(),
            }),
        }],
    };
    signer_info
        .add_signed_attribute(attribute(
            rfc5911::ID_AA_SIGNING_CERTIFICATE_V_2,
            Any::encode_from(&signing_certificate)?,
        )?)
        .map_err(cms_error)?;
    let mut builder = SignedDataBuilder::new(&encapsulated);
    builder.add_digest_algorithm(sha256).map_err(cms_error)?;
    for certificate in std::iter::once(sealer).chain(identity.chain()) {
        builder
            .add_certificate(CertificateChoices::Certificate(certificate.parsed.clone()))
            .map_err(cms_error)?;
    }
    builder
        .add_signer_info::<_, rsa::pkcs1v15::Signature>(signer_info)
        .map_err(cms_error)?;
    let info = builder.build().map_err(cms_error)?;
    Ok(info.to_der()?)
}

/// A seal that holds: what it sealed, who sealed it, and when it says it did.
#[derive(Debug, Clone)]
pub struct Opened {
    pub content: Vec<u8>,
    pub sealer: Certificate,
    pub signing_time: Option<DateTime<Utc>>,
}

/// Opens a sealed file (DER or BER): its one seal must verify, over the content it holds, and
/// be made with one of `allowed` (compared as whole certificates, not by name).
pub fn open_seal(sealed: &[u8], allowed: &[Certificate]) -> Result<Opened, DeliveryError> {
    let der = crate::ber::to_der(sealed)?;
    let info = ContentInfo::from_der(&der)?;
    if info.content_type != rfc5911::ID_SIGNED_DATA {
        return Err(broken(format!(
            "not CMS SignedData (content type {})",
            info.content_type
        )));
    }
    let data: SignedData = info.content.decode_as()?;
    let content = match &data.encap_content_info.econtent {
        Some(any) if any.tag() == Tag::OctetString => any.value().to_vec(),
        Some(any) => any.value().to_vec(),
        None => {
            return Err(broken(
                "the sealed content is not in the file (a detached seal)",
            ))
        }
    };
    let mut signers = data.signer_infos.0.iter();
    let signer = match (signers.next(), signers.next()) {
        (Some(s), None) => s,
        (None, _) => return Err(broken("no seal in the file")),
        (Some(_), Some(_)) => return Err(broken("more than one seal in the file")),
    };
    let sealer = sealer_certificate(&data, signer)?;
    if !allowed.contains(&sealer) {
        return Err(broken(format!(
            "sealed by {} (SHA-256 {}), not by a certificate configured for it",
            sealer.subject(),
            sealer.fingerprint()
        )));
    }
    let attributes = signer
        .signed_attrs
        .as_ref()
        .ok_or_else(|| broken("no signed attributes"))?;
    let value_of = |oid| {
        attributes
            .iter()
            .find(|a| a.oid == oid)
            .and_then(|a| a.values.iter().next())
    };
    let content_type = value_of(rfc5911::ID_CONTENT_TYPE)
        .ok_or_else(|| broken("no content-type attribute"))?
        .decode_as::<der::oid::ObjectIdentifier>()?;
    if content_type != data.encap_content_info.econtent_type {
        return Err(broken(
            "the content-type attribute names another content type",
        ));
    }
    let digest = value_of(rfc5911::ID_MESSAGE_DIGEST)
        .ok_or_else(|| broken("no message-digest attribute"))?
        .decode_as::<OctetString>()?;
    let hash = Hash::of(&signer.digest_alg)?;
    if hash.digest(&content) != digest.as_bytes() {
        return Err(broken(
            "the content is not what was sealed (message digest differs)",
        ));
    }
    if let Some(value) = value_of(rfc5911::ID_AA_SIGNING_CERTIFICATE_V_2) {
        let named: SigningCertificateV2 = value.decode_as()?;
        let first = named
            .certs
            .first()
            .ok_or_else(|| broken("an empty signing-certificate-v2"))?;
        let hash = match &first.hash_algorithm {
            None => Hash::Sha256,
            Some(algorithm) => Hash::of(algorithm)?,
        };
        if hash.digest(sealer.der()) != first.cert_hash.as_bytes() {
            return Err(broken(
                "signing-certificate-v2 names another certificate than the sealer's",
            ));
        }
    }
    let signing_time = match value_of(rfc5911::ID_SIGNING_TIME) {
        Some(value) => {
            let time = Time::from_der(&value.to_der()?)?;
            let seconds = i64::try_from(time.to_unix_duration().as_secs())
                .map_err(|_| broken("a signing time out of range"))?;
            DateTime::from_timestamp(seconds, 0)
        }
        None => None,
    };
    let signed = attributes.to_der()?;
    verify_signature(&sealer, signer, hash, &signed)?;
    Ok(Opened {
        content,
        sealer,
        signing_time,
    })
}

/// The certificate the seal names, from the certificates the file carries.
fn sealer_certificate(
    data: &SignedData,
    signer: &SignerInfo,
) -> Result<Certificate, DeliveryError> {
    let carried = data
        .certificates
        .as_ref()
        .map(|set| set.0.iter().collect::<Vec<_>>())
        .unwrap_or_default();
    for choice in carried {
        let CertificateChoices::Certificate(c) = choice else {
            continue;
        };
        let tbs = &c.tbs_certificate;
        let matches = match &signer.sid {
            SignerIdentifier::IssuerAndSerialNumber(named) => {
                named.issuer == tbs.issuer && named.serial_number == tbs.serial_number
            }
            SignerIdentifier::SubjectKeyIdentifier(key_id) => tbs
                .get::<x509_cert::ext::pkix::SubjectKeyIdentifier>()
                .ok()
                .flatten()
                .is_some_and(|(_, own)| own == *key_id),
        };
        if matches {
            return Certificate::from_parsed(c.clone());
        }
    }
    Err(broken("the sealer's certificate is not in the file"))
}

#[derive(Debug, Clone, Copy)]
enum Hash {
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    fn of(algorithm: &AlgorithmIdentifierOwned) -> Result<Hash, DeliveryError> {
        match algorithm.oid {
            rfc5912::ID_SHA_256 => Ok(Hash::Sha256),
            rfc5912::ID_SHA_384 => Ok(Hash::Sha384),
            rfc5912::ID_SHA_512 => Ok(Hash::Sha512),
            other => Err(broken(format!(
                "digest {other} is not accepted (SHA-256, -384 or -512)"
            ))),
        }
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            Hash::Sha256 => Sha256::digest(data).to_vec(),
            Hash::Sha384 => Sha384::digest(data).to_vec(),
            Hash::Sha512 => Sha512::digest(data).to_vec(),
        }
    }
}

/// The signature over the DER of the signed attributes (RFC 5652 § 5.4: as a SET OF), by the
/// sealer's RSA key, PKCS #1 v1.5 or PSS.
fn verify_signature(
    sealer: &Certificate,
    signer: &SignerInfo,
    hash: Hash,
    signed: &[u8],
) -> Result<(), DeliveryError> {
    use rsa::signature::Verifier as _;
    let public = sealer.rsa_public_key()?;
    let signature = signer.signature.as_bytes();
    let pkcs1 = |signature: &[u8]| -> Result<(), rsa::signature::Error> {
        let signature = rsa::pkcs1v15::Signature::try_from(signature)?;
        match hash {
            Hash::Sha256 => rsa::pkcs1v15::VerifyingKey::<Sha256>::new(public.clone())
                .verify(signed, &signature),
            Hash::Sha384 => rsa::pkcs1v15::VerifyingKey::<Sha384>::new(public.clone())
                .verify(signed, &signature),
            Hash::Sha512 => rsa::pkcs1v15::VerifyingKey::<Sha512>::new(public.clone())
                .verify(signed, &signature),
        }
    };
    let pss = |signature: &[u8]| -> Result<(), rsa::signature::Error> {
        let signature = rsa::pss::Signature::try_from(signature)?;
        match hash {
            Hash::Sha256 => {
                rsa::pss::VerifyingKey::<Sha256>::new(public.clone()).verify(signed, &signature)
            }
            Hash::Sha384 => {
                rsa::pss::VerifyingKey::<Sha384>::new(public.clone()).verify(signed, &signature)
            }
            Hash::Sha512 => {
                rsa::pss::VerifyingKey::<Sha512>::new(public.clone()).verify(signed, &signature)
            }
        }
    };
    let verified = match signer.signature_algorithm.oid {
        rfc5912::RSA_ENCRYPTION
        | rfc5912::SHA_256_WITH_RSA_ENCRYPTION
        | rfc5912::SHA_384_WITH_RSA_ENCRYPTION
        | rfc5912::SHA_512_WITH_RSA_ENCRYPTION => pkcs1(signature),
        rfc5912::ID_RSASSA_PSS => pss(signature),
        other => {
            return Err(broken(format!(
                "signature algorithm {other} is not accepted (RSA)"
            )))
        }
    };
    verified.map_err(|_| broken("the signature does not verify with the sealer's key"))
}
