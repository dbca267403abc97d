//! What part of the ledger a report covers: the entries below a size, read on the primary or on
//! a replica (cut there at the largest signed checkpoint it holds). Every report says it, so a
//! figure read on a replica that lags is never mistaken for the whole night.

use diesel::PgConnection;
use ledger::storage::read_cut::{self, LedgerCut, ReadSource};
use serde::Serialize;
use utoipa::ToSchema;

use crate::ReportError;

/// The database a report was read on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadFrom {
    Primary,
    Replica,
}

/// The ledger entries a report covers: `0..ledger_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct Coverage {
    /// Entries below this index are in the report; later ones are not.
    pub ledger_size: u64,
    pub read_from: ReadFrom,
    /// Whether `ledger_size` is a signed checkpoint's size (always when read on a replica).
    pub at_checkpoint: bool,
}

impl From<LedgerCut> for Coverage {
    fn from(cut: LedgerCut) -> Coverage {
        Coverage {
            ledger_size: cut.size,
            read_from: match cut.source {
                ReadSource::Primary => ReadFrom::Primary,
                ReadSource::Replica => ReadFrom::Replica,
            },
            at_checkpoint: cut.at_checkpoint,
        }
    }
}

/// The cut of a report read on the primary now: every entry committed so far (rows of entries
/// appended while it is built are left out, so its figures are of one ledger size).
pub fn primary_now(conn: &mut PgConnection) -> Result<LedgerCut, ReportError> {
    Ok(read_cut::cut(conn, ReadSource::Primary)?)
}
