//! Reading an export's files: their bytes, their JSON and their hex hashes, failures named by file.

use std::path::Path;

use dozor_log::checkpoint::Checkpoint;
use dozor_log::merkle::Hash;
use serde::Deserialize;

use crate::error::{fail, InspectionError};

pub(crate) fn read(dir: &Path, name: &str) -> Result<Vec<u8>, InspectionError> {
    std::fs::read(dir.join(name)).map_err(|e| fail(name, format!("cannot read: {e}")))
}

/// A file's text, which must be UTF-8.
pub(crate) fn read_text(dir: &Path, name: &str) -> Result<String, InspectionError> {
    String::from_utf8(read(dir, name)?).map_err(|_| fail(name, "not UTF-8"))
}

pub(crate) fn json<T: for<'de> Deserialize<'de>>(
    dir: &Path,
    name: &str,
) -> Result<T, InspectionError> {
    serde_json::from_slice(&read(dir, name)?).map_err(|e| fail(name, format!("not valid: {e}")))
}

/// File `name` as JSON, when the tree size it is to (`size_of`) is `checkpoint`'s; otherwise
/// a failure saying, by `mismatch(the file's size, the checkpoint's)`, how they differ.
pub(crate) fn json_to_size<T: for<'de> Deserialize<'de>>(
    dir: &Path,
    name: &str,
    checkpoint: &Checkpoint,
    size_of: impl FnOnce(&T) -> u64,
    mismatch: impl FnOnce(u64, u64) -> String,
) -> Result<T, InspectionError> {
    let file: T = json(dir, name)?;
    let size = size_of(&file);
    if size != checkpoint.size {
        return Err(fail(name, mismatch(size, checkpoint.size)));
    }
    Ok(file)
}

pub(crate) fn hash_hex(item: &str, text: &str) -> Result<Hash, InspectionError> {
    hex::decode(text)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| fail(item, format!("`{text}` is not a 32-byte hex hash")))
}
