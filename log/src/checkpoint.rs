//! Operator checkpoints: C2SP `tlog-checkpoint` bodies signed as C2SP `signed-note`s with
//! ed25519, byte-compatible with Go's `golang.org/x/mod/sumdb/note`.
//!
//! Note: text (ending in a newline), a blank line, then one line per signature
//! ([`crate::signed_note`]): `— <name> <base64(key id ‖ signature)>` (U+2014). Key id = first 4 bytes of
//! SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). Verifier keys are `<name>+<hex id>+<base64(0x01 ‖ key)>`.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::merkle::Hash;
use crate::signed_note::{Malformed, SignatureLine, SignedNote, SIG_PREFIX};

/// Signature algorithm byte of ed25519 in signed notes.
const ALG_ED25519: u8 = 0x01;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error("malformed key: {0}")]
    Key(String),
    #[error("malformed note: {0}")]
    Malformed(String),
    #[error("no signature by a known key verifies")]
    Unverified,
    #[error("signature by {name} does not verify")]
    BadSignature { name: String },
    #[error("malformed checkpoint: {0}")]
    Checkpoint(String),
}

impl From<Malformed> for NoteError {
    fn from(malformed: Malformed) -> Self {
        NoteError::Malformed(malformed.0)
    }
}

pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '+')
}

/// Key id of an ed25519 key under `name`.
pub fn key_id(name: &str, key: &VerifyingKey) -> u32 {
    key_id_of(name, ALG_ED25519, key)
}

/// Key id of an Ed25519 key of signature type `alg` under `name`: the first 4 bytes of
/// SHA-256(name ‖ 0x0A ‖ alg ‖ public key), as signed-note recommends and its Ed25519 types use.
pub(crate) fn key_id_of(name: &str, alg: u8, key: &VerifyingKey) -> u32 {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([b'\n', alg]);
    hasher.update(key.as_bytes());
    let digest = hasher.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// Reads `PRIVATE+KEY+<name>+<hex id>+<base64(alg ‖ seed)>` (Go's private key form) of an
/// Ed25519 key of signature type `alg` (`what` names the type in errors); the id is checked.
pub(crate) fn read_private_key(
    text: &str,
    alg: u8,
    what: &str,
) -> Result<(String, SigningKey), NoteError> {
    let rest = text
        .trim()
        .strip_prefix("PRIVATE+KEY+")
        .ok_or_else(|| NoteError::Key("a private key starts with PRIVATE+KEY+".into()))?;
    let (name, id, key) = split_key(rest)?;
    if key.len() != 33 || key[0] != alg {
        return Err(NoteError::Key(format!("not an {what} private key")));
    }
    let seed: [u8; 32] = key[1..]
        .try_into()
        .map_err(|_| NoteError::Key("bad seed".into()))?;
    let key = SigningKey::from_bytes(&seed);
    if key_id_of(name, alg, &key.verifying_key()) != id {
        return Err(NoteError::Key("key id does not match the key".into()));
    }
    Ok((name.to_owned(), key))
}

/// Writes a private key in the form [`read_private_key`] reads.
pub(crate) fn write_private_key(name: &str, id: u32, alg: u8, key: &SigningKey) -> String {
    let mut bytes = vec![alg];
    bytes.extend_from_slice(&key.to_bytes());
    format!("PRIVATE+KEY+{name}+{id:08x}+{}", BASE64.encode(bytes))
}

/// Reads a verifier key `<name>+<hex id>+<base64(alg ‖ public key)>` of signature type `alg`;
/// the id is checked.
pub(crate) fn read_verifier_key(
    text: &str,
    alg: u8,
    what: &str,
) -> Result<(String, u32, VerifyingKey), NoteError> {
    let (name, id, key) = split_key(text.trim())?;
    if key.len() != 33 || key[0] != alg {
        return Err(NoteError::Key(format!("not an {what} verifier key")));
    }
    let bytes: [u8; 32] = key[1..]
        .try_into()
        .map_err(|_| NoteError::Key("bad key".into()))?;
    let key = VerifyingKey::from_bytes(&bytes).map_err(|e| NoteError::Key(e.to_string()))?;
    if key_id_of(name, alg, &key) != id {
        return Err(NoteError::Key("key id does not match the key".into()));
    }
    Ok((name.to_owned(), id, key))
}

/// Writes a verifier key in the form [`read_verifier_key`] reads.
pub(crate) fn write_verifier_key(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    id: u32,
    alg: u8,
    key: &VerifyingKey,
) -> std::fmt::Result {
    let mut bytes = vec![alg];
    bytes.extend_from_slice(key.as_bytes());
    write!(f, "{name}+{id:08x}+{}", BASE64.encode(bytes))
}

/// An Ed25519 signing key of a signed-note signature type under its name, with its key id:
/// what a note signer and a witness's cosigner each are.
#[derive(Clone)]
pub(crate) struct NamedSigningKey {
    pub(crate) name: String,
    pub(crate) key: SigningKey,
    pub(crate) id: u32,
}

impl NamedSigningKey {
    /// The key under `name` (a valid key name) for signature type `alg`.
    pub(crate) fn new(name: &str, key: SigningKey, alg: u8) -> Result<NamedSigningKey, NoteError> {
        if !valid_name(name) {
            return Err(NoteError::Key(format!("`{name}` is not a valid key name")));
        }
        let id = key_id_of(name, alg, &key.verifying_key());
        Ok(NamedSigningKey {
            name: name.to_owned(),
            key,
            id,
        })
    }

    /// Reads the private key form of signature type `alg` ([`read_private_key`]).
    pub(crate) fn from_private_key(
        text: &str,
        alg: u8,
        what: &str,
    ) -> Result<NamedSigningKey, NoteError> {
        let (name, key) = read_private_key(text, alg, what)?;
        NamedSigningKey::new(&name, key, alg)
    }

    /// Writes the private key form of signature type `alg`.
    pub(crate) fn private_key(&self, alg: u8) -> String {
        write_private_key(&self.name, self.id, alg, &self.key)
    }

    /// `<type>(<name>+<hex id>)`, without the key.
    pub(crate) fn debug(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        type_name: &str,
    ) -> std::fmt::Result {
        write!(f, "{type_name}({}+{:08x})", self.name, self.id)
    }
}

/// Signature algorithm byte of witness cosignatures, `cosignature/v1`
/// ([`crate::cosignature`]).
pub const ALG_COSIGNATURE_V1: u8 = 0x04;

/// What the keys of a signature type are called: in errors about their text, and as the
/// signer's and the verifier's types in debug output (which never shows a private key).
struct KeyNames {
    what: &'static str,
    signer: &'static str,
    verifier: &'static str,
}

/// The names of the keys of signature type `alg`: checkpoints' or witness cosignatures'.
const fn key_names(alg: u8) -> KeyNames {
    match alg {
        ALG_ED25519 => KeyNames {
            what: "ed25519",
            signer: "NoteSigner",
            verifier: "NoteVerifier",
        },
        _ => KeyNames {
            what: "Ed25519 cosignature (type 0x04)",
            signer: "CosignatureSigner",
            verifier: "CosignatureVerifier",
        },
    }
}

/// A named Ed25519 signing key of signature type `ALG`: [`NoteSigner`], or a witness's
/// [`crate::cosignature::CosignatureSigner`].
#[derive(Clone)]
pub struct KeySigner<const ALG: u8>(pub(crate) NamedSigningKey);

impl<const ALG: u8> std::fmt::Debug for KeySigner<ALG> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.debug(f, key_names(ALG).signer)
    }
}

impl<const ALG: u8> KeySigner<ALG> {
    pub fn new(name: &str, key: SigningKey) -> Result<KeySigner<ALG>, NoteError> {
        NamedSigningKey::new(name, key, ALG).map(KeySigner)
    }

    /// Parses the private key form `PRIVATE+KEY+<name>+<hex id>+<base64(type ‖ seed)>` (for
    /// checkpoints, Go's).
    pub fn from_private_key(text: &str) -> Result<KeySigner<ALG>, NoteError> {
        NamedSigningKey::from_private_key(text, ALG, key_names(ALG).what).map(KeySigner)
    }

    pub fn private_key(&self) -> String {
        self.0.private_key(ALG)
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn verifier(&self) -> KeyVerifier<ALG> {
        KeyVerifier {
            name: self.0.name.clone(),
            id: self.0.id,
            key: self.0.key.verifying_key(),
        }
    }
}

/// A note signer: the operator's checkpoint key.
pub type NoteSigner = KeySigner<ALG_ED25519>;

impl NoteSigner {
    /// The ed25519 key itself, which also signs the operator's registry events.
    pub fn signing_key(&self) -> &SigningKey {
        &self.0.key
    }

    /// Signs `text` (which must end in a newline) into a complete signed note.
    pub fn sign(&self, text: &str) -> Result<String, NoteError> {
        if !text.ends_with('\n') || text.ends_with("\n\n") {
            return Err(NoteError::Malformed(
                "note text must end in exactly one newline".into(),
            ));
        }
        let NamedSigningKey { name, key, id } = &self.0;
        let signature = key.sign(text.as_bytes());
        let mut blob = id.to_be_bytes().to_vec();
        blob.extend_from_slice(&signature.to_bytes());
        Ok(format!(
            "{text}\n{SIG_PREFIX}{name} {}\n",
            BASE64.encode(blob)
        ))
    }
}

fn split_key(text: &str) -> Result<(&str, u32, Vec<u8>), NoteError> {
    let mut parts = text.splitn(3, '+');
    let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(NoteError::Key(
            "expected <name>+<hex id>+<base64 key>".into(),
        ));
    };
    if !valid_name(name) || id.len() != 8 {
        return Err(NoteError::Key("bad name or key id".into()));
    }
    let id = u32::from_str_radix(id, 16).map_err(|_| NoteError::Key("key id is not hex".into()))?;
    let key = BASE64
        .decode(key)
        .map_err(|e| NoteError::Key(format!("key is not base64: {e}")))?;
    Ok((name, id, key))
}

/// A verifier key of signature type `ALG`: `<name>+<hex id>+<base64(type ‖ public key)>`.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyVerifier<const ALG: u8> {
    pub name: String,
    pub id: u32,
    pub key: VerifyingKey,
}

impl<const ALG: u8> std::fmt::Debug for KeyVerifier<ALG> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct(key_names(ALG).verifier)
            .field("name", &self.name)
            .field("id", &self.id)
            .field("key", &self.key)
            .finish()
    }
}

impl<const ALG: u8> KeyVerifier<ALG> {
    /// Parses `<name>+<hex id>+<base64(type ‖ public key)>`.
    pub fn parse(text: &str) -> Result<KeyVerifier<ALG>, NoteError> {
        let (name, id, key) = read_verifier_key(text, ALG, key_names(ALG).what)?;
        Ok(KeyVerifier { name, id, key })
    }
}

impl<const ALG: u8> std::fmt::Display for KeyVerifier<ALG> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_verifier_key(f, &self.name, self.id, ALG, &self.key)
    }
}

/// A verifier key: who may sign checkpoints.
pub type NoteVerifier = KeyVerifier<ALG_ED25519>;

impl NoteVerifier {
    /// SHA-256 of the verifier key as written (`name+id+key`), in sixteen groups of four hex
    /// digits: what an inspector compares, read out or printed, with what the operator
    /// registered (`printf '%s' KEY | sha256sum` gives the same digits).
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest as _, Sha256};
        let digest = hex::encode(Sha256::digest(self.to_string().as_bytes()));
        digest
            .as_bytes()
            .chunks(4)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Opens a signed note: returns its text once a signature by one of `verifiers` verifies.
/// Signatures by unknown keys are ignored; a bad signature by a known key is an error.
pub fn open<'a>(
    note: &'a str,
    verifiers: &[NoteVerifier],
) -> Result<(&'a str, Vec<String>), NoteError> {
    let note = SignedNote::split(note)?;
    let mut verified = Vec::new();
    for signature in note.signatures() {
        let SignatureLine {
            name, key_id, blob, ..
        } = signature?;
        let Some(verifier) = verifiers.iter().find(|v| v.name == name && v.id == key_id) else {
            continue;
        };
        let signature: [u8; 64] = blob[4..].try_into().map_err(|_| NoteError::BadSignature {
            name: name.to_owned(),
        })?;
        verifier
            .key
            .verify_strict(note.text.as_bytes(), &Signature::from_bytes(&signature))
            .map_err(|_| NoteError::BadSignature {
                name: name.to_owned(),
            })?;
        verified.push(name.to_owned());
    }
    if verified.is_empty() {
        return Err(NoteError::Unverified);
    }
    Ok((note.text, verified))
}

/// Opens a signed note with one of `keys`, each tried on its own: its text and the key whose
/// signature verified (two keys of one origin, before and after a rotation, cannot be told apart
/// by a signature line's name). A malformed note is that error at once; otherwise the first
/// key's error (`Unverified` when no key is given).
pub fn open_by_one_of<'a>(
    note: &'a str,
    keys: &[NoteVerifier],
) -> Result<(&'a str, NoteVerifier), NoteError> {
    let mut first_error = None;
    for key in keys {
        match open(note, std::slice::from_ref(key)) {
            Ok((text, _)) => return Ok((text, key.clone())),
            Err(e @ NoteError::Malformed(_)) => return Err(e),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or(NoteError::Unverified))
}

/// The extension line of the checkpoint that hands a log to another key (the checkpoint of the
/// tree ending with the `log_rotated` event, signed by the key handing it over):
/// `dozor-rotated-to <verifier key>`. C2SP tlog-checkpoint allows extension lines after the
/// root; a witness that does not know this one cosigns the checkpoint as any other, one that
/// does follows the log under the new key (and origin) from this tree on.
pub const ROTATION_EXTENSION: &str = "dozor-rotated-to ";

/// The key a checkpoint's text hands its log to, if it carries the rotation extension.
pub fn rotated_to(text: &str) -> Result<Option<NoteVerifier>, NoteError> {
    for line in text.split('\n').skip(3) {
        if let Some(key) = line.strip_prefix(ROTATION_EXTENSION) {
            return NoteVerifier::parse(key).map(Some);
        }
    }
    Ok(None)
}

/// A C2SP tlog-checkpoint body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
}

impl Checkpoint {
    pub fn text(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            BASE64.encode(self.root)
        )
    }

    /// The text of this checkpoint handing the log to `to` (see [`ROTATION_EXTENSION`]).
    pub fn rotation_text(&self, to: &NoteVerifier) -> String {
        format!("{}{ROTATION_EXTENSION}{to}\n", self.text())
    }

    pub fn parse(text: &str) -> Result<Checkpoint, NoteError> {
        let bad = |m: &str| NoteError::Checkpoint(m.to_owned());
        let mut lines = text.split('\n');
        let origin = lines
            .next()
            .filter(|o| !o.is_empty())
            .ok_or_else(|| bad("no origin"))?;
        let size = lines
            .next()
            .filter(|s| !s.is_empty() && (s == &"0" || !s.starts_with('0')))
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| bad("tree size is not a decimal without leading zeros"))?;
        let root: Hash = lines
            .next()
            .and_then(|r| BASE64.decode(r).ok())
            .and_then(|r| r.try_into().ok())
            .ok_or_else(|| bad("root is not base64 of 32 bytes"))?;
        Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PETER_PRIVATE: &str =
        "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    const PETER_VERIFIER: &str =
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    const TEXT: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    const SIGNED: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

    #[test]
    fn signs_byte_for_byte_like_go_sumdb_note() {
        let signer = NoteSigner::from_private_key(PETER_PRIVATE).unwrap();
        assert_eq!(signer.sign(TEXT).unwrap(), SIGNED);
        assert_eq!(signer.verifier().to_string(), PETER_VERIFIER);
        assert_eq!(signer.private_key(), PETER_PRIVATE);
    }

    #[test]
    fn opens_the_go_example_and_refuses_tampering() {
        let verifier = NoteVerifier::parse(PETER_VERIFIER).unwrap();
        assert_eq!(verifier.id, 0xc74f20a3);
        let (text, names) = open(SIGNED, std::slice::from_ref(&verifier)).unwrap();
        assert_eq!((text, names), (TEXT, vec!["PeterNeumann".to_owned()]));
        let tampered = SIGNED.replace("answer", "ANSWER");
        assert_eq!(
            open(&tampered, std::slice::from_ref(&verifier)),
            Err(NoteError::BadSignature {
                name: "PeterNeumann".into()
            })
        );
        let other = NoteSigner::new("PeterNeumann", SigningKey::from_bytes(&[9; 32]))
            .unwrap()
            .verifier();
        assert_eq!(open(SIGNED, &[other]), Err(NoteError::Unverified));
        assert!(NoteVerifier::parse(&PETER_VERIFIER.replace("c74f20a3", "c74f20a4")).is_err());
    }

    #[test]
    fn checkpoint_round_trip() {
        let signer =
            NoteSigner::new("dozor.example/casino-1", SigningKey::from_bytes(&[1; 32])).unwrap();
        let checkpoint = Checkpoint {
            origin: "dozor.example/casino-1".into(),
            size: 1234,
            root: [7; 32],
        };
        let note = signer.sign(&checkpoint.text()).unwrap();
        let (text, _) = open(&note, &[signer.verifier()]).unwrap();
        assert_eq!(Checkpoint::parse(text).unwrap(), checkpoint);
        assert!(Checkpoint::parse("origin\n0012\nAAAA\n").is_err());
    }

    #[test]
    fn a_rotation_checkpoint_names_the_next_key_in_an_extension_line() {
        let next = NoteVerifier::parse(PETER_VERIFIER).unwrap();
        let body = Checkpoint {
            origin: "casino.example/ledger".into(),
            size: 7,
            root: [3; 32],
        };
        let text = body.rotation_text(&next);
        assert_eq!(
            text,
            format!(
                "casino.example/ledger\n7\n{}\ndozor-rotated-to {PETER_VERIFIER}\n",
                BASE64.encode([3u8; 32])
            )
        );
        // Still a checkpoint, read as any other; the extension names the key.
        assert_eq!(Checkpoint::parse(&text).unwrap(), body);
        assert_eq!(rotated_to(&text).unwrap(), Some(next));
        assert_eq!(rotated_to(&body.text()).unwrap(), None);
        let broken = text.replace("+ARpc", "+?Rpc");
        assert!(rotated_to(&broken).is_err());
    }
}
