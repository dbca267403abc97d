//! The operator's seal (or encryption) identity: an RSA private key and its certificate chain,
//! from a PKCS#12 file and its password.

use rsa::pkcs8::DecodePrivateKey as _;
use rsa::traits::PublicKeyParts as _;

use crate::certificate::Certificate;
use crate::error::DeliveryError;

/// A private key with its certificate and the rest of its chain.
pub struct Identity {
    pub(crate) key: rsa::RsaPrivateKey,
    certificate: Certificate,
    /// The certificates above it, as the PKCS#12 file holds them (not the key's own).
    chain: Vec<Certificate>,
}

impl std::fmt::Debug for Identity {
    // The key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("certificate", &self.certificate.subject())
            .field("chain", &self.chain.len())
            .finish_non_exhaustive()
    }
}

impl Identity {
    /// Opens a PKCS#12 file (PBES2 with AES as OpenSSL 3 and current Java write it, or the
    /// legacy 3DES/RC2 schemes): its private key and the certificate of that key.
    pub fn from_pkcs12(bytes: &[u8], password: &str) -> Result<Identity, DeliveryError> {
        let store = p12_keystore::KeyStore::from_pkcs12(bytes, password)
            .map_err(|e| DeliveryError::Pkcs12(e.to_string()))?;
        let (_, keychain) = store
            .private_key_chain()
            .ok_or(DeliveryError::NoPrivateKey)?;
        let key = rsa::RsaPrivateKey::from_pkcs8_der(keychain.key()).map_err(|e| {
            DeliveryError::Key(format!("the PKCS#12 file's key is not an RSA key: {e}"))
        })?;
        let mut certificates = Vec::new();
        for c in keychain.chain() {
            let certificate = Certificate::from_der(c.as_der())?;
            if !certificates.contains(&certificate) {
                certificates.push(certificate);
            }
        }
        let own = certificates
            .iter()
            .position(|c| {
                c.rsa_public_key()
                    .is_ok_and(|public| public.n() == key.n() && public.e() == key.e())
            })
            .ok_or(DeliveryError::NoPrivateKey)?;
        let certificate = certificates.remove(own);
        Ok(Identity {
            key,
            certificate,
            chain: certificates,
        })
    }

    /// The certificate of the key.
    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// The certificates above it.
    pub fn chain(&self) -> &[Certificate] {
        &self.chain
    }
}
