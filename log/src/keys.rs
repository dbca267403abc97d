//! ed25519 keys of gaming tables: ids, encodings and key files.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::LogError;

/// A key's id: the first 8 bytes of SHA-256 of the public key, in hex. Derived, so a key id
/// can never point at a different key.
pub fn key_id(key: &VerifyingKey) -> String {
    let digest = Sha256::digest(key.as_bytes());
    hex::encode(&digest[..8])
}

/// Parses a base64 (standard alphabet) ed25519 public key, refusing weak keys.
pub fn parse_public_key(text: &str) -> Result<VerifyingKey, LogError> {
    let bytes = BASE64
        .decode(text.trim())
        .map_err(|e| LogError::Key(format!("public key is not base64: {e}")))?;
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| LogError::Key("an ed25519 public key is 32 bytes".into()))?;
    let key = VerifyingKey::from_bytes(&bytes)
        .map_err(|e| LogError::Key(format!("not an ed25519 public key: {e}")))?;
    if key.is_weak() {
        return Err(LogError::Key("weak (small-order) ed25519 key".into()));
    }
    // Verifiers hash a key as written and decode it once: one point, one encoding.
    if key.to_edwards().compress().as_bytes() != &bytes {
        return Err(LogError::Key(
            "ed25519 key is not canonically encoded".into(),
        ));
    }
    // A key with a small-order component could let one signature pass a batch check and fail a
    // single one; honest keys are in the prime-order subgroup.
    if !key.to_edwards().is_torsion_free() {
        return Err(LogError::Key(
            "ed25519 key has a small-order component".into(),
        ));
    }
    Ok(key)
}

pub fn encode_public_key(key: &VerifyingKey) -> String {
    BASE64.encode(key.as_bytes())
}

/// A table's secret key file, as written by `dozor keygen`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretKeyFile {
    pub algorithm: String,
    pub key_id: String,
    pub public_key: String,
    pub secret_key: String,
}

impl SecretKeyFile {
    pub fn new(key: &SigningKey) -> SecretKeyFile {
        let public = key.verifying_key();
        SecretKeyFile {
            algorithm: "ed25519".into(),
            key_id: key_id(&public),
            public_key: encode_public_key(&public),
            secret_key: BASE64.encode(key.to_bytes()),
        }
    }

    pub fn signing_key(&self) -> Result<SigningKey, LogError> {
        if self.algorithm != "ed25519" {
            return Err(LogError::Key(format!(
                "unsupported algorithm `{}`",
                self.algorithm
            )));
        }
        let bytes = BASE64
            .decode(self.secret_key.trim())
            .map_err(|e| LogError::Key(format!("secret key is not base64: {e}")))?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|_| LogError::Key("an ed25519 secret key is 32 bytes".into()))?;
        let key = SigningKey::from_bytes(&bytes);
        if key_id(&key.verifying_key()) != self.key_id {
            return Err(LogError::Key(
                "key file is inconsistent: key_id does not match the key".into(),
            ));
        }
        Ok(key)
    }

    pub fn read(path: &std::path::Path) -> Result<SigningKey, LogError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LogError::io(format!("reading {}", path.display()), e))?;
        let file: SecretKeyFile = serde_json::from_str(&text)
            .map_err(|e| LogError::Key(format!("{} is not a key file: {e}", path.display())))?;
        file.signing_key()
    }
}

/// A fresh key from the operating system's random source.
pub fn generate() -> SigningKey {
    SigningKey::generate(&mut rand::rngs::OsRng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_file_round_trips_and_detects_tampering() {
        let key = SigningKey::from_bytes(&[7u8; 32]);
        let file = SecretKeyFile::new(&key);
        assert_eq!(file.signing_key().unwrap().to_bytes(), key.to_bytes());
        assert_eq!(file.key_id.len(), 16);
        let mut bad = file;
        bad.key_id = "0000000000000000".into();
        assert!(bad.signing_key().is_err());
    }

    #[test]
    fn public_keys_parse_strictly() {
        let key = SigningKey::from_bytes(&[9u8; 32]).verifying_key();
        assert_eq!(parse_public_key(&encode_public_key(&key)).unwrap(), key);
        assert!(parse_public_key("not base64!").is_err());
        assert!(parse_public_key(&BASE64.encode([1u8; 31])).is_err());
        // The identity point is a small-order (weak) key.
        let mut identity = [0u8; 32];
        identity[0] = 1;
        assert!(parse_public_key(&BASE64.encode(identity)).is_err());
    }
}
