//! Stages 2 and 3 opened for every reader of an export: export.json, its checkpoints and the
//! registry events.

use std::path::Path;

use dozor_log::checkpoint::{Checkpoint, NoteVerifier};

use crate::chain::{check_signer, open_checkpoint};
use crate::error::{fail, InspectionError};
use crate::files::json;
use crate::format::{ExportInfo, CHECKPOINT, CHECKPOINT_LATEST, EXPORT_JSON, FORMAT};
use crate::registry::{load_registry, operator_signers, Registry};

/// An export opened: export.json, its two checkpoints and the registry events.
pub(crate) struct OpenedExport {
    pub(crate) info: ExportInfo,
    pub(crate) checkpoint: Checkpoint,
    pub(crate) latest: Checkpoint,
    pub(crate) operators: std::collections::HashMap<String, ed25519_dalek::VerifyingKey>,
    pub(crate) registry: Registry,
}

/// Stages 2 and 3, what the export is: export.json of a known format, and its two checkpoints,
/// each signed by one of the operator keys; the registry events, the operator's in order; and
/// each checkpoint signed by the key that held the log at its size.
pub(crate) fn open_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
) -> Result<OpenedExport, InspectionError> {
    let info: ExportInfo = json(dir, EXPORT_JSON)?;
    if info.format != FORMAT {
        return Err(fail(
            EXPORT_JSON,
            format!("unknown format `{}`", info.format),
        ));
    }
    let (checkpoint, checkpoint_signer) = open_checkpoint(dir, CHECKPOINT, operator_keys)?;
    let (latest, latest_signer) = open_checkpoint(dir, CHECKPOINT_LATEST, operator_keys)?;
    let operators = operator_signers(operator_keys);
    let registry = load_registry(dir, &latest, &operators)?;
    for (name, signed, signer) in [
        (CHECKPOINT, &checkpoint, &checkpoint_signer),
        (CHECKPOINT_LATEST, &latest, &latest_signer),
    ] {
        check_signer(name, signed, signer, &info.origin, &registry.history)?;
    }
    Ok(OpenedExport {
        info,
        checkpoint,
        latest,
        operators,
        registry,
    })
}
