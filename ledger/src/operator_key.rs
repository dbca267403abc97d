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

/// Where the key that held the log before a rotation is kept: beside the key file, named by the
/// retired key's id (`operator.key.retired-<16 hex>`), readable by its owner only.
pub fn retired_path(path: &Path, retired: &NoteSigner) -> PathBuf {
    let id = dozor_log::keys::key_id(&retired.verifier().key);
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "operator.key".into());
    name.push(format!(".retired-{id}"));
    path.with_file_name(name)
}

/// A rotation's key files, prepared before the rotation is recorded: the key that holds the
/// log copied to its retired name, the new one written beside the key file. [`Handover::install`]
/// then puts the new key where every command reads it (one rename); [`Handover::abandon`]
/// removes what was prepared when the rotation is not recorded.
pub struct Handover {
    path: PathBuf,
    staged: PathBuf,
    retired: PathBuf,
}

impl Handover {
    /// Prepares handing the key file at `path` (holding `current`) over to `next`.
    pub fn prepare(
        path: &Path,
        current: &NoteSigner,
        next: &NoteSigner,
    ) -> Result<Handover, LedgerError> {
        let retired = retired_path(path, current);
        if retired.exists() {
            return Err(LedgerError::key(format!(
                "{} exists: this key was retired before",
                retired.display()
            )));
        }
        let mut staged_name = path
            .file_name()
            .map_or_else(|| "operator.key".into(), |n| n.to_os_string());
        staged_name.push(".next");
        let staged = path.with_file_name(staged_name);
        write_private(&retired, &current.private_key())?;
        if let Err(e) = write_private(&staged, &next.private_key()) {
            let _ = std::fs::remove_file(&retired);
            return Err(e);
        }
        Ok(Handover {
            path: path.to_path_buf(),
            staged,
            retired,
        })
    }

    /// The new key where the old one was (atomically); the old one's retired copy stays.
    pub fn install(self) -> Result<(PathBuf, PathBuf), LedgerError> {
        std::fs::rename(&self.staged, &self.path).map_err(|e| {
            LedgerError::io(
                format!(
                    "the log was handed over, but the new key could not be put in place: move {} to {}",
                    self.staged.display(),
                    self.path.display()
                ),
                e,
            )
        })?;
        Ok((self.path, self.retired))
    }

    /// Removes the prepared files (the rotation was not recorded; the key file is unchanged).
    pub fn abandon(self) {
        let _ = std::fs::remove_file(&self.staged);
        let _ = std::fs::remove_file(&self.retired);
    }
}
