//! What goes wrong delivering or opening a package.

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
