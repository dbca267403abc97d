//! How a verification is run: which checks, which witnesses count, and how the work is divided.

use dozor_log::cosignature::CosignatureVerifier;
use dozor_log::entry_check::SignatureCheck;
use serde::Serialize;

/// Entries whose signatures are verified together (larger batches cost less per signature).
pub const SIGNATURE_BATCH: usize = 4096;

/// Entries read and checked at a time (bounded memory, whatever the export's size).
pub(crate) const ENTRY_BLOCK: usize = 16 * 1024;

/// Options of [`verify_export`].
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    pub signatures: SignatureCheck,
    /// Re-adjudicate every round and compare with its exported verdict (otherwise only that
    /// every round has exactly one verdict line).
    pub readjudicate: bool,
    /// How the entries are divided into work; any division gives the same result.
    pub chunking: Chunking,
    /// The witnesses whose cosignatures of the export's latest checkpoint count, and how many
    /// must be there.
    pub witnesses: WitnessPolicy,
    /// A checkpoint kept from an earlier visit: the export's ledger must extend it.
    pub pin: Option<PinnedCheckpoint>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            signatures: SignatureCheck::Batch,
            readjudicate: true,
            chunking: Chunking::default(),
            witnesses: WitnessPolicy::default(),
            pin: None,
        }
    }
}

/// A signed checkpoint kept from an earlier visit: `name` (its file, as given) and the note.
#[derive(Debug, Clone)]
pub struct PinnedCheckpoint {
    pub name: String,
    pub note: String,
}

/// Which witnesses' cosignatures count (C2SP tlog-cosignature keys) and how many the export's
/// latest checkpoint must carry (or, when the witnesses have not seen it, the latest one they
/// cosigned, proven a prefix of it and covering the period's entries).
#[derive(Debug, Clone, Default)]
pub struct WitnessPolicy {
    pub keys: Vec<CosignatureVerifier>,
    pub quorum: usize,
}

/// A witness's cosignature of the export's latest checkpoint that verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cosigner {
    pub witness: String,
    /// When the witness cosigned (POSIX seconds).
    pub timestamp: u64,
}

/// Entries read at a time (a block) and checked together by one thread (a chunk, whose
/// signatures are one batch). The defaults suit exports of any size; small ones let tests
/// cross many block and chunk boundaries with few entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    pub block: usize,
    pub chunk: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            block: ENTRY_BLOCK,
            chunk: SIGNATURE_BATCH,
        }
    }
}
