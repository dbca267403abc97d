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

use super::append::{append_registry_event, last_registry_event, lock_and_position};
use super::schema::registry_entries;
use crate::checkpoint::NoteSigner;
use crate::registry_event::RegistryEvent;
use crate::LedgerError;

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
    /// The partitions detached (tables the operator now keeps or drops).
    pub detached: Vec<String>,
}

/// Where the archived ranges end: entries below it have left (0: none have), as the latest
/// `range_archived` event says.
pub fn archived_below(conn: &mut PgConnection) -> Result<u64, LedgerError> {
    let latest: Option<Vec<u8>> = registry_entries::table
        .filter(registry_entries::record_type.eq("range_archived"))
        .order(registry_entries::idx.desc())
        .select(registry_entries::entry)
        .first(conn)
        .optional()?;
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

/// Archives the entries below `to` not archived yet, which `export` holds (verified by the
/// caller): in one transaction, what stays is copied, the operator-signed `range_archived`
/// event appended and the range's partitions detached. `to` must end a range of the
/// partitioned tables and be covered by a signed checkpoint.
pub fn archive(
    conn: &mut PgConnection,
    operator: &NoteSigner,
    to: u64,
    export: &ArchiveExport,
    reason: &str,
    actor: &str,
    now: DateTime<Utc>,
) -> Result<ArchiveReceipt, LedgerError> {
    if reason.trim().is_empty() {
        return Err(LedgerError::Archive(
            "archiving a range needs a reason".into(),
        ));
    }
    conn.transaction(|conn| {
        let position = lock_and_position(conn, now)?;
        super::checkpoints::check_signer(conn, operator)?;
        let span = super::partitions::span(conn)?;
        let from = archived_below(conn)?;
        if to <= from || !to.is_multiple_of(span) {
            return Err(LedgerError::Archive(format!(
                "a range to archive ends above {from} (where the archived entries end) at a multiple of {span} (the size of the database's ranges), not at {to}"
            )));
        }
        let covered = super::checkpoints::latest(conn)?.map_or(0, |c| c.size as u64);
        if covered < to || position.next_index < to {
            return Err(LedgerError::Archive(format!(
                "the ledger has {} entries and its latest signed checkpoint covers {covered}: both must reach {to}",
                position.next_index
            )));
        }
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
            export_first_day: export.first_day.to_string(),
            export_last_day: export.last_day.to_string(),
            export_manifest_sha256: hex::encode(export.manifest_sha256),
            reason: reason.to_owned(),
            actor: actor.to_owned(),
        };
        let receipt = append_registry_event(conn, &position, &event, operator.signing_key())?;
        // The range's partitions leave the tables.
        let mut detached = Vec::new();
        for table in ["adjudications", "ledger_entries"] {
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
                if n < to / span {
                    diesel::sql_query(format!(
                        "ALTER TABLE {table} DETACH PARTITION {}",
                        part.name
                    ))
                    .execute(conn)?;
                    detached.push(part.name);
                }
            }
        }
        Ok(ArchiveReceipt {
            index: receipt.index,
            from,
            to,
            registry_events: registry.len() as u64,
            detached,
        })
    })
}
