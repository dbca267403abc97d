//! Checkpoints kept apart from the export, proven to be prefixes of its ledger: one the inspector
//! pinned on an earlier visit (`verify --pin`), and the latest one the witnesses cosigned, when
//! the export's latest checkpoint is newer than anything they have seen.

use std::path::Path;

use dozor_log::checkpoint::{open_by_one_of, Checkpoint, NoteVerifier};
use dozor_log::merkle::{self, Hash, ProofError, RangeSource};
use dozor_log::registry_history::RegistryHistory;
use serde::Serialize;

use crate::chain::{check_signer, open_checkpoint, tree_nodes};
use crate::error::{fail, InspectionError};
use crate::files::{hash_hex, json, read_text};
use crate::format::{
    CheckpointProofsFile, ExportInfo, CHECKPOINT_LATEST, CHECKPOINT_PROOFS, CHECKPOINT_WITNESSED,
    REGISTRY,
};
use crate::options::{Cosigner, PinnedCheckpoint, WitnessPolicy};

/// How a kept checkpoint was proven a prefix of the export's ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProvenBy {
    /// It is one of the export's own checkpoints (same size, same root).
    SameTree,
    /// A consistency proof built here from the exported entries and tree.json.
    Entries,
    /// The consistency proof the export carries (checkpoint-proofs.json).
    CarriedProof,
}

/// The pinned checkpoint, proven.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PinReport {
    pub file: String,
    pub size: u64,
    pub root: String,
    pub proven_by: ProvenBy,
}

/// The checkpoint the witnesses' quorum cosigned, and what it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Witnessed {
    pub(crate) size: u64,
    pub(crate) cosigned_by: Vec<Cosigner>,
}

/// The export's tree as far as the verification established it: its entries' leaves under the
/// signed checkpoint, which the latest checkpoint is proven to extend.
pub(crate) struct ProvenTree<'a> {
    pub(crate) dir: &'a Path,
    pub(crate) info: &'a ExportInfo,
    pub(crate) checkpoint: &'a Checkpoint,
    pub(crate) latest: &'a Checkpoint,
    pub(crate) leaves: &'a [Hash],
}

impl ProvenTree<'_> {
    /// Proves `kept` a prefix of the export's ledger, a failure named `item` otherwise: of the
    /// same size as one of the export's checkpoints, it has its root; smaller, a consistency
    /// proof to the checkpoint (built from the entries) or to the latest (carried) verifies.
    pub(crate) fn prove(&self, item: &str, kept: &Checkpoint) -> Result<ProvenBy, InspectionError> {
        self.prove_tree(item, kept.size, &kept.root)
    }

    /// That the tree of `m` entries whose root is `root` is a prefix of the export's ledger,
    /// as [`ProvenTree::prove`] proves a kept checkpoint's.
    fn prove_tree(&self, item: &str, m: u64, root: &Hash) -> Result<ProvenBy, InspectionError> {
        let latest = self.latest;
        if m > latest.size {
            return Err(larger(
                item,
                m,
                "the export's latest checkpoint",
                latest.size,
            ));
        }
        for export in [self.checkpoint, latest] {
            if m == export.size {
                return if *root == export.root {
                    Ok(ProvenBy::SameTree)
                } else {
                    Err(different_tree(item, m, root, &export.root))
                };
            }
        }
        if m == 0 {
            return Ok(ProvenBy::SameTree);
        }
        if m < self.checkpoint.size {
            if let Some(proof) = self.proof_from_entries(m)? {
                return if merkle::verify_consistency(
                    m,
                    self.checkpoint.size,
                    &proof,
                    root,
                    &self.checkpoint.root,
                ) {
                    Ok(ProvenBy::Entries)
                } else {
                    Err(inconsistent(item, m, self.checkpoint.size))
                };
            }
        }
        let proof = self.carried_proof(item, m)?;
        if merkle::verify_consistency(m, latest.size, &proof, root, &latest.root) {
            Ok(ProvenBy::CarriedProof)
        } else {
            Err(inconsistent(item, m, latest.size))
        }
    }

    /// The consistency proof from `m` entries to the signed checkpoint, from the exported
    /// entries and tree.json; none when `m` lies where they do not reach. Whatever its nodes'
    /// source, a proof that verifies against both signed roots proves consistency.
    fn proof_from_entries(&self, m: u64) -> Result<Option<Vec<Hash>>, InspectionError> {
        let outside = tree_nodes(self.dir)?;
        let src = RangeSource {
            start: self.info.first_index,
            leaves: self.leaves,
            outside: &outside,
        };
        match merkle::consistency_proof(&src, m, self.checkpoint.size) {
            Ok(proof) => Ok(Some(proof)),
            Err(ProofError::MissingNode { .. }) => Ok(None),
            Err(e) => Err(fail(crate::format::TREE, e.to_string())),
        }
    }

    /// The consistency proof from `m` entries to the latest checkpoint that the export carries.
    fn carried_proof(&self, item: &str, m: u64) -> Result<Vec<Hash>, InspectionError> {
        let not_carried = || {
            let run_end = self.info.first_index + self.leaves.len() as u64;
            fail(
                item,
                format!(
                    "the tree of {m} entries cannot be proven a prefix of this export's ledger: its last entry ({}) is not among the export's (indexes {} to {}) and the export carries no consistency proof from it; an export whose period holds entry {} proves it",
                    m - 1,
                    self.info.first_index,
                    run_end.saturating_sub(1),
                    m - 1
                ),
            )
        };
        if !self.dir.join(CHECKPOINT_PROOFS).is_file() {
            return Err(not_carried());
        }
        let carried: CheckpointProofsFile = json(self.dir, CHECKPOINT_PROOFS)?;
        if carried.size != self.latest.size {
            return Err(fail(
                CHECKPOINT_PROOFS,
                format!(
                    "proofs to a tree of {} entries, not the latest checkpoint's {}",
                    carried.size, self.latest.size
                ),
            ));
        }
        let found = carried
            .proofs
            .iter()
            .find(|p| p.first == m)
            .ok_or_else(not_carried)?;
        found
            .proof
            .iter()
            .map(|h| hash_hex(CHECKPOINT_PROOFS, h))
            .collect()
    }
}

fn larger(item: &str, m: u64, what: &str, n: u64) -> InspectionError {
    fail(
        item,
        format!("covers {m} entries, more than {what} ({n}): the ledger was cut back below it, or is another"),
    )
}

fn different_tree(item: &str, size: u64, kept: &Hash, ledger: &Hash) -> InspectionError {
    fail(
        item,
        format!(
            "the tree of {size} entries has root {} there but {} here: not the ledger it was kept from",
            hex::encode(kept),
            hex::encode(ledger)
        ),
    )
}

impl PinnedCheckpoint {
    /// How failures name it: `pinned checkpoint <file>`.
    pub fn item(&self) -> String {
        format!("pinned checkpoint {}", self.name)
    }

    /// Its checkpoint, signed by one of `operator_keys` (and the key that did).
    pub fn open(
        &self,
        operator_keys: &[NoteVerifier],
    ) -> Result<(Checkpoint, NoteVerifier), InspectionError> {
        let item = self.item();
        let (text, signer) = open_by_one_of(&self.note, operator_keys).map_err(|e| {
            fail(
                &item,
                format!(
                    "{e}: not signed by an operator key given (operator keys given: {})",
                    operator_keys.len()
                ),
            )
        })?;
        let kept = Checkpoint::parse(text).map_err(|e| fail(&item, e.to_string()))?;
        Ok((kept, signer))
    }

    /// `kept` (this pin, opened) against a whole ledger of `size` entries whose root at the
    /// pin's size `root_at` gives (asked only when the ledger is large enough).
    pub fn check_against_ledger<E>(
        &self,
        kept: &Checkpoint,
        size: u64,
        root_at: impl FnOnce(u64) -> Result<Hash, E>,
    ) -> Result<Result<(), InspectionError>, E> {
        let item = self.item();
        if kept.size > size {
            return Ok(Err(larger(&item, kept.size, "the ledger holds", size)));
        }
        let root = root_at(kept.size)?;
        Ok(if root == kept.root {
            Ok(())
        } else {
            Err(different_tree(&item, kept.size, &kept.root, &root))
        })
    }
}

fn inconsistent(item: &str, m: u64, n: u64) -> InspectionError {
    fail(
        item,
        format!("is not consistent with the export's checkpoint of {n} entries: the export's first {m} entries are another tree than the one it names"),
    )
}

/// Each passing verification mark's tree, the ledger's first `to` entries under the root the
/// mark names, proven a prefix of the export's ledger: a mark naming another tree was recorded
/// for another ledger, or the entries it covered were rewritten after it. How many were proven.
pub(crate) fn check_marks(
    tree: &ProvenTree<'_>,
    history: &RegistryHistory,
) -> Result<u64, InspectionError> {
    let mut proven = 0;
    for mark in history.verification_marks() {
        // A failing mark names no tree.
        let Some(root) = &mark.root else { continue };
        let item = format!(
            "{} (the verification mark at index {})",
            REGISTRY, mark.index
        );
        let root = hash_hex(&item, root)?;
        tree.prove_tree(&item, mark.to, &root)?;
        proven += 1;
    }
    Ok(proven)
}

/// The pinned checkpoint: signed by one of the operator keys (by the key that held the log at
/// its size) and a prefix of the export's ledger. Failures name it.
pub(crate) fn check_pin(
    tree: &ProvenTree<'_>,
    pin: &PinnedCheckpoint,
    operator_keys: &[NoteVerifier],
    history: &RegistryHistory,
) -> Result<PinReport, InspectionError> {
    let item = pin.item();
    let (kept, signer) = pin.open(operator_keys)?;
    check_signer(&item, &kept, &signer, &tree.info.origin, history)?;
    let proven_by = tree.prove(&item, &kept)?;
    Ok(PinReport {
        file: pin.name.clone(),
        size: kept.size,
        root: hex::encode(kept.root),
        proven_by,
    })
}

/// The witnesses' quorum: on the latest checkpoint, or else on checkpoint-witnessed.txt, which
/// is then proven a prefix of the latest and must cover the period's entries. A cosignature line
/// by a given key that does not verify is a failure, not merely uncounted: the note was changed.
pub(crate) fn check_witnessed(
    tree: &ProvenTree<'_>,
    policy: &WitnessPolicy,
    operator_keys: &[NoteVerifier],
    history: &RegistryHistory,
) -> Result<Option<Witnessed>, InspectionError> {
    if policy.keys.is_empty() && policy.quorum == 0 {
        return Ok(None);
    }
    let on_latest = cosigners(tree.dir, CHECKPOINT_LATEST, policy)?;
    if on_latest.len() >= policy.quorum {
        return Ok(Some(Witnessed {
            size: tree.latest.size,
            cosigned_by: on_latest,
        }));
    }
    if !tree.dir.join(CHECKPOINT_WITNESSED).is_file() {
        return Err(short_of_quorum(CHECKPOINT_LATEST, &on_latest, policy));
    }
    let name = CHECKPOINT_WITNESSED;
    let (witnessed, signer) = open_checkpoint(tree.dir, name, operator_keys)?;
    check_signer(name, &witnessed, &signer, &tree.info.origin, history)?;
    let found = cosigners(tree.dir, name, policy)?;
    if found.len() < policy.quorum {
        return Err(short_of_quorum(name, &found, policy));
    }
    tree.prove(name, &witnessed)?;
    let period_end = tree.info.period_first_index + tree.info.period_entries;
    if witnessed.size < period_end {
        return Err(fail(
            name,
            format!(
                "the witnesses cosigned the ledger up to {} entries, and the latest checkpoint ({}) has no quorum: they have not seen the period's entries up to index {}",
                witnessed.size,
                tree.latest.size,
                period_end - 1
            ),
        ));
    }
    Ok(Some(Witnessed {
        size: witnessed.size,
        cosigned_by: found,
    }))
}

/// The cosignatures of the note in file `name` by the policy's witness keys.
fn cosigners(
    dir: &Path,
    name: &str,
    policy: &WitnessPolicy,
) -> Result<Vec<Cosigner>, InspectionError> {
    let note = read_text(dir, name)?;
    let found = dozor_log::cosignature::cosignatures(&note, &policy.keys)
        .map_err(|e| fail(name, format!("a witness's cosignature: {e}")))?;
    Ok(found
        .into_iter()
        .map(|c| Cosigner {
            witness: c.witness,
            timestamp: c.timestamp,
        })
        .collect())
}

fn short_of_quorum(name: &str, found: &[Cosigner], policy: &WitnessPolicy) -> InspectionError {
    let who = if found.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = found.iter().map(|c| c.witness.as_str()).collect();
        format!(" ({})", names.join(", "))
    };
    fail(
        name,
        format!(
            "cosigned by {} of the {} witness keys given{who}; {} required",
            found.len(),
            policy.keys.len(),
            policy.quorum
        ),
    )
}
