//! Signed checkpoints of the tree, stored as served.

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use super::schema::checkpoints;
use super::tree;
use crate::error::{LedgerError, TreeError};
use dozor_log::checkpoint::{rotated_to, Checkpoint, NoteSigner, NoteVerifier};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = checkpoints, check_for_backend(diesel::pg::Pg))]
pub struct CheckpointRow {
    pub size: i64,
    pub root: Vec<u8>,
    pub note: String,
    pub verifier_key: String,
    pub created_at: DateTime<Utc>,
}

pub fn latest(conn: &mut PgConnection) -> Result<Option<CheckpointRow>, diesel::result::Error> {
    first_of(
        conn,
        checkpoints::table
            .order(checkpoints::size.desc())
            .into_boxed(),
    )
}

/// The first checkpoint at or above `size`: the one that covers an entry below `size`.
pub fn covering(
    conn: &mut PgConnection,
    size: u64,
) -> Result<Option<CheckpointRow>, diesel::result::Error> {
    let above = checkpoints::table.filter(checkpoints::size.ge(size as i64));
    first_of(conn, above.order(checkpoints::size.asc()).into_boxed())
}

/// The checkpoint of exactly `size` entries, if one is stored.
pub fn of_size(
    conn: &mut PgConnection,
    size: i64,
) -> Result<Option<CheckpointRow>, diesel::result::Error> {
    first_of(conn, checkpoints::table.find(size).into_boxed())
}

/// The first checkpoint of `ordered` (checkpoints filtered and put in order), if any.
fn first_of(
    conn: &mut PgConnection,
    ordered: checkpoints::BoxedQuery<'static, diesel::pg::Pg>,
) -> Result<Option<CheckpointRow>, diesel::result::Error> {
    ordered
        .select(CheckpointRow::as_select())
        .first(conn)
        .optional()
}

/// Signs and stores a checkpoint of the first `size` entries (nothing if one exists already);
/// refused unless `signer` holds the log (see [`check_signer`]).
pub fn create(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    size: u64,
    now: DateTime<Utc>,
) -> Result<CheckpointRow, TreeError> {
    create_checked(conn, signer, size, now, |conn| tree::root(conn, size))
}

/// [`create`] of a tree whose root the caller computed: the writer, inside the transaction that
/// appended the entries, from the tree's right frontier.
pub fn create_with_root(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    size: u64,
    root: [u8; 32],
    now: DateTime<Utc>,
) -> Result<CheckpointRow, TreeError> {
    create_checked(conn, signer, size, now, |_| Ok(root))
}

/// Checks `signer` (see [`check_signer`]), then signs the checkpoint of `size` entries at the
/// root `root_of` gives and stores it (nothing if one exists).
fn create_checked(
    conn: &mut PgConnection,
    signer: &NoteSigner,
    size: u64,
    now: DateTime<Utc>,
    root_of: impl FnOnce(&mut PgConnection) -> Result<[u8; 32], TreeError>,
) -> Result<CheckpointRow, TreeError> {
    check_signer(conn, signer)?;
    let root = root_of(conn)?;
    let body = Checkpoint {
        origin: signer.name().to_owned(),
        size,
        root,
    };
    let note = signer
        .sign(&body.text())
        .map_err(|e| TreeError::Storage(e.into()))?;
    let row = CheckpointRow {
        size: size as i64,
        root: root.to_vec(),
        note,
        verifier_key: signer.verifier().to_string(),
        created_at: now,
    };
    diesel::insert_into(checkpoints::table)
        .values(&row)
        .on_conflict_do_nothing()
        .execute(conn)?;
    Ok(row)
}

/// Refuses `signer` for a ledger whose latest checkpoint another key signed, or handed to
/// another key: the log's origin and key never change without a recorded rotation, or the
/// checkpoints before and after could not be told apart from a second log of the same name.
pub fn check_signer(conn: &mut PgConnection, signer: &NoteSigner) -> Result<(), LedgerError> {
    let Some(latest) = latest(conn)? else {
        return Ok(());
    };
    let given = signer.verifier().to_string();
    if let Some(next) = successor(&latest)? {
        if next.to_string() == given {
            return Ok(());
        }
        return Err(LedgerError::key(format!(
            "the log was handed to `{next}` at size {}; the operator key given is `{given}`",
            latest.size
        )));
    }
    if latest.verifier_key == given {
        return Ok(());
    }
    Err(LedgerError::key(format!(
        "the ledger's checkpoints (the latest of size {}) are signed by `{}`; the operator key given is `{given}`: a log's key and origin change only by a recorded rotation (`dozor log rotate`)",
        latest.size, latest.verifier_key
    )))
}

/// The key a stored checkpoint hands the log to, if it is a rotation's.
pub fn successor(row: &CheckpointRow) -> Result<Option<NoteVerifier>, LedgerError> {
    rotated_to(&row.note).map_err(|e| LedgerError::key(format!("checkpoint {}: {e}", row.size)))
}
