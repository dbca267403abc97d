//! C2SP `signed-note` read as Go's `golang.org/x/mod/sumdb/note` reads it: the note's text
//! (ending in a newline), a blank line, then one signature line per signature,
//! `— <name> <base64(key id ‖ signature)>` (U+2014). What a signature holds past its key id is
//! its type's to read: checkpoints and cosignatures both read their notes here.

/// The start of a signature line.
pub(crate) const SIG_PREFIX: &str = "\u{2014} ";

/// Base64 of a signature line, read as Go's `encoding/base64` reads it (the reference
/// implementation's): bits past the last byte are ignored, so a changed last character is a
/// signature that fails to verify, not a malformed note.
pub(crate) const SIGNATURE_BASE64: base64::engine::GeneralPurpose =
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
    );

/// What makes a note no signed note: the message says where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Malformed(pub(crate) String);

/// A signed note split into its text and its signature block.
pub(crate) struct SignedNote<'a> {
    /// The signed text, ending in its newline.
    pub(crate) text: &'a str,
    signatures: &'a str,
}

/// One signature line, read up to its key id.
pub(crate) struct SignatureLine<'a> {
    /// The line as it stands in the note (without its newline).
    pub(crate) line: &'a str,
    pub(crate) name: &'a str,
    pub(crate) key_id: u32,
    /// The decoded signature, its key id (4 bytes) first.
    pub(crate) blob: Vec<u8>,
}

impl<'a> SignedNote<'a> {
    /// Splits `note` at its last blank line; the signature block must end in a newline.
    pub(crate) fn split(note: &'a str) -> Result<SignedNote<'a>, Malformed> {
        let split = note
            .rfind("\n\n")
            .ok_or_else(|| Malformed("no blank line before the signatures".into()))?;
        let text = &note[..=split];
        let signatures = &note[split + 2..];
        if !signatures.ends_with('\n') || signatures.len() <= 1 {
            return Err(Malformed("signature block must end in a newline".into()));
        }
        Ok(SignedNote { text, signatures })
    }

    /// The signature lines in order, each read as it is reached: a malformed line is an error
    /// in its place.
    pub(crate) fn signatures(
        &self,
    ) -> impl Iterator<Item = Result<SignatureLine<'a>, Malformed>> + 'a {
        self.signatures
            .trim_end_matches('\n')
            .split('\n')
            .map(SignatureLine::read)
    }
}

impl<'a> SignatureLine<'a> {
    /// Reads `— <name> <base64>`, the base64 holding at least a key id.
    fn read(line: &'a str) -> Result<SignatureLine<'a>, Malformed> {
        let bad_line = || Malformed(format!("bad signature line `{line}`"));
        let rest = line.strip_prefix(SIG_PREFIX).ok_or_else(bad_line)?;
        let (name, blob) = rest.split_once(' ').ok_or_else(bad_line)?;
        let blob = base64::Engine::decode(&SIGNATURE_BASE64, blob)
            .map_err(|_| Malformed(format!("signature of {name} is not base64")))?;
        let Some(id) = blob.get(..4) else {
            return Err(Malformed(format!("signature of {name} is too short")));
        };
        let key_id = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
        Ok(SignatureLine {
            line,
            name,
            key_id,
            blob,
        })
    }
}
