//! Where the export is cut: the connection it reads on, the entries of its period (with the
//! links before and after), and the checkpoints it is proved against.

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use dozor_log::checkpoint::{open, Checkpoint, NoteVerifier};
use ledger::storage::{archive, checkpoints, cosignatures, read_cut};
use rules::gaming_day::GamingDayClock;

use super::error::ExportError;
use crate::coverage::ReadFrom;

/// How long an export waits for the replica to replay the checkpoint that covers its seals
/// before it reads on the primary instead.
const REPLICA_CATCH_UP: std::time::Duration = std::time::Duration::from_secs(30);

/// Whether `replica` holds a checkpoint of at least `size` entries, waiting up to `wait`; a
/// replica that does not answer does not.
fn replica_holds(replica: &mut PgConnection, size: u64, wait: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match read_cut::cut(replica, read_cut::ReadSource::Replica) {
            Ok(cut) if cut.size >= size => return true,
            Ok(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Ok(cut) => {
                tracing::warn!(
                    replica_size = cut.size,
                    wanted = size,
                    "the replica has not replayed the export's checkpoint; reading on the primary"
                );
                return false;
            }
            Err(cause) => {
                tracing::warn!(%cause, "the replica does not answer; reading on the primary");
                return false;
            }
        }
    }
}

/// The connection everything after the seals is read on: `replica` once it has replayed the
/// checkpoint of `sealed_size` entries, else the primary.
pub(super) fn reading_connection<'c>(
    primary: &'c mut PgConnection,
    replica: Option<&'c mut PgConnection>,
    sealed_size: u64,
) -> (&'c mut PgConnection, ReadFrom) {
    match replica {
        Some(replica) => {
            if replica_holds(replica, sealed_size, REPLICA_CATCH_UP) {
                (replica, ReadFrom::Replica)
            } else {
                (primary, ReadFrom::Primary)
            }
        }
        None => (primary, ReadFrom::Primary),
    }
}

/// First index received at or after `t` (the ledger size if none).
fn first_index_at(
    conn: &mut PgConnection,
    t: DateTime<Utc>,
    size: u64,
) -> Result<u64, ExportError> {
    // Archived entries count: a period among archived days starts where its entries did.
    let found = ledger::storage::archive::first_index_received_at(conn, t)?;
    Ok(found.unwrap_or(size))
}

/// The export's entries: the period's by receipt, and the links around it.
pub(super) struct Period {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// The bounds of the period's gaming days, `[starts_at, ends_at)`.
    pub bounds: (DateTime<Utc>, DateTime<Utc>),
    /// The first entry exported: the link before the period, or its first entry.
    pub first_index: u64,
    /// The period's entries.
    pub entries: std::ops::Range<u64>,
    /// Whether the entry after the period is exported as the link after it.
    pub link_after: bool,
    /// The end of the entries exported.
    pub run_end: u64,
}

impl Period {
    /// The entries of gaming days `from..=to` below `size`; refused where the entries below it
    /// are archived.
    pub(super) fn cut(
        conn: &mut PgConnection,
        clock: &GamingDayClock,
        (from, to): (NaiveDate, NaiveDate),
        size: u64,
    ) -> Result<Period, ExportError> {
        let (starts_at, _) = clock.bounds(from);
        let (_, ends_at) = clock.bounds(to);
        let period_first = first_index_at(conn, starts_at, size)?;
        let period_end = first_index_at(conn, ends_at, size)?;
        // Entries of an archived range are in the export that archived them, not here. A
        // period that starts where an archive ended has no link before it: the range_archived
        // event (in registry.jsonl) names the archived range's last leaf, its first entry's
        // prev_hash.
        let archived_below = archive::archived_below(conn)?;
        if period_first < archived_below && period_end > 0 {
            return Err(ExportError::Archived {
                first_index: period_first,
                archived_below,
            });
        }
        let first_index = if period_first > 0 && period_first - 1 < archived_below {
            period_first
        } else {
            period_first.saturating_sub(1)
        };
        let link_after = period_end < size;
        Ok(Period {
            from,
            to,
            bounds: (starts_at, ends_at),
            first_index,
            entries: period_first..period_end,
            link_after,
            run_end: period_end + u64::from(link_after),
        })
    }
}

/// The witnesses whose cosignatures an export's latest checkpoint carries (C2SP
/// tlog-cosignature lines after the operator's signature), how many it should have, and how
/// long to wait for them on a checkpoint just signed.
#[derive(Debug, Clone, Default)]
pub struct ExportWitnesses {
    pub keys: Vec<dozor_log::cosignature::CosignatureVerifier>,
    pub quorum: usize,
    pub wait: std::time::Duration,
}

impl ExportWitnesses {
    /// Every one of `keys` must cosign; waiting up to `wait`.
    pub fn all(
        keys: Vec<dozor_log::cosignature::CosignatureVerifier>,
        wait: std::time::Duration,
    ) -> ExportWitnesses {
        ExportWitnesses {
            quorum: keys.len(),
            keys,
            wait,
        }
    }
}

/// The export's latest checkpoint and what the witnesses have seen of it.
struct Latest {
    row: checkpoints::CheckpointRow,
    /// Its note, with the cosignature lines it has.
    note: String,
    /// When it lacks the witnesses' quorum: the latest checkpoint that has it (smaller), with
    /// its note and cosignature lines.
    witnessed: Option<(checkpoints::CheckpointRow, String)>,
}

/// The export's latest checkpoint: the newest with `witnesses.quorum` cosignatures at least as
/// large as `latest` (waiting up to `witnesses.wait` for the witnesses to cosign it), else
/// `latest` with the cosignatures it has and the latest checkpoint the quorum did cosign (a
/// server stopped since, or witnesses down: the export proves itself an extension of it).
fn witnessed_latest(
    conn: &mut PgConnection,
    witnesses: &ExportWitnesses,
    latest: checkpoints::CheckpointRow,
) -> Result<Latest, ExportError> {
    if witnesses.keys.is_empty() {
        let note = latest.note.clone();
        return Ok(Latest {
            row: latest,
            note,
            witnessed: None,
        });
    }
    let deadline = std::time::Instant::now() + witnesses.wait;
    loop {
        let found = cosignatures::latest_with_quorum(conn, &witnesses.keys, witnesses.quorum)?;
        match found {
            Some(found) if found.checkpoint.size >= latest.size => {
                let note = found.note();
                return Ok(Latest {
                    row: found.checkpoint,
                    note,
                    witnessed: None,
                });
            }
            earlier if std::time::Instant::now() >= deadline => {
                let witnessed = earlier.map(|w| {
                    let note = w.note();
                    (w.checkpoint, note)
                });
                let found = cosignatures::cosigned(conn, latest, &witnesses.keys)?;
                let note = found.note();
                return Ok(Latest {
                    row: found.checkpoint,
                    note,
                    witnessed,
                });
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(200)),
        }
    }
}

/// The checkpoints the export is proved against: the first that covers its entries, and the
/// latest (with the witnesses' cosignatures it carries); the latest the witnesses cosigned
/// when that is an earlier one.
pub(super) struct ExportCheckpoints {
    pub covering: checkpoints::CheckpointRow,
    pub checkpoint: Checkpoint,
    pub latest_note: String,
    pub latest: Checkpoint,
    /// The latest checkpoint with the witnesses' quorum, when smaller than `latest`: its size
    /// and note with the cosignature lines.
    pub witnessed: Option<(u64, String)>,
}

impl ExportCheckpoints {
    pub(super) fn read(
        conn: &mut PgConnection,
        witnesses: &ExportWitnesses,
        run_end: u64,
    ) -> Result<ExportCheckpoints, ExportError> {
        let covering = checkpoints::covering(conn, run_end)?.ok_or(ExportError::NoCheckpoint)?;
        let latest_row = checkpoints::latest(conn)?.ok_or(ExportError::NoCheckpoint)?;
        let latest = witnessed_latest(conn, witnesses, latest_row)?;
        let checkpoint = parse(&covering.note, &covering.verifier_key)?;
        let witnessed = latest.witnessed.map(|(row, note)| (row.size as u64, note));
        Ok(ExportCheckpoints {
            checkpoint,
            latest: parse(&latest.row.note, &latest.row.verifier_key)?,
            covering,
            latest_note: latest.note,
            witnessed,
        })
    }
}

/// A stored checkpoint's note, opened with its key.
fn parse(note: &str, key: &str) -> Result<Checkpoint, ExportError> {
    let unreadable = ExportError::Checkpoint;
    let verifier = NoteVerifier::parse(key).map_err(unreadable)?;
    let (text, _) = open(note, &[verifier]).map_err(unreadable)?;
    Checkpoint::parse(text).map_err(unreadable)
}
