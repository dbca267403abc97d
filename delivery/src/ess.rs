//! ESS signing-certificate-v2 (RFC 5035), the signed attribute CAdES baseline-B requires: the
//! hash of the sealer's certificate, so that the seal names the certificate it was made with.

use der::asn1::OctetString;
use der::Sequence;
use x509_cert::ext::pkix::name::GeneralNames;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::AlgorithmIdentifierOwned;

/// `SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2, policies … OPTIONAL }`
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct SigningCertificateV2 {
    pub certs: Vec<EssCertIdV2>,
}

/// `ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT id-sha256, certHash, issuerSerial OPTIONAL }`:
/// with SHA-256 the algorithm is left out, as DER leaves out a default.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct EssCertIdV2 {
    #[asn1(optional = "true")]
    pub hash_algorithm: Option<AlgorithmIdentifierOwned>,
    pub cert_hash: OctetString,
    #[asn1(optional = "true")]
    pub issuer_serial: Option<IssuerSerial>,
}

/// `IssuerSerial ::= SEQUENCE { issuer GeneralNames, serialNumber CertificateSerialNumber }`
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct IssuerSerial {
    pub issuer: GeneralNames,
    pub serial_number: SerialNumber,
}
