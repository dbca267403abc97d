//! Hand-overs of the log from one operator key to another (`log_rotated` events).

use super::actors::check_command_line_act;
use crate::checkpoint::NoteVerifier;
use crate::keys::key_id;
use crate::registry_event::RegistryEvent;

/// A recorded hand-over of the log to another operator key (a `log_rotated` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// The event's ledger index: the checkpoint of size `index + 1` is the last `from_key`
    /// signs, and may be signed by `to_key` as well.
    pub index: u64,
    pub from_key: NoteVerifier,
    pub to_key: NoteVerifier,
    pub reason: String,
    pub actor: String,
}

impl Rotation {
    /// The size of the last checkpoint the old key signs (the first the new key may sign).
    pub fn size(&self) -> u64 {
        self.index + 1
    }

    /// Checks a `log_rotated` event signed by `signer`; the rotation it records.
    pub(super) fn from_event(
        index: u64,
        signer: &str,
        event: &RegistryEvent,
    ) -> Result<Rotation, String> {
        let RegistryEvent::LogRotated {
            from_key,
            to_key,
            reason,
            actor,
            ..
        } = event
        else {
            return Err(format!("registry event {index} is not a rotation"));
        };
        let parse = |which: &str, text: &str| {
            NoteVerifier::parse(text).map_err(|e| {
                format!("log rotation {index}: {which} `{text}` is not a verifier key: {e}")
            })
        };
        let (from, to) = (parse("from_key", from_key)?, parse("to_key", to_key)?);
        if key_id(&from.key) != signer {
            return Err(format!(
                "log rotation {index} hands over key {}, but key {signer} signed it: only the key that holds the log can hand it over",
                key_id(&from.key)
            ));
        }
        if to.key == from.key {
            return Err(format!(
                "log rotation {index} hands the log to the key that holds it"
            ));
        }
        check_command_line_act(
            &format!("log rotation {index}"),
            "recorded for",
            "rotates the log",
            actor,
            reason,
        )?;
        Ok(Rotation {
            index,
            from_key: from,
            to_key: to,
            reason: reason.clone(),
            actor: actor.clone(),
        })
    }
}
