//! The add-checkpoint decision, in the order C2SP `tlog-witness` gives: the body read (400), the
//! log known by its origin (404), its signature (403), the old size against the checkpoint's
//! (400), then — in one transaction with the stored state — the old size against the latest
//! cosigned (409, answering that size), the empty tree's root, an empty proof from size 0, the
//! same root at the same size and the consistency proof (422); then the cosignature.

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use dozor_log::checkpoint::{self, Checkpoint, NoteError, NoteVerifier};
use dozor_log::cosignature::CosignatureSigner;
use dozor_log::merkle;

use crate::store::{Evidence, Handover, Latest, Outcome, Store, StoreError};
use dozor_log::tlog_witness as request;

/// Why a checkpoint was not cosigned, with the HTTP status the protocol gives it.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// 400: the body is malformed, or the old size is above the checkpoint's.
    #[error("{0}")]
    BadRequest(String),
    /// 403: no signature by the log's key, or a bad one.
    #[error("{0}")]
    Unsigned(String),
    /// 404: the origin is no log this witness follows.
    #[error("unknown log `{0}`")]
    UnknownLog(String),
    /// 409: the old size is not the latest size cosigned (which the answer carries).
    #[error("the latest checkpoint cosigned has size {0}")]
    Conflict(u64),
    /// 422: the checkpoint does not extend the latest cosigned (a fork, a bad proof).
    #[error("{0}")]
    Inconsistent(String),
    /// 500: the store failed; nothing was cosigned.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Refusal {
    pub fn status(&self) -> u16 {
        match self {
            Refusal::BadRequest(_) => 400,
            Refusal::Unsigned(_) => 403,
            Refusal::UnknownLog(_) => 404,
            Refusal::Conflict(_) => 409,
            Refusal::Inconsistent(_) => 422,
            Refusal::Store(_) => 500,
        }
    }
}

/// A witness: its key, the logs it follows (origin → the keys that may sign its checkpoints)
/// and its state.
pub struct Witness {
    signer: CosignatureSigner,
    logs: HashMap<String, Vec<NoteVerifier>>,
    store: Store,
}

impl Witness {
    /// A witness following the logs whose checkpoints `logs` sign; each key's name is its log's
    /// origin.
    pub fn new(signer: CosignatureSigner, logs: &[NoteVerifier], store: Store) -> Witness {
        let mut by_origin: HashMap<String, Vec<NoteVerifier>> = HashMap::new();
        for key in logs {
            by_origin
                .entry(key.name.clone())
                .or_default()
                .push(key.clone());
        }
        Witness {
            signer,
            logs: by_origin,
            store,
        }
    }

    pub fn signer(&self) -> &CosignatureSigner {
        &self.signer
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether the witness follows `origin`'s log: given at start, or handed to it by a
    /// rotation it cosigned.
    pub fn follows(&self, origin: &str) -> Result<bool, StoreError> {
        Ok(self.logs.contains_key(origin) || self.store.handed_to(origin)?.is_some())
    }

    /// Answers an add-checkpoint request: the cosignature line(s) on success. `now` is the
    /// cosignature's timestamp (POSIX seconds); `received_at` dates evidence.
    pub fn add_checkpoint(
        &self,
        body: &[u8],
        now: u64,
        received_at: &str,
    ) -> Result<String, Refusal> {
        let request = request::parse(body).map_err(Refusal::BadRequest)?;
        let origin = request.note.split('\n').next().unwrap_or_default();
        let mut keys = self.logs.get(origin).cloned().unwrap_or_default();
        // A log handed to this origin by a rotation the witness cosigned.
        keys.extend(self.store.handed_to(origin)?);
        if keys.is_empty() {
            return Err(Refusal::UnknownLog(origin.to_owned()));
        }
        let (text, signer) =
            checkpoint::open_by_one_of(&request.note, &keys).map_err(|e| match e {
                NoteError::Malformed(m) => Refusal::BadRequest(format!("the checkpoint note: {m}")),
                other => Refusal::Unsigned(other.to_string()),
            })?;
        let checkpoint = Checkpoint::parse(text).map_err(|e| Refusal::BadRequest(e.to_string()))?;
        let rotation = checkpoint::rotated_to(text)
            .map_err(|e| Refusal::BadRequest(format!("the rotation extension: {e}")))?;
        if request.old_size > checkpoint.size {
            return Err(Refusal::BadRequest(format!(
                "old size {} is above the checkpoint's size {}",
                request.old_size, checkpoint.size
            )));
        }
        let evidence = |kind: &str, why: &str, latest: &Latest| {
            Box::new(Evidence {
                origin: origin.to_owned(),
                kind: kind.to_owned(),
                received_at: received_at.to_owned(),
                old_size: request.old_size,
                proof: request.proof.iter().map(|h| BASE64.encode(h)).collect(),
                note: request.note.clone(),
                cosigned_note: latest.note.clone(),
                why: why.to_owned(),
            })
        };
        let signer_key = signer.to_string();
        let successor = rotation.as_ref().map(|r| r.name.as_str());
        self.store.update(origin, &signer_key, successor, |state| {
            let stored = state.latest;
            if let Some(retired) = state.retired {
                let cosigned = stored.clone().unwrap_or_else(|| Latest {
                    size: 0,
                    root: merkle::empty_root(),
                    note: String::new(),
                });
                if checkpoint.size > retired.size {
                    let why = format!(
                        "key `{signer_key}` handed the log to `{}` at size {}: it signs nothing beyond",
                        retired.successor, retired.size
                    );
                    return Outcome::KeepEvidence {
                        evidence: evidence("after_rotation", &why, &cosigned),
                        then: Err(Refusal::Unsigned(why)),
                    };
                }
                if rotation
                    .as_ref()
                    .is_some_and(|next| next.to_string() != retired.successor)
                {
                    let why = format!(
                        "key `{signer_key}` handed the log to `{}` already; it cannot hand it to another",
                        retired.successor
                    );
                    return Outcome::KeepEvidence {
                        evidence: evidence("second_rotation", &why, &cosigned),
                        then: Err(Refusal::Inconsistent(why)),
                    };
                }
            }
            if let (Some(next), Some(theirs)) = (&rotation, &state.successor_latest) {
                if (theirs.size, theirs.root) != (checkpoint.size, checkpoint.root) {
                    return Outcome::Answer(Err(Refusal::Inconsistent(format!(
                        "the log is handed to `{next}`, whose origin has another history here (size {})",
                        theirs.size
                    ))));
                }
            }
            let stored_size = stored.as_ref().map_or(0, |s| s.size);
            if request.old_size != stored_size {
                return Outcome::Answer(Err(Refusal::Conflict(stored_size)));
            }
            if checkpoint.size == 0 && checkpoint.root != merkle::empty_root() {
                return Outcome::Answer(Err(Refusal::Inconsistent(
                    "a checkpoint of size 0 must have the empty tree's root".into(),
                )));
            }
            // A cosigned empty tree proves nothing about what follows it.
            match stored.as_ref().filter(|s| s.size > 0) {
                None if !request.proof.is_empty() => {
                    return Outcome::Answer(Err(Refusal::Inconsistent(
                        "a proof from size 0 must be empty".into(),
                    )));
                }
                Some(latest)
                    if latest.size == checkpoint.size && latest.root != checkpoint.root =>
                {
                    let why = format!(
                        "a fork: size {} was cosigned with another root",
                        checkpoint.size
                    );
                    return Outcome::KeepEvidence {
                        evidence: evidence("fork", &why, latest),
                        then: Err(Refusal::Inconsistent(why)),
                    };
                }
                Some(latest)
                    if !merkle::verify_consistency(
                        latest.size,
                        checkpoint.size,
                        &request.proof,
                        &latest.root,
                        &checkpoint.root,
                    ) =>
                {
                    let why = format!(
                        "the proof does not show size {} consistent with the cosigned size {}",
                        checkpoint.size, latest.size
                    );
                    return Outcome::KeepEvidence {
                        evidence: evidence("inconsistent", &why, latest),
                        then: Err(Refusal::Inconsistent(why)),
                    };
                }
                _ => {}
            }
            let line = self.signer.cosign(text, now);
            Outcome::Advance {
                to: Latest {
                    size: checkpoint.size,
                    root: checkpoint.root,
                    note: request.note.clone(),
                },
                cosigned_note: format!("{}{line}", request.note),
                handover: rotation.clone().map(|to_key| {
                    Box::new(Handover {
                        from_key: signer_key.clone(),
                        to_key,
                    })
                }),
                then: Ok(line),
            }
        })?
    }
}
