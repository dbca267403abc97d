//! Inspection exports: the files, and their offline verification (no database, no network).
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
//! | `keys.json` | every table key with its validity |
//! | `plans/<plan>.toml` | the plans the rounds name |
//! | `adjudications.jsonl` | the verdict of every round of the period |
//! | `reports/daily-<day>.csv` | the daily report of every gaming day of the period |
//! | `MANIFEST` | `<sha256>  <path>` of every other file |

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::checkpoint::{open, Checkpoint, NoteVerifier};
use crate::entry::{format_time, leaf_hash, verify_entry, KeyWindow};
use crate::merkle::{self, Hash, RangeSource};

pub const FORMAT: &str = "dozor-inspection-export/1";
pub const MANIFEST: &str = "MANIFEST";
pub const EXPORT_JSON: &str = "export.json";
pub const ENTRIES: &str = "entries.jsonl";
pub const TREE: &str = "tree.json";
pub const CHECKPOINT: &str = "checkpoint.txt";
pub const CHECKPOINT_LATEST: &str = "checkpoint-latest.txt";
pub const CONSISTENCY: &str = "consistency.json";
pub const KEYS: &str = "keys.json";
pub const ADJUDICATIONS: &str = "adjudications.jsonl";

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

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRecord {
    pub table_id: String,
    pub key_id: String,
    /// base64 ed25519 public key.
    pub public_key: String,
    pub valid_from: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub revocation_reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdjudicationLine {
    pub index: u64,
    pub verdict: serde_json::Value,
}

/// The first thing that is wrong with an export, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{item}: {message}")]
pub struct InspectionError {
    /// File, and line or index where it applies.
    pub item: String,
    pub message: String,
}

fn fail(item: impl Into<String>, message: impl Into<String>) -> InspectionError {
    InspectionError {
        item: item.into(),
        message: message.into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct InspectionReport {
    pub origin: String,
    pub period: (String, String),
    pub period_entries: u64,
    pub first_index: u64,
    pub checkpoint_size: u64,
    pub checkpoint_root: String,
    pub latest_size: u64,
    pub files_checked: usize,
    pub signatures_checked: u64,
    pub rounds_readjudicated: u64,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>, InspectionError> {
    std::fs::read(dir.join(name)).map_err(|e| fail(name, format!("cannot read: {e}")))
}

fn json<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> Result<T, InspectionError> {
    serde_json::from_slice(&read(dir, name)?).map_err(|e| fail(name, format!("not valid: {e}")))
}

fn hash_hex(item: &str, text: &str) -> Result<Hash, InspectionError> {
    hex::decode(text)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| fail(item, format!("`{text}` is not a 32-byte hex hash")))
}

/// Every file under `dir`, as relative paths with `/`.
fn list_files(dir: &Path) -> Result<Vec<String>, InspectionError> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .map_err(|e| fail(dir.display().to_string(), e.to_string()))?;
        for entry in entries {
            let entry = entry.map_err(|e| fail(dir.display().to_string(), e.to_string()))?;
            let path = rel.join(entry.file_name());
            if entry.path().is_dir() {
                stack.push(path);
            } else {
                out.push(path.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Checks MANIFEST: every listed file exists with that SHA-256, and no file is unlisted.
fn check_manifest(dir: &Path) -> Result<usize, InspectionError> {
    let text = String::from_utf8(read(dir, MANIFEST)?).map_err(|_| fail(MANIFEST, "not UTF-8"))?;
    let mut listed = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let (sum, path) = line.split_once("  ").ok_or_else(|| {
            fail(
                format!("{MANIFEST} line {}", n + 1),
                "expected `<sha256>  <path>`",
            )
        })?;
        if listed.insert(path.to_owned(), sum.to_owned()).is_some() {
            return Err(fail(
                format!("{MANIFEST} line {}", n + 1),
                format!("{path} is listed twice"),
            ));
        }
    }
    for (path, sum) in &listed {
        let bytes =
            read(dir, path).map_err(|_| fail(path.clone(), "listed in MANIFEST but missing"))?;
        let actual = sha256_hex(&bytes);
        if &actual != sum {
            return Err(fail(
                path.clone(),
                format!("SHA-256 is {actual}, MANIFEST says {sum}"),
            ));
        }
    }
    for path in list_files(dir)? {
        if path != MANIFEST && !listed.contains_key(&path) {
            return Err(fail(path, "present but not listed in MANIFEST"));
        }
    }
    for required in [
        EXPORT_JSON,
        ENTRIES,
        TREE,
        CHECKPOINT,
        CHECKPOINT_LATEST,
        CONSISTENCY,
        KEYS,
        ADJUDICATIONS,
    ] {
        if !listed.contains_key(required) {
            return Err(fail(required, "missing from the export"));
        }
    }
    Ok(listed.len())
}

fn open_checkpoint(
    dir: &Path,
    name: &str,
    keys: &[NoteVerifier],
    origin: &str,
) -> Result<Checkpoint, InspectionError> {
    let note = String::from_utf8(read(dir, name)?).map_err(|_| fail(name, "not UTF-8"))?;
    let (text, _) = open(&note, keys)
        .map_err(|e| fail(name, format!("{e} (operator keys given: {})", keys.len())))?;
    let checkpoint = Checkpoint::parse(text).map_err(|e| fail(name, e.to_string()))?;
    if checkpoint.origin != origin {
        return Err(fail(
            name,
            format!(
                "origin `{}` is not the export's `{origin}`",
                checkpoint.origin
            ),
        ));
    }
    Ok(checkpoint)
}

struct TableKey {
    table_id: String,
    key: VerifyingKey,
    valid_from: DateTime<Utc>,
    revoked_at: Option<DateTime<Utc>>,
}

fn load_keys(dir: &Path) -> Result<HashMap<String, TableKey>, InspectionError> {
    let records: Vec<KeyRecord> = json(dir, KEYS)?;
    let mut keys = HashMap::new();
    for r in records {
        let key = crate::keys::parse_public_key(&r.public_key)
            .map_err(|e| fail(KEYS, format!("key {}: {e}", r.key_id)))?;
        if crate::keys::key_id(&key) != r.key_id {
            return Err(fail(
                KEYS,
                format!("key {} does not match its public key", r.key_id),
            ));
        }
        keys.insert(
            r.key_id,
            TableKey {
                table_id: r.table_id,
                key,
                valid_from: r.valid_from,
                revoked_at: r.revoked_at,
            },
        );
    }
    Ok(keys)
}

/// Verifies an export offline. `progress(done, total)` is called every few thousand entries.
pub fn verify_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
    mut progress: impl FnMut(u64, u64),
) -> Result<InspectionReport, InspectionError> {
    let files_checked = check_manifest(dir)?;
    let info: ExportInfo = json(dir, EXPORT_JSON)?;
    if info.format != FORMAT {
        return Err(fail(
            EXPORT_JSON,
            format!("unknown format `{}`", info.format),
        ));
    }
    let checkpoint = open_checkpoint(dir, CHECKPOINT, operator_keys, &info.origin)?;
    let latest = open_checkpoint(dir, CHECKPOINT_LATEST, operator_keys, &info.origin)?;
    let keys = load_keys(dir)?;

    // Entries: canonical, consecutive, chained, signed by a key valid at receipt.
    let entries_text =
        String::from_utf8(read(dir, ENTRIES)?).map_err(|_| fail(ENTRIES, "not UTF-8"))?;
    let lines: Vec<&str> = entries_text.lines().collect();
    let has_link = info.period_first_index > info.first_index;
    let expected_lines = info.period_entries + u64::from(has_link) + u64::from(info.link_after);
    if lines.len() as u64 != expected_lines {
        return Err(fail(
            ENTRIES,
            format!("{} entries, export.json says {expected_lines}", lines.len()),
        ));
    }
    let total = lines.len() as u64;
    // Each entry on its own (any thread), then the chain in order.
    let checked = check_entries_parallel(&lines, &info, has_link, &keys)?;
    let mut leaves: Vec<Hash> = Vec::with_capacity(lines.len());
    let mut records: HashMap<u64, serde_json::Value> = HashMap::new();
    let mut signatures = 0u64;
    for (n, result) in checked.into_iter().enumerate() {
        let entry = result?;
        let expected = info.first_index + n as u64;
        let item = format!("{ENTRIES} line {} (index {expected})", n + 1);
        if let Some(previous) = leaves.last() {
            if entry.prev_hash != hex::encode(previous) {
                return Err(fail(
                    &item,
                    format!(
                        "prev_hash does not match the hash of entry {}",
                        expected - 1
                    ),
                ));
            }
        } else if expected == 0 && entry.prev_hash != hex::encode(crate::GENESIS_PREV_HASH) {
            return Err(fail(
                &item,
                "the first entry of the ledger must have a zero prev_hash",
            ));
        }
        signatures += 1;
        leaves.push(entry.leaf);
        if let Some(record) = entry.round {
            records.insert(expected, record);
        }
        if (n as u64 + 1).is_multiple_of(4096) {
            progress(n as u64 + 1, total);
        }
    }
    progress(total, total);

    // Every exported entry is a leaf of the checkpoint's tree.
    let tree: TreeFile = json(dir, TREE)?;
    if tree.size != checkpoint.size {
        return Err(fail(
            TREE,
            format!(
                "tree size {} is not the checkpoint's {}",
                tree.size, checkpoint.size
            ),
        ));
    }
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
    let mut outside: HashMap<(u32, u64), Hash> = HashMap::new();
    for node in &tree.nodes {
        outside.insert((node.level, node.index), hash_hex(TREE, &node.hash)?);
    }
    let src = RangeSource {
        start: info.first_index,
        leaves: &leaves,
        outside: &outside,
    };
    let root = merkle::root(&src, checkpoint.size).map_err(|e| fail(TREE, e.to_string()))?;
    if root != checkpoint.root {
        return Err(fail(
            CHECKPOINT,
            "the entries and tree.json give another root than the signed checkpoint: an entry was changed, removed, added or reordered, or the checkpoint is not this log's",
        ));
    }

    if !info.link_after && latest.size > run_end {
        return Err(fail(
            ENTRIES,
            format!("the log holds {} entries but the export stops at index {} without the entry that follows", latest.size, run_end.saturating_sub(1)),
        ));
    }

    // The latest checkpoint extends it.
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

    let rounds_readjudicated = check_adjudications(dir, &records)?;
    Ok(InspectionReport {
        origin: info.origin,
        period: (info.from, info.to),
        period_entries: info.period_entries,
        first_index: info.period_first_index,
        checkpoint_size: checkpoint.size,
        checkpoint_root: hex::encode(checkpoint.root),
        latest_size: latest.size,
        files_checked,
        signatures_checked: signatures,
        rounds_readjudicated,
    })
}

/// What one entry line yields once checked on its own.
struct CheckedEntry {
    leaf: Hash,
    prev_hash: String,
    /// The record, if the entry is a round of the period.
    round: Option<serde_json::Value>,
}

/// Checks one line: canonical bytes, index, time, period, key and signature.
fn check_entry(
    n: usize,
    line: &str,
    lines: usize,
    info: &ExportInfo,
    has_link: bool,
    keys: &HashMap<String, TableKey>,
) -> Result<CheckedEntry, InspectionError> {
    let expected = info.first_index + n as u64;
    let item = format!("{ENTRIES} line {} (index {expected})", n + 1);
    let entry = verify_entry(line.as_bytes(), expected, |id| {
        keys.get(id).map(|k| KeyWindow {
            table_id: &k.table_id,
            key: &k.key,
            valid_from: k.valid_from,
            revoked_at: k.revoked_at,
        })
    })
    .map_err(|m| fail(&item, m))?;
    let at = entry.received_at;
    let link_before = has_link && n == 0;
    let link_after = info.link_after && n + 1 == lines;
    let in_period = !link_before && !link_after;
    if in_period && !(info.starts_at <= at && at < info.ends_at) {
        return Err(fail(
            &item,
            format!(
                "received at {}, outside the exported period",
                format_time(at)
            ),
        ));
    }
    if link_before && at >= info.starts_at {
        return Err(fail(
            &item,
            "the chain link before the period was received inside it: entries are missing",
        ));
    }
    if link_after && at < info.ends_at {
        return Err(fail(
            &item,
            "the chain link after the period was received inside it: entries are missing",
        ));
    }
    Ok(CheckedEntry {
        leaf: leaf_hash(line.as_bytes()),
        prev_hash: entry.prev_hash,
        round: (in_period && entry.header.record_type == "round").then_some(entry.envelope.record),
    })
}

/// Checks every line on all cores; results in line order.
fn check_entries_parallel(
    lines: &[&str],
    info: &ExportInfo,
    has_link: bool,
    keys: &HashMap<String, TableKey>,
) -> Result<Vec<Result<CheckedEntry, InspectionError>>, InspectionError> {
    par_map(lines, |n, line| {
        check_entry(n, line, lines.len(), info, has_link, keys)
    })
}

/// Maps `f` over `items` on every core, results in the items' order.
fn par_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(usize, &T) -> R + Sync,
) -> Result<Vec<R>, InspectionError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .max(1);
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| {
                scope.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(i, item)| f(c * chunk + i, item))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            out.extend(
                h.join()
                    .map_err(|_| fail(ENTRIES, "a verification thread failed"))?,
            );
        }
        Ok(out)
    })
}

/// Re-adjudicates every round with the exported plan and compares with the exported verdict
/// (when the same rules version produced it).
fn check_adjudications(
    dir: &Path,
    records: &HashMap<u64, serde_json::Value>,
) -> Result<u64, InspectionError> {
    let text = String::from_utf8(read(dir, ADJUDICATIONS)?)
        .map_err(|_| fail(ADJUDICATIONS, "not UTF-8"))?;
    let mut lines: Vec<(String, AdjudicationLine, &serde_json::Value)> = Vec::new();
    let mut plans: HashMap<String, rules::Plan> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let item = format!("{ADJUDICATIONS} line {}", n + 1);
        let adj: AdjudicationLine =
            serde_json::from_str(line).map_err(|e| fail(&item, e.to_string()))?;
        let record = records.get(&adj.index).ok_or_else(|| {
            fail(
                &item,
                format!("index {} is not a round of the exported period", adj.index),
            )
        })?;
        let plan_id = record
            .get("plan_id")
            .and_then(|p| p.as_str())
            .unwrap_or_default()
            .to_owned();
        if let std::collections::hash_map::Entry::Vacant(slot) = plans.entry(plan_id) {
            let name = format!("plans/{}.toml", slot.key());
            let text =
                String::from_utf8(read(dir, &name)?).map_err(|_| fail(&name, "not UTF-8"))?;
            let plan = rules::Plan::from_toml_str(&text).map_err(|e| fail(&name, e.to_string()))?;
            slot.insert(plan);
        }
        lines.push((item, adj, record));
    }
    if lines.len() != records.len() {
        return Err(fail(
            ADJUDICATIONS,
            format!(
                "{} rounds in the period, {} verdicts",
                records.len(),
                lines.len()
            ),
        ));
    }
    let readjudicate = |(item, adj, record): &(String, AdjudicationLine, &serde_json::Value)| -> Result<bool, InspectionError> {
        if adj.verdict.get("rules_version").and_then(|v| v.as_str()) != Some(rules::RULES_VERSION) {
            return Ok(false);
        }
        let round = rules::Round::parse(record).map_err(|e| fail(item, e.to_string()))?;
        let plan = plans.get(round.plan_id()).ok_or_else(|| fail(item, "plan missing"))?;
        let verdict = rules::adjudicate(plan, &round).map_err(|e| fail(item, e.to_string()))?;
        let again = serde_json::to_value(&verdict).map_err(|e| fail(item, e.to_string()))?;
        if again != adj.verdict {
            return Err(fail(item, format!("the verdict of entry {} differs from re-adjudication with the exported plan", adj.index)));
        }
        Ok(true)
    };
    let results = par_map(&lines, |_, line| readjudicate(line))?;
    let mut checked = 0;
    for result in results {
        checked += u64::from(result?);
    }
    Ok(checked)
}
