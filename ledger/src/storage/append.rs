//! Appending to the ledger: a whole batch in one transaction (group commit), nothing
//! acknowledged before its transaction has committed.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, Text, Timestamptz};
use serde::Serialize;
use serde_json::json;

use super::models::{LedgerRow, NewAdjudication, NewFinding, NewSignificantEvent, RoundIdRow};
use super::registry::{keys_by_id, KeyValidity};
use super::schema::{adjudications, findings, ledger_entries, round_ids, significant_events};
use crate::LedgerError;
use dozor_log::entry::{to_micros, Entry};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::{Envelope, GENESIS_PREV_HASH};
use ed25519_dalek::SigningKey;

/// Advisory lock serialising appends across every process that writes to this database.
const LEDGER_APPEND_LOCK: i64 = 0x646f_7a6f_725f_6c67;

/// What re-adjudication produced for a round, stored beside its entry.
#[derive(Debug, Clone)]
pub struct Derived {
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub table_id: String,
    pub plan_id: String,
    pub rules_version: String,
    pub void: bool,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
    pub findings: Vec<rules::Finding>,
    /// The whole verdict as stored and shown: JSON, serialized where it was computed.
    pub verdict: String,
    pub statistics: rules::RoundStatistics,
    /// The table's own id for the round: unique per table in the ledger.
    pub round_id: Option<String>,
    /// What reports read of the verdict, stored as columns so that no report reads its JSON.
    pub report_figures: ReportFigures,
}

/// The figures of a verdict reports sum or count, beyond its money and statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportFigures {
    /// A tournament's fee and the operator's overlay (0 in other games).
    pub tournament_fee_h: i64,
    pub tournament_overlay_h: i64,
    /// A poker cash game's time collection: its bets are the players' payments for their seats.
    pub time_collection: bool,
    /// The pocket (roulette) or segment index (money wheel) the spin stopped on.
    pub wheel_result: Option<i32>,
}

impl ReportFigures {
    pub fn of(verdict: &rules::Verdict<'_>) -> ReportFigures {
        ReportFigures {
            tournament_fee_h: verdict.tournament.map_or(0, |t| t.fee_h),
            tournament_overlay_h: verdict.tournament.map_or(0, |t| t.overlay_h),
            time_collection: verdict
                .bets
                .first()
                .is_some_and(|b| b.kind == TIME_COLLECTION_KIND),
            wheel_result: verdict
                .segment
                .map(i32::from)
                .or(verdict.winning_number.map(i32::from)),
        }
    }
}

/// The bet kind of a time collection's payments (`rules::poker_cash`'s time collection).
const TIME_COLLECTION_KIND: &str = "time_collection";

/// Why a round could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(transparent)]
    Record(#[from] rules::RecordError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl Derived {
    /// What ingest stores beside a judged round (see [`dozor_log::judge`]) and what every later
    /// check recomputes: its verdict and statistics.
    pub fn of(judged: &dozor_log::judge::Judged<'_>) -> Result<Derived, JudgeError> {
        let statistics = judged.statistics()?;
        let mut derived = Derived::new(judged.round.played_at(), &judged.verdict, statistics)?;
        derived.round_id = judged.round.round_id().map(str::to_owned);
        Ok(derived)
    }

    pub fn new(
        played_at: DateTime<Utc>,
        verdict: &rules::Verdict<'_>,
        statistics: rules::RoundStatistics,
    ) -> Result<Derived, LedgerError> {
        // What the table paid per kind comes from the verdict.
        let statistics = statistics.with_actual(verdict);
        Ok(Derived {
            game: verdict.game.to_string(),
            played_at,
            table_id: verdict.table_id.to_owned(),
            plan_id: verdict.plan_id.to_owned(),
            rules_version: verdict.rules_version.to_owned(),
            void: verdict.void,
            stakes_h: verdict.stakes_h,
            expected_paid_h: verdict.expected_paid_h,
            paid_h: verdict.paid_h,
            findings: verdict.findings.clone(),
            verdict: serde_json::to_string(verdict).map_err(|source| LedgerError::VerdictJson {
                index: None,
                source,
            })?,
            statistics,
            round_id: None,
            report_figures: ReportFigures::of(verdict),
        })
    }
}

/// A signed record whose signature has been verified, ready to append. It holds the record only
/// as its canonical bytes: the writer needs nothing else, and the parsed record is freed where it
/// was parsed, not by the single writer.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The envelope's `key_id` and `signature`, exactly as submitted.
    pub key_id: String,
    pub signature: String,
    /// RFC 8785 bytes of the envelope's record (as signed).
    pub canonical_record: String,
    pub record_type: String,
    pub table_id: String,
    pub seq_no: u64,
    pub record_hash: [u8; 32],
    pub derived: Option<Derived>,
    /// A round received more than this long after it was played is stored and logged as the
    /// significant event `late_record`.
    pub late_after: Option<chrono::Duration>,
    /// The last registry event the round was judged with (its table's posted limits): if the
    /// table's limits changed after it, the round is judged again before it is appended, so its
    /// verdict is the one every verifier gives it at its place in the ledger. `None`: a caller
    /// that does not judge from the registry.
    pub judged_as_of: Option<Option<u64>>,
}

impl Submission {
    /// A record whose signature (`key_id`, `signature`) has been verified over its canonical
    /// bytes; `record_type`, `table_id` and `seq_no` from its header.
    pub fn new(
        key_id: String,
        signature: String,
        canonical_record: String,
        record_type: String,
        table_id: String,
        seq_no: u64,
        derived: Option<Derived>,
    ) -> Submission {
        Submission {
            key_id,
            signature,
            record_hash: dozor_log::entry::record_hash(canonical_record.as_bytes()),
            canonical_record,
            record_type,
            table_id,
            seq_no,
            derived,
            late_after: None,
            judged_as_of: None,
        }
    }

    /// [`Submission::new`] with the type, table and sequence number from the record's header.
    pub fn with_header(
        key_id: String,
        signature: String,
        canonical_record: String,
        header: rules::RecordHeader,
        derived: Option<Derived>,
    ) -> Submission {
        Submission::new(
            key_id,
            signature,
            canonical_record,
            header.record_type,
            header.table_id,
            header.seq_no,
            derived,
        )
    }

    /// Records that the round was judged with the registry as of event `last_event`.
    pub fn judged_as_of(mut self, last_event: Option<u64>) -> Submission {
        self.judged_as_of = Some(last_event);
        self
    }

    /// Flags the round as late when it is received more than `window` after it was played.
    pub fn late_after(mut self, window: chrono::Duration) -> Submission {
        self.late_after = Some(window);
        self
    }

    /// The envelope as submitted, its record in canonical form: evidence kept with a rejection.
    fn envelope_evidence(&self) -> serde_json::Value {
        let record = serde_json::from_str::<serde_json::Value>(&self.canonical_record)
            .unwrap_or_else(|_| json!(self.canonical_record));
        json!({ "record": record, "key_id": self.key_id, "signature": self.signature })
    }
}

/// Proof of acceptance: where the record is in the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Receipt {
    pub index: u64,
    pub entry_hash: [u8; 32],
    pub received_at: DateTime<Utc>,
    pub table_id: String,
    pub seq_no: u64,
}

#[derive(Debug, Clone)]
pub enum AppendOutcome {
    /// Newly appended.
    Appended(Receipt),
    /// The same record was appended before; its original receipt.
    AlreadyRecorded(Receipt),
    /// A different record already holds this `(table_id, seq_no)`; logged as a significant event.
    SeqNoConflict { existing: Receipt },
    /// Another round of the table already has this `round_id`; logged as a significant event.
    RoundIdConflict { existing: Receipt, round_id: String },
    /// The signing key is unknown, of another table, or not valid at the time of receipt.
    KeyNotValid { key_id: String, reason: String },
    /// The table posted new limits after the round was judged: nothing was appended; the round
    /// (handed back) must be judged again (ingest does so itself).
    LimitsChanged(Box<Submission>),
}

#[derive(QueryableByName)]
struct ExistingRow {
    #[diesel(sql_type = BigInt)]
    idx: i64,
    #[diesel(sql_type = Text)]
    table_id: String,
    #[diesel(sql_type = BigInt)]
    seq_no: i64,
    #[diesel(sql_type = Bytea)]
    leaf_hash: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    record_hash: Vec<u8>,
    #[diesel(sql_type = Timestamptz)]
    received_at: DateTime<Utc>,
}

impl ExistingRow {
    /// The receipt of the stored entry.
    fn receipt(&self) -> Result<Receipt, LedgerError> {
        Ok(Receipt {
            index: self.idx as u64,
            entry_hash: hash32(&self.leaf_hash, "leaf hash")?,
            received_at: self.received_at,
            table_id: self.table_id.clone(),
            seq_no: self.seq_no as u64,
        })
    }
}

pub(crate) fn hash32(bytes: &[u8], what: &'static str) -> Result<[u8; 32], LedgerError> {
    bytes.try_into().map_err(|_| LedgerError::BadHash { what })
}

pub(crate) fn to_i64(what: &'static str, n: u64) -> Result<i64, LedgerError> {
    i64::try_from(n).map_err(|_| LedgerError::OutOfRange {
        what,
        value: i128::from(n),
    })
}

/// Receipts and record hashes of records in the ledger, by `(table_id, seq_no)`.
type KnownRecords = HashMap<(String, u64), (Receipt, [u8; 32])>;

/// The last entry of the ledger.
#[derive(Debug, Clone, Copy)]
pub struct Head {
    pub index: u64,
    pub hash: [u8; 32],
    pub received_at: DateTime<Utc>,
}

/// Adds the last sequence number in the ledger of each table of `batch` not yet in `last`.
fn learn_last_seq_nos(
    conn: &mut PgConnection,
    batch: &[Submission],
    last: &mut HashMap<String, Option<u64>>,
) -> Result<(), LedgerError> {
    let mut unknown: Vec<&str> = batch
        .iter()
        .map(|s| s.table_id.as_str())
        .filter(|t| !last.contains_key(*t))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    unknown.dedup();
    // One backward step of table_records' primary key per table.
    let rows: Vec<LastSeqNoRow> = diesel::sql_query(
        "SELECT t.table_id, \
                (SELECT max(r.seq_no) FROM table_records r WHERE r.table_id = t.table_id) AS seq_no \
         FROM unnest($1::text[]) AS t(table_id)",
    )
    .bind::<Array<Text>, _>(unknown)
    .load(conn)?;
    for row in rows {
        let seq_no = row
            .seq_no
            .map(|n| {
                u64::try_from(n).map_err(|_| LedgerError::OutOfRange {
                    what: "sequence number",
                    value: i128::from(n),
                })
            })
            .transpose()?;
        last.insert(row.table_id, seq_no);
    }
    Ok(())
}

#[derive(QueryableByName)]
struct LastSeqNoRow {
    #[diesel(sql_type = Text)]
    table_id: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<BigInt>)]
    seq_no: Option<i64>,
}

/// Records already in the ledger under the `(table_id, seq_no)` pairs of `batch`.
fn existing_for(
    conn: &mut PgConnection,
    batch: &[&Submission],
) -> Result<KnownRecords, LedgerError> {
    if batch.is_empty() {
        return Ok(KnownRecords::new());
    }
    let tables: Vec<&str> = batch.iter().map(|s| s.table_id.as_str()).collect();
    let seqs = batch
        .iter()
        .map(|s| to_i64("sequence number", s.seq_no))
        .collect::<Result<Vec<_>, _>>()?;
    let rows: Vec<ExistingRow> = diesel::sql_query(
        // An archived record answers from what stays of its entry (archived_entries).
        "SELECT r.ledger_index AS idx, r.table_id, r.seq_no, \
                coalesce(l.leaf_hash, a.leaf_hash) AS leaf_hash, \
                coalesce(l.record_hash, a.record_hash) AS record_hash, \
                coalesce(l.received_at, a.received_at) AS received_at \
         FROM unnest($1::text[], $2::bigint[]) AS k(table_id, seq_no) \
         JOIN table_records r ON r.table_id = k.table_id AND r.seq_no = k.seq_no \
         LEFT JOIN ledger_entries l ON l.idx = r.ledger_index \
         LEFT JOIN archived_entries a ON a.idx = r.ledger_index",
    )
    .bind::<Array<Text>, _>(tables)
    .bind::<Array<BigInt>, _>(seqs)
    .load(conn)?;
    rows.into_iter()
        .map(|r| {
            Ok((
                (r.table_id.clone(), r.seq_no as u64),
                (r.receipt()?, hash32(&r.record_hash, "record hash")?),
            ))
        })
        .collect()
}

/// The significant event of a submission refused for what the ledger already holds at
/// `existing`: `details` and the refused record's hash and envelope, kept as evidence.
fn refusal_event(
    kind: &str,
    s: &Submission,
    existing: &Receipt,
    occurred_at: DateTime<Utc>,
    mut details: serde_json::Value,
) -> Result<NewSignificantEvent, LedgerError> {
    if let Some(map) = details.as_object_mut() {
        map.insert(
            "rejected_record_hash".into(),
            json!(hex::encode(s.record_hash)),
        );
        map.insert("rejected_envelope".into(), s.envelope_evidence());
    }
    Ok(NewSignificantEvent {
        occurred_at,
        kind: kind.into(),
        table_id: s.table_id.clone(),
        seq_no: to_i64("sequence number", s.seq_no)?,
        ledger_index: Some(to_i64("ledger index", existing.index)?),
        details,
    })
}

/// The rounds of the ledger under the `round_id`s the batch's rounds give, by table and id.
/// The tables of the batch's rounds whose limits changed after the registry event the round
/// was judged with: each table's latest `table_limits_set` event after the oldest one seen.
fn limits_changed(
    conn: &mut PgConnection,
    batch: &[Submission],
) -> Result<HashMap<String, u64>, LedgerError> {
    let Some(oldest) = batch
        .iter()
        .filter(|s| s.derived.is_some())
        .filter_map(|s| s.judged_as_of)
        .min()
    else {
        return Ok(HashMap::new());
    };
    #[derive(QueryableByName)]
    struct Change {
        #[diesel(sql_type = Text)]
        table_id: String,
        #[diesel(sql_type = BigInt)]
        idx: i64,
    }
    let changes: Vec<Change> = diesel::sql_query(
        "SELECT table_id, max(idx) AS idx FROM ledger_entries \
         WHERE seq_no IS NULL AND idx > $1 AND record_type = 'table_limits_set' \
         GROUP BY table_id",
    )
    .bind::<BigInt, _>(oldest.map_or(-1, |i| i as i64))
    .load(conn)?;
    Ok(changes
        .into_iter()
        .map(|c| (c.table_id, c.idx as u64))
        .collect())
}

fn existing_round_ids(
    conn: &mut PgConnection,
    batch: &[Submission],
) -> Result<HashMap<(String, String), Receipt>, LedgerError> {
    let (tables, ids): (Vec<&str>, Vec<&str>) = batch
        .iter()
        .filter_map(|s| {
            let round_id = s.derived.as_ref()?.round_id.as_deref()?;
            Some((s.table_id.as_str(), round_id))
        })
        .unzip();
    if tables.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<ExistingRound> = diesel::sql_query(
        "SELECT r.round_id, l.idx, l.table_id, l.seq_no, l.leaf_hash, l.record_hash, l.received_at \
         FROM round_ids r \
         JOIN unnest($1::text[], $2::text[]) AS k(table_id, round_id) \
           ON r.table_id = k.table_id AND r.round_id = k.round_id \
         JOIN ledger_entries l ON l.idx = r.ledger_index",
    )
    .bind::<Array<Text>, _>(tables)
    .bind::<Array<Text>, _>(ids)
    .load(conn)?;
    rows.into_iter()
        .map(|r| Ok(((r.entry.table_id.clone(), r.round_id), r.entry.receipt()?)))
        .collect()
}

#[derive(QueryableByName)]
struct ExistingRound {
    #[diesel(sql_type = Text)]
    round_id: String,
    #[diesel(embed)]
    entry: ExistingRow,
}

/// The last entry's index, hash and time, if the ledger is not empty.
pub fn head(conn: &mut PgConnection) -> Result<Option<Head>, LedgerError> {
    let row: Option<(i64, Vec<u8>, DateTime<Utc>)> = ledger_entries::table
        .order(ledger_entries::idx.desc())
        .select((
            ledger_entries::idx,
            ledger_entries::leaf_hash,
            ledger_entries::received_at,
        ))
        .first(conn)
        .optional()?;
    row.map(|(i, h, t)| {
        Ok(Head {
            index: i as u64,
            hash: hash32(&h, "leaf hash")?,
            received_at: t,
        })
    })
    .transpose()
}

/// The significant event of a round received after its late-record window.
fn late_record(
    s: &Submission,
    d: &Derived,
    index: i64,
    received_at: DateTime<Utc>,
) -> Result<Option<NewSignificantEvent>, LedgerError> {
    let Some(window) = s.late_after else {
        return Ok(None);
    };
    let late_by = received_at - d.played_at;
    if late_by <= window {
        return Ok(None);
    }
    Ok(Some(NewSignificantEvent {
        occurred_at: received_at,
        kind: "late_record".into(),
        table_id: s.table_id.clone(),
        seq_no: to_i64("sequence number", s.seq_no)?,
        ledger_index: Some(index),
        details: json!({
            "message": "a round received after the late-record window; the report of its gaming day changed after the day closed",
            "played_at": d.played_at,
            "received_at": received_at,
            "late_by_seconds": late_by.num_seconds(),
            "window_seconds": window.num_seconds(),
        }),
    }))
}

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
    frontier: Option<dozor_log::merkle::Frontier>,
    /// The highest sequence number in the ledger of each table seen so far (`None`: the table
    /// has no record yet).
    last_seq_nos: Option<LastSeqNos>,
    /// Entries per range of the partitioned tables (set once, while the ledger was empty).
    span: Option<u64>,
}

#[derive(Debug)]
struct LastSeqNos {
    ledger_size: u64,
    by_table: HashMap<String, Option<u64>>,
}

/// How a batch finds rounds whose `round_id` its table used before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EarlierRoundIds {
    /// Not looked up: the unique key of `round_ids` refuses the batch if one is there, and the
    /// batch is appended again with [`EarlierRoundIds::LookedUp`]. A reused id is rare (it is
    /// an anomaly, kept as evidence) and the lookup is over a tenth of PostgreSQL's work per
    /// batch.
    Assumed,
    LookedUp,
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

fn append_batch_with<T>(
    conn: &mut PgConnection,
    batch: &[Submission],
    now: DateTime<Utc>,
    cache: &mut WriterCache,
    earlier_round_ids: EarlierRoundIds,
    and_then: &mut impl FnMut(&mut PgConnection, u64, [u8; 32]) -> Result<T, LedgerError>,
) -> Result<(Vec<AppendOutcome>, T), LedgerError> {
    conn.transaction(|conn| {
        let Position {
            mut next_index,
            mut prev_hash,
            received_at,
        } = lock_and_position(conn, now)?;
        let span = match cache.span {
            Some(span) => span,
            None => super::partitions::span(conn)?,
        };
        super::partitions::ensure_room(conn, span, next_index, batch.len() as u64)?;
        cache.span = Some(span);

        let mut key_ids: Vec<&str> = batch.iter().map(|s| s.key_id.as_str()).collect();
        key_ids.sort_unstable();
        key_ids.dedup();
        let keys: HashMap<String, KeyValidity> = keys_by_id(conn, &key_ids)?
            .into_iter()
            .map(|k| (k.key_id.clone(), k))
            .collect();
        let mut last_seq_nos = match cache.last_seq_nos.take() {
            Some(l) if l.ledger_size == next_index => l.by_table,
            _ => HashMap::new(),
        };
        learn_last_seq_nos(conn, batch, &mut last_seq_nos)?;
        // Tables number their records upwards, so a record above its table's last sequence
        // number cannot be in the ledger yet; only the others are looked up.
        let maybe_recorded: Vec<&Submission> = batch
            .iter()
            .filter(|s| {
                last_seq_nos
                    .get(&s.table_id)
                    .is_none_or(|last| last.is_some_and(|last| s.seq_no <= last))
            })
            .collect();
        let mut known = existing_for(conn, &maybe_recorded)?;
        let mut rounds_by_id = match earlier_round_ids {
            EarlierRoundIds::Assumed => HashMap::new(),
            EarlierRoundIds::LookedUp => existing_round_ids(conn, batch)?,
        };
        let limits_changed = limits_changed(conn, batch)?;
        let mut frontier = match cache.frontier.take() {
            Some(f) if f.size() == next_index => f,
            _ => super::tree::frontier(conn, next_index)?,
        };
        let mut nodes = Vec::new();

        let mut outcomes = Vec::with_capacity(batch.len());
        let mut entries = Vec::with_capacity(batch.len());
        let mut derived = DerivedRows {
            verdicts: Vec::with_capacity(batch.len()),
            ..DerivedRows::default()
        };
        let mut events = Vec::new();
        for s in batch {
            if let Some((receipt, record_hash)) = known.get(&(s.table_id.clone(), s.seq_no)) {
                if *record_hash == s.record_hash {
                    outcomes.push(AppendOutcome::AlreadyRecorded(receipt.clone()));
                } else {
                    events.push(refusal_event(
                        "seq_no_conflict",
                        s,
                        receipt,
                        received_at,
                        json!({
                            "message": "a different record was submitted under a sequence number already in the ledger",
                            "existing_index": receipt.index,
                            "existing_record_hash": hex::encode(record_hash),
                        }),
                    )?);
                    outcomes.push(AppendOutcome::SeqNoConflict {
                        existing: receipt.clone(),
                    });
                }
                continue;
            }
            let stale = s.derived.is_some()
                && s.judged_as_of.is_some_and(|seen| {
                    limits_changed
                        .get(&s.table_id)
                        .is_some_and(|changed| seen.is_none_or(|seen| *changed > seen))
                });
            if stale {
                outcomes.push(AppendOutcome::LimitsChanged(Box::new(s.clone())));
                continue;
            }
            if let Some(reason) = key_problem(keys.get(&s.key_id), s, received_at) {
                outcomes.push(AppendOutcome::KeyNotValid {
                    key_id: s.key_id.clone(),
                    reason,
                });
                continue;
            }
            let round_id = s.derived.as_ref().and_then(|d| d.round_id.clone());
            if let Some(round_id) = &round_id {
                if let Some(existing) = rounds_by_id.get(&(s.table_id.clone(), round_id.clone())) {
                    events.push(refusal_event(
                        "round_id_conflict",
                        s,
                        existing,
                        received_at,
                        json!({
                            "message": "a round was submitted under a round_id the table already used for another round",
                            "round_id": round_id,
                            "existing_index": existing.index,
                            "existing_seq_no": existing.seq_no,
                        }),
                    )?);
                    outcomes.push(AppendOutcome::RoundIdConflict {
                        existing: existing.clone(),
                        round_id: round_id.clone(),
                    });
                    continue;
                }
            }
            let entry = Entry::build_canonical(
                next_index,
                received_at,
                prev_hash,
                &s.key_id,
                &s.signature,
                &s.canonical_record,
            );
            let index = to_i64("ledger index", next_index)?;
            entries.push(LedgerRow {
                idx: index,
                received_at,
                prev_hash: prev_hash.to_vec(),
                leaf_hash: entry.hash.to_vec(),
                entry: entry.bytes,
                record_type: s.record_type.clone(),
                table_id: Some(s.table_id.clone()),
                seq_no: Some(to_i64("sequence number", s.seq_no)?),
                key_id: s.key_id.clone(),
                record_hash: s.record_hash.to_vec(),
            });
            if let Some(d) = &s.derived {
                push_derived(index, d, &mut derived)?;
                if let Some(event) = late_record(s, d, index, received_at)? {
                    events.push(event);
                }
            }
            let receipt = Receipt {
                index: next_index,
                entry_hash: entry.hash,
                received_at,
                table_id: s.table_id.clone(),
                seq_no: s.seq_no,
            };
            known.insert((s.table_id.clone(), s.seq_no), (receipt.clone(), s.record_hash));
            if let Some(round_id) = round_id {
                rounds_by_id.insert((s.table_id.clone(), round_id), receipt.clone());
            }
            if let Some(last) = last_seq_nos.get_mut(&s.table_id) {
                *last = Some(last.map_or(s.seq_no, |l| l.max(s.seq_no)));
            }
            outcomes.push(AppendOutcome::Appended(receipt));
            nodes.extend(frontier.push(entry.hash));
            prev_hash = entry.hash;
            next_index += 1;
        }
        // COPY (binary): far less work for PostgreSQL than multi-row INSERTs of this size.
        if !entries.is_empty() {
            diesel::copy_from(ledger_entries::table).from_insertable(&entries).execute(conn)?;
        }
        if !derived.verdicts.is_empty() {
            diesel::copy_from(adjudications::table)
                .from_insertable(&derived.verdicts)
                .execute(conn)?;
        }
        if !derived.findings.is_empty() {
            diesel::copy_from(findings::table)
                .from_insertable(&derived.findings)
                .execute(conn)?;
        }
        if !derived.round_ids.is_empty() {
            diesel::copy_from(round_ids::table)
                .from_insertable(&derived.round_ids)
                .execute(conn)?;
        }
        if !events.is_empty() {
            diesel::insert_into(significant_events::table).values(&events).execute(conn)?;
        }
        super::tree::append_nodes(conn, &nodes)?;
        let then = and_then(conn, next_index, frontier.root())?;
        let last_seq_nos = LastSeqNos {
            ledger_size: next_index,
            by_table: last_seq_nos,
        };
        Ok((outcomes, then, frontier, last_seq_nos))
    })
    .map(|(outcomes, then, frontier, last_seq_nos)| {
        // Kept only once committed; a failed batch leaves the cache empty.
        cache.frontier = Some(frontier);
        cache.last_seq_nos = Some(last_seq_nos);
        (outcomes, then)
    })
}

/// Where the next entry goes, read under the append lock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Position {
    pub next_index: u64,
    pub prev_hash: [u8; 32],
    /// Receipt time of entries appended now: never earlier than the last one, even if the clock
    /// goes backwards.
    pub received_at: DateTime<Utc>,
}

/// Takes the append lock (until the transaction ends) and reads the head.
pub(crate) fn lock_and_position(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
) -> Result<Position, LedgerError> {
    diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
        .bind::<BigInt, _>(LEDGER_APPEND_LOCK)
        .execute(conn)?;
    let head = head(conn)?;
    Ok(match head {
        Some(h) => Position {
            next_index: h.index + 1,
            prev_hash: h.hash,
            received_at: to_micros(now.max(h.received_at)),
        },
        None => Position {
            next_index: 0,
            prev_hash: GENESIS_PREV_HASH,
            received_at: to_micros(now),
        },
    })
}

/// Where a registry event went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RegistryReceipt {
    pub index: u64,
    #[serde(serialize_with = "hex_hash")]
    pub entry_hash: [u8; 32],
    pub received_at: DateTime<Utc>,
}

fn hex_hash<S: serde::Serializer>(hash: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex::encode(hash))
}

/// Index of the last registry event in the ledger.
pub(crate) fn last_registry_event(conn: &mut PgConnection) -> Result<Option<u64>, LedgerError> {
    use super::schema::registry_entries;
    let last: Option<i64> = registry_entries::table
        .select(diesel::dsl::max(registry_entries::idx))
        .first(conn)?;
    Ok(last.map(|i| i as u64))
}

/// Appends a registry event signed by `operator` at `position` (the caller holds the lock and
/// has written the event's rows in the registry tables in the same transaction).
pub(crate) fn append_registry_event(
    conn: &mut PgConnection,
    position: &Position,
    event: &RegistryEvent,
    operator: &SigningKey,
) -> Result<RegistryReceipt, LedgerError> {
    super::rotation::check_holder(conn, &operator.verifying_key())?;
    let span = super::partitions::span(conn)?;
    super::partitions::ensure_room(conn, span, position.next_index, 1)?;
    let envelope = Envelope::sign(event.to_record()?, operator)?;
    let canonical = dozor_log::canonical::canonical_text(&envelope.record)?;
    let entry = Entry::build_canonical(
        position.next_index,
        position.received_at,
        position.prev_hash,
        &envelope.key_id,
        &envelope.signature,
        &canonical,
    );
    diesel::insert_into(ledger_entries::table)
        .values(&LedgerRow {
            idx: to_i64("ledger index", position.next_index)?,
            received_at: position.received_at,
            prev_hash: position.prev_hash.to_vec(),
            leaf_hash: entry.hash.to_vec(),
            entry: entry.bytes,
            record_type: event.record_type().to_owned(),
            table_id: event.table_id().map(str::to_owned),
            seq_no: None,
            key_id: envelope.key_id.clone(),
            record_hash: dozor_log::entry::record_hash(canonical.as_bytes()).to_vec(),
        })
        .execute(conn)?;
    let mut frontier = super::tree::frontier(conn, position.next_index)?;
    super::tree::append_nodes(conn, &frontier.push(entry.hash))?;
    Ok(RegistryReceipt {
        index: position.next_index,
        entry_hash: entry.hash,
        received_at: position.received_at,
    })
}

/// The rows of a round's derived data, as the writer inserts them.
#[derive(Default)]
pub(crate) struct DerivedRows<'a> {
    pub verdicts: Vec<NewAdjudication<'a>>,
    pub findings: Vec<NewFinding>,
    pub round_ids: Vec<RoundIdRow>,
}

pub(crate) fn push_derived<'a>(
    index: i64,
    d: &'a Derived,
    rows: &mut DerivedRows<'a>,
) -> Result<(), LedgerError> {
    if let Some(round_id) = &d.round_id {
        rows.round_ids.push(RoundIdRow {
            table_id: d.table_id.clone(),
            round_id: round_id.clone(),
            ledger_index: index,
        });
    }
    rows.verdicts.push(verdict_row(index, d));
    rows.findings.extend(finding_rows(index, d)?);
    Ok(())
}

/// The verdict row of the round `d` at `index`.
pub(crate) fn verdict_row(index: i64, d: &Derived) -> NewAdjudication<'_> {
    // In the rules' order, by name: the order the arrays keep and `verify` expects.
    let kinds = &d.statistics.by_kind;
    NewAdjudication {
        ledger_index: index,
        table_id: &d.table_id,
        game: &d.game,
        plan_id: &d.plan_id,
        rules_version: &d.rules_version,
        played_at: d.played_at,
        void: d.void,
        stakes_h: d.stakes_h,
        expected_paid_h: d.expected_paid_h,
        paid_h: d.paid_h,
        rtp_stakes_h: d.statistics.rtp_stakes_h,
        expected_payout_mh: d.statistics.expected_payout_mh,
        payout_variance_h2: d.statistics.payout_variance_h2,
        payout_third_moment_h3: d.statistics.payout_third_moment_h3,
        finding_count: i32::try_from(d.findings.len()).unwrap_or(i32::MAX),
        verdict: &d.verdict,
        tournament_fee_h: d.report_figures.tournament_fee_h,
        tournament_overlay_h: d.report_figures.tournament_overlay_h,
        time_collection: d.report_figures.time_collection,
        wheel_result: d.report_figures.wheel_result,
        kind_names: kinds.iter().map(|k| k.kind.as_str()).collect(),
        kind_bets: kinds.iter().map(|k| k.bets).collect(),
        kind_stakes_h: kinds.iter().map(|k| k.stakes_h).collect(),
        kind_paid_h: kinds.iter().map(|k| k.paid_h).collect(),
        kind_expected_payout_mh: kinds.iter().map(|k| k.expected_payout_mh).collect(),
        kind_variance_h2: kinds.iter().map(|k| k.variance_h2).collect(),
        kind_third_moment_h3: kinds.iter().map(|k| k.third_moment_h3).collect(),
    }
}

/// The finding rows of the round `d` at `index`, in the verdict's order.
pub(crate) fn finding_rows(index: i64, d: &Derived) -> Result<Vec<NewFinding>, LedgerError> {
    d.findings
        .iter()
        .enumerate()
        .map(|(position, f)| {
            Ok(NewFinding {
                position: i32::try_from(position).map_err(|_| LedgerError::OutOfRange {
                    what: "finding position",
                    value: position as i128,
                })?,
                ledger_index: index,
                table_id: d.table_id.clone(),
                game: d.game.clone(),
                played_at: d.played_at,
                kind: f.kind.as_str().to_owned(),
                bet_ids: json!(f.bet_ids.clone().unwrap_or_default()),
                expected_h: f.expected_h,
                actual_h: f.actual_h,
                amount_h: f.amount_h,
                message: f.message.clone(),
            })
        })
        .collect()
}
