//! What ingest's writer hands the tile publisher as it commits: each new entry's bytes, leaf
//! hash and verdict, as the publisher would read them back from the database. Reading back what
//! ingest had just written cost ingest a tenth of its rate while both cores were busy
//! (docs/PERFORMANCE.md); with the hand-off the publisher reads the database only for what it
//! was not handed (entries appended by another path, after a restart, past the bound).
//!
//! Only full bundles are taken from here; the partial bundle at the edge is read from the
//! database each time, as are the hash tiles above level 0. What is taken is checked against
//! the tree the database holds (the bundle's subtree root) before it is published.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

use diesel::PgConnection;
use dozor_log::tiles::{perfect_root, Tile};

use crate::error::LedgerError;
use crate::storage::tiles::{bundle_roots, entry_tiles, EntryRow, EntryTiles};

/// Bytes of handed entries held at most (their bytes and verdicts, and a little for the rest):
/// about 40 000 entries of 1.4 KB, two to three seconds of ingest at its best rate on two
/// cores, which is how far the publisher (at the lowest priority) falls behind then. Past it,
/// new entries are not held and their bundles are read from the database.
pub const HELD_BYTES: usize = 64 << 20;

/// Bytes an entry's row holds beyond its entry's bytes, counted against [`HELD_BYTES`].
const ROW_OVERHEAD: usize = 256;

/// The entries ingest committed and the publisher has not taken yet. The writer only sends (it
/// never waits for a lock the publisher, at the lowest priority, might hold while descheduled);
/// the publisher keeps what it received in index order.
#[derive(Debug)]
pub struct Handoff {
    sender: Sender<Vec<EntryRow>>,
    /// Bytes sent and not yet given up by the publisher, counted against [`HELD_BYTES`].
    bytes: AtomicUsize,
    /// Entries not sent because the bound was reached (for the log).
    dropped: AtomicU64,
    received: Mutex<Received>,
}

#[derive(Debug)]
struct Received {
    receiver: Receiver<Vec<EntryRow>>,
    rows: VecDeque<EntryRow>,
}

fn row_bytes(row: &EntryRow) -> usize {
    row.entry.len() + row.verdict.as_ref().map_or(0, String::len) + ROW_OVERHEAD
}

impl Default for Handoff {
    fn default() -> Handoff {
        let (sender, receiver) = channel();
        Handoff {
            sender,
            bytes: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
            received: Mutex::new(Received {
                receiver,
                rows: VecDeque::new(),
            }),
        }
    }
}

impl Handoff {
    pub fn new() -> Handoff {
        Handoff::default()
    }

    /// Hands over the rows of a committed batch (in index order), unless that would hold more
    /// than [`HELD_BYTES`]: then they are not held, and their bundles are read back.
    pub(crate) fn hand(&self, rows: Vec<EntryRow>) {
        if rows.is_empty() {
            return;
        }
        let bytes: usize = rows.iter().map(row_bytes).sum();
        let held = self.bytes.load(Ordering::Relaxed);
        if held + bytes > HELD_BYTES {
            self.dropped.fetch_add(rows.len() as u64, Ordering::Relaxed);
            return;
        }
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if self.sender.send(rows).is_err() {
            // The receiver lives as long as the hand-off: not reached.
            self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
    }

    fn received(&self) -> std::sync::MutexGuard<'_, Received> {
        let mut received = self
            .received
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Received { receiver, rows } = &mut *received;
        for batch in receiver.try_iter() {
            if let (Some(last), Some(first)) = (rows.back(), batch.first()) {
                if first.idx <= last.idx {
                    // Another history from there on (a failover, a restore): what was held
                    // before it is not this ledger's.
                    tracing::warn!(
                        held_up_to = last.idx,
                        handed_from = first.idx,
                        "entries handed to the tile publisher go back before what it holds: dropping what it held"
                    );
                    let gone: usize = rows.drain(..).map(|r| row_bytes(&r)).sum();
                    self.bytes.fetch_sub(gone, Ordering::Relaxed);
                }
            }
            rows.extend(batch);
        }
        received
    }

    /// The rows of the entries from `first` to before `end`, if every one of them is held;
    /// what is held before `end` is given up either way (the publisher reads the database for
    /// a range it was not wholly handed).
    pub(crate) fn take(&self, first: i64, end: i64) -> Option<Vec<EntryRow>> {
        let mut received = self.received();
        let mut taken = Vec::with_capacity(usize::try_from(end - first).unwrap_or(0));
        let mut gone = 0;
        while received.rows.front().is_some_and(|row| row.idx < end) {
            let Some(row) = received.rows.pop_front() else {
                break;
            };
            gone += row_bytes(&row);
            if row.idx >= first {
                taken.push(row);
            }
        }
        self.bytes.fetch_sub(gone, Ordering::Relaxed);
        let whole = taken.len() as i64 == end - first
            && taken
                .iter()
                .enumerate()
                .all(|(n, row)| row.idx == first + n as i64);
        whole.then_some(taken)
    }

    /// Entries held now, and entries not held since the start because of the bound.
    pub fn counts(&self) -> (usize, u64) {
        let held = self.received().rows.len();
        (held, self.dropped.load(Ordering::Relaxed))
    }
}

/// The files of each of `bundles` (consecutive entry bundles, in order) that was handed over
/// whole and is full: each bundle's leaf hashes must make the subtree root the database's tree
/// holds for it, or it is read from the database (None) like those not handed.
pub(crate) fn handed_tiles(
    handoff: &Handoff,
    conn: &mut PgConnection,
    bundles: &[Tile],
) -> Result<Vec<Option<EntryTiles>>, LedgerError> {
    let handed: Vec<Option<Vec<EntryRow>>> = bundles
        .iter()
        .map(|bundle| {
            let range = bundle.entry_range();
            let (first, end) = (i64::try_from(range.start), i64::try_from(range.end));
            match (bundle.is_full(), first, end) {
                (true, Ok(first), Ok(end)) => handoff.take(first, end),
                _ => None,
            }
        })
        .collect();
    let full: Vec<Tile> = bundles
        .iter()
        .zip(&handed)
        .filter(|(_, rows)| rows.is_some())
        .map(|(bundle, _)| *bundle)
        .collect();
    let mut roots = bundle_roots(conn, &full)?.into_iter();
    let mut tiles = Vec::with_capacity(bundles.len());
    for (bundle, rows) in bundles.iter().zip(handed) {
        let Some(rows) = rows else {
            tiles.push(None);
            continue;
        };
        let leaves = rows
            .iter()
            .map(EntryRow::leaf_hash)
            .collect::<Result<Vec<_>, _>>()?;
        if roots.next() == Some(perfect_root(&leaves)) {
            tiles.push(Some(entry_tiles(bundle, &rows)?));
        } else {
            tracing::warn!(
                bundle = %bundle.path(),
                "the entries handed to the tile publisher are not the database's: read from it instead"
            );
            tiles.push(None);
        }
    }
    Ok(tiles)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn row(idx: i64, bytes: usize) -> EntryRow {
        EntryRow::without_verdict(idx, [idx as u8; 32], vec![b'e'; bytes])
    }

    fn indices(rows: &[EntryRow]) -> Vec<i64> {
        rows.iter().map(|r| r.idx).collect()
    }

    #[test]
    fn a_range_handed_whole_is_taken_and_what_came_before_it_is_given_up() {
        let handoff = Handoff::new();
        handoff.hand((0..10).map(|i| row(i, 10)).collect());
        // 0 and 1 were published from elsewhere (the database): given up.
        assert_eq!(indices(&handoff.take(2, 6).unwrap()), vec![2, 3, 4, 5]);
        assert_eq!(handoff.counts(), (4, 0));
        assert_eq!(indices(&handoff.take(6, 10).unwrap()), vec![6, 7, 8, 9]);
        assert_eq!(handoff.counts(), (0, 0));
    }

    #[test]
    fn a_range_with_a_gap_or_not_yet_handed_is_not_taken() {
        let handoff = Handoff::new();
        // Entry 3 was appended by another path (a registry event): not handed.
        handoff.hand(vec![row(0, 1), row(1, 1), row(2, 1), row(4, 1), row(5, 1)]);
        assert!(handoff.take(0, 4).is_none());
        // What came before the end was given up; the rest stays.
        assert_eq!(handoff.counts(), (2, 0));
        // Entries not handed yet: not taken, and nothing before them kept.
        assert!(handoff.take(4, 8).is_none());
        assert_eq!(handoff.counts(), (0, 0));
    }

    #[test]
    fn entries_past_the_bound_are_not_held() {
        let handoff = Handoff::new();
        let size = HELD_BYTES / 4 - ROW_OVERHEAD;
        // Batch by batch: a batch is held whole or not at all.
        for i in 0..6 {
            handoff.hand(vec![row(i, size)]);
        }
        assert_eq!(handoff.counts(), (4, 2));
        // The range that reaches past what is held is read from the database.
        assert!(handoff.take(0, 6).is_none());
        // Room again: the next entries are held.
        handoff.hand(vec![row(6, 1)]);
        assert_eq!(indices(&handoff.take(6, 7).unwrap()), vec![6]);
    }

    #[test]
    fn entries_handed_from_before_what_is_held_replace_it() {
        let handoff = Handoff::new();
        handoff.hand((0..5).map(|i| row(i, 1)).collect());
        // Another history from entry 3 on (a failover to a standby that lacked 3 and 4).
        handoff.hand(vec![row(3, 2), row(4, 2)]);
        assert_eq!(handoff.counts(), (2, 0));
        assert!(handoff.take(0, 5).is_none());
    }
}
