//! What the ledger already holds that decides a batch's outcomes, read under the append lock:
//! the tables' last sequence numbers, records already appended, round ids already used and
//! tables whose posted limits changed.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, Text, Timestamptz};

use super::outcome::Receipt;
use crate::error::LedgerError;
use crate::ingest::submission::Submission;
use crate::storage::columns::{hash32, to_i64};
use crate::storage::registry::{keys_by_id, KeyValidity};

/// The highest sequence number of each table seen so far (`None`: the table has no record yet),
/// as of a ledger of `ledger_size` entries.
#[derive(Debug)]
pub(super) struct LastSeqNos {
    pub ledger_size: u64,
    pub by_table: HashMap<String, Option<u64>>,
}

/// How a batch finds rounds whose `round_id` its table used before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EarlierRoundIds {
    /// Not looked up: the unique key of `round_ids` refuses the batch if one is there, and the
    /// batch is appended again with [`EarlierRoundIds::LookedUp`]. A reused id is rare (it is
    /// an anomaly, kept as evidence) and the lookup is over a tenth of PostgreSQL's work per
    /// batch.
    Assumed,
    LookedUp,
}

/// What the ledger already holds that decides the outcomes of a batch's records; what the batch
/// appends is added as it goes, so a record sent twice in one batch is answered as one sent
/// again.
pub(super) struct Held {
    /// The keys that signed the batch's records, by key id.
    pub keys: HashMap<String, KeyValidity>,
    pub last_seq_nos: HashMap<String, Option<u64>>,
    pub known: KnownRecords,
    pub rounds_by_id: HashMap<(String, String), Receipt>,
    /// Tables whose limits changed, with the index of the latest change.
    pub limits_changed: HashMap<String, u64>,
}

impl Held {
    /// Reads, under the append lock, what decides the outcomes of `batch` at a ledger of
    /// `next_index` entries; `cached`, the last sequence numbers the writer kept, if any.
    pub fn read(
        conn: &mut PgConnection,
        batch: &[Submission],
        next_index: u64,
        cached: Option<LastSeqNos>,
        earlier_round_ids: EarlierRoundIds,
    ) -> Result<Held, LedgerError> {
        let mut key_ids: Vec<&str> = batch.iter().map(|s| s.key_id.as_str()).collect();
        key_ids.sort_unstable();
        key_ids.dedup();
        let keys: HashMap<String, KeyValidity> = keys_by_id(conn, &key_ids)?
            .into_iter()
            .map(|k| (k.key_id.clone(), k))
            .collect();
        let mut last_seq_nos = match cached {
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
        let known = existing_for(conn, &maybe_recorded)?;
        let rounds_by_id = match earlier_round_ids {
            EarlierRoundIds::Assumed => HashMap::new(),
            EarlierRoundIds::LookedUp => existing_round_ids(conn, batch)?,
        };
        let limits_changed = limits_changed(conn, batch)?;
        Ok(Held {
            keys,
            last_seq_nos,
            known,
            rounds_by_id,
            limits_changed,
        })
    }

    /// Whether `s` is a round judged before its table's limits last changed.
    pub fn judged_before_limits_changed(&self, s: &Submission) -> bool {
        s.derived.is_some()
            && s.judged_as_of.is_some_and(|seen| {
                self.limits_changed
                    .get(&s.table_id)
                    .is_some_and(|changed| seen.is_none_or(|seen| *changed > seen))
            })
    }

    /// Adds `s`, appended with `receipt`, to what the ledger holds.
    pub fn appended(&mut self, s: &Submission, round_id: Option<String>, receipt: &Receipt) {
        self.known.insert(
            (s.table_id.clone(), s.seq_no),
            (receipt.clone(), s.record_hash),
        );
        if let Some(round_id) = round_id {
            self.rounds_by_id
                .insert((s.table_id.clone(), round_id), receipt.clone());
        }
        if let Some(last) = self.last_seq_nos.get_mut(&s.table_id) {
            *last = Some(last.map_or(s.seq_no, |l| l.max(s.seq_no)));
        }
    }
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

/// Receipts and record hashes of records in the ledger, by `(table_id, seq_no)`.
pub(super) type KnownRecords = HashMap<(String, u64), (Receipt, [u8; 32])>;

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

/// The rounds of the ledger under the `round_id`s the batch's rounds give, by table and id.
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
