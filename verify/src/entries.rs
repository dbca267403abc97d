//! Stage 4, the entries: canonical form, index, chain link, key validity and signature of every
//! entry, and every round's verdict, a block at a time on every core.

use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, SyncSender};

use ed25519_dalek::VerifyingKey;

use dozor_log::entry::{format_time, leaf_hash};
use dozor_log::entry_check::{check_entry_text, verify_signatures, Signers, Subject};
use dozor_log::merkle::Hash;

use crate::context::Context;
use crate::error::{fail, InspectionError};
use crate::format::{ExportInfo, ADJUDICATIONS, ENTRIES, REGISTRY};
use crate::lines::{LineBlock, LineReader, VerdictReader, Verdicts};
use crate::manifest::Manifest;
use crate::options::{Chunking, VerifyOptions};
use crate::registry::Registry;
use crate::verdicts::readjudicate;

/// What one entry line yields once checked on its own.
pub(super) struct CheckedLine {
    pub(super) leaf: Hash,
    pub(super) prev_hash: Hash,
    /// Whether it is a round of the period, and whether its verdict was re-adjudicated.
    pub(super) round: bool,
    pub(super) readjudicated: bool,
    /// What the audits across rounds need of it.
    pub(super) fact: Option<rules::table_audit::Fact>,
}

/// What the entries stage established.
pub(super) struct CheckedEntries {
    /// The leaf hash of every exported entry, in order.
    pub(super) leaves: Vec<Hash>,
    pub(super) rounds_readjudicated: u64,
    /// The rounds the audits across rounds follow.
    pub(super) facts: rules::table_audit::TableFacts,
    /// Entries checked, chain links included (each one signature).
    pub(super) total: u64,
}

/// An export's first entry with no link before it, not the ledger's first: the entry before
/// was archived, so a `range_archived` event in the registry ends its range there and names
/// that entry's leaf hash, which must be this one's `prev_hash`.
fn check_after_archive(entry: &CheckedLine, index: u64, registry: &Registry) -> Result<(), String> {
    match registry
        .history
        .archived_ranges()
        .iter()
        .find(|range| range.to == index)
    {
        Some(range) if range.last_leaf_hash == entry.prev_hash => Ok(()),
        Some(range) => Err(format!(
            "prev_hash is not the last leaf the range archived at index {} names",
            range.index
        )),
        None => Err(format!(
            "the entry before {index} is missing: no archived range ends there"
        )),
    }
}

/// Stage 4, the entries, a block at a time: canonical form, index, chain link, key validity and
/// signature of every entry, and every round's verdict (re-adjudicated unless told not to), on
/// every core; then the chain in order. The two large files are hashed here for MANIFEST.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_entries(
    dir: &Path,
    manifest: &Manifest,
    info: &ExportInfo,
    registry: &Registry,
    operators: &HashMap<String, VerifyingKey>,
    plans: &HashMap<String, rules::Plan>,
    options: VerifyOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<CheckedEntries, InspectionError> {
    let has_link = info.period_first_index > info.first_index;
    let total = info.period_entries + u64::from(has_link) + u64::from(info.link_after);
    let entries = LineReader::open(dir, ENTRIES)?;
    let verdicts = VerdictReader::open(dir)?;
    let rules_version = format!("\"rules_version\":\"{}\"", rules::RULES_VERSION);
    let rules_version_marker = memchr::memmem::Finder::new(&rules_version);
    let no_verdicts = Verdicts::default();
    // What every chunk is checked with; each chunk's own verdicts are filled in.
    let context = Context {
        info,
        has_link,
        lines: total as usize,
        signers: Signers {
            operators,
            tables: &registry.history,
        },
        registry: &registry.leaves,
        verdicts: &no_verdicts,
        plans,
        signatures: options.signatures,
        readjudicate: options.readjudicate,
        rules_version_marker: &rules_version_marker,
    };
    let mut chain = Chain::new(info, registry, has_link, total);
    let (checked, readers) = check_in_parallel(
        entries,
        verdicts,
        &context,
        options.chunking,
        total,
        |chunk, recycle| {
            chain.follow_chunk(chunk, recycle)?;
            progress(chain.leaves.len() as u64, total);
            Ok(())
        },
    );
    let (entries, mut verdicts) =
        readers.map_err(|_| fail(ENTRIES, "the reading thread failed"))?;
    let checked = checked.and_then(|()| check_all_read(chain.leaves.len(), total, &mut verdicts));
    // A file that differs from MANIFEST is reported as such, before what the change breaks.
    manifest.check_streamed(ENTRIES, &entries.finish_sha256()?)?;
    manifest.check_streamed(ADJUDICATIONS, &verdicts.finish_sha256()?)?;
    checked?;
    Ok(CheckedEntries {
        leaves: chain.leaves,
        rounds_readjudicated: chain.rounds_readjudicated,
        facts: chain.facts,
        total,
    })
}

/// The readers once they have read everything (or failed).
type Readers = std::thread::Result<(LineReader, VerdictReader)>;

/// A reader thread reads blocks (and their verdicts) ahead; every core checks chunks of them as
/// they come, and `follow` takes the checked chunks in order on this thread. Checked blocks go
/// back to the reader (`follow` is given where to send them), so their buffers are reused.
fn check_in_parallel(
    entries: LineReader,
    verdicts: VerdictReader,
    context: &Context<'_>,
    chunking: Chunking,
    total: u64,
    mut follow: impl FnMut(ChunkChecked, &Sender<Block>) -> Result<(), InspectionError>,
) -> (Result<(), InspectionError>, Readers) {
    let (blocks, received) = std::sync::mpsc::sync_channel::<Result<Block, InspectionError>>(1);
    let (recycle, recycled) = std::sync::mpsc::channel::<Block>();
    let first_index = context.info.first_index;
    let (block_size, chunk_size) = (chunking.block.max(1), chunking.chunk.max(1));
    let count_error = |found: u64| {
        fail(
            ENTRIES,
            format!("{found} entries or more, export.json says {total}"),
        )
    };
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            read_blocks(
                entries,
                verdicts,
                &blocks,
                &recycled,
                block_size,
                first_index,
            )
        });
        let jobs = chunk_jobs(received, chunk_size, total, count_error);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let checked = dozor_log::ordered_pool::run_in_order(
            threads,
            // Two blocks' worth keeps every core busy across block boundaries, and bounds the
            // blocks held at once.
            2 * block_size.div_ceil(chunk_size),
            jobs,
            |job| check_job(job, context),
            |chunk| follow(chunk, &recycle),
            || fail(ENTRIES, "a verification thread failed"),
        );
        (checked, reader.join())
    })
}

/// The reader thread: blocks of `block_size` entry lines with the verdicts before their end,
/// sent until the end of the entries or a failure; buffers come back through `recycled`.
fn read_blocks(
    mut entries: LineReader,
    mut verdicts: VerdictReader,
    blocks: &SyncSender<Result<Block, InspectionError>>,
    recycled: &Receiver<Block>,
    block_size: usize,
    first_index: u64,
) -> (LineReader, VerdictReader) {
    let mut read = 0u64;
    loop {
        let (mut block, mut block_verdicts) = recycled.try_recv().unwrap_or_default();
        let next = entries
            .next_block(block_size, &mut block)
            .and_then(|()| {
                read += block.len() as u64;
                verdicts.take_before(first_index + read, &mut block_verdicts)
            })
            .map(|()| (block, block_verdicts));
        let done = next.as_ref().map_or(true, |(block, _)| block.is_empty());
        if blocks.send(next).is_err() || done {
            return (entries, verdicts);
        }
    }
}

/// A checking thread's work: a chunk checked with its block's verdicts.
fn check_job(job: ChunkJob, context: &Context<'_>) -> ChunkChecked {
    match job {
        ChunkJob::Failed(e) => (Err(e), None),
        ChunkJob::Check {
            block,
            first_line,
            lines,
            last,
        } => {
            let checked = {
                let context = Context {
                    verdicts: &block.1,
                    ..*context
                };
                check_chunk(first_line, &block.0.lines_in(lines), &context)
            };
            // Only the last chunk's result holds on to the block, so that once it is taken
            // (after every earlier chunk) the block's buffers can go back to the reader.
            (checked, last.then_some(block))
        }
    }
}

/// The chain followed through the checked entries in order, and what it gathers.
struct Chain<'a> {
    info: &'a ExportInfo,
    registry: &'a Registry,
    has_link: bool,
    /// The leaf hash of every entry followed so far.
    leaves: Vec<Hash>,
    rounds_readjudicated: u64,
    facts: rules::table_audit::TableFacts,
    /// The indexes of the rounds of the current block.
    block_rounds: Vec<u64>,
}

impl<'a> Chain<'a> {
    fn new(info: &'a ExportInfo, registry: &'a Registry, has_link: bool, total: u64) -> Self {
        Chain {
            info,
            registry,
            has_link,
            leaves: Vec::with_capacity(usize::try_from(total).unwrap_or(0)),
            rounds_readjudicated: 0,
            facts: rules::table_audit::TableFacts::default(),
            block_rounds: Vec::new(),
        }
    }

    /// Follows a checked chunk's entries; at the end of its block, checks that every verdict of
    /// the block was a round's and sends the block's buffers back through `recycle`.
    fn follow_chunk(
        &mut self,
        (checked, last_of): ChunkChecked,
        recycle: &Sender<Block>,
    ) -> Result<(), InspectionError> {
        for entry in checked? {
            self.follow(entry)?;
        }
        if let Some(block) = last_of {
            self.end_block(&block.1)?;
            // The reader may have finished; then the buffers are simply dropped.
            if let Ok(block) = std::sync::Arc::try_unwrap(block) {
                let _ = recycle.send(block);
            }
        }
        Ok(())
    }

    /// The next entry: linked to the one before (or the start of the ledger, or the end of an
    /// archived range), and its leaf, round and facts taken.
    fn follow(&mut self, entry: CheckedLine) -> Result<(), InspectionError> {
        let info = self.info;
        let n = self.leaves.len();
        let expected = info.first_index + n as u64;
        if let Some(previous) = self.leaves.last() {
            if &entry.prev_hash != previous {
                return Err(fail(
                    entry_item(n, info),
                    format!(
                        "prev_hash does not match the hash of entry {}",
                        expected - 1
                    ),
                ));
            }
        } else if expected == 0 && entry.prev_hash != dozor_log::entry::GENESIS_PREV_HASH {
            return Err(fail(
                entry_item(n, info),
                "the first entry of the ledger must have a zero prev_hash",
            ));
        } else if expected > 0 && !self.has_link {
            check_after_archive(&entry, expected, self.registry)
                .map_err(|m| fail(entry_item(n, info), m))?;
        }
        self.leaves.push(entry.leaf);
        if entry.round {
            self.block_rounds.push(expected);
        }
        self.rounds_readjudicated += u64::from(entry.readjudicated);
        if let Some(fact) = entry.fact {
            self.facts.push(fact);
        }
        Ok(())
    }

    /// The end of a block: every round found its verdict, so as many verdicts as rounds means
    /// none is left without its round.
    fn end_block(&mut self, block_verdicts: &Verdicts) -> Result<(), InspectionError> {
        if self.block_rounds.len() != block_verdicts.len() {
            let rounds: std::collections::HashSet<u64> = self.block_rounds.drain(..).collect();
            return Err(not_a_round(
                block_verdicts
                    .places()
                    .filter(|(_, index)| !rounds.contains(index)),
            ));
        }
        self.block_rounds.clear();
        Ok(())
    }
}

/// Once every chunk was followed: the entries are as many as export.json says, and no verdict is
/// left after the last one.
fn check_all_read(
    followed: usize,
    total: u64,
    verdicts: &mut VerdictReader,
) -> Result<(), InspectionError> {
    if (followed as u64) != total {
        return Err(fail(
            ENTRIES,
            format!("{followed} entries, export.json says {total}"),
        ));
    }
    let mut left = Verdicts::default();
    verdicts.take_before(u64::MAX, &mut left)?;
    if !left.is_empty() {
        return Err(not_a_round(left.places()));
    }
    Ok(())
}

/// A block of entry lines and the verdicts of its rounds.
pub(super) type Block = (LineBlock, Verdicts);

/// Work for a checking thread.
pub(super) enum ChunkJob {
    /// Lines `lines` of `block`, the first being line `first_line` of entries.jsonl (from 0);
    /// `last` when they are the block's last.
    Check {
        block: std::sync::Arc<Block>,
        first_line: usize,
        lines: std::ops::Range<usize>,
        last: bool,
    },
    /// Reading failed here: the error takes its place in the order of the entries.
    Failed(InspectionError),
}

/// A checked chunk, and its block when it was the block's last chunk.
pub(super) type ChunkChecked = (
    Result<Vec<CheckedLine>, InspectionError>,
    Option<std::sync::Arc<Block>>,
);

/// The chunks of `chunk_size` lines of the blocks `received` from the reader, in order; a
/// reading error, or more entries than `total` (`count_error`), ends them.
pub(super) fn chunk_jobs(
    received: std::sync::mpsc::Receiver<Result<Block, InspectionError>>,
    chunk_size: usize,
    total: u64,
    count_error: impl Fn(u64) -> InspectionError,
) -> impl Iterator<Item = ChunkJob> {
    let mut current: Option<(std::sync::Arc<Block>, usize, usize)> = None;
    let mut lines_before = 0usize;
    let mut finished = false;
    std::iter::from_fn(move || {
        if finished {
            return None;
        }
        let (block, first_line, start) = match current.take() {
            Some(at) => at,
            None => match received.recv() {
                Ok(Ok(block)) if !block.0.is_empty() => {
                    let first_line = lines_before;
                    lines_before += block.0.len();
                    if lines_before as u64 > total {
                        finished = true;
                        return Some(ChunkJob::Failed(count_error(lines_before as u64)));
                    }
                    (std::sync::Arc::new(block), first_line, 0)
                }
                Ok(Err(e)) => {
                    finished = true;
                    return Some(ChunkJob::Failed(e));
                }
                // The end of the entries (or of the reader, which reports its own failure).
                Ok(Ok(_)) | Err(_) => {
                    finished = true;
                    return None;
                }
            },
        };
        let end = (start + chunk_size).min(block.0.len());
        let last = end == block.0.len();
        if !last {
            current = Some((std::sync::Arc::clone(&block), first_line, end));
        }
        Some(ChunkJob::Check {
            block,
            first_line: first_line + start,
            lines: start..end,
            last,
        })
    })
}

/// The first of `verdicts` (line, index), which are not rounds of the period.
pub(super) fn not_a_round(verdicts: impl Iterator<Item = (usize, u64)>) -> InspectionError {
    match verdicts.min() {
        Some((n, index)) => fail(
            format!("{ADJUDICATIONS} line {n}"),
            format!("index {index} has a verdict but is not a round of the exported period"),
        ),
        None => fail(ADJUDICATIONS, "rounds and verdicts do not match"),
    }
}

/// Checks consecutive lines starting at line `first`: each on its own, then their signatures
/// together. The error is the chunk's first failing line.
pub(super) fn check_chunk(
    first: usize,
    part: &[&str],
    context: &Context<'_>,
) -> Result<Vec<CheckedLine>, InspectionError> {
    let mut entries = Vec::with_capacity(part.len());
    let mut lines = Vec::with_capacity(part.len());
    let mut broken = None;
    for (n, line) in part.iter().enumerate() {
        match check_line(first + n, line, context) {
            Ok((entry, checked)) => {
                entries.push(entry);
                lines.push(checked);
            }
            Err(e) => {
                broken = Some(e);
                break;
            }
        }
    }
    // A bad signature before the first other failure is the first failure.
    verify_signatures(&entries, context.signatures)
        .map_err(|(n, m)| fail(entry_item(first + n, context.info), m))?;
    match broken {
        Some(e) => Err(e),
        None => Ok(lines),
    }
}

pub(super) fn entry_item(line: usize, info: &ExportInfo) -> String {
    format!(
        "{ENTRIES} line {} (index {})",
        line + 1,
        info.first_index + line as u64
    )
}

/// Checks one line: canonical bytes, index, time, period, key, registry and verdict.
pub(super) fn check_line<'b>(
    n: usize,
    line: &'b str,
    context: &Context<'_>,
) -> Result<(dozor_log::entry_check::CheckedEntry<'b>, CheckedLine), InspectionError> {
    check_line_alone(n, line, context).map_err(|e| match e {
        LineError::Entry(m) => fail(entry_item(n, context.info), m),
        LineError::Verdict(line, m) => fail(format!("{ADJUDICATIONS} line {line}"), m),
    })
}

pub(super) enum LineError {
    Entry(String),
    /// Line of adjudications.jsonl, message.
    Verdict(usize, String),
}

impl From<String> for LineError {
    fn from(m: String) -> Self {
        LineError::Entry(m)
    }
}

impl From<&str> for LineError {
    fn from(m: &str) -> Self {
        LineError::Entry(m.to_owned())
    }
}

pub(super) fn check_line_alone<'b>(
    n: usize,
    line: &'b str,
    context: &Context<'_>,
) -> Result<(dozor_log::entry_check::CheckedEntry<'b>, CheckedLine), LineError> {
    let info = context.info;
    let expected = info.first_index + n as u64;
    let entry = check_entry_text(line, expected, context.signers)?;
    match check_in_context(n, line, &entry, context) {
        Ok(checked) => Ok((entry, checked)),
        // An entry changed after signing fails its signature first: say that.
        Err(e) => Err(entry
            .verify_signature()
            .map_or_else(LineError::Entry, |()| e)),
    }
}

/// The checks of an entry that depend on the export around it.
pub(super) fn check_in_context(
    n: usize,
    line: &str,
    entry: &dozor_log::entry_check::CheckedEntry<'_>,
    context: &Context<'_>,
) -> Result<CheckedLine, LineError> {
    let info = context.info;
    let expected = info.first_index + n as u64;
    let leaf = leaf_hash(line.as_bytes());
    let at = entry.received_at;
    let link_before = context.has_link && n == 0;
    let link_after = info.link_after && n + 1 == context.lines;
    let in_period = !link_before && !link_after;
    if in_period && !(info.starts_at <= at && at < info.ends_at) {
        return Err(format!(
            "received at {}, outside the exported period",
            format_time(at)
        )
        .into());
    }
    if link_before && at >= info.starts_at {
        return Err(
            "the chain link before the period was received inside it: entries are missing".into(),
        );
    }
    if link_after && at < info.ends_at {
        return Err(
            "the chain link after the period was received inside it: entries are missing".into(),
        );
    }
    let mut round = false;
    let mut readjudicated = false;
    let mut fact = None;
    match &entry.subject {
        Subject::Registry(_) => {
            if context.registry.get(&expected) != Some(&leaf) {
                return Err(format!("a registry event missing from {REGISTRY}").into());
            }
        }
        Subject::Record(header) if in_period && rules::is_adjudicated(&header.record_type) => {
            round = true;
            let (verdict_line, verdict) = context
                .verdicts
                .get(expected)
                .ok_or_else(|| format!("a round without a verdict in {ADJUDICATIONS}"))?;
            if context.readjudicate {
                let judged = readjudicate(expected, header, entry.record, verdict, context)
                    .map_err(|m| {
                        LineError::Verdict(verdict_line, format!("index {expected}: {m}"))
                    })?;
                readjudicated = judged.readjudicated;
                fact = judged.fact;
            }
            // Integrity only: no round is judged, alone or across rounds (the table audits).
        }
        Subject::Record(header) if rules::operations::is_operation(&header.record_type) => {
            rules::operations::Operation::parse_json(entry.record)
                .map_err(|e| format!("a {} record that does not read: {e}", header.record_type))?;
        }
        Subject::Record(_) => {}
    }
    Ok(CheckedLine {
        leaf,
        prev_hash: entry.prev_hash,
        round,
        readjudicated,
        fact,
    })
}
