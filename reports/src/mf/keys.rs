//! What delivering needs, read from the files the `[delivery]` section names: the operator's
//! seal and encryption identities (PKCS#12, passwords from files or the environment) and the
//! Ministry's certificates.

use std::path::{Path, PathBuf};

use delivery::{read_certificates, Certificate, Identity};

use super::config::DeliveryConfig;

/// The environment variable holding the seal's password when no file is configured.
pub const SEAL_PASSWORD_VARIABLE: &str = "DOZOR_MF_SEAL_PASSWORD";
/// The environment variable holding the encryption key's password when no file is configured.
pub const ENCRYPTION_PASSWORD_VARIABLE: &str = "DOZOR_MF_ENCRYPTION_PASSWORD";

#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{0}")]
    Password(String),
}

/// The keys and certificates of the delivery.
pub struct DeliveryKeys {
    /// The operator's seal.
    pub seal: Identity,
    /// The operator's encryption identity: confirmations are decrypted with it.
    pub encryption: Identity,
    /// Everyone a package is encrypted to: the Ministry's encryption certificates, then the
    /// operator's own.
    pub recipients: Vec<Certificate>,
    /// The certificates the Ministry seals with.
    pub ministry_seals: Vec<Certificate>,
    /// The Ministry's TLS client certificates.
    pub ministry_clients: Vec<Certificate>,
}

impl std::fmt::Debug for DeliveryKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeliveryKeys")
            .field("seal", &self.seal)
            .field("encryption", &self.encryption)
            .field("recipients", &self.recipients.len())
            .finish_non_exhaustive()
    }
}

fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The bytes of `path` (relative to `base`).
pub fn read(base: &Path, path: &Path) -> Result<Vec<u8>, KeysError> {
    let full = resolve(base, path);
    std::fs::read(&full).map_err(|e| KeysError::File {
        path: full.display().to_string(),
        reason: e.to_string(),
    })
}

/// Every certificate of the files `paths` (relative to `base`).
pub fn certificates(base: &Path, paths: &[PathBuf]) -> Result<Vec<Certificate>, KeysError> {
    let mut all = Vec::new();
    for path in paths {
        let found = read_certificates(&read(base, path)?).map_err(|e| KeysError::File {
            path: resolve(base, path).display().to_string(),
            reason: e.to_string(),
        })?;
        all.extend(found);
    }
    Ok(all)
}

/// A PKCS#12 identity; its password from `password_file` or the environment `variable`.
fn identity(
    base: &Path,
    pkcs12: &Path,
    password_file: Option<&Path>,
    variable: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Identity, KeysError> {
    let password = match password_file {
        Some(file) => {
            let bytes = read(base, file)?;
            let text = String::from_utf8(bytes).map_err(|_| KeysError::File {
                path: resolve(base, file).display().to_string(),
                reason: "the password is not UTF-8 text".into(),
            })?;
            // The file's line end is not part of the password.
            text.trim_end_matches(['\r', '\n']).to_owned()
        }
        None => env(variable).ok_or_else(|| {
            KeysError::Password(format!(
                "{}: no password (name a password file in [delivery] or set {variable})",
                resolve(base, pkcs12).display()
            ))
        })?,
    };
    Identity::from_pkcs12(&read(base, pkcs12)?, &password).map_err(|e| KeysError::File {
        path: resolve(base, pkcs12).display().to_string(),
        reason: e.to_string(),
    })
}

impl DeliveryKeys {
    /// Reads every file `config` names, relative to `base` (the configuration file's folder);
    /// `env` reads the environment.
    pub fn load(
        config: &DeliveryConfig,
        base: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<DeliveryKeys, KeysError> {
        // Each identity: its PKCS #12 file, the file of its password or else the variable.
        let read = |pkcs12, password_file: &Option<_>, variable| {
            identity(base, pkcs12, password_file.as_deref(), variable, env)
        };
        let seal = read(
            &config.seal_pkcs12,
            &config.seal_password_file,
            SEAL_PASSWORD_VARIABLE,
        )?;
        let encryption = read(
            &config.encryption_pkcs12,
            &config.encryption_password_file,
            ENCRYPTION_PASSWORD_VARIABLE,
        )?;
        let mut recipients = certificates(base, &config.ministry_encryption_certificates)?;
        recipients.push(encryption.certificate().clone());
        Ok(DeliveryKeys {
            seal,
            encryption,
            recipients,
            ministry_seals: certificates(base, &config.ministry_seal_certificates)?,
            ministry_clients: certificates(base, &config.ministry_client_certificates)?,
        })
    }
}
