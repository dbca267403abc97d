//! The inspection export's format: its files and what each holds.
//!
//! An export of a period is a directory:
//!
//! | file | content |
//! |---|---|
//! | `export.json` | format, origin, period, index range, tree sizes |
//! | `entries.jsonl` | the canonical entries, one per line, from the chain link before the period to its last entry |
//! | `tree.json` | hashes of the subtrees outside those entries needed to rebuild the checkpoint's root |
//! | `checkpoint.txt` | the signed checkpoint covering every exported entry |
//! | `checkpoint-latest.txt`, `consistency.json` | the latest checkpoint and the proof that it extends the first |
//! | `checkpoint-witnessed.txt` | when the latest checkpoint lacks the witnesses' cosignatures: the latest one they cosigned |
//! | `checkpoint-proofs.json` | the consistency proof to the latest checkpoint from the witnessed one |
//! | `registry.jsonl`, `registry-proofs.json` | every registry event (table registrations, table and API key additions and revocations, resolutions of findings) the latest checkpoint covers, with its inclusion proof to that checkpoint |
//! | `resolved-rounds.jsonl`, `resolved-rounds-proofs.json` | the round of every resolved finding, with its inclusion proof to the latest checkpoint |
//! | `late-rounds.jsonl`, `late-rounds-proofs.json` | every round played in the period but received after it, with its inclusion proof to the latest checkpoint |
//! | `keys.json` | every table key with its validity, as the registry events give it |
//! | `plans/<plan>.toml` | the plans the rounds name |
//! | `adjudications.jsonl` | the verdict of every round of the period |
//! | `reports/daily-<day>.csv`, `reports/shoes-<day>.csv` | the daily report and the shoe audit of every gaming day of the period, each sealed by a `report_published` registry event carrying its SHA-256 |
//! | `MANIFEST` | `<sha256>  <path>` of every other file |

use chrono::{DateTime, NaiveDate, Utc};

/// Where the registry's `report_published` events name the nightly reports.
pub const NIGHTLY_PREFIX: &str = "reports/nightly/";
/// Where they name the Ministry's sealed packages: `reports/mf/{package}.zip`.
pub const SEALED_PREFIX: &str = "reports/mf/";
use dozor_log::registry_history::RegistryHistory;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const FORMAT: &str = "dozor-inspection-export/1";

pub const MANIFEST: &str = "MANIFEST";

pub const EXPORT_JSON: &str = "export.json";

pub const ENTRIES: &str = "entries.jsonl";

pub const TREE: &str = "tree.json";

pub const CHECKPOINT: &str = "checkpoint.txt";

pub const CHECKPOINT_LATEST: &str = "checkpoint-latest.txt";

pub const CONSISTENCY: &str = "consistency.json";

pub const CHECKPOINT_WITNESSED: &str = "checkpoint-witnessed.txt";

pub const CHECKPOINT_PROOFS: &str = "checkpoint-proofs.json";

pub const KEYS: &str = "keys.json";

pub const REGISTRY: &str = "registry.jsonl";

pub const REGISTRY_PROOFS: &str = "registry-proofs.json";

pub const ADJUDICATIONS: &str = "adjudications.jsonl";

pub const RESOLVED_ROUNDS: &str = "resolved-rounds.jsonl";

pub const RESOLVED_ROUNDS_PROOFS: &str = "resolved-rounds-proofs.json";

pub const LATE_ROUNDS: &str = "late-rounds.jsonl";

pub const LATE_ROUNDS_PROOFS: &str = "late-rounds-proofs.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportInfo {
    pub format: String,
    /// The log's origin (checkpoint key name).
    pub origin: String,
    /// First and last gaming day of the period.
    pub from: String,
    pub to: String,
    /// The period in UTC, `[starts_at, ends_at)`, by the entries' `received_at`.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Index of the first line of entries.jsonl (the chain link before the period, if any).
    pub first_index: u64,
    /// Index of the first entry of the period (equals `first_index` when there is no link).
    pub period_first_index: u64,
    /// Entries of the period (links not counted); 0 for a period without activity.
    pub period_entries: u64,
    /// Whether entries.jsonl ends with the first entry after the period (absent only when the
    /// period reaches the end of the ledger), which proves nothing of the period is left out.
    pub link_after: bool,
    /// Rounds played in the period (by their `played_at`) but received after it: in
    /// late-rounds.jsonl, each with its inclusion proof to the latest checkpoint.
    pub late_rounds: u64,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeNode {
    pub level: u32,
    pub index: u64,
    pub hash: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeFile {
    /// Tree size of checkpoint.txt.
    pub size: u64,
    pub nodes: Vec<TreeNode>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyFile {
    pub first: u64,
    pub second: u64,
    pub proof: Vec<String>,
}

/// Consistency proofs to the latest checkpoint (`size`) from earlier ones: what proves a
/// checkpoint kept from an earlier visit, or the witnesses' one, is a prefix of the export's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointProofsFile {
    pub size: u64,
    pub proofs: Vec<ConsistencyFrom>,
}

/// The RFC 6962 consistency proof from the tree of `first` entries to the latest checkpoint's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsistencyFrom {
    pub first: u64,
    pub proof: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InclusionProof {
    pub index: u64,
    pub proof: Vec<String>,
}

/// Inclusion proofs of the lines of registry.jsonl or resolved-rounds.jsonl, in the same
/// order, to the tree of checkpoint-latest.txt.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofsFile {
    pub size: u64,
    pub proofs: Vec<InclusionProof>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRecord {
    pub table_id: String,
    pub key_id: String,
    /// base64 ed25519 public key.
    pub public_key: String,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revocation_reason: Option<String>,
    /// Ledger indexes of the registry events that added and revoked the key.
    pub added_at_index: u64,
    pub revoked_at_index: Option<u64>,
}

impl KeyRecord {
    /// keys.json as the registry events give it.
    pub fn from_history(history: &RegistryHistory) -> Vec<KeyRecord> {
        history
            .keys()
            .into_iter()
            .map(|k| KeyRecord {
                table_id: k.table_id.clone(),
                key_id: k.key_id.clone(),
                public_key: dozor_log::keys::encode_public_key(&k.key),
                valid_from: k.valid_from,
                revoked_at: k.revocation.as_ref().map(|r| r.revoked_at),
                revocation_reason: k.revocation.as_ref().map(|r| r.reason.clone()),
                added_at_index: k.index,
                revoked_at_index: k.revocation.as_ref().map(|r| r.index),
            })
            .collect()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdjudicationLine {
    pub index: u64,
    pub verdict: serde_json::Value,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The report files an export carries for gaming day `day`: the daily report and the shoe audit.
pub fn report_names(day: NaiveDate) -> [String; 2] {
    [
        format!("reports/daily-{day}.csv"),
        format!("reports/shoes-{day}.csv"),
    ]
}
