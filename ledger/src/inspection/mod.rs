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
//! | `registry.jsonl`, `registry-proofs.json` | every registry event (table registrations, table and API key additions and revocations, resolutions of findings) the latest checkpoint covers, with its inclusion proof to that checkpoint |
//! | `resolved-rounds.jsonl`, `resolved-rounds-proofs.json` | the round of every resolved finding, with its inclusion proof to the latest checkpoint |
//! | `keys.json` | every table key with its validity, as the registry events give it |
//! | `plans/<plan>.toml` | the plans the rounds name |
//! | `adjudications.jsonl` | the verdict of every round of the period |
//! | `reports/daily-<day>.csv`, `reports/shoes-<day>.csv` | the daily report and the shoe audit of every gaming day of the period, each sealed by a `report_published` registry event carrying its SHA-256 |
//! | `MANIFEST` | `<sha256>  <path>` of every other file |

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::checkpoint::{open, Checkpoint, NoteVerifier};
use crate::entry::{format_time, leaf_hash};
use crate::entry_check::{check_entry_text, verify_signatures, SignatureCheck, Signers, Subject};
use crate::merkle::{self, Hash, RangeSource};
use crate::registry_history::RegistryHistory;

mod lines;
mod ordered_pool;
mod resolved;
mod sealed_reports;
use lines::{LineBlock, LineReader, VerdictReader, Verdicts};
pub use sealed_reports::report_names;

pub const FORMAT: &str = "dozor-inspection-export/1";
pub const MANIFEST: &str = "MANIFEST";
pub const EXPORT_JSON: &str = "export.json";
pub const ENTRIES: &str = "entries.jsonl";
pub const TREE: &str = "tree.json";
pub const CHECKPOINT: &str = "checkpoint.txt";
pub const CHECKPOINT_LATEST: &str = "checkpoint-latest.txt";
pub const CONSISTENCY: &str = "consistency.json";
pub const KEYS: &str = "keys.json";
pub const REGISTRY: &str = "registry.jsonl";
pub const REGISTRY_PROOFS: &str = "registry-proofs.json";
pub const ADJUDICATIONS: &str = "adjudications.jsonl";
pub const RESOLVED_ROUNDS: &str = "resolved-rounds.jsonl";
pub const RESOLVED_ROUNDS_PROOFS: &str = "resolved-rounds-proofs.json";

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
                public_key: crate::keys::encode_public_key(&k.key),
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
    pub registry_events: u64,
    pub signatures_checked: u64,
    pub rounds_readjudicated: u64,
    /// Resolutions of findings in the registry, and the resolved findings found again by
    /// re-adjudicating their rounds.
    pub resolutions: u64,
    pub resolved_findings_readjudicated: u64,
    /// Report files whose SHA-256 matched their `report_published` event.
    pub reports_sealed: u64,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// SHA-256 of a file, read in pieces (exports can be far larger than memory).
fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = std::io::Read::read(&mut file, &mut buffer)?;
        if n == 0 {
            return Ok(hex::encode(hasher.finalize()));
        }
        hasher.update(&buffer[..n]);
    }
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

/// MANIFEST, checked but for the files read in the main pass, which are hashed as they are read.
struct Manifest {
    files: usize,
    /// The listed SHA-256 of each file under `reports/` (checked against the file).
    reports: BTreeMap<String, String>,
    /// The listed SHA-256 of each file left to the main pass.
    streamed: HashMap<&'static str, String>,
}

impl Manifest {
    /// Compares a file hashed in the main pass with its listed sum.
    fn check_streamed(&self, name: &'static str, actual: &str) -> Result<(), InspectionError> {
        match self.streamed.get(name) {
            Some(sum) if sum == actual => Ok(()),
            Some(sum) => Err(fail(
                name,
                format!("SHA-256 is {actual}, MANIFEST says {sum}"),
            )),
            None => Err(fail(name, "missing from the export")),
        }
    }
}

/// Files read in the main pass: their SHA-256 is computed as they are read there.
const STREAMED: [&str; 2] = [ENTRIES, ADJUDICATIONS];

/// Checks MANIFEST: every listed file exists with that SHA-256 (those in [`STREAMED`] only
/// exist, their sums are kept for later), and no file is unlisted.
fn check_manifest(dir: &Path) -> Result<Manifest, InspectionError> {
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
    let mut streamed = HashMap::new();
    for name in STREAMED {
        if let Some(sum) = listed.get(name) {
            if !dir.join(name).is_file() {
                return Err(fail(name, "listed in MANIFEST but missing"));
            }
            streamed.insert(name, sum.clone());
        }
    }
    let mut files: Vec<(&String, &String)> = listed
        .iter()
        .filter(|(path, _)| !STREAMED.contains(&path.as_str()))
        .collect();
    files.sort_by_cached_key(|(path, _)| {
        std::cmp::Reverse(std::fs::metadata(dir.join(path)).map_or(0, |m| m.len()))
    });
    let hashes = par_map(&files, |_, (path, _)| sha256_file(&dir.join(path)))?;
    for ((path, sum), actual) in files.into_iter().zip(hashes) {
        let actual = actual.map_err(|_| fail(path.clone(), "listed in MANIFEST but missing"))?;
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
        REGISTRY,
        REGISTRY_PROOFS,
        ADJUDICATIONS,
    ] {
        if !listed.contains_key(required) {
            return Err(fail(required, "missing from the export"));
        }
    }
    let reports = listed
        .iter()
        .filter(|(path, _)| path.starts_with("reports/"))
        .map(|(p, s)| (p.clone(), s.clone()))
        .collect();
    Ok(Manifest {
        files: listed.len(),
        reports,
        streamed,
    })
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

/// Operator keys as signers of registry events, by envelope key id.
fn operator_signers(keys: &[NoteVerifier]) -> HashMap<String, VerifyingKey> {
    keys.iter()
        .map(|k| (crate::keys::key_id(&k.key), k.key))
        .collect()
}

/// Registry events as loaded: the key history they give, their leaf hashes by index, and their
/// inclusion proofs (checked once the checkpoint's tree is known to be this export's).
struct Registry {
    history: RegistryHistory,
    leaves: HashMap<u64, Hash>,
    proofs: Vec<(String, u64, Vec<Hash>)>,
}

/// A proofs file, which must be to the tree of `checkpoint`.
fn proofs_for(
    dir: &Path,
    name: &str,
    checkpoint: &Checkpoint,
) -> Result<ProofsFile, InspectionError> {
    let proofs: ProofsFile = json(dir, name)?;
    if proofs.size != checkpoint.size {
        return Err(fail(
            name,
            format!(
                "proofs are to tree size {}, the latest checkpoint's is {}",
                proofs.size, checkpoint.size
            ),
        ));
    }
    Ok(proofs)
}

/// Whether `leaf` at `index` is in the tree of `checkpoint` by `path`.
fn included(index: u64, leaf: &Hash, path: &[Hash], checkpoint: &Checkpoint) -> bool {
    index < checkpoint.size
        && merkle::verify_inclusion(index, checkpoint.size, leaf, path, &checkpoint.root)
}

/// Registry events: each signed by an operator key and consistent with those before it.
fn load_registry(
    dir: &Path,
    checkpoint: &Checkpoint,
    operators: &HashMap<String, VerifyingKey>,
) -> Result<Registry, InspectionError> {
    let text = String::from_utf8(read(dir, REGISTRY)?).map_err(|_| fail(REGISTRY, "not UTF-8"))?;
    let proofs = proofs_for(dir, REGISTRY_PROOFS, checkpoint)?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != proofs.proofs.len() {
        return Err(fail(
            REGISTRY_PROOFS,
            format!(
                "{} proofs for {} registry events",
                proofs.proofs.len(),
                lines.len()
            ),
        ));
    }
    let none = RegistryHistory::default();
    let mut history = RegistryHistory::default();
    let mut leaves = HashMap::new();
    let mut paths = Vec::with_capacity(lines.len());
    for (n, (line, proof)) in lines.iter().zip(&proofs.proofs).enumerate() {
        let item = format!("{REGISTRY} line {} (index {})", n + 1, proof.index);
        let signers = Signers {
            operators,
            tables: &none,
        };
        let entry = check_entry_text(line, proof.index, signers).map_err(|m| fail(&item, m))?;
        let Subject::Registry(event) = &entry.subject else {
            return Err(fail(&item, "not a registry event"));
        };
        entry.verify_signature().map_err(|m| fail(&item, m))?;
        let leaf = leaf_hash(line.as_bytes());
        let path = proof
            .proof
            .iter()
            .map(|h| hash_hex(REGISTRY_PROOFS, h))
            .collect::<Result<Vec<_>, _>>()?;
        history
            .apply(proof.index, entry.received_at, event)
            .map_err(|m| fail(&item, m))?;
        leaves.insert(proof.index, leaf);
        paths.push((item, proof.index, path));
    }
    let keys: Vec<KeyRecord> = json(dir, KEYS)?;
    if keys != KeyRecord::from_history(&history) {
        return Err(fail(
            KEYS,
            format!("does not match the table-key history of {REGISTRY}"),
        ));
    }
    Ok(Registry {
        history,
        leaves,
        proofs: paths,
    })
}

/// Every registry event is a leaf of the checkpoint's tree.
fn check_registry_proofs(
    registry: &Registry,
    checkpoint: &Checkpoint,
) -> Result<(), InspectionError> {
    for (item, index, path) in &registry.proofs {
        if !included(*index, &registry.leaves[index], path, checkpoint) {
            return Err(fail(
                item,
                format!(
                    "not in the tree of the signed checkpoint (size {}): the inclusion proof fails",
                    checkpoint.size
                ),
            ));
        }
    }
    Ok(())
}

/// The plans of the registered tables, read from plans/ (a round of a plan not there fails
/// when it is re-adjudicated).
fn load_plans(
    dir: &Path,
    history: &RegistryHistory,
) -> Result<HashMap<String, rules::Plan>, InspectionError> {
    let mut plans = HashMap::new();
    for table in history.tables() {
        if plans.contains_key(&table.plan_id) {
            continue;
        }
        let name = format!("plans/{}.toml", table.plan_id);
        let Ok(bytes) = std::fs::read(dir.join(&name)) else {
            continue;
        };
        let text = String::from_utf8(bytes).map_err(|_| fail(&name, "not UTF-8"))?;
        let plan = rules::Plan::from_toml_str(&text).map_err(|e| fail(&name, e.to_string()))?;
        plans.insert(table.plan_id.clone(), plan);
    }
    Ok(plans)
}

/// What verification needs besides the entries themselves.
#[derive(Clone, Copy)]
struct Context<'a> {
    info: &'a ExportInfo,
    has_link: bool,
    lines: usize,
    signers: Signers<'a>,
    registry: &'a HashMap<u64, Hash>,
    verdicts: &'a Verdicts,
    plans: &'a HashMap<String, rules::Plan>,
    signatures: SignatureCheck,
    readjudicate: bool,
    /// `"rules_version":"<this version>"`, as a verdict made by these rules contains it.
    rules_version_marker: &'a str,
}

/// What one entry line yields once checked on its own.
struct CheckedLine {
    leaf: Hash,
    prev_hash: Hash,
    /// Whether it is a round of the period, and whether its verdict was re-adjudicated.
    round: bool,
    readjudicated: bool,
}

/// Options of [`verify_export`].
#[derive(Debug, Clone, Copy)]
pub struct VerifyOptions {
    pub signatures: SignatureCheck,
    /// Re-adjudicate every round and compare with its exported verdict (otherwise only that
    /// every round has exactly one verdict line).
    pub readjudicate: bool,
    /// How the entries are divided into work; any division gives the same result.
    pub chunking: Chunking,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            signatures: SignatureCheck::Batch,
            readjudicate: true,
            chunking: Chunking::default(),
        }
    }
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

/// Verifies an export offline, in stages; the first failure names its file and line.
/// `progress(done, total)` is called every few thousand entries.
pub fn verify_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
    options: VerifyOptions,
    progress: impl FnMut(u64, u64),
) -> Result<InspectionReport, InspectionError> {
    // 1. Every file is listed in MANIFEST with its SHA-256, and no other exists.
    let manifest = check_manifest(dir)?;
    // 2. export.json and the two signed checkpoints.
    let (info, checkpoint, latest) = open_export(dir, operator_keys)?;
    // 3. Registry and keys: the operator's events, in order, give every table key's validity.
    let operators = operator_signers(operator_keys);
    let registry = load_registry(dir, &latest, &operators)?;
    let plans = load_plans(dir, &registry.history)?;
    // 4. Entries: canonical form, chain, keys, signatures and verdicts.
    let entries = check_entries(
        dir, &manifest, &info, &registry, &operators, &plans, options, progress,
    )?;
    // 5. Tree: the entries are leaves of the signed checkpoint's tree, registry events of the
    //    latest one's.
    let run_end = check_tree(dir, &info, &checkpoint, &entries.leaves)?;
    check_registry_proofs(&registry, &latest)?;
    // 6. Reports and resolutions: each report matches its seal; each resolution its round.
    let reports_sealed =
        sealed_reports::check_sealed_reports(&manifest.reports, &registry.history, &info)?;
    let signers = Signers {
        operators: &operators,
        tables: &registry.history,
    };
    let resolved =
        resolved::check_resolved_findings(dir, &registry.history, &latest, signers, &plans)?;
    // 7. The latest checkpoint extends the export's.
    check_extends(dir, &info, &checkpoint, &latest, run_end)?;

    Ok(InspectionReport {
        origin: info.origin,
        period: (info.from, info.to),
        period_entries: info.period_entries,
        first_index: info.period_first_index,
        checkpoint_size: checkpoint.size,
        checkpoint_root: hex::encode(checkpoint.root),
        latest_size: latest.size,
        files_checked: manifest.files,
        registry_events: registry.leaves.len() as u64,
        signatures_checked: entries.total,
        rounds_readjudicated: entries.rounds_readjudicated,
        resolutions: resolved.resolutions,
        resolved_findings_readjudicated: resolved.readjudicated,
        reports_sealed,
    })
}

/// Stage 2, what the export is: export.json of a known format, and its two checkpoints, each
/// signed by one of the operator keys.
fn open_export(
    dir: &Path,
    operator_keys: &[NoteVerifier],
) -> Result<(ExportInfo, Checkpoint, Checkpoint), InspectionError> {
    let info: ExportInfo = json(dir, EXPORT_JSON)?;
    if info.format != FORMAT {
        return Err(fail(
            EXPORT_JSON,
            format!("unknown format `{}`", info.format),
        ));
    }
    let checkpoint = open_checkpoint(dir, CHECKPOINT, operator_keys, &info.origin)?;
    let latest = open_checkpoint(dir, CHECKPOINT_LATEST, operator_keys, &info.origin)?;
    Ok((info, checkpoint, latest))
}

/// What the entries stage established.
struct CheckedEntries {
    /// The leaf hash of every exported entry, in order.
    leaves: Vec<Hash>,
    rounds_readjudicated: u64,
    /// Entries checked, chain links included (each one signature).
    total: u64,
}

/// Stage 4, the entries, a block at a time: canonical form, index, chain link, key validity and
/// signature of every entry, and every round's verdict (re-adjudicated unless told not to), on
/// every core; then the chain in order. The two large files are hashed here for MANIFEST.
#[allow(clippy::too_many_arguments)]
fn check_entries(
    dir: &Path,
    manifest: &Manifest,
    info: &ExportInfo,
    registry: &Registry,
    operators: &HashMap<String, VerifyingKey>,
    plans: &HashMap<String, rules::Plan>,
    options: VerifyOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<CheckedEntries, InspectionError> {
    let has_link = info.period_first_index > info.first_index;
    let total = info.period_entries + u64::from(has_link) + u64::from(info.link_after);
    let count_error = |found: u64| {
        fail(
            ENTRIES,
            format!("{found} entries or more, export.json says {total}"),
        )
    };
    let mut entries = LineReader::open(dir, ENTRIES)?;
    let mut verdicts = VerdictReader::open(dir)?;
    let mut leaves: Vec<Hash> = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    let mut rounds_readjudicated = 0u64;
    let rules_version_marker = format!("\"rules_version\":\"{}\"", rules::RULES_VERSION);
    let no_verdicts = Verdicts::default();
    // What every chunk is checked with; each chunk's own verdicts are filled in.
    let context = Context {
        info,
        has_link,
        lines: total as usize,
        signers: Signers {
            operators,
            tables: &registry.history,
        },
        registry: &registry.leaves,
        verdicts: &no_verdicts,
        plans,
        signatures: options.signatures,
        readjudicate: options.readjudicate,
        rules_version_marker: &rules_version_marker,
    };
    // A reader thread reads blocks (and their verdicts) ahead; every core checks chunks of
    // them as they come, and this thread follows the chain through the checked chunks in order.
    // Checked blocks go back to the reader, so their buffers are reused.
    let (blocks, received) = std::sync::mpsc::sync_channel::<Result<Block, InspectionError>>(1);
    let (recycle, recycled) = std::sync::mpsc::channel::<Block>();
    let first_index = info.first_index;
    let (block_size, chunk_size) = (options.chunking.block.max(1), options.chunking.chunk.max(1));
    let (checked, readers) = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut read = 0u64;
            loop {
                let (mut block, mut block_verdicts) = recycled.try_recv().unwrap_or_default();
                let next = entries
                    .next_block(block_size, &mut block)
                    .and_then(|()| {
                        read += block.len() as u64;
                        verdicts.take_before(first_index + read, &mut block_verdicts)
                    })
                    .map(|()| (block, block_verdicts));
                let done = next.as_ref().map_or(true, |(block, _)| block.is_empty());
                if blocks.send(next).is_err() || done {
                    return (entries, verdicts);
                }
            }
        });
        let jobs = chunk_jobs(received, chunk_size, total, count_error);
        let work = |job: ChunkJob| match job {
            ChunkJob::Failed(e) => (Err(e), None),
            ChunkJob::Check {
                block,
                first_line,
                lines,
                last,
            } => {
                let checked = {
                    let context = Context {
                        verdicts: &block.1,
                        ..context
                    };
                    check_chunk(first_line, &block.0.lines_in(lines), &context)
                };
                // Only the last chunk's result holds on to the block, so that once it is taken
                // (after every earlier chunk) the block's buffers can go back to the reader.
                (checked, last.then_some(block))
            }
        };
        let mut block_rounds = Vec::new();
        let consume = |(checked, last_of): ChunkChecked| -> Result<(), InspectionError> {
            for entry in checked? {
                let n = leaves.len();
                let expected = info.first_index + n as u64;
                if let Some(previous) = leaves.last() {
                    if &entry.prev_hash != previous {
                        return Err(fail(
                            entry_item(n, info),
                            format!(
                                "prev_hash does not match the hash of entry {}",
                                expected - 1
                            ),
                        ));
                    }
                } else if expected == 0 && entry.prev_hash != crate::GENESIS_PREV_HASH {
                    return Err(fail(
                        entry_item(n, info),
                        "the first entry of the ledger must have a zero prev_hash",
                    ));
                }
                leaves.push(entry.leaf);
                if entry.round {
                    block_rounds.push(expected);
                }
                rounds_readjudicated += u64::from(entry.readjudicated);
            }
            if let Some(block) = last_of {
                let block_verdicts = &block.1;
                if block_rounds.len() != block_verdicts.len() {
                    // Every round found its verdict, so some verdict has no round.
                    let rounds: std::collections::HashSet<u64> = block_rounds.drain(..).collect();
                    return Err(not_a_round(
                        block_verdicts
                            .places()
                            .filter(|(_, index)| !rounds.contains(index)),
                    ));
                }
                block_rounds.clear();
                // The reader may have finished; then the buffers are simply dropped.
                if let Ok(block) = std::sync::Arc::try_unwrap(block) {
                    let _ = recycle.send(block);
                }
            }
            progress(leaves.len() as u64, total);
            Ok(())
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let checked = ordered_pool::run_in_order(
            threads,
            // Two blocks' worth keeps every core busy across block boundaries, and bounds the
            // blocks held at once.
            2 * block_size.div_ceil(chunk_size),
            jobs,
            work,
            consume,
            || fail(ENTRIES, "a verification thread failed"),
        );
        (checked, reader.join())
    });
    let (entries, mut verdicts) =
        readers.map_err(|_| fail(ENTRIES, "the reading thread failed"))?;
    let checked = checked.and_then(|()| {
        if (leaves.len() as u64) != total {
            return Err(fail(
                ENTRIES,
                format!("{} entries, export.json says {total}", leaves.len()),
            ));
        }
        let mut left = Verdicts::default();
        verdicts.take_before(u64::MAX, &mut left)?;
        if !left.is_empty() {
            return Err(not_a_round(left.places()));
        }
        Ok(())
    });
    // A file that differs from MANIFEST is reported as such, before what the change breaks.
    manifest.check_streamed(ENTRIES, &entries.finish_sha256()?)?;
    manifest.check_streamed(ADJUDICATIONS, &verdicts.finish_sha256()?)?;
    checked?;
    Ok(CheckedEntries {
        leaves,
        rounds_readjudicated,
        total,
    })
}

/// Stage 5, the tree: with the entries' leaves and the nodes of tree.json, the signed
/// checkpoint's root; every exported entry is a leaf of it. Returns where the export's run ends.
fn check_tree(
    dir: &Path,
    info: &ExportInfo,
    checkpoint: &Checkpoint,
    leaves: &[Hash],
) -> Result<u64, InspectionError> {
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
        leaves,
        outside: &outside,
    };
    let root = merkle::root(&src, checkpoint.size).map_err(|e| fail(TREE, e.to_string()))?;
    if root != checkpoint.root {
        return Err(fail(
            CHECKPOINT,
            "the entries and tree.json give another root than the signed checkpoint: an entry was changed, removed, added or reordered, or the checkpoint is not this log's",
        ));
    }
    Ok(run_end)
}

/// Stage 7, the latest checkpoint: the export runs to its end or to the entry that follows, and
/// the latest checkpoint extends the one the entries are checked against.
fn check_extends(
    dir: &Path,
    info: &ExportInfo,
    checkpoint: &Checkpoint,
    latest: &Checkpoint,
    run_end: u64,
) -> Result<(), InspectionError> {
    if !info.link_after && latest.size > run_end {
        return Err(fail(
            ENTRIES,
            format!("the log holds {} entries but the export stops at index {} without the entry that follows", latest.size, run_end.saturating_sub(1)),
        ));
    }

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

    Ok(())
}

/// A block of entry lines and the verdicts of its rounds.
type Block = (LineBlock, Verdicts);

/// Work for a checking thread.
enum ChunkJob {
    /// Lines `lines` of `block`, the first being line `first_line` of entries.jsonl (from 0);
    /// `last` when they are the block's last.
    Check {
        block: std::sync::Arc<Block>,
        first_line: usize,
        lines: std::ops::Range<usize>,
        last: bool,
    },
    /// Reading failed here: the error takes its place in the order of the entries.
    Failed(InspectionError),
}

/// A checked chunk, and its block when it was the block's last chunk.
type ChunkChecked = (
    Result<Vec<CheckedLine>, InspectionError>,
    Option<std::sync::Arc<Block>>,
);

/// The chunks of `chunk_size` lines of the blocks `received` from the reader, in order; a
/// reading error, or more entries than `total` (`count_error`), ends them.
fn chunk_jobs(
    received: std::sync::mpsc::Receiver<Result<Block, InspectionError>>,
    chunk_size: usize,
    total: u64,
    count_error: impl Fn(u64) -> InspectionError,
) -> impl Iterator<Item = ChunkJob> {
    let mut current: Option<(std::sync::Arc<Block>, usize, usize)> = None;
    let mut lines_before = 0usize;
    let mut finished = false;
    std::iter::from_fn(move || {
        if finished {
            return None;
        }
        let (block, first_line, start) = match current.take() {
            Some(at) => at,
            None => match received.recv() {
                Ok(Ok(block)) if !block.0.is_empty() => {
                    let first_line = lines_before;
                    lines_before += block.0.len();
                    if lines_before as u64 > total {
                        finished = true;
                        return Some(ChunkJob::Failed(count_error(lines_before as u64)));
                    }
                    (std::sync::Arc::new(block), first_line, 0)
                }
                Ok(Err(e)) => {
                    finished = true;
                    return Some(ChunkJob::Failed(e));
                }
                // The end of the entries (or of the reader, which reports its own failure).
                Ok(Ok(_)) | Err(_) => {
                    finished = true;
                    return None;
                }
            },
        };
        let end = (start + chunk_size).min(block.0.len());
        let last = end == block.0.len();
        if !last {
            current = Some((std::sync::Arc::clone(&block), first_line, end));
        }
        Some(ChunkJob::Check {
            block,
            first_line: first_line + start,
            lines: start..end,
            last,
        })
    })
}

/// Entries whose signatures are verified together (larger batches cost less per signature).
pub const SIGNATURE_BATCH: usize = 4096;

/// Entries read and checked at a time (bounded memory, whatever the export's size).
const ENTRY_BLOCK: usize = 16 * 1024;

/// The first of `verdicts` (line, index), which are not rounds of the period.
fn not_a_round(verdicts: impl Iterator<Item = (usize, u64)>) -> InspectionError {
    match verdicts.min() {
        Some((n, index)) => fail(
            format!("{ADJUDICATIONS} line {n}"),
            format!("index {index} has a verdict but is not a round of the exported period"),
        ),
        None => fail(ADJUDICATIONS, "rounds and verdicts do not match"),
    }
}

/// Checks consecutive lines starting at line `first`: each on its own, then their signatures
/// together. The error is the chunk's first failing line.
fn check_chunk(
    first: usize,
    part: &[&str],
    context: &Context<'_>,
) -> Result<Vec<CheckedLine>, InspectionError> {
    let mut entries = Vec::with_capacity(part.len());
    let mut lines = Vec::with_capacity(part.len());
    let mut broken = None;
    for (n, line) in part.iter().enumerate() {
        match check_line(first + n, line, context) {
            Ok((entry, checked)) => {
                entries.push(entry);
                lines.push(checked);
            }
            Err(e) => {
                broken = Some(e);
                break;
            }
        }
    }
    // A bad signature before the first other failure is the first failure.
    verify_signatures(&entries, context.signatures)
        .map_err(|(n, m)| fail(entry_item(first + n, context.info), m))?;
    match broken {
        Some(e) => Err(e),
        None => Ok(lines),
    }
}

fn entry_item(line: usize, info: &ExportInfo) -> String {
    format!(
        "{ENTRIES} line {} (index {})",
        line + 1,
        info.first_index + line as u64
    )
}

/// Checks one line: canonical bytes, index, time, period, key, registry and verdict.
fn check_line<'b>(
    n: usize,
    line: &'b str,
    context: &Context<'_>,
) -> Result<(crate::entry_check::CheckedEntry<'b>, CheckedLine), InspectionError> {
    check_line_alone(n, line, context).map_err(|e| match e {
        LineError::Entry(m) => fail(entry_item(n, context.info), m),
        LineError::Verdict(line, m) => fail(format!("{ADJUDICATIONS} line {line}"), m),
    })
}

enum LineError {
    Entry(String),
    /// Line of adjudications.jsonl, message.
    Verdict(usize, String),
}

impl From<String> for LineError {
    fn from(m: String) -> Self {
        LineError::Entry(m)
    }
}

impl From<&str> for LineError {
    fn from(m: &str) -> Self {
        LineError::Entry(m.to_owned())
    }
}

fn check_line_alone<'b>(
    n: usize,
    line: &'b str,
    context: &Context<'_>,
) -> Result<(crate::entry_check::CheckedEntry<'b>, CheckedLine), LineError> {
    let info = context.info;
    let expected = info.first_index + n as u64;
    let entry = check_entry_text(line, expected, context.signers)?;
    match check_in_context(n, line, &entry, context) {
        Ok(checked) => Ok((entry, checked)),
        // An entry changed after signing fails its signature first: say that.
        Err(e) => Err(entry
            .verify_signature()
            .map_or_else(LineError::Entry, |()| e)),
    }
}

/// The checks of an entry that depend on the export around it.
fn check_in_context(
    n: usize,
    line: &str,
    entry: &crate::entry_check::CheckedEntry<'_>,
    context: &Context<'_>,
) -> Result<CheckedLine, LineError> {
    let info = context.info;
    let expected = info.first_index + n as u64;
    let leaf = leaf_hash(line.as_bytes());
    let at = entry.received_at;
    let link_before = context.has_link && n == 0;
    let link_after = info.link_after && n + 1 == context.lines;
    let in_period = !link_before && !link_after;
    if in_period && !(info.starts_at <= at && at < info.ends_at) {
        return Err(format!(
            "received at {}, outside the exported period",
            format_time(at)
        )
        .into());
    }
    if link_before && at >= info.starts_at {
        return Err(
            "the chain link before the period was received inside it: entries are missing".into(),
        );
    }
    if link_after && at < info.ends_at {
        return Err(
            "the chain link after the period was received inside it: entries are missing".into(),
        );
    }
    let mut round = false;
    let mut readjudicated = false;
    match &entry.subject {
        Subject::Registry(_) => {
            if context.registry.get(&expected) != Some(&leaf) {
                return Err(format!("a registry event missing from {REGISTRY}").into());
            }
        }
        Subject::Record(header) if in_period && rules::is_adjudicated(&header.record_type) => {
            round = true;
            let (verdict_line, verdict) = context
                .verdicts
                .get(expected)
                .ok_or_else(|| format!("a round without a verdict in {ADJUDICATIONS}"))?;
            if context.readjudicate {
                readjudicated =
                    readjudicate(header, entry.record, verdict, context).map_err(|m| {
                        LineError::Verdict(verdict_line, format!("index {expected}: {m}"))
                    })?;
            }
        }
        Subject::Record(_) => {}
    }
    Ok(CheckedLine {
        leaf,
        prev_hash: entry.prev_hash,
        round,
        readjudicated,
    })
}

/// Re-adjudicates a round with the exported plan and compares with the exported verdict (when
/// the same rules version produced it).
fn readjudicate(
    header: &rules::RecordHeader,
    record: &str,
    exported: &str,
    context: &Context<'_>,
) -> Result<bool, String> {
    if !exported.contains(context.rules_version_marker) {
        // Made by another rules version: not re-adjudicated, but it must still be a verdict.
        if !crate::canonical_scan::is_canonical(exported) {
            return Err("the verdict is not canonical JSON".into());
        }
        return Ok(false);
    }
    let round = rules::Round::parse_json_with_header(header, record).map_err(|e| e.to_string())?;
    let plan = context
        .plans
        .get(round.plan_id())
        .ok_or_else(|| format!("plan {} is not in the export", round.plan_id()))?;
    // A money wheel is judged on the segment order its registration recorded in the ledger.
    let setup = match &round {
        rules::Round::MoneyWheel(_) => {
            let layout = context
                .signers
                .tables
                .table(round.table_id())
                .and_then(|t| t.wheel_layout.as_deref());
            rules::TableSetup::for_table(plan, round.game(), layout).map_err(|e| e.to_string())?
        }
        _ => rules::TableSetup::NONE,
    };
    let verdict = rules::adjudicate_at(plan, &setup, &round).map_err(|e| e.to_string())?;
    // The verdict types serialize in canonical form (tested), so no re-sorting is needed.
    if !crate::json_compare::serializes_to(&verdict, exported.as_bytes()) {
        return Err("the verdict differs from re-adjudication with the exported plan".into());
    }
    Ok(true)
}

/// Maps `f` over `items` on every core, results in the items' order. Each thread takes the
/// next item not yet taken, so a thread slowed down by other work does not hold the rest back.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(usize, &T) -> R + Sync,
) -> Result<Vec<R>, InspectionError> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, f(i, item)));
                    }
                })
            })
            .collect();
        let mut out: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
        for h in handles {
            let done = h
                .join()
                .map_err(|_| fail(ENTRIES, "a verification thread failed"))?;
            for (i, result) in done {
                out[i] = Some(result);
            }
        }
        Ok(out.into_iter().flatten().collect())
    })
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn par_map_keeps_the_order_of_the_items() {
        for n in [0usize, 1, 2, 3, 1000] {
            let items: Vec<usize> = (0..n).collect();
            let squares = par_map(&items, |i, x| {
                assert_eq!(i, *x);
                x * x
            })
            .unwrap();
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }
}
