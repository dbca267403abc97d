//! The Ministry of Finance's monthly package as it is delivered (its communication interface):
//! the ZIP encrypted as CMS EnvelopedData to the Ministry's encryption certificates (and the
//! operator's own), that sealed with a CAdES baseline-B enveloping signature made with the
//! operator's seal; and the other way, a sealed and encrypted file from the Ministry opened and
//! its seal checked against the Ministry's seal certificates. No I/O: bytes in, bytes out.

mod ber;
pub mod certificate;
pub mod envelope;
mod ess;
pub mod identity;
pub mod seal;

pub use certificate::{read_certificates, Certificate};
pub use envelope::{decrypt, encrypt};
pub use identity::Identity;
pub use seal::{open_seal, seal, Opened};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum DeliveryError {
    /// A PKCS#12 file that does not open: a wrong password or a damaged file.
    #[error("the PKCS#12 file does not open (a wrong password, or not a PKCS#12 file): {0}")]
    Pkcs12(String),
    #[error("the PKCS#12 file holds no private key with its certificate")]
    NoPrivateKey,
    #[error("{0}")]
    Key(String),
    #[error("not a certificate: {0}")]
    Certificate(String),
    #[error("{0}")]
    Cms(String),
    /// Encrypted, but to none of the keys given.
    #[error("the file is encrypted to none of our certificates ({0})")]
    NotForUs(String),
    /// Sealed, but the seal does not hold.
    #[error("the seal does not hold: {0}")]
    Seal(String),
}

impl From<der::Error> for DeliveryError {
    fn from(e: der::Error) -> Self {
        DeliveryError::Cms(format!("DER: {e}"))
    }
}
