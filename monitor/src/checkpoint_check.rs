//! A fetched checkpoint: signed by a key that held the log, under that key's origin, cosigned by
//! a quorum of the witnesses; and what it is to the checkpoint the monitor holds.

use std::collections::HashMap;

use dozor_log::checkpoint::{self, Checkpoint, NoteError, NoteVerifier};
use dozor_log::cosignature::{self, CosignatureVerifier};
use dozor_log::merkle::Hash;
use dozor_log::registry_history::RegistryHistory;
use ed25519_dalek::VerifyingKey;

/// Whom the monitor trusts for one casino's log.
#[derive(Debug, Clone, Copy)]
pub struct Trust<'a> {
    /// Every key that has held the log (configured, and those its recorded rotations name).
    pub operator_keys: &'a [NoteVerifier],
    pub witnesses: &'a [CosignatureVerifier],
    /// Cosignatures by distinct witnesses a checkpoint needs before it is followed.
    pub quorum: usize,
}

/// A checkpoint whose signature verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedCheckpoint {
    /// The whole note as fetched: evidence.
    pub note: String,
    /// The signed text (the checkpoint and its extension lines).
    pub text: String,
    pub checkpoint: Checkpoint,
    /// The operator key whose signature verified.
    pub signer: NoteVerifier,
    /// The witnesses whose cosignatures verified, in the note's order.
    pub cosigned_by: Vec<String>,
}

/// Why a fetched checkpoint is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointProblem {
    #[error("the checkpoint is not a signed checkpoint: {0}")]
    Malformed(String),
    #[error("no operator key the monitor holds signs the checkpoint ({0}); if the log was handed to a new key, add it to operator_keys")]
    Unverified(String),
    #[error(
        "the checkpoint's origin `{origin}` is not the name of the key that signed it (`{key}`)"
    )]
    Origin { origin: String, key: String },
    #[error("a witness's cosignature does not verify: {0}")]
    BadCosignature(String),
    #[error("{have} of the {need} witness cosignatures needed (by {by})")]
    Quorum {
        have: usize,
        need: usize,
        by: String,
    },
}

impl CheckpointProblem {
    /// Whether the checkpoint may simply be early (its cosignatures not yet arrived), rather
    /// than wrong.
    pub fn is_waiting(&self) -> bool {
        matches!(self, CheckpointProblem::Quorum { .. })
    }
}

/// Opens `note`: the operator's signature, the origin, and the witnesses' quorum.
pub fn open_checkpoint(
    note: &str,
    trust: Trust<'_>,
) -> Result<OpenedCheckpoint, CheckpointProblem> {
    let (text, signer) =
        checkpoint::open_by_one_of(note, trust.operator_keys).map_err(|e| match e {
            NoteError::Malformed(m) => CheckpointProblem::Malformed(m),
            other => CheckpointProblem::Unverified(other.to_string()),
        })?;
    let parsed =
        Checkpoint::parse(text).map_err(|e| CheckpointProblem::Malformed(e.to_string()))?;
    if parsed.origin != signer.name {
        return Err(CheckpointProblem::Origin {
            origin: parsed.origin,
            key: signer.name,
        });
    }
    let cosigned = cosignature::cosignatures(note, trust.witnesses)
        .map_err(|e| CheckpointProblem::BadCosignature(e.to_string()))?;
    let cosigned_by: Vec<String> = cosigned.into_iter().map(|c| c.witness).collect();
    if cosigned_by.len() < trust.quorum {
        return Err(CheckpointProblem::Quorum {
            have: cosigned_by.len(),
            need: trust.quorum,
            by: if cosigned_by.is_empty() {
                "none".into()
            } else {
                cosigned_by.join(", ")
            },
        });
    }
    Ok(OpenedCheckpoint {
        note: note.to_owned(),
        text: text.to_owned(),
        checkpoint: parsed,
        signer,
        cosigned_by,
    })
}

/// Every key that may sign the log's checkpoints: those configured, and those the log's own
/// recorded rotations handed it to (or from), so a rotation the monitor followed needs no new
/// configuration.
pub fn known_operator_keys(
    configured: &[NoteVerifier],
    history: &RegistryHistory,
) -> Vec<NoteVerifier> {
    let mut keys = configured.to_vec();
    for rotation in history.rotations() {
        for key in [&rotation.from_key, &rotation.to_key] {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

/// The operator keys as signers of registry events, by envelope key id.
pub fn operator_signers(
    configured: &[NoteVerifier],
    history: &RegistryHistory,
) -> HashMap<String, VerifyingKey> {
    known_operator_keys(configured, history)
        .into_iter()
        .map(|k| (dozor_log::keys::key_id(&k.key), k.key))
        .collect()
}

/// A checkpoint that hands its log to another key (`dozor-rotated-to`, `checkpoint::rotated_to`)
/// must be the tree ending with the log's own record of that hand-over, as the history the
/// monitor followed gives it.
pub fn check_rotation(opened: &OpenedCheckpoint, history: &RegistryHistory) -> Result<(), String> {
    let size = opened.checkpoint.size;
    match checkpoint::rotated_to(&opened.text) {
        Err(e) => Err(format!("its rotation line does not read: {e}")),
        Ok(None) => Ok(()),
        Ok(Some(key)) if history.rotations().iter().any(|r| r.size() == size && r.to_key == key) => Ok(()),
        Ok(Some(key)) => Err(format!(
            "it hands the log to `{key}`, but the log records no such rotation ending at {size} entries"
        )),
    }
}

/// A verified checkpoint the monitor holds: its tree size and root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub size: u64,
    pub root: Hash,
}

/// What a newly fetched checkpoint is to the held one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The same tree.
    Same,
    /// A larger tree, still to be shown to extend the held one.
    Larger,
    /// A smaller tree than one the log already signed: the log was rolled back.
    Smaller,
    /// The same size with another root: two trees of one size, a fork.
    Forked,
}

pub fn compare(held: Option<Held>, new: &Checkpoint) -> Against {
    match held {
        None => Against::Larger,
        Some(held) if new.size < held.size => Against::Smaller,
        Some(held) if new.size == held.size && new.root == held.root => Against::Same,
        Some(held) if new.size == held.size => Against::Forked,
        Some(_) => Against::Larger,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dozor_log::checkpoint::NoteSigner;
    use dozor_log::cosignature::CosignatureSigner;
    use ed25519_dalek::SigningKey;

    fn operator() -> NoteSigner {
        NoteSigner::new("casino.example/ledger", SigningKey::from_bytes(&[5; 32])).unwrap()
    }

    fn witness(n: u8) -> CosignatureSigner {
        CosignatureSigner::new(&format!("w{n}.example"), SigningKey::from_bytes(&[n; 32])).unwrap()
    }

    fn note(size: u64, root: u8, cosigners: &[CosignatureSigner]) -> String {
        let body = Checkpoint {
            origin: "casino.example/ledger".into(),
            size,
            root: [root; 32],
        };
        let mut note = operator().sign(&body.text()).unwrap();
        for w in cosigners {
            note.push_str(&w.cosign(&body.text(), 1_700_000_000));
        }
        note
    }

    #[test]
    fn a_checkpoint_needs_the_operator_and_a_quorum_of_witnesses() {
        let keys = [operator().verifier()];
        let witnesses = [witness(1).verifier(), witness(2).verifier()];
        let trust = Trust {
            operator_keys: &keys,
            witnesses: &witnesses,
            quorum: 2,
        };
        let opened = open_checkpoint(&note(9, 1, &[witness(1), witness(2)]), trust).unwrap();
        assert_eq!(opened.checkpoint.size, 9);
        assert_eq!(opened.cosigned_by, vec!["w1.example", "w2.example"]);
        // One cosignature, and one by a witness the monitor does not know: 1 of 2.
        let problem = open_checkpoint(&note(9, 1, &[witness(1), witness(3)]), trust).unwrap_err();
        assert_eq!(
            problem,
            CheckpointProblem::Quorum {
                have: 1,
                need: 2,
                by: "w1.example".into()
            }
        );
        assert!(problem.is_waiting());
        // Signed by another key of the same name.
        let stranger =
            NoteSigner::new("casino.example/ledger", SigningKey::from_bytes(&[6; 32])).unwrap();
        let forged = stranger
            .sign(
                &Checkpoint {
                    origin: "casino.example/ledger".into(),
                    size: 9,
                    root: [1; 32],
                }
                .text(),
            )
            .unwrap();
        assert!(matches!(
            open_checkpoint(&forged, trust),
            Err(CheckpointProblem::Unverified(_))
        ));
        // A cosignature over another tree, pasted under this one.
        let pasted = format!(
            "{}{}",
            note(9, 1, &[witness(1)]),
            witness(2).cosign(
                &Checkpoint {
                    origin: "casino.example/ledger".into(),
                    size: 9,
                    root: [2; 32]
                }
                .text(),
                1
            )
        );
        assert!(matches!(
            open_checkpoint(&pasted, trust),
            Err(CheckpointProblem::BadCosignature(_))
        ));
    }

    #[test]
    fn a_smaller_tree_is_a_rollback_and_another_root_of_the_same_size_a_fork() {
        let held = Some(Held {
            size: 10,
            root: [1; 32],
        });
        let at = |size, root| Checkpoint {
            origin: "o".into(),
            size,
            root: [root; 32],
        };
        assert_eq!(compare(held, &at(10, 1)), Against::Same);
        assert_eq!(compare(held, &at(11, 2)), Against::Larger);
        assert_eq!(compare(held, &at(9, 1)), Against::Smaller);
        assert_eq!(compare(held, &at(10, 2)), Against::Forked);
        assert_eq!(compare(None, &at(0, 0)), Against::Larger);
    }
}
