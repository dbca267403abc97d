//! The table records a casino's log has given, as runs of seq_nos: the replay check in memory.
//!
//! Ingest appends a table's `(table_id, seq_no)` once, so the same pair at a second index is a
//! replay. A table's seq_nos arrive almost always as one contiguous, increasing run, so the set
//! followed is kept per table as runs `[first_seq, last_seq]` of consecutive seq_nos, each with
//! the index of its first and its last seq_no. Memory: one `Run` per gap in a table's seq_nos
//! (plus one), so a table whose seq_nos are contiguous costs one `Run` however many records it
//! signed. Only the runs a bundle changed are written back (`take_changes`, `store::record_runs`).
//! The exact index of a seq_no inside a run is not kept: a replay of one is told by its run.

use std::collections::{BTreeMap, HashMap};

use crate::bundle_check::{replayed, SeenRecord};

/// One run of consecutive seq_nos of a table: all followed, the first at ledger index
/// `first_index`, the last at `last_index`, the others at indices not kept (in a log whose seq_nos
/// came in order, between them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub first_seq: u64,
    pub last_seq: u64,
    pub first_index: u64,
    pub last_index: u64,
}

impl Run {
    fn single(seq_no: u64, index: u64) -> Run {
        Run {
            first_seq: seq_no,
            last_seq: seq_no,
            first_index: index,
            last_index: index,
        }
    }

    /// The index of `seq_no` when this run keeps it: its first or its last.
    pub fn index_of(&self, seq_no: u64) -> Option<u64> {
        if seq_no == self.first_seq {
            Some(self.first_index)
        } else if seq_no == self.last_seq {
            Some(self.last_index)
        } else {
            None
        }
    }
}

/// Where a replayed record's `(table_id, seq_no)` is held already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldAt {
    /// Followed before, in this run of its table.
    Earlier(Run),
    /// Earlier in the same batch, at this index.
    InBatch(u64),
}

/// The runs of one table to write back: its stored runs from `from_seq` on are replaced by `runs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunChange {
    pub table_id: String,
    pub from_seq: u64,
    pub runs: Vec<Run>,
}

#[derive(Debug, Clone, Default)]
struct TableRuns {
    /// By first_seq; never overlapping.
    runs: BTreeMap<u64, Run>,
    /// The lowest first_seq whose runs changed since the last `take_changes`.
    changed_from: Option<u64>,
}

impl TableRuns {
    /// The run holding `seq_no`.
    fn holding(&self, seq_no: u64) -> Option<&Run> {
        self.runs
            .range(..=seq_no)
            .next_back()
            .map(|(_, run)| run)
            .filter(|run| run.last_seq >= seq_no)
    }

    fn changed(&mut self, from: u64) {
        self.changed_from = Some(self.changed_from.map_or(from, |f| f.min(from)));
    }

    /// Adds `seq_no` at `index`: extends the run ending right before it, the run starting right
    /// after it, or both into one; else a run of its own. A seq_no held already changes nothing.
    fn add(&mut self, seq_no: u64, index: u64) {
        let before = self.runs.range(..=seq_no).next_back().map(|(_, run)| *run);
        if before.is_some_and(|run| run.last_seq >= seq_no) {
            return;
        }
        // `before.last_seq < seq_no`, so `+ 1` cannot overflow; `seq_no + 1` can.
        let left = before.filter(|run| run.last_seq + 1 == seq_no);
        let right = seq_no
            .checked_add(1)
            .and_then(|next| self.runs.get(&next))
            .copied();
        if let Some(right) = right {
            self.runs.remove(&right.first_seq);
        }
        let run = match (left, right) {
            (Some(left), Some(right)) => Run {
                last_seq: right.last_seq,
                last_index: right.last_index,
                ..left
            },
            (Some(left), None) => Run {
                last_seq: seq_no,
                last_index: index,
                ..left
            },
            (None, Some(right)) => Run {
                first_seq: seq_no,
                first_index: index,
                ..right
            },
            (None, None) => Run::single(seq_no, index),
        };
        self.runs.insert(run.first_seq, run);
        self.changed(run.first_seq);
    }
}

/// The seq_nos followed of every table of one casino.
#[derive(Debug, Clone, Default)]
pub struct RecordRuns {
    tables: BTreeMap<String, TableRuns>,
}

impl RecordRuns {
    /// The runs as kept; refused when a run ends before it starts or two runs of a table overlap.
    /// Nothing counts as changed.
    pub fn from_runs(runs: impl IntoIterator<Item = (String, Run)>) -> Result<RecordRuns, String> {
        let mut tables: BTreeMap<String, TableRuns> = BTreeMap::new();
        for (table_id, run) in runs {
            if run.last_seq < run.first_seq {
                return Err(format!(
                    "table {table_id}: the run of seq_nos {} to {} ends before it starts",
                    run.first_seq, run.last_seq
                ));
            }
            let table = tables.entry(table_id.clone()).or_default();
            if let Some(held) = table.runs.insert(run.first_seq, run) {
                return Err(format!("table {table_id}: {}", overlap(&held, &run)));
            }
        }
        for (table_id, table) in &tables {
            let mut runs = table.runs.values();
            let mut previous = runs.next();
            for run in runs {
                if let Some(previous) = previous.filter(|p| p.last_seq >= run.first_seq) {
                    return Err(format!("table {table_id}: {}", overlap(previous, run)));
                }
                previous = Some(run);
            }
        }
        Ok(RecordRuns { tables })
    }

    /// The first of `records` (in order) whose `(table_id, seq_no)` is held already, or repeats
    /// an earlier one of `records`, with where it is held.
    pub fn find_replay<'r>(&self, records: &'r [SeenRecord]) -> Option<(&'r SeenRecord, HeldAt)> {
        let mut batch: HashMap<(&str, u64), u64> = HashMap::with_capacity(records.len());
        for record in records {
            let held = self
                .tables
                .get(&record.table_id)
                .and_then(|table| table.holding(record.seq_no));
            if let Some(run) = held {
                return Some((record, HeldAt::Earlier(*run)));
            }
            if let Some(earlier) = batch.insert((&record.table_id, record.seq_no), record.index) {
                return Some((record, HeldAt::InBatch(earlier)));
            }
        }
        None
    }

    /// Adds the records, in order (none of them held: `find_replay` first; one held changes
    /// nothing). A seq_no next to a run extends it, one between two runs joins them into one.
    pub fn add(&mut self, records: &[SeenRecord]) {
        for record in records {
            if let Some(table) = self.tables.get_mut(&record.table_id) {
                table.add(record.seq_no, record.index);
            } else {
                let mut table = TableRuns::default();
                table.add(record.seq_no, record.index);
                self.tables.insert(record.table_id.clone(), table);
            }
        }
    }

    /// For each table whose runs changed since the last call, by table_id: the lowest first_seq
    /// from which its stored runs must be replaced, and its runs from there. What is taken counts
    /// as kept: should keeping it fail, load the runs again from what was kept.
    pub fn take_changes(&mut self) -> Vec<RunChange> {
        self.tables
            .iter_mut()
            .filter_map(|(table_id, table)| {
                let from_seq = table.changed_from.take()?;
                Some(RunChange {
                    table_id: table_id.clone(),
                    from_seq,
                    runs: table.runs.range(from_seq..).map(|(_, run)| *run).collect(),
                })
            })
            .collect()
    }

    /// How many runs are held, of all tables.
    pub fn run_count(&self) -> usize {
        self.tables.values().map(|table| table.runs.len()).sum()
    }

    /// The runs of a table, in seq_no order.
    pub fn runs_of(&self, table_id: &str) -> Vec<Run> {
        self.tables
            .get(table_id)
            .map(|table| table.runs.values().copied().collect())
            .unwrap_or_default()
    }
}

fn overlap(a: &Run, b: &Run) -> String {
    format!(
        "the runs of seq_nos {} to {} and {} to {} overlap",
        a.first_seq, a.last_seq, b.first_seq, b.last_seq
    )
}

/// Why `record` is a replay: its table and seq_no are held already, at the index when it is
/// known, else by the run that holds it.
pub fn replay_message(record: &SeenRecord, held: &HeldAt) -> String {
    let (table, seq_no) = (&record.table_id, record.seq_no);
    let exact = match held {
        HeldAt::InBatch(index) => Ok(*index),
        HeldAt::Earlier(run) => run.index_of(seq_no).ok_or(run),
    };
    match exact {
        Ok(index) => replayed(record, index),
        Err(run) => format!(
            "table {table} seq_no {seq_no} already followed, in its run of seq_nos {} to {} \
             (seq_no {} at index {}, seq_no {} at index {})",
            run.first_seq,
            run.last_seq,
            run.first_seq,
            run.first_index,
            run.last_seq,
            run.last_index
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests;
