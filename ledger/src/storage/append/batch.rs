//! Appending a batch of records in one transaction: the append lock and room for the batch, what
//! the ledger already holds of it, each record placed (appended, or answered with what refuses
//! it), then every row written with one statement per table.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use dozor_log::merkle::{Frontier, Hash};
use serde_json::json;

use super::lookups::{EarlierRoundIds, Held, LastSeqNos};
use super::outcome::{AppendOutcome, Receipt};
use super::rows::{late_record, push_derived, refusal_event, DerivedRows};
use crate::error::LedgerError;
use crate::ingest::submission::Submission;
use crate::storage::columns::to_i64;
use crate::storage::entries::{self, EntryParts};
use crate::storage::models::{LedgerRow, NewSignificantEvent};
use crate::storage::partitions;
use crate::storage::position::{lock_and_position, Position};
use crate::storage::registry::KeyValidity;
use crate::storage::schema::{
    adjudications, findings, ledger_entries, round_ids, significant_events,
};
use crate::storage::tiles::EntryRow;
use crate::storage::tree;

/// COPYs the rows `$rows` into `$table` (binary), unless there are none. A macro, not a
/// function: diesel keeps the bounds a generic COPY would name to itself.
macro_rules! copy_rows {
    ($conn:expr, $table:expr, $rows:expr) => {
        let rows = $rows;
        if !rows.is_empty() {
            diesel::copy_from($table)
                .from_insertable(rows)
                .execute($conn)?;
        }
    };
}

/// Appends a batch in one transaction. Outcomes are in batch order.
pub fn append_batch(
    conn: &mut PgConnection,
    batch: &[Submission],
    now: DateTime<Utc>,
) -> Result<Vec<AppendOutcome>, LedgerError> {
    append_batch_cached(conn, batch, now, &mut WriterCache::default())
}

/// What a long-lived writer remembers of the ledger as of its last commit, so a batch need not
/// read it back. Each part is used only when it was taken at the ledger's current size (read
/// inside the locked transaction): the ledger is append-only, so an unchanged size means nothing
/// was appended in between by anyone.
#[derive(Debug, Default)]
pub struct WriterCache {
    /// The Merkle tree's right frontier.
    frontier: Option<Frontier>,
    /// The highest sequence number in the ledger of each table seen so far (`None`: the table
    /// has no record yet).
    last_seq_nos: Option<LastSeqNos>,
    /// Entries per range of the partitioned tables (set once, while the ledger was empty).
    span: Option<u64>,
    /// Whether the rows of each committed batch are kept for the tile publisher.
    hand_over: bool,
    /// The rows of the last committed batch, when handed over.
    committed: Vec<EntryRow>,
}

impl WriterCache {
    /// Keeps the entries (and verdicts) of each committed batch for the tile publisher.
    pub(crate) fn hand_over(&mut self, on: bool) {
        self.hand_over = on;
    }

    /// The rows the last committed batch appended, when handed over (once).
    pub(crate) fn take_committed(&mut self) -> Vec<EntryRow> {
        std::mem::take(&mut self.committed)
    }
}

/// [`append_batch`] for a long-lived writer that keeps what it learnt between batches.
pub fn append_batch_cached(
    conn: &mut PgConnection,
    batch: &[Submission],
    now: DateTime<Utc>,
    cache: &mut WriterCache,
) -> Result<Vec<AppendOutcome>, LedgerError> {
    if batch.is_empty() {
        return Ok(Vec::new());
    }
    append_batch_then(conn, batch, now, cache, |_, _, _| Ok(())).map(|(outcomes, ())| outcomes)
}

/// [`append_batch_cached`], and then `and_then` in the same transaction with the ledger's new
/// size and the tree's root at that size (the writer signs a due checkpoint there, so it costs
/// no transaction of its own). `and_then` may run twice: a batch is appended again after a
/// rollback (see [`EarlierRoundIds`]).
pub fn append_batch_then<T>(
    conn: &mut PgConnection,
    batch: &[Submission],
    now: DateTime<Utc>,
    cache: &mut WriterCache,
    mut and_then: impl FnMut(&mut PgConnection, u64, [u8; 32]) -> Result<T, LedgerError>,
) -> Result<(Vec<AppendOutcome>, T), LedgerError> {
    match append_batch_with(
        conn,
        batch,
        now,
        cache,
        EarlierRoundIds::Assumed,
        &mut and_then,
    ) {
        Err(e) if is_earlier_round_id(&e) => append_batch_with(
            conn,
            batch,
            now,
            cache,
            EarlierRoundIds::LookedUp,
            &mut and_then,
        ),
        other => other,
    }
}

/// Whether `e` is the unique key of `round_ids` refusing a round id already kept.
fn is_earlier_round_id(e: &LedgerError) -> bool {
    matches!(
        e,
        LedgerError::Database(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            info,
        )) if info.constraint_name() == Some("round_ids_pkey")
    )
}

/// Why `key` may not sign `s` received at `at`, if it may not.
fn key_problem(key: Option<&KeyValidity>, s: &Submission, at: DateTime<Utc>) -> Option<String> {
    match key {
        None => Some("key is not registered".into()),
        Some(k) if k.table_id != s.table_id => Some(format!(
            "key belongs to table `{}`, not `{}`",
            k.table_id, s.table_id
        )),
        Some(k) if at < k.valid_from => Some(format!("key is valid only from {}", k.valid_from)),
        Some(k) => k
            .revoked_at
            .filter(|r| *r <= at)
            .map(|r| format!("key was revoked at {r}")),
    }
}

/// One attempt at appending `batch`: its transaction's stages in order.
fn append_batch_with<T>(
    conn: &mut PgConnection,
    batch: &[Submission],
    now: DateTime<Utc>,
    cache: &mut WriterCache,
    earlier_round_ids: EarlierRoundIds,
    and_then: &mut impl FnMut(&mut PgConnection, u64, [u8; 32]) -> Result<T, LedgerError>,
) -> Result<(Vec<AppendOutcome>, T), LedgerError> {
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        make_room(conn, cache, position.next_index, batch.len())?;
        let held = Held::read(
            conn,
            batch,
            position.next_index,
            cache.last_seq_nos.take(),
            earlier_round_ids,
        )?;
        let frontier = match cache.frontier.take() {
            Some(f) if f.size() == position.next_index => f,
            _ => tree::frontier(conn, position.next_index)?,
        };
        let mut placing = Placing::new(position, frontier, held, batch.len());
        placing.hand_over = cache.hand_over;
        for s in batch {
            placing.place(s)?;
        }
        placing.write(conn)?;
        let then = and_then(conn, placing.next_index, placing.frontier.root())?;
        Ok(placing.finish(then))
    })
    .map(|(outcomes, then, frontier, last_seq_nos, committed)| {
        // Kept only once committed; a failed batch leaves the cache empty.
        cache.frontier = Some(frontier);
        cache.last_seq_nos = Some(last_seq_nos);
        cache.committed = committed;
        (outcomes, then)
    })
}

/// Makes sure the partitioned tables have a range for the batch's entries.
fn make_room(
    conn: &mut PgConnection,
    cache: &mut WriterCache,
    next_index: u64,
    count: usize,
) -> Result<(), LedgerError> {
    let span = match cache.span {
        Some(span) => span,
        None => partitions::span(conn)?,
    };
    partitions::ensure_room(conn, span, next_index, count as u64)?;
    cache.span = Some(span);
    Ok(())
}

/// The batch's records placed one after another: the rows to write and each record's outcome.
struct Placing<'b> {
    received_at: DateTime<Utc>,
    next_index: u64,
    prev_hash: Hash,
    frontier: Frontier,
    held: Held,
    /// Interior nodes of the tree the new entries complete.
    nodes: Vec<(u32, u64, Hash)>,
    outcomes: Vec<AppendOutcome>,
    entries: Vec<LedgerRow>,
    derived: DerivedRows<'b>,
    events: Vec<NewSignificantEvent>,
    /// Whether the entries' rows are kept for the tile publisher.
    hand_over: bool,
}

/// What a batch's transaction hands back to be kept once it commits.
type Placed<T> = (Vec<AppendOutcome>, T, Frontier, LastSeqNos, Vec<EntryRow>);

impl<'b> Placing<'b> {
    fn new(position: Position, frontier: Frontier, held: Held, batch_len: usize) -> Placing<'b> {
        Placing {
            received_at: position.received_at,
            next_index: position.next_index,
            prev_hash: position.prev_hash,
            frontier,
            held,
            nodes: Vec::new(),
            outcomes: Vec::with_capacity(batch_len),
            entries: Vec::with_capacity(batch_len),
            derived: DerivedRows {
                verdicts: Vec::with_capacity(batch_len),
                ..DerivedRows::default()
            },
            events: Vec::new(),
            hand_over: false,
        }
    }

    /// Appends `s`, or answers it with what refuses it.
    fn place(&mut self, s: &'b Submission) -> Result<(), LedgerError> {
        let outcome = match self.refusal(s)? {
            Some(refused) => refused,
            None => {
                let round_id = s.derived.as_ref().and_then(|d| d.round_id.clone());
                match self.round_id_taken(s, round_id.as_ref())? {
                    Some(refused) => refused,
                    None => self.append(s, round_id)?,
                }
            }
        };
        self.outcomes.push(outcome);
        Ok(())
    }

    /// The outcome of `s` when the ledger holds its sequence number already, its table's limits
    /// changed since it was judged, or its key may not sign it now.
    fn refusal(&mut self, s: &Submission) -> Result<Option<AppendOutcome>, LedgerError> {
        let held = self.held.known.get(&(s.table_id.clone(), s.seq_no));
        if let Some((receipt, record_hash)) = held {
            if *record_hash == s.record_hash {
                return Ok(Some(AppendOutcome::AlreadyRecorded(receipt.clone())));
            }
            self.events.push(refusal_event(
                "seq_no_conflict",
                s,
                receipt,
                self.received_at,
                json!({
                    "message": "a different record was submitted under a sequence number already in the ledger",
                    "existing_index": receipt.index,
                    "existing_record_hash": hex::encode(record_hash),
                }),
            )?);
            return Ok(Some(AppendOutcome::SeqNoConflict {
                existing: receipt.clone(),
            }));
        }
        if self.held.judged_before_limits_changed(s) {
            return Ok(Some(AppendOutcome::LimitsChanged(Box::new(s.clone()))));
        }
        Ok(
            key_problem(self.held.keys.get(&s.key_id), s, self.received_at).map(|reason| {
                AppendOutcome::KeyNotValid {
                    key_id: s.key_id.clone(),
                    reason,
                }
            }),
        )
    }

    /// The outcome of `s` when another round of its table holds its `round_id`.
    fn round_id_taken(
        &mut self,
        s: &Submission,
        round_id: Option<&String>,
    ) -> Result<Option<AppendOutcome>, LedgerError> {
        let Some(round_id) = round_id else {
            return Ok(None);
        };
        let Some(existing) = self
            .held
            .rounds_by_id
            .get(&(s.table_id.clone(), round_id.clone()))
        else {
            return Ok(None);
        };
        self.events.push(refusal_event(
            "round_id_conflict",
            s,
            existing,
            self.received_at,
            json!({
                "message": "a round was submitted under a round_id the table already used for another round",
                "round_id": round_id,
                "existing_index": existing.index,
                "existing_seq_no": existing.seq_no,
            }),
        )?);
        Ok(Some(AppendOutcome::RoundIdConflict {
            existing: existing.clone(),
            round_id: round_id.clone(),
        }))
    }

    /// Appends `s` as the next entry: its row, its derived rows, its leaf in the tree.
    fn append(
        &mut self,
        s: &'b Submission,
        round_id: Option<String>,
    ) -> Result<AppendOutcome, LedgerError> {
        let received_at = self.received_at;
        let entry = entries::build(
            self.next_index,
            received_at,
            self.prev_hash,
            EntryParts {
                key_id: &s.key_id,
                signature: &s.signature,
                canonical_record: &s.canonical_record,
            },
        )?;
        let index = to_i64("ledger index", self.next_index)?;
        self.entries.push(LedgerRow {
            idx: index,
            received_at,
            prev_hash: self.prev_hash.to_vec(),
            leaf_hash: entry.hash.to_vec(),
            entry: entry.bytes,
            record_type: s.record_type.clone(),
            table_id: Some(s.table_id.clone()),
            seq_no: Some(to_i64("sequence number", s.seq_no)?),
            key_id: s.key_id.clone(),
            record_hash: s.record_hash.to_vec(),
        });
        if let Some(d) = &s.derived {
            push_derived(index, d, &mut self.derived)?;
            if let Some(event) = late_record(s, d, index, received_at)? {
                self.events.push(event);
            }
        }
        let receipt = Receipt {
            index: self.next_index,
            entry_hash: entry.hash,
            received_at,
            table_id: s.table_id.clone(),
            seq_no: s.seq_no,
        };
        self.held.appended(s, round_id, &receipt);
        self.nodes.extend(self.frontier.push(entry.hash));
        self.prev_hash = entry.hash;
        self.next_index += 1;
        Ok(AppendOutcome::Appended(receipt))
    }

    /// Writes the rows of the placed records.
    fn write(&self, conn: &mut PgConnection) -> Result<(), LedgerError> {
        // COPY (binary): far less work for PostgreSQL than multi-row INSERTs of this size.
        copy_rows!(conn, ledger_entries::table, &self.entries);
        let derived = &self.derived;
        copy_rows!(conn, adjudications::table, &derived.verdicts);
        copy_rows!(conn, findings::table, &derived.findings);
        copy_rows!(conn, round_ids::table, &derived.round_ids);
        if !self.events.is_empty() {
            diesel::insert_into(significant_events::table)
                .values(&self.events)
                .execute(conn)?;
        }
        tree::append_nodes(conn, &self.nodes)
    }

    /// The outcomes, and what the writer keeps of the ledger once the batch commits.
    fn finish<T>(self, then: T) -> Placed<T> {
        let committed = if self.hand_over {
            let mut verdicts = self.derived.verdicts.iter().peekable();
            self.entries
                .into_iter()
                .map(|row| {
                    let verdict = verdicts.next_if(|v| v.ledger_index == row.idx);
                    EntryRow::written(row.idx, row.leaf_hash, row.entry, verdict)
                })
                .collect()
        } else {
            Vec::new()
        };
        let last_seq_nos = LastSeqNos {
            ledger_size: self.next_index,
            by_table: self.held.last_seq_nos,
        };
        (self.outcomes, then, self.frontier, last_seq_nos, committed)
    }
}
