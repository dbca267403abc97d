//! Witnesses' cosignatures of the checkpoints, kept beside them as the witnesses sent them.
//! Each is checked under its witness's key whenever it is read: a row only counts when it
//! verifies over the checkpoint it is stored for.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::checkpoints::{self, CheckpointRow};
use super::schema::checkpoint_cosignatures;
use crate::error::LedgerError;
use dozor_log::cosignature::{self, CosignatureVerifier, Cosigned};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = checkpoint_cosignatures, check_for_backend(diesel::pg::Pg))]
pub struct CosignatureRow {
    pub size: i64,
    pub witness: String,
    pub line: String,
    pub cosigned_at: DateTime<Utc>,
    pub received_at: DateTime<Utc>,
}

/// Keeps `cosigned`, a cosignature of the checkpoint of `size` already checked by the caller.
pub fn record(
    conn: &mut PgConnection,
    size: u64,
    cosigned: &Cosigned,
    received_at: DateTime<Utc>,
) -> Result<(), LedgerError> {
    let cosigned_at = i64::try_from(cosigned.timestamp)
        .ok()
        .and_then(|t| DateTime::from_timestamp(t, 0))
        .ok_or(LedgerError::OutOfRange {
            what: "cosignature timestamp",
            value: i128::from(cosigned.timestamp),
        })?;
    diesel::insert_into(checkpoint_cosignatures::table)
        .values(CosignatureRow {
            size: i64::try_from(size).map_err(|_| LedgerError::OutOfRange {
                what: "checkpoint size",
                value: i128::from(size),
            })?,
            witness: cosigned.witness.clone(),
            line: cosigned.line.clone(),
            cosigned_at,
            received_at,
        })
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(())
}

/// The largest checkpoint size each witness has a cosignature stored for.
pub fn cosigned_sizes(conn: &mut PgConnection) -> Result<HashMap<String, u64>, LedgerError> {
    use diesel::dsl::max;
    let rows: Vec<(String, Option<i64>)> = checkpoint_cosignatures::table
        .group_by(checkpoint_cosignatures::witness)
        .select((
            checkpoint_cosignatures::witness,
            max(checkpoint_cosignatures::size),
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .filter_map(|(w, s)| Some((w, u64::try_from(s?).ok()?)))
        .collect())
}

/// The cosignatures stored for the checkpoint of `size`.
pub fn of_checkpoint(
    conn: &mut PgConnection,
    size: u64,
) -> Result<Vec<CosignatureRow>, LedgerError> {
    Ok(checkpoint_cosignatures::table
        .filter(checkpoint_cosignatures::size.eq(size as i64))
        .order(checkpoint_cosignatures::witness.asc())
        .select(CosignatureRow::as_select())
        .load(conn)?)
}

/// A checkpoint with the cosignatures of it that verify under `witnesses`.
#[derive(Debug, Clone)]
pub struct CosignedCheckpoint {
    pub checkpoint: CheckpointRow,
    pub cosignatures: Vec<Cosigned>,
}

impl CosignedCheckpoint {
    /// The operator's signed note with the cosignature lines after its signature: one signed
    /// note, as C2SP tlog-witness clients assemble it.
    pub fn note(&self) -> String {
        let mut note = self.checkpoint.note.clone();
        for c in &self.cosignatures {
            note.push_str(&c.line);
        }
        note
    }
}

/// `checkpoint` with its stored cosignatures by `witnesses` that verify (others are left out).
pub fn cosigned(
    conn: &mut PgConnection,
    checkpoint: CheckpointRow,
    witnesses: &[CosignatureVerifier],
) -> Result<CosignedCheckpoint, LedgerError> {
    let rows = of_checkpoint(conn, checkpoint.size as u64)?;
    let mut cosignatures = Vec::new();
    for row in rows {
        let note = format!("{}{}", checkpoint.note, row.line);
        // A row that does not verify is not evidence of anything: skipped, never served.
        if let Ok(found) = cosignature::cosignatures(&note, witnesses) {
            cosignatures.extend(found);
        }
    }
    Ok(CosignedCheckpoint {
        checkpoint,
        cosignatures,
    })
}

/// The latest checkpoint carrying at least `quorum` verifying cosignatures by `witnesses`.
pub fn latest_with_quorum(
    conn: &mut PgConnection,
    witnesses: &[CosignatureVerifier],
    quorum: usize,
) -> Result<Option<CosignedCheckpoint>, LedgerError> {
    if quorum == 0 {
        return match super::checkpoints::latest(conn)? {
            Some(row) => Ok(Some(cosigned(conn, row, witnesses)?)),
            None => Ok(None),
        };
    }
    // Only checkpoints with that many rows can qualify; newest first.
    let candidates: Vec<i64> = checkpoint_cosignatures::table
        .group_by(checkpoint_cosignatures::size)
        .having(diesel::dsl::count_star().ge(quorum as i64))
        .select(checkpoint_cosignatures::size)
        .order(checkpoint_cosignatures::size.desc())
        .load(conn)?;
    for size in candidates {
        let Some(row) = checkpoints::of_size(conn, size)? else {
            continue;
        };
        let found = cosigned(conn, row, witnesses)?;
        if found.cosignatures.len() >= quorum {
            return Ok(Some(found));
        }
    }
    Ok(None)
}
