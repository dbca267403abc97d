//! The operator's key file: it signs checkpoints and registry events. Commands that start a
//! ledger may create it; commands that sign for an existing ledger only read it.

use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use crate::error::LedgerError;
use dozor_log::checkpoint::NoteSigner;

/// Where the key is kept when no path is given.
pub fn default_path(data_dir: &Path) -> PathBuf {
    data_dir.join("operator.key")
}

/// The checkpoint origin of a new operator key when none is configured: one of its own, from
/// the key (`dozor.local/` and the first 16 hex digits of the SHA-256 of the public key), so no
/// two casinos' logs share a name.
pub fn default_origin(key: &ed25519_dalek::VerifyingKey) -> String {
    use sha2::{Digest as _, Sha256};
    let digest = hex::encode(Sha256::digest(key.as_bytes()));
    format!("dozor.local/{}", &digest[..16])
}

/// The key at `path`; without a path, the one under `data_dir`, created there (with checkpoint
/// origin `origin`, or [`default_origin`]) if there is none yet. An existing key whose origin is
/// not `origin` is refused: a log's origin never changes but by a recorded rotation.
pub fn load_or_create(
    data_dir: &Path,
    path: Option<PathBuf>,
    origin: Option<&str>,
) -> Result<NoteSigner, LedgerError> {
    let explicit = path.is_some();
    let path = path.unwrap_or_else(|| default_path(data_dir));
    if !path.exists() && !explicit {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| LedgerError::io(format!("creating {}", data_dir.display()), e))?;
        let key = dozor_log::keys::generate();
        let name = origin.map_or_else(|| default_origin(&key.verifying_key()), str::to_owned);
        let signer = NoteSigner::new(&name, key).map_err(|e| LedgerError::key(e.to_string()))?;
        write_private(&path, &signer.private_key())?;
        tracing::warn!(path = %path.display(), verifier_key = %signer.verifier(), "created an operator checkpoint key");
    }
    let signer = read(&path)?;
    if let Some(origin) = origin.filter(|o| *o != signer.name()) {
        return Err(LedgerError::key(format!(
            "the operator key {} signs checkpoints under the origin `{}`, the configuration says `{origin}`: a log's origin changes only by a recorded rotation (`dozor log rotate`)",
            path.display(),
            signer.name()
        )));
    }
    Ok(signer)
}

/// The key at `path`, or else under `data_dir`; never created (for commands that sign on
/// behalf of an existing ledger).
pub fn load_existing(data_dir: &Path, path: Option<PathBuf>) -> Result<NoteSigner, LedgerError> {
    let path = path.unwrap_or_else(|| default_path(data_dir));
    if !path.exists() {
        return Err(LedgerError::key(format!(
            "no operator key at {}: give the ledger's own with --operator-key",
            path.display()
        )));
    }
    read(&path)
}

fn read(path: &Path) -> Result<NoteSigner, LedgerError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| LedgerError::io(format!("reading operator key {}", path.display()), e))?;
    let signer = NoteSigner::from_private_key(&text)
        .map_err(|e| LedgerError::key(format!("operator key {}: {e}", path.display())))?;
    tracing::info!(verifier_key = %signer.verifier(), "checkpoints are signed with");
    Ok(signer)
}

/// Writes a secret (a private key) readable by its owner only.
pub fn write_private(path: &Path, text: &str) -> Result<(), LedgerError> {
    let context = || format!("writing {}", path.display());
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| LedgerError::io(context(), e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .map_err(|e| LedgerError::io(context(), e))
}
