//! Stage 3, registry and keys: the operator's events in order give every table key's validity
//! and every plan; each event is in the latest checkpoint's tree.

use std::collections::HashMap;
use std::path::Path;

use ed25519_dalek::VerifyingKey;

use dozor_log::checkpoint::{Checkpoint, NoteVerifier};
use dozor_log::entry::leaf_hash;
use dozor_log::entry_check::{check_entry_text, Signers, Subject};
use dozor_log::merkle::{self, Hash};
use dozor_log::registry_history::RegistryHistory;

use crate::error::{fail, InspectionError};
use crate::files::{hash_hex, json, json_to_size, read_text};
use crate::format::{KeyRecord, ProofsFile, KEYS, REGISTRY, REGISTRY_PROOFS};

/// Operator keys as signers of registry events, by envelope key id.
pub(super) fn operator_signers(keys: &[NoteVerifier]) -> HashMap<String, VerifyingKey> {
    keys.iter()
        .map(|k| (dozor_log::keys::key_id(&k.key), k.key))
        .collect()
}

/// Registry events as loaded: the key history they give, their leaf hashes by index, and their
/// inclusion proofs (checked once the checkpoint's tree is known to be this export's).
pub(super) struct Registry {
    pub(super) history: RegistryHistory,
    pub(super) leaves: HashMap<u64, Hash>,
    pub(super) proofs: Vec<(String, u64, Vec<Hash>)>,
}

/// A proofs file, which must be to the tree of `checkpoint`.
pub(super) fn proofs_for(
    dir: &Path,
    name: &str,
    checkpoint: &Checkpoint,
) -> Result<ProofsFile, InspectionError> {
    json_to_size(
        dir,
        name,
        checkpoint,
        |p: &ProofsFile| p.size,
        |size, latest| {
            format!("proofs are to tree size {size}, the latest checkpoint's is {latest}")
        },
    )
}

/// Whether `leaf` at `index` is in the tree of `checkpoint` by `path`.
pub(super) fn included(index: u64, leaf: &Hash, path: &[Hash], checkpoint: &Checkpoint) -> bool {
    index < checkpoint.size
        && merkle::verify_inclusion(index, checkpoint.size, leaf, path, &checkpoint.root)
}

/// Registry events: each signed by an operator key and consistent with those before it.
pub(super) fn load_registry(
    dir: &Path,
    checkpoint: &Checkpoint,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Registry, InspectionError> {
    let text = read_text(dir, REGISTRY)?;
    let proofs = proofs_for(dir, REGISTRY_PROOFS, checkpoint)?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != proofs.proofs.len() {
        return Err(fail(
            REGISTRY_PROOFS,
            format!(
                "{} proofs for {} registry events",
                proofs.proofs.len(),
                lines.len()
            ),
        ));
    }
    let none = RegistryHistory::default();
    let mut history = RegistryHistory::default();
    let mut leaves = HashMap::new();
    let mut paths = Vec::with_capacity(lines.len());
    for (n, (line, proof)) in lines.iter().zip(&proofs.proofs).enumerate() {
        let item = format!("{REGISTRY} line {} (index {})", n + 1, proof.index);
        let signers = Signers {
            operators,
            tables: &none,
        };
        let entry = check_entry_text(line, proof.index, signers).map_err(|m| fail(&item, m))?;
        let Subject::Registry(event) = &entry.subject else {
            return Err(fail(&item, "not a registry event"));
        };
        entry.verify_signature().map_err(|m| fail(&item, m))?;
        let leaf = leaf_hash(line.as_bytes());
        let path = proof
            .proof
            .iter()
            .map(|h| hash_hex(REGISTRY_PROOFS, h))
            .collect::<Result<Vec<_>, _>>()?;
        history
            .apply(proof.index, entry.received_at, entry.key_id, event)
            .map_err(|m| fail(&item, m))?;
        leaves.insert(proof.index, leaf);
        paths.push((item, proof.index, path));
    }
    let keys: Vec<KeyRecord> = json(dir, KEYS)?;
    if keys != KeyRecord::from_history(&history) {
        return Err(fail(
            KEYS,
            format!("does not match the table-key history of {REGISTRY}"),
        ));
    }
    Ok(Registry {
        history,
        leaves,
        proofs: paths,
    })
}

/// Every registry event is a leaf of the checkpoint's tree.
pub(super) fn check_registry_proofs(
    registry: &Registry,
    checkpoint: &Checkpoint,
) -> Result<(), InspectionError> {
    for (item, index, path) in &registry.proofs {
        if !included(*index, &registry.leaves[index], path, checkpoint) {
            return Err(fail(
                item,
                format!(
                    "not in the tree of the signed checkpoint (size {}): the inclusion proof fails",
                    checkpoint.size
                ),
            ));
        }
    }
    Ok(())
}

/// The plans of the registered tables, read from plans/ (a round of a plan not there fails
/// when it is re-adjudicated).
pub(super) fn load_plans(
    dir: &Path,
    history: &RegistryHistory,
) -> Result<HashMap<String, rules::Plan>, InspectionError> {
    let mut plans = HashMap::new();
    for table in history.tables() {
        if plans.contains_key(&table.plan_id) {
            continue;
        }
        let name = format!("plans/{}.toml", table.plan_id);
        let Ok(bytes) = std::fs::read(dir.join(&name)) else {
            continue;
        };
        let text = String::from_utf8(bytes).map_err(|_| fail(&name, "not UTF-8"))?;
        let plan = rules::Plan::from_toml_str(&text).map_err(|e| fail(&name, e.to_string()))?;
        plans.insert(table.plan_id.clone(), plan);
    }
    Ok(plans)
}
