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

use dozor_log::tlog_witness::{self as request, AddCheckpoint};

use crate::store::{Evidence, Handover, Latest, Outcome, Retirement, State, Store, StoreError};

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
        let shown = self.open(&request, received_at)?;
        let successor = shown.rotation.as_ref().map(|r| r.name.as_str());
        self.store
            .update(shown.origin, &shown.signer_key, successor, |state| {
                self.decide(&shown, state, now)
            })?
    }

    /// The checks before the stored state: the log known by its origin (404), its signature
    /// (403), the checkpoint and its rotation extension readable and the old size not above the
    /// checkpoint's (400).
    fn open<'r>(
        &self,
        request: &'r AddCheckpoint,
        received_at: &'r str,
    ) -> Result<Shown<'r>, Refusal> {
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
        Ok(Shown {
            request,
            origin,
            text,
            signer_key: signer.to_string(),
            checkpoint,
            rotation,
            received_at,
        })
    }

    /// The decision in the store's transaction: refused if the signing key was retired, if a
    /// rotation's successor saw another history, or if the checkpoint does not extend the latest
    /// cosigned; cosigned otherwise.
    fn decide(&self, shown: &Shown<'_>, state: State, now: u64) -> Decision {
        let stored = state.latest;
        if let Some(retired) = state.retired {
            if let Some(refused) = shown.beyond_retirement(&retired, &stored) {
                return refused;
            }
        }
        if let Some(refused) = shown.successor_differs(state.successor_latest.as_ref()) {
            return refused;
        }
        if let Some(refused) = shown.not_extending(stored.as_ref()) {
            return refused;
        }
        let line = self.signer.cosign(shown.text, now);
        Outcome::Advance {
            to: Latest {
                size: shown.checkpoint.size,
                root: shown.checkpoint.root,
                note: shown.request.note.clone(),
            },
            cosigned_note: format!("{}{line}", shown.request.note),
            handover: shown.rotation.clone().map(|to_key| {
                Box::new(Handover {
                    from_key: shown.signer_key.clone(),
                    to_key,
                })
            }),
            then: Ok(line),
        }
    }
}

/// What an add-checkpoint decision answers: the cosignature line(s), or why not.
type Decision = Outcome<Result<String, Refusal>>;

/// An add-checkpoint request whose checkpoint a key of its log signed: what the decision on it
/// needs.
struct Shown<'r> {
    request: &'r AddCheckpoint,
    origin: &'r str,
    /// The signed checkpoint's text.
    text: &'r str,
    /// The verifier key that signed it.
    signer_key: String,
    checkpoint: Checkpoint,
    /// The key the checkpoint hands the log to, if it is a rotation.
    rotation: Option<NoteVerifier>,
    received_at: &'r str,
}

impl Shown<'_> {
    /// Refused, the request kept as evidence of `kind` against the `latest` cosigned.
    fn refuse_with_evidence(
        &self,
        kind: &str,
        why: String,
        latest: &Latest,
        refusal: fn(String) -> Refusal,
    ) -> Decision {
        let evidence = Box::new(Evidence {
            origin: self.origin.to_owned(),
            kind: kind.to_owned(),
            received_at: self.received_at.to_owned(),
            old_size: self.request.old_size,
            proof: self
                .request
                .proof
                .iter()
                .map(|h| BASE64.encode(h))
                .collect(),
            note: self.request.note.clone(),
            cosigned_note: latest.note.clone(),
            why: why.clone(),
        });
        Outcome::KeepEvidence {
            evidence,
            then: Err(refusal(why)),
        }
    }

    /// A key a rotation retired signs nothing beyond its last size, and hands the log to no
    /// other key.
    fn beyond_retirement(&self, retired: &Retirement, stored: &Option<Latest>) -> Option<Decision> {
        let signer_key = &self.signer_key;
        let cosigned = stored.clone().unwrap_or_else(|| Latest {
            size: 0,
            root: merkle::empty_root(),
            note: String::new(),
        });
        if self.checkpoint.size > retired.size {
            let why = format!(
                "key `{signer_key}` handed the log to `{}` at size {}: it signs nothing beyond",
                retired.successor, retired.size
            );
            return Some(self.refuse_with_evidence(
                "after_rotation",
                why,
                &cosigned,
                Refusal::Unsigned,
            ));
        }
        if self
            .rotation
            .as_ref()
            .is_some_and(|next| next.to_string() != retired.successor)
        {
            let why = format!(
                "key `{signer_key}` handed the log to `{}` already; it cannot hand it to another",
                retired.successor
            );
            return Some(self.refuse_with_evidence(
                "second_rotation",
                why,
                &cosigned,
                Refusal::Inconsistent,
            ));
        }
        None
    }

    /// A rotation to an origin the witness already follows must meet that origin's history at
    /// this size.
    fn successor_differs(&self, theirs: Option<&Latest>) -> Option<Decision> {
        let (next, theirs) = (self.rotation.as_ref()?, theirs?);
        ((theirs.size, theirs.root) != (self.checkpoint.size, self.checkpoint.root)).then(|| {
            Outcome::Answer(Err(Refusal::Inconsistent(format!(
                "the log is handed to `{next}`, whose origin has another history here (size {})",
                theirs.size
            ))))
        })
    }

    /// The checkpoint extends the `stored` latest cosigned: the old size is its size (409), an
    /// empty tree has the empty root, and the proof is empty from size 0, or no fork at the same
    /// size and a consistency proof that holds (422).
    fn not_extending(&self, stored: Option<&Latest>) -> Option<Decision> {
        let checkpoint = &self.checkpoint;
        let request = self.request;
        let stored_size = stored.map_or(0, |s| s.size);
        if request.old_size != stored_size {
            return Some(Outcome::Answer(Err(Refusal::Conflict(stored_size))));
        }
        if checkpoint.size == 0 && checkpoint.root != merkle::empty_root() {
            return Some(Outcome::Answer(Err(Refusal::Inconsistent(
                "a checkpoint of size 0 must have the empty tree's root".into(),
            ))));
        }
        // A cosigned empty tree proves nothing about what follows it.
        match stored.filter(|s| s.size > 0) {
            None if !request.proof.is_empty() => Some(Outcome::Answer(Err(Refusal::Inconsistent(
                "a proof from size 0 must be empty".into(),
            )))),
            Some(latest) if latest.size == checkpoint.size && latest.root != checkpoint.root => {
                let why = format!(
                    "a fork: size {} was cosigned with another root",
                    checkpoint.size
                );
                Some(self.refuse_with_evidence("fork", why, latest, Refusal::Inconsistent))
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
                Some(self.refuse_with_evidence("inconsistent", why, latest, Refusal::Inconsistent))
            }
            _ => None,
        }
    }
}
