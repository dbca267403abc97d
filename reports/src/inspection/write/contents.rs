//! What the export holds, a stage a file (or a few): the entries, the tree and checkpoints
//! they are proved by, the registry, the resolved and late rounds, the verdicts, the plans and
//! the nightly reports.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use diesel::PgConnection;
use dozor_log::merkle::range_nodes_needed;
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;
use dozor_verify::format::{
    self as fmt, AdjudicationLine, CheckpointProofsFile, ConsistencyFile, ConsistencyFrom,
    InclusionProof, ProofsFile, TreeFile, TreeNode,
};
use ledger::storage::report_reads::inspection::{self, StoredVerdict};
use ledger::storage::{published_reports, registry_log, tree};

use super::cut::{ExportCheckpoints, Period};
use super::error::ExportError;
use super::files::{StreamSink, Writer};

/// Rows read per query when streaming the large files.
const PAGE: i64 = 20_000;

/// The export being written, once its period and checkpoints are known.
pub(super) struct Contents<'c> {
    pub conn: &'c mut PgConnection,
    pub files: Writer,
    pub period: Period,
    pub checkpoints: ExportCheckpoints,
}

impl Contents<'_> {
    /// Entries, from the link before the period to the link after it.
    pub(super) fn entries(
        &mut self,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), ExportError> {
        let (first_index, run_end) = (self.period.first_index, self.period.run_end);
        let conn = &mut *self.conn;
        self.files.stream(fmt::ENTRIES, |sink| {
            let mut next = first_index as i64;
            while (next as u64) < run_end {
                let page = inspection::entries_from(conn, next, run_end as i64, PAGE)?;
                if page.is_empty() {
                    break;
                }
                for e in &page {
                    sink.line(e)?;
                }
                next += page.len() as i64;
                progress(next as u64 - first_index, run_end - first_index);
            }
            Ok(())
        })
    }

    /// The tree nodes that prove the entries, both checkpoints' notes and the consistency of
    /// the covering checkpoint with the latest, and of the trees `history`'s verification marks
    /// name with it.
    pub(super) fn tree_and_checkpoints(
        &mut self,
        history: &RegistryHistory,
    ) -> Result<(), ExportError> {
        let (checkpoint, latest) = (&self.checkpoints.checkpoint, &self.checkpoints.latest);
        let first_index = self.period.first_index;
        let run_len = self.period.run_end - first_index;
        let wanted = range_nodes_needed(first_index, run_len, checkpoint.size)
            .map_err(|e| ExportError::Tree(e.into()))?;
        let nodes = tree::fetch(self.conn, &wanted)?;
        let tree_file = TreeFile {
            size: checkpoint.size,
            nodes: wanted
                .iter()
                .map(|(level, index)| {
                    nodes
                        .get(&(*level, *index))
                        .map(|h| TreeNode {
                            level: *level,
                            index: *index,
                            hash: hex::encode(h),
                        })
                        .ok_or_else(|| ExportError::MissingNode {
                            level: *level,
                            index: *index,
                        })
                })
                .collect::<Result<_, _>>()?,
        };
        self.files.json(fmt::TREE, &tree_file)?;
        self.files
            .file(fmt::CHECKPOINT, self.checkpoints.covering.note.as_bytes())?;
        self.files.file(
            fmt::CHECKPOINT_LATEST,
            self.checkpoints.latest_note.as_bytes(),
        )?;
        let proof = if checkpoint.size == 0 || checkpoint.size == latest.size {
            Vec::new()
        } else {
            tree::consistency_proof(self.conn, checkpoint.size, latest.size)?.2
        };
        self.files.json(
            fmt::CONSISTENCY,
            &ConsistencyFile {
                first: checkpoint.size,
                second: latest.size,
                proof: proof.iter().map(hex::encode).collect(),
            },
        )?;
        self.kept_checkpoints(history)
    }

    /// When the latest checkpoint lacks the witnesses' quorum, the latest one that has it; and
    /// the consistency proofs to the latest from it and from the tree of each passing
    /// verification mark, which the verifier holds to the root the mark names. (A checkpoint
    /// an inspector kept is proven from the entries and tree.json, when the entries reach it.)
    fn kept_checkpoints(&mut self, history: &RegistryHistory) -> Result<(), ExportError> {
        let latest_size = self.checkpoints.latest.size;
        let mut sizes: BTreeSet<u64> = history
            .verification_marks()
            .iter()
            .filter(|mark| mark.passed())
            .map(|mark| mark.to)
            .collect();
        if let Some((size, note)) = &self.checkpoints.witnessed {
            self.files
                .file(fmt::CHECKPOINT_WITNESSED, note.as_bytes())?;
            sizes.insert(*size);
        }
        let mut proofs = Vec::new();
        for size in sizes
            .into_iter()
            .filter(|size| (1..latest_size).contains(size))
        {
            let (_, _, proof) = tree::consistency_proof(self.conn, size, latest_size)?;
            proofs.push(ConsistencyFrom {
                first: size,
                proof: proof.iter().map(hex::encode).collect(),
            });
        }
        self.files.json(
            fmt::CHECKPOINT_PROOFS,
            &CheckpointProofsFile {
                size: latest_size,
                proofs,
            },
        )
    }

    /// Registry events the latest checkpoint covers, with inclusion proofs: the table-key
    /// history, the API keys and every resolution of a finding made so far. The history they
    /// make.
    pub(super) fn registry(&mut self) -> Result<RegistryHistory, ExportError> {
        let latest_size = self.checkpoints.latest.size;
        let registry_rows: Vec<_> = registry_log::events_after(self.conn, None)?
            .into_iter()
            .filter(|row| row.idx < latest_size as i64)
            .collect();
        let mut history = RegistryHistory::default();
        let mut registry_lines = Vec::new();
        let mut registry_indexes = Vec::with_capacity(registry_rows.len());
        for row in &registry_rows {
            let index = row.idx as u64;
            let registry = |reason| ExportError::Registry { index, reason };
            let (signer, event) = RegistryEvent::with_signer(&row.entry).map_err(registry)?;
            history
                .apply(index, row.received_at, &signer, &event)
                .map_err(registry)?;
            registry_lines.extend_from_slice(&row.entry);
            registry_lines.push(b'\n');
            registry_indexes.push(index);
        }
        self.files.file(fmt::REGISTRY, &registry_lines)?;
        self.proofs(fmt::REGISTRY_PROOFS, &registry_indexes)?;
        Ok(history)
    }

    /// The rounds of the resolved findings, wherever they lie, so that each resolution can be
    /// checked against its round's re-adjudication; an archived round is in the export that
    /// archived it (its range_archived event is in registry.jsonl).
    pub(super) fn resolved_rounds(&mut self, history: &RegistryHistory) -> Result<(), ExportError> {
        let resolved: BTreeSet<u64> = history
            .resolutions()
            .resolved_findings()
            .map(|r| r.round_index)
            .filter(|index| *index >= history.archived_below())
            .collect();
        let resolved: Vec<u64> = resolved.into_iter().collect();
        let mut round_lines = Vec::new();
        for chunk in resolved.chunks(PAGE as usize) {
            let rows = entries_at(self.conn, chunk)?;
            if rows.len() != chunk.len() {
                return Err(ExportError::MissingResolvedRound);
            }
            for entry in rows {
                round_lines.extend_from_slice(&entry);
                round_lines.push(b'\n');
            }
        }
        self.files.file(fmt::RESOLVED_ROUNDS, &round_lines)?;
        self.proofs(fmt::RESOLVED_ROUNDS_PROOFS, &resolved)
    }

    /// Rounds played in the period but received after it (a back-filled month, a table that
    /// was offline): the entries are the period by receipt, these complete it by play. How
    /// many there are.
    pub(super) fn late_rounds(&mut self) -> Result<u64, ExportError> {
        let late = inspection::rounds_played_in_received_from(
            self.conn,
            self.period.bounds,
            self.period.entries.end as i64,
            self.checkpoints.latest.size as i64,
        )?;
        let late: Vec<u64> = late.into_iter().map(|i| i as u64).collect();
        let conn = &mut *self.conn;
        self.files.stream(fmt::LATE_ROUNDS, |sink| {
            for chunk in late.chunks(PAGE as usize) {
                for entry in entries_at(conn, chunk)? {
                    sink.line(&entry)?;
                }
            }
            Ok(())
        })?;
        self.proofs(fmt::LATE_ROUNDS_PROOFS, &late)?;
        Ok(late.len() as u64)
    }

    /// The verdicts of the period's rounds, canonical; adds the plans they name to `plan_ids`.
    pub(super) fn adjudications(
        &mut self,
        plan_ids: &mut BTreeSet<String>,
    ) -> Result<(), ExportError> {
        let (period_first, period_end) = (self.period.entries.start, self.period.entries.end);
        let conn = &mut *self.conn;
        self.files.stream(fmt::ADJUDICATIONS, |sink| {
            let mut next = period_first as i64;
            loop {
                let page = inspection::verdicts_from(conn, next, period_end as i64, PAGE)?;
                let Some(last) = page.last() else {
                    return Ok(());
                };
                next = last.ledger_index + 1;
                for verdict in page {
                    adjudication_line(sink, verdict, plan_ids)?;
                }
            }
        })
    }

    /// The built-in plans (and their RTP figures) of `plan_ids`.
    pub(super) fn plans(&mut self, plan_ids: &BTreeSet<String>) -> Result<(), ExportError> {
        let sources: HashMap<String, &str> = plan_ids
            .iter()
            .filter_map(|id| rules::PlanBook::builtin_source(id).map(|s| (id.clone(), s)))
            .collect();
        for (id, text) in sources {
            self.files
                .file(&format!("plans/{id}.toml"), text.as_bytes())?;
            if let Some(figures) = rules::PlanBook::builtin_figures_source(&id) {
                self.files
                    .file(&format!("plans/{id}.rtp.toml"), figures.as_bytes())?;
            }
        }
        Ok(())
    }

    /// The nightly job's reports of the period, as they are under `data_dir`: the verifier
    /// checks each against its seal (a missing one fails too).
    pub(super) fn nightly_reports(&mut self, data_dir: &Path) -> Result<(), ExportError> {
        let sealed = published_reports::latest_publications(self.conn)?;
        let (from, to) = (self.period.from, self.period.to);
        for day in from.iter_days().take_while(|d| *d <= to) {
            let prefix = crate::night_names::night_prefix(day);
            let mut names: Vec<&String> =
                sealed.keys().filter(|n| n.starts_with(&prefix)).collect();
            names.sort();
            for name in names {
                let path = data_dir.join(name);
                match std::fs::read(&path) {
                    Ok(bytes) => self.files.file(name, &bytes)?,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => return Err(ExportError::Io { path, source }),
                }
            }
        }
        Ok(())
    }

    /// Inclusion proofs of the entries at `indexes` to the latest checkpoint, as `name`.
    fn proofs(&mut self, name: &str, indexes: &[u64]) -> Result<(), ExportError> {
        let size = self.checkpoints.latest.size;
        let proofs = indexes
            .iter()
            .map(|&index| {
                let (_, proof) = tree::inclusion_proof(self.conn, index, size)?;
                Ok(InclusionProof {
                    index,
                    proof: proof.iter().map(hex::encode).collect(),
                })
            })
            .collect::<Result<_, ExportError>>()?;
        self.files.json(name, &ProofsFile { size, proofs })
    }
}

/// The entries at `indexes`.
fn entries_at(conn: &mut PgConnection, indexes: &[u64]) -> Result<Vec<Vec<u8>>, ExportError> {
    let wanted: Vec<i64> = indexes.iter().map(|i| *i as i64).collect();
    Ok(inspection::entries_at(conn, &wanted)?)
}

/// One verdict as a line of the adjudications file: canonical, so that a verifier can compare
/// its own verdict byte for byte.
fn adjudication_line(
    sink: &mut StreamSink,
    StoredVerdict {
        ledger_index: index,
        plan_id,
        verdict,
    }: StoredVerdict,
    plan_ids: &mut BTreeSet<String>,
) -> Result<(), ExportError> {
    plan_ids.insert(plan_id);
    let verdict: serde_json::Value = serde_json::from_str(&verdict)?;
    let line = serde_json::to_value(AdjudicationLine {
        index: index as u64,
        verdict,
    })?;
    sink.line(&dozor_log::canonical::canonicalize(&line).map_err(ledger::LedgerError::from)?)
}
