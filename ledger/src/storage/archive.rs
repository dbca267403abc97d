//! Archiving a range of the ledger: its entries leave the database once an inspection export
//! holding them has been verified, on the record. What stays (migration 000025): of each entry
//! its leaf hash, record hash and receipt time; its registry events whole; the tree's interior
//! nodes. The range's partitions are detached, not dropped: the operator keeps or drops them
//! (docs/OPERATIONS.md).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

use super::archived_days::{self, DayFigures, DaySpan};
use super::position::lock_and_position;
use super::registry_append::{append_registry_event, last_registry_event};
use super::registry_log::{events_of_type, latest_event_of_type};
use crate::error::LedgerError;
use dozor_log::checkpoint::NoteSigner;
use dozor_log::registry_event::RegistryEvent;

/// The export that holds a range: its gaming days and the SHA-256 of its MANIFEST.
#[derive(Debug, Clone)]
pub struct ArchiveExport {
    pub first_day: chrono::NaiveDate,
    pub last_day: chrono::NaiveDate,
    pub manifest_sha256: [u8; 32],
}

impl ArchiveExport {
    /// The export of gaming days `first_day..=last_day` whose MANIFEST holds `manifest`.
    pub fn of_manifest(
        first_day: chrono::NaiveDate,
        last_day: chrono::NaiveDate,
        manifest: &[u8],
    ) -> ArchiveExport {
        ArchiveExport {
            first_day,
            last_day,
            manifest_sha256: Sha256::digest(manifest).into(),
        }
    }
}

/// What was archived.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveReceipt {
    /// The `range_archived` event's index.
    pub index: u64,
    pub from: u64,
    pub to: u64,
    pub registry_events: u64,
    /// The gaming days whose figures were kept, each with the index of their seal.
    pub days_kept: Vec<KeptSeal>,
    /// The partitions detached (tables the operator now keeps or drops).
    pub detached: Vec<String>,
}

/// An archived day's figures and the `report_published` event that seals them.
#[derive(Debug, Clone, Serialize)]
pub struct KeptSeal {
    pub gaming_day: chrono::NaiveDate,
    pub sealed_index: u64,
}

/// Where the archived ranges end: entries below it have left (0: none have), as the latest
/// `range_archived` event says.
pub fn archived_below(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    let latest = latest_event_of_type(conn, "range_archived")?;
    match latest.map(|entry| RegistryEvent::from_entry(&entry)) {
        None => Ok(0),
        Some(Ok(RegistryEvent::RangeArchived { to, .. })) => Ok(to),
        Some(Ok(other)) => Err(LedgerError::Archive(format!(
            "a range_archived entry holds a {} event",
            other.record_type()
        ))),
        Some(Err(e)) => Err(LedgerError::Archive(e)),
    }
}

#[derive(QueryableByName)]
struct Leaf {
    #[diesel(sql_type = Bytea)]
    leaf_hash: Vec<u8>,
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

/// What an archive takes and why.
#[derive(Debug, Clone)]
pub struct ArchiveRequest<'a> {
    /// Where the archived range ends.
    pub to: u64,
    /// The export that holds it (verified by the caller).
    pub export: &'a ArchiveExport,
    /// The gaming days whose rounds it takes, whole (the caller checked that they are closed,
    /// sealed and end at `to`): their figures are kept and sealed.
    pub days: &'a [DaySpan],
    /// The late-record window the daily figures count late rounds by.
    pub late_after: chrono::Duration,
    pub reason: &'a str,
    pub actor: &'a str,
}

/// Archives the entries below `to` not archived yet, which `export` holds: in one transaction,
/// the figures of the days taken are computed and sealed, what stays of each entry is copied,
/// the operator-signed `range_archived` event appended and the range's partitions detached.
/// `to` must be covered by a signed checkpoint; the database's range holding it is split there.
pub fn archive(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    request: &ArchiveRequest<'_>,
    now: DateTime<Utc>,
) -> Result<ArchiveReceipt, LedgerError> {
    let to = request.to;
    if request.reason.trim().is_empty() {
        return Err(LedgerError::Archive(
            "archiving a range needs a reason".into(),
        ));
    }
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        super::checkpoints::check_signer(conn, operator)?;
        let span = super::partitions::span(conn)?;
        let from = archived_below(conn)?;
        if to <= from {
            return Err(LedgerError::Archive(format!(
                "a range to archive ends above {from} (where the archived entries end), not at {to}"
            )));
        }
        let covered = super::checkpoints::latest(conn)?.map_or(0, |c| c.size as u64);
        if covered < to || position.next_index < to {
            return Err(LedgerError::Archive(format!(
                "the ledger has {} entries and its latest signed checkpoint covers {covered}: both must reach {to}",
                position.next_index
            )));
        }
        // The days' figures, sealed before their rounds leave; the range_archived event
        // follows the seals.
        let day_figures = seal_day_figures(conn, operator, request, now)?;
        let position = lock_and_position(conn, now)?;
        let frontier = super::tree::frontier(conn, to)
            .map_err(|e| LedgerError::Archive(format!("the tree of {to} entries: {e}")))?;
        let last_leaf_hash = super::reads::leaf_hash_at(conn, to - 1)?
            .ok_or_else(|| LedgerError::Archive(format!("entry {} is missing", to - 1)))?;
        let bounds = |sql: &str| {
            diesel::sql_query(sql)
                .bind::<BigInt, _>(from as i64)
                .bind::<BigInt, _>(to as i64)
        };
        let kept = bounds(
            "INSERT INTO archived_entries (idx, received_at, leaf_hash, record_hash) \
             SELECT idx, received_at, leaf_hash, record_hash FROM ledger_entries \
             WHERE idx >= $1 AND idx < $2",
        )
        .execute(conn)?;
        if kept as u64 != to - from {
            return Err(LedgerError::Archive(format!(
                "the database holds {kept} of the {} entries [{from}, {to}): they are not all there to archive",
                to - from
            )));
        }
        bounds(
            "INSERT INTO archived_registry_entries SELECT * FROM ledger_entries \
             WHERE seq_no IS NULL AND idx >= $1 AND idx < $2",
        )
        .execute(conn)?;
        let registry: Vec<Leaf> = bounds(
            "SELECT leaf_hash FROM archived_registry_entries \
             WHERE idx >= $1 AND idx < $2 ORDER BY idx",
        )
        .load(conn)?;
        let mut digest = Sha256::new();
        for leaf in &registry {
            digest.update(&leaf.leaf_hash);
        }
        let event = RegistryEvent::RangeArchived {
            previous: last_registry_event(conn)?,
            from,
            to,
            frontier: frontier.subtree_roots().iter().map(hex::encode).collect(),
            last_leaf_hash: hex::encode(last_leaf_hash),
            registry_events: registry.len() as u64,
            registry_digest: hex::encode(digest.finalize()),
            export_first_day: request.export.first_day.to_string(),
            export_last_day: request.export.last_day.to_string(),
            export_manifest_sha256: hex::encode(request.export.manifest_sha256),
            reason: request.reason.to_owned(),
            actor: request.actor.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, operator.signing_key())?;
        for (figures, bytes, sealed_index) in &day_figures {
            archived_days::insert(conn, figures, bytes, *sealed_index, receipt.index)?;
        }
        let mut detached = detach_below(conn, to / span)?;
        if !to.is_multiple_of(span) {
            detached.extend(split_range_at(conn, to, span)?);
        }
        Ok(ArchiveReceipt {
            index: receipt.index,
            from,
            to,
            registry_events: registry.len() as u64,
            days_kept: day_figures
                .iter()
                .map(|(f, _, i)| KeptSeal {
                    gaming_day: f.gaming_day,
                    sealed_index: *i,
                })
                .collect(),
            detached,
        })
    })
}

/// The figures of each day `request` takes, computed over the entries below its end and sealed
/// (a `report_published` event each): (figures, their JSON, the seal's index).
fn seal_day_figures(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    request: &ArchiveRequest<'_>,
    now: DateTime<Utc>,
) -> Result<Vec<(DayFigures, Vec<u8>, u64)>, LedgerError> {
    let mut kept = Vec::with_capacity(request.days.len());
    for span in request.days {
        let figures = archived_days::compute(conn, *span, request.to, request.late_after)?;
        let bytes = serde_json::to_vec_pretty(&figures)
            .map_err(|e| LedgerError::Archive(format!("the figures of {}: {e}", span.day)))?;
        kept.push((figures, bytes));
    }
    let files: Vec<(String, Vec<u8>)> = kept
        .iter()
        .map(|(f, bytes)| (archived_days::figures_name(f.gaming_day), bytes.clone()))
        .collect();
    let seals = super::published_reports::publish(
        conn,
        operator.signing_key(),
        &files,
        request.actor,
        now,
    )?;
    Ok(kept
        .into_iter()
        .zip(seals)
        .map(|((figures, bytes), seal)| (figures, bytes, seal.index))
        .collect())
}

/// The tables partitioned by ledger index, with their index column: the entries before the
/// verdicts, which must find theirs when rows are taken back.
const PARTITIONED: [(&str, &str); 2] =
    [("ledger_entries", "idx"), ("adjudications", "ledger_index")];

/// Detaches the partitions of both partitioned tables that lie below range `below`.
fn detach_below(conn: &mut PgConnection, below: u64) -> Result<Vec<String>, LedgerError> {
    let mut detached = Vec::new();
    for (table, _) in PARTITIONED {
        let parts: Vec<Name> = diesel::sql_query(
            "SELECT c.relname::text AS name FROM pg_inherits i \
                 JOIN pg_class c ON c.oid = i.inhrelid \
                 WHERE i.inhparent = $1::regclass ORDER BY c.relname",
        )
        .bind::<diesel::sql_types::Text, _>(table)
        .load(conn)?;
        for part in parts {
            let Some(n) = part
                .name
                .strip_prefix(&format!("{table}_p"))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            if n < below {
                diesel::sql_query(format!(
                    "ALTER TABLE {table} DETACH PARTITION {}",
                    part.name
                ))
                .execute(conn)?;
                detached.push(part.name);
            }
        }
    }
    Ok(detached)
}

/// Splits the database's range holding `to` (not its first index) at `to`: the range is
/// detached whole and kept under a name of its own (`<table>_p<n>_below_<to>`, for the operator
/// to keep or drop with the others), and a range of the same name from `to` to its old end
/// takes back the entries at and above `to`. An archive thus ends at a gaming day's end,
/// wherever the database's ranges end.
fn split_range_at(conn: &mut PgConnection, to: u64, span: u64) -> Result<Vec<String>, LedgerError> {
    let n = to / span;
    let end = (n + 1).saturating_mul(span);
    let mut detached = Vec::new();
    for (table, column) in PARTITIONED {
        let part = format!("{table}_p{n:06}");
        let kept = format!("{part}_below_{to}");
        for statement in [
            format!("ALTER TABLE {table} DETACH PARTITION {part}"),
            format!("ALTER TABLE {part} RENAME TO {kept}"),
            format!("CREATE TABLE {part} PARTITION OF {table} FOR VALUES FROM ({to}) TO ({end})"),
            // Statement triggers are not inherited: the range refuses TRUNCATE itself, as the
            // ranges the writer makes do.
            format!(
                "CREATE TRIGGER {part}_no_truncate BEFORE TRUNCATE ON {part} \
                 FOR EACH STATEMENT EXECUTE FUNCTION dozor_refuse_change()"
            ),
            format!("INSERT INTO {table} SELECT * FROM {kept} WHERE {column} >= {to}"),
        ] {
            diesel::sql_query(statement).execute(conn)?;
        }
        detached.push(kept);
    }
    Ok(detached)
}

/// An archived range as its `range_archived` event names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchivedRange {
    /// The `range_archived` event's index.
    pub index: u64,
    pub from: u64,
    pub to: u64,
    pub export_first_day: String,
    pub export_last_day: String,
    pub export_manifest_sha256: String,
}

/// Every archived range, oldest first.
pub fn ranges(conn: &mut PgConnection) -> Result<Vec<ArchivedRange>, LedgerError> {
    events_of_type(conn, "range_archived")?
        .into_iter()
        .map(|(index, entry)| match RegistryEvent::from_entry(&entry) {
            Ok(RegistryEvent::RangeArchived {
                from,
                to,
                export_first_day,
                export_last_day,
                export_manifest_sha256,
                ..
            }) => Ok(ArchivedRange {
                index: u64::try_from(index).unwrap_or(0),
                from,
                to,
                export_first_day,
                export_last_day,
                export_manifest_sha256,
            }),
            Ok(other) => Err(LedgerError::Archive(format!(
                "the range_archived entry {index} holds a {} event",
                other.record_type()
            ))),
            Err(e) => Err(LedgerError::Archive(e)),
        })
        .collect()
}

/// What stays of an archived entry, and the range that took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedEntry {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    pub leaf_hash: [u8; 32],
    pub record_hash: [u8; 32],
    pub range: ArchivedRange,
}

#[derive(QueryableByName)]
struct KeptRow {
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    received_at: DateTime<Utc>,
    #[diesel(sql_type = Bytea)]
    leaf_hash: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    record_hash: Vec<u8>,
}

/// The archived entry at `index`, if it is one.
pub fn archived_entry(
    conn: &mut PgConnection,
    index: u64,
) -> Result<Option<ArchivedEntry>, LedgerError> {
    let Ok(idx) = i64::try_from(index) else {
        return Ok(None);
    };
    let row: Option<KeptRow> = diesel::sql_query(
        "SELECT received_at, leaf_hash, record_hash FROM archived_entries WHERE idx = $1",
    )
    .bind::<BigInt, _>(idx)
    .get_result(conn)
    .optional()?;
    let Some(row) = row else {
        return Ok(None);
    };
    let hash = |bytes: Vec<u8>| -> Result<[u8; 32], LedgerError> {
        bytes.try_into().map_err(|_| {
            LedgerError::Archive(format!("archived entry {index}: a hash of another length"))
        })
    };
    let range = ranges(conn)?
        .into_iter()
        .find(|r| r.from <= index && index < r.to)
        .ok_or_else(|| {
            LedgerError::Archive(format!(
                "archived entry {index} lies in no range a range_archived event names"
            ))
        })?;
    Ok(Some(ArchivedEntry {
        index,
        received_at: row.received_at,
        leaf_hash: hash(row.leaf_hash)?,
        record_hash: hash(row.record_hash)?,
        range,
    }))
}

#[derive(QueryableByName)]
struct At {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    at: Option<DateTime<Utc>>,
}

/// When the entry at `index` was received, archived or not.
pub fn received_at(
    conn: &mut PgConnection,
    index: u64,
) -> Result<Option<DateTime<Utc>>, LedgerError> {
    let Ok(idx) = i64::try_from(index) else {
        return Ok(None);
    };
    Ok(diesel::sql_query(
        "SELECT coalesce((SELECT received_at FROM ledger_entries WHERE idx = $1),                          (SELECT received_at FROM archived_entries WHERE idx = $1)) AS at",
    )
    .bind::<BigInt, _>(idx)
    .get_result::<At>(conn)?
    .at)
}

/// The first index received at or after `t`, archived entries included.
pub fn first_index_received_at(
    conn: &mut PgConnection,
    t: DateTime<Utc>,
) -> Result<Option<u64>, LedgerError> {
    #[derive(QueryableByName)]
    struct First {
        #[diesel(sql_type = diesel::sql_types::Nullable<BigInt>)]
        idx: Option<i64>,
    }
    let first = diesel::sql_query(
        "SELECT coalesce((SELECT min(idx) FROM archived_entries WHERE received_at >= $1),                          (SELECT min(idx) FROM ledger_entries WHERE received_at >= $1)) AS idx",
    )
    .bind::<diesel::sql_types::Timestamptz, _>(t)
    .get_result::<First>(conn)?;
    Ok(first.idx.and_then(|i| u64::try_from(i).ok()))
}

/// The earliest and latest `played_at` of some rounds.
pub type PlayedSpan = (DateTime<Utc>, DateTime<Utc>);

/// The earliest and latest `played_at` of the rounds at indexes `[from, to)`, if any.
pub fn played_span(
    conn: &mut PgConnection,
    from: u64,
    to: u64,
) -> Result<Option<PlayedSpan>, LedgerError> {
    #[derive(QueryableByName)]
    struct Span {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
        first: Option<DateTime<Utc>>,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
        last: Option<DateTime<Utc>>,
    }
    let span = diesel::sql_query(
        "SELECT min(played_at) AS first, max(played_at) AS last FROM adjudications \
         WHERE ledger_index >= $1 AND ledger_index < $2",
    )
    .bind::<BigInt, _>(i64::try_from(from).unwrap_or(i64::MAX))
    .bind::<BigInt, _>(i64::try_from(to).unwrap_or(i64::MAX))
    .get_result::<Span>(conn)?;
    Ok(span.first.zip(span.last))
}
