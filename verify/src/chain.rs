//! Stages 2, 5 and 7: the signed checkpoints, and the tree: the entries are leaves of the
//! checkpoint the export is checked against, and the latest checkpoint extends it.

use std::collections::HashMap;
use std::path::Path;

use dozor_log::checkpoint::{open_by_one_of, Checkpoint, NoteVerifier};
use dozor_log::merkle::{self, Hash, RangeSource};

use crate::error::{fail, InspectionError};
use crate::files::{hash_hex, json, json_to_size, read_text};
use crate::format::{
    ConsistencyFile, ExportInfo, TreeFile, CHECKPOINT, CONSISTENCY, ENTRIES, TREE,
};

/// The hashes of the subtrees outside the exported entries, by level and index (tree.json).
pub(crate) type TreeNodes = HashMap<(u32, u64), Hash>;

/// The checkpoint in file `name`, and the operator key (one of `keys`) whose signature on it
/// verifies.
pub(super) fn open_checkpoint(
    dir: &Path,
    name: &str,
    keys: &[NoteVerifier],
) -> Result<(Checkpoint, NoteVerifier), InspectionError> {
    let note = read_text(dir, name)?;
    if keys.is_empty() {
        return Err(fail(name, "no operator key given (operator keys given: 0)"));
    }
    let (text, signer) = open_by_one_of(&note, keys)
        .map_err(|e| fail(name, format!("{e} (operator keys given: {})", keys.len())))?;
    let checkpoint = Checkpoint::parse(text).map_err(|e| fail(name, e.to_string()))?;
    Ok((checkpoint, signer))
}

/// A checkpoint's signer held the log at its size: with no rotation recorded, the origin is the
/// export's; otherwise the rotations say which key signs each size.
pub(super) fn check_signer(
    name: &str,
    checkpoint: &Checkpoint,
    signer: &NoteVerifier,
    export_origin: &str,
    history: &dozor_log::registry_history::RegistryHistory,
) -> Result<(), InspectionError> {
    if history.rotations().is_empty() && checkpoint.origin != export_origin {
        return Err(fail(
            name,
            format!(
                "origin `{}` is not the export's `{export_origin}`",
                checkpoint.origin
            ),
        ));
    }
    history
        .check_checkpoint_signer(signer, checkpoint.size)
        .map_err(|m| fail(name, m))
}

/// Stage 5, the tree: with the entries' leaves and the nodes of tree.json, the signed
/// checkpoint's root; every exported entry is a leaf of it. Returns where the export's run ends.
/// The nodes of tree.json by (level, index).
fn node_map(tree: &TreeFile) -> Result<TreeNodes, InspectionError> {
    let mut outside = HashMap::new();
    for node in &tree.nodes {
        outside.insert((node.level, node.index), hash_hex(TREE, &node.hash)?);
    }
    Ok(outside)
}

/// The subtrees outside the exported entries that tree.json gives.
pub(super) fn tree_nodes(dir: &Path) -> Result<TreeNodes, InspectionError> {
    node_map(&json(dir, TREE)?)
}

pub(super) fn check_tree(
    dir: &Path,
    info: &ExportInfo,
    checkpoint: &Checkpoint,
    leaves: &[Hash],
) -> Result<u64, InspectionError> {
    let tree: TreeFile = json_to_size(
        dir,
        TREE,
        checkpoint,
        |t: &TreeFile| t.size,
        |size, expected| format!("tree size {size} is not the checkpoint's {expected}"),
    )?;
    let run_end = info.first_index + leaves.len() as u64;
    if checkpoint.size < run_end {
        return Err(fail(
            CHECKPOINT,
            format!(
                "covers {} entries; the export runs to index {}",
                checkpoint.size,
                run_end.saturating_sub(1)
            ),
        ));
    }
    let outside = node_map(&tree)?;
    entries_tree(
        info,
        leaves,
        &outside,
        checkpoint,
        TREE,
        (
            CHECKPOINT,
            "the entries and tree.json give another root than the signed checkpoint: an entry was changed, removed, added or reordered, or the checkpoint is not this log's",
        ),
    )?;
    Ok(run_end)
}

/// The tree of the exported entries `leaves` (from the export's first index) and the subtrees
/// `outside` them, once it gives the checkpoint's root at its size: `item` names a failure to
/// compute the root, `differs` (item and message) the failure when it is another root.
pub(crate) fn entries_tree<'a>(
    info: &ExportInfo,
    leaves: &'a [Hash],
    outside: &'a TreeNodes,
    checkpoint: &Checkpoint,
    item: &str,
    differs: (&str, &str),
) -> Result<RangeSource<'a, TreeNodes>, InspectionError> {
    let src = RangeSource {
        start: info.first_index,
        leaves,
        outside,
    };
    let root = merkle::root(&src, checkpoint.size).map_err(|e| fail(item, e.to_string()))?;
    if root != checkpoint.root {
        return Err(fail(differs.0, differs.1));
    }
    Ok(src)
}

/// Stage 7, the latest checkpoint: the export runs to its end or to the entry that follows, and
/// the latest checkpoint extends the one the entries are checked against.
pub(super) fn check_extends(
    dir: &Path,
    info: &ExportInfo,
    checkpoint: &Checkpoint,
    latest: &Checkpoint,
    run_end: u64,
) -> Result<(), InspectionError> {
    if !info.link_after && latest.size > run_end {
        return Err(fail(
            ENTRIES,
            format!("the log holds {} entries but the export stops at index {} without the entry that follows", latest.size, run_end.saturating_sub(1)),
        ));
    }

    let consistency: ConsistencyFile = json(dir, CONSISTENCY)?;
    if (consistency.first, consistency.second) != (checkpoint.size, latest.size) {
        return Err(fail(CONSISTENCY, "sizes do not match the two checkpoints"));
    }
    let proof = consistency
        .proof
        .iter()
        .map(|h| hash_hex(CONSISTENCY, h))
        .collect::<Result<Vec<_>, _>>()?;
    let consistent = if checkpoint.size == 0 {
        proof.is_empty()
    } else {
        merkle::verify_consistency(
            checkpoint.size,
            latest.size,
            &proof,
            &checkpoint.root,
            &latest.root,
        )
    };
    if !consistent {
        return Err(fail(
            CONSISTENCY,
            format!(
                "the latest checkpoint ({}) does not extend checkpoint {}",
                latest.size, checkpoint.size
            ),
        ));
    }

    Ok(())
}
