//! One round of an export, found by its table and `seq_no` (or round id) and proven offline: its
//! entry signed by a key of its table valid when received, and a leaf of a checkpoint the
//! inspector's operator key signed, by an inclusion proof checked here; then re-judged with the
//! exported plan.

use std::path::Path;

use chrono::{DateTime, Utc};
use dozor_log::checkpoint::{Checkpoint, NoteVerifier};
use dozor_log::entry::leaf_hash;
use dozor_log::entry_check::{check_entry_text, Signers, Subject};
use dozor_log::judge;
use dozor_log::merkle::{self, Hash};
use dozor_log::registry_history::RegistryHistory;
use serde::Serialize;

use crate::chain::{entries_tree, tree_nodes};
use crate::error::{fail, InspectionError};
use crate::files::{hash_hex, read, read_text};
use crate::format::{
    ExportInfo, CHECKPOINT, CHECKPOINT_LATEST, ENTRIES, LATE_ROUNDS, LATE_ROUNDS_PROOFS,
    RESOLVED_ROUNDS, RESOLVED_ROUNDS_PROOFS,
};
use crate::opened::open_export;
use crate::registry::{load_plans, proofs_for};
use crate::resolved::load_rounds;

/// Which round.
#[derive(Debug, Clone)]
pub enum WhichRound {
    SeqNo(u64),
    RoundId(String),
}

/// A round of an export, proven and re-judged.
#[derive(Debug, Clone, Serialize)]
pub struct FoundRound {
    pub table_id: String,
    pub seq_no: u64,
    pub index: u64,
    pub received_at: DateTime<Utc>,
    /// The export's file it is in: entries.jsonl, late-rounds.jsonl or resolved-rounds.jsonl.
    pub file: &'static str,
    /// The table key that signed it (valid then, by the exported registry).
    pub key_id: String,
    pub entry_hash: String,
    /// The checkpoint whose tree holds it: its size and root, and the operator key that
    /// signed it.
    pub checkpoint_size: u64,
    pub checkpoint_root: String,
    pub signed_by: String,
    /// The inclusion proof, leaf to root, as checked.
    pub inclusion_proof: Vec<String>,
    pub record: serde_json::Value,
    /// Re-adjudicated now with the exported plan.
    pub verdict: serde_json::Value,
    /// The bets the verdict's findings name.
    #[serde(skip)]
    pub flagged_bets: Vec<String>,
    /// The exported plans, for showing the round with its games' names.
    #[serde(skip)]
    pub plans: rules::PlanBook,
}

/// Whether the round `record` (canonical JSON) is `table_id`'s round `which`.
fn is_it(record: &serde_json::Value, table_id: &str, which: &WhichRound) -> bool {
    record["table_id"] == table_id
        && match which {
            WhichRound::SeqNo(n) => record["seq_no"] == *n,
            WhichRound::RoundId(id) => record["round_id"] == id.as_str(),
        }
}

/// The verifier key among `keys` that signed the note `file` holds.
fn signer_of(dir: &Path, file: &str, keys: &[NoteVerifier]) -> String {
    let note = String::from_utf8(read(dir, file).unwrap_or_default()).unwrap_or_default();
    keys.iter()
        .find(|k| dozor_log::checkpoint::open(&note, std::slice::from_ref(*k)).is_ok())
        .map_or_else(String::new, |k| k.to_string())
}

/// Where a round was found: its index and line, the export's file holding it, and the checkpoint
/// whose tree holds it with the inclusion proof to that tree.
struct Located {
    index: u64,
    line: String,
    file: &'static str,
    tree_of: Checkpoint,
    proof: Vec<Hash>,
}

/// Finds `table_id`'s round `which` in the export at `dir`, checks its signature and its
/// inclusion in a checkpoint signed by one of `operator_keys`, and re-adjudicates it with the
/// exported plan.
pub fn find_round(
    dir: &Path,
    operator_keys: &[NoteVerifier],
    table_id: &str,
    which: &WhichRound,
) -> Result<FoundRound, InspectionError> {
    let opened = open_export(dir, operator_keys)?;
    let history = &opened.registry.history;
    let plans = load_plans(dir, history)?;
    let signers = Signers {
        operators: &opened.operators,
        tables: history,
    };
    let entries = read_text(dir, ENTRIES)?;
    let lines: Vec<&str> = entries.lines().collect();
    let leaves: Vec<Hash> = lines.iter().map(|l| leaf_hash(l.as_bytes())).collect();
    let located = match in_entries(
        dir,
        &opened.info,
        &opened.checkpoint,
        &lines,
        &leaves,
        table_id,
        which,
    )? {
        Some(located) => located,
        None => in_later_rounds(dir, &opened.latest, signers, table_id, which)?,
    };
    let Located {
        index,
        line,
        file,
        tree_of,
        proof,
    } = located;
    let leaf = leaf_hash(line.as_bytes());
    if !merkle::verify_inclusion(index, tree_of.size, &leaf, &proof, &tree_of.root) {
        return Err(fail(
            file,
            format!(
                "entry {index} is not in the tree of the checkpoint of size {}: its inclusion proof fails",
                tree_of.size
            ),
        ));
    }
    let item = format!("{file} (index {index})");
    let entry = check_entry_text(&line, index, signers).map_err(|m| fail(&item, m))?;
    entry.verify_signature().map_err(|m| fail(&item, m))?;
    let Subject::Record(header) = &entry.subject else {
        return Err(fail(&item, "not a table's record"));
    };
    let verdict = rejudge(&item, header, entry.record, index, &plans, history)?;
    let record: serde_json::Value =
        serde_json::from_str(entry.record).map_err(|e| fail(&item, e.to_string()))?;
    let signed_by = signer_of(
        dir,
        if file == ENTRIES {
            CHECKPOINT
        } else {
            CHECKPOINT_LATEST
        },
        operator_keys,
    );
    Ok(FoundRound {
        table_id: header.table_id.clone(),
        seq_no: header.seq_no,
        index,
        received_at: entry.received_at,
        file,
        key_id: entry.key_id.to_owned(),
        entry_hash: hex::encode(leaf),
        checkpoint_size: tree_of.size,
        checkpoint_root: hex::encode(tree_of.root),
        signed_by,
        inclusion_proof: proof.iter().map(hex::encode).collect(),
        record,
        flagged_bets: flagged_bets(&verdict),
        verdict,
        plans: plan_book(&plans),
    })
}

/// The round among the period's entries, proven against the checkpoint the entries are cut at.
fn in_entries(
    dir: &Path,
    info: &ExportInfo,
    checkpoint: &Checkpoint,
    lines: &[&str],
    leaves: &[Hash],
    table_id: &str,
    which: &WhichRound,
) -> Result<Option<Located>, InspectionError> {
    let found = lines.iter().enumerate().find_map(|(n, line)| {
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        is_it(&value["envelope"]["record"], table_id, which)
            .then(|| (info.first_index + n as u64, *line))
    });
    let Some((index, line)) = found else {
        return Ok(None);
    };
    let outside = tree_nodes(dir)?;
    let src = entries_tree(
        info,
        leaves,
        &outside,
        checkpoint,
        ENTRIES,
        (
            ENTRIES,
            "the entries give another root than the signed checkpoint",
        ),
    )?;
    let proof = merkle::inclusion_proof(&src, index, checkpoint.size)
        .map_err(|e| fail(ENTRIES, e.to_string()))?;
    Ok(Some(Located {
        index,
        line: line.to_owned(),
        file: ENTRIES,
        tree_of: checkpoint.clone(),
        proof,
    }))
}

/// The round among the rounds received after the period or resolved, each proven against the
/// latest checkpoint; that the export holds it nowhere is the failure.
fn in_later_rounds(
    dir: &Path,
    latest: &Checkpoint,
    signers: Signers<'_>,
    table_id: &str,
    which: &WhichRound,
) -> Result<Located, InspectionError> {
    let mut found = None;
    for (file, proofs_file) in [
        (LATE_ROUNDS, LATE_ROUNDS_PROOFS),
        (RESOLVED_ROUNDS, RESOLVED_ROUNDS_PROOFS),
    ] {
        let text = read_text(dir, file)?;
        // Checked there: each line signed and a leaf of the latest checkpoint's tree.
        let rounds = load_rounds(dir, &text, latest, signers, file, proofs_file)?;
        let hit = rounds.iter().find(|(_, (_, entry))| {
            serde_json::from_str::<serde_json::Value>(entry.record)
                .is_ok_and(|r| is_it(&r, table_id, which))
        });
        if let Some((index, _)) = hit {
            let line = text
                .lines()
                .find(|l| {
                    serde_json::from_str::<serde_json::Value>(l)
                        .is_ok_and(|v| is_it(&v["envelope"]["record"], table_id, which))
                })
                .unwrap_or_default()
                .to_owned();
            found = Some((*index, line, file, proofs_file));
            break;
        }
    }
    let Some((index, line, file, proofs_file)) = found else {
        return Err(fail(
            table_id,
            match which {
                WhichRound::SeqNo(n) => {
                    format!("the export holds no record {n} of table {table_id}")
                }
                WhichRound::RoundId(id) => {
                    format!("the export holds no round `{id}` of table {table_id}")
                }
            },
        ));
    };
    let proofs = proofs_for(dir, proofs_file, latest)?;
    let proof = proofs
        .proofs
        .iter()
        .find(|p| p.index == index)
        .map(|p| {
            p.proof
                .iter()
                .map(|h| hash_hex(proofs_file, h))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?
        .unwrap_or_default();
    Ok(Located {
        index,
        line,
        file,
        tree_of: latest.clone(),
        proof,
    })
}

/// The round re-adjudicated with the exported plan, on its table as the registry sets it up:
/// its verdict as JSON.
fn rejudge(
    item: &str,
    header: &rules::RecordHeader,
    record: &str,
    index: u64,
    plans: &std::collections::HashMap<String, rules::Plan>,
    history: &RegistryHistory,
) -> Result<serde_json::Value, InspectionError> {
    let round = judge::read_round(header, record).map_err(|e| fail(item, e.to_string()))?;
    judge::judge(
        &round,
        index,
        |p| plans.get(p),
        history,
        |judged| serde_json::to_value(&judged.verdict),
    )
    .map_err(|e| fail(item, e.to_string()))?
    .map_err(|e| fail(item, e.to_string()))
}

/// The bets a verdict's findings name.
fn flagged_bets(verdict: &serde_json::Value) -> Vec<String> {
    verdict["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["bet_ids"].as_array().into_iter().flatten())
        .filter_map(|b| b.as_str().map(str::to_owned))
        .collect()
}

/// The exported plans as a book, for showing the round with its games' names.
fn plan_book(plans: &std::collections::HashMap<String, rules::Plan>) -> rules::PlanBook {
    let mut book = rules::PlanBook::default();
    for plan in plans.values() {
        let _ = book.insert(plan.clone());
    }
    book
}
