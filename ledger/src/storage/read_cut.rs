//! Where a report's rows stop. Reports, exports and lists may read from a replica, which
//! replays the primary's commits some time after they happen; a report read there is cut at the
//! largest signed checkpoint the replica holds, so it shows a whole signed tree — never the
//! half of a night the replica has replayed so far — and says which size it covers. On the
//! primary it covers every entry committed when its snapshot was taken.

use diesel::pg::PgConnection;
use serde::Serialize;

use crate::error::LedgerError;

/// The database a read ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadSource {
    Primary,
    Replica,
}

impl ReadSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadSource::Primary => "primary",
            ReadSource::Replica => "replica",
        }
    }
}

/// The ledger entries a read covers: those below `size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LedgerCut {
    /// Entries `0..size` are covered; rows of later entries are left out.
    pub size: u64,
    /// Where it was read.
    pub source: ReadSource,
    /// Whether `size` is that of a signed checkpoint (always on a replica).
    pub at_checkpoint: bool,
}

impl LedgerCut {
    /// Everything: for callers that read on the primary inside the writer's own lock, and for
    /// tests.
    pub const ALL: LedgerCut = LedgerCut {
        size: i64::MAX as u64,
        source: ReadSource::Primary,
        at_checkpoint: false,
    };

    /// The bound as SQL compares it (`ledger_index < bound`).
    pub fn bound(&self) -> i64 {
        i64::try_from(self.size).unwrap_or(i64::MAX)
    }

    /// Whether the entry at `index` is covered.
    pub fn covers(&self, index: u64) -> bool {
        index < self.size
    }
}

/// The cut of a read that runs in the current snapshot of `conn`: on a replica the largest
/// checkpoint it holds (none yet: nothing), on the primary the ledger's size.
pub fn cut(conn: &mut PgConnection, source: ReadSource) -> Result<LedgerCut, LedgerError> {
    Ok(match source {
        ReadSource::Primary => LedgerCut {
            size: super::position::size(conn)?,
            source,
            at_checkpoint: false,
        },
        ReadSource::Replica => LedgerCut {
            size: super::checkpoints::latest(conn)?.map_or(0, |c| c.size.max(0) as u64),
            source,
            at_checkpoint: true,
        },
    })
}

/// Runs `read` in one read-only, repeatable-read transaction (one snapshot for the cut and every
/// query of the report), with the cut of that snapshot.
pub fn read_at_cut<T, E>(
    conn: &mut PgConnection,
    source: ReadSource,
    read: impl FnOnce(&mut PgConnection, LedgerCut) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<LedgerError>,
{
    conn.build_transaction()
        .read_only()
        .repeatable_read()
        .run(|conn| {
            let cut = cut(conn, source).map_err(|e| TransactionError::Read(E::from(e)))?;
            read(conn, cut).map_err(TransactionError::Read)
        })
        .map_err(TransactionError::into_inner)
}

/// A transaction's error: the read's own, or the database's when the transaction could not
/// begin or end.
#[derive(Debug)]
enum TransactionError<E> {
    Read(E),
    Database(diesel::result::Error),
}

impl<E> From<diesel::result::Error> for TransactionError<E> {
    fn from(e: diesel::result::Error) -> Self {
        TransactionError::Database(e)
    }
}

impl<E: From<LedgerError>> TransactionError<E> {
    fn into_inner(self) -> E {
        match self {
            TransactionError::Read(e) => e,
            TransactionError::Database(e) => E::from(LedgerError::from(e)),
        }
    }
}
