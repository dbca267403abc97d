//! Writing an inspection export of a period ([`super::format`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use diesel::PgConnection;
use dozor_log::checkpoint::{open, Checkpoint, NoteSigner, NoteVerifier};
use dozor_log::merkle::range_nodes_needed;
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;
use dozor_verify::format::{
    self as fmt, AdjudicationLine, ConsistencyFile, ExportInfo, InclusionProof, KeyRecord,
    ProofsFile, TreeFile, TreeNode,
};
use ledger::storage::read_cut;
use ledger::storage::report_reads;
use ledger::storage::report_reads::inspection::StoredVerdict;
use ledger::storage::{checkpoints, cosignatures, published_reports, reads, registry_log, tree};
use sha2::Digest as _;

use crate::daily;

use rules::gaming_day::GamingDayClock;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("the period must run forwards ({from} .. {to})")]
    BadPeriod { from: NaiveDate, to: NaiveDate },
    #[error("{0} exists and is not empty")]
    NotEmpty(PathBuf),
    #[error("no signed checkpoint covers the period yet; wait for the next checkpoint and retry")]
    NoCheckpoint,
    #[error(transparent)]
    Ledger(#[from] ledger::LedgerError),
    #[error("database: {0}")]
    Database(#[from] diesel::result::Error),
    #[error(transparent)]
    Report(#[from] crate::ReportError),
    #[error("Merkle tree: {0}")]
    Tree(#[from] ledger::storage::tree::TreeError),
    #[error("a stored checkpoint: {0}")]
    Checkpoint(#[from] dozor_log::checkpoint::NoteError),
    #[error("plans: {0}")]
    Plans(#[from] rules::PlanError),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("Merkle node ({level}, {index}) is missing from the stored tree")]
    MissingNode { level: u32, index: u64 },
    #[error("registry event {index}: {reason}")]
    Registry { index: u64, reason: String },
    #[error("the period's entries start at index {first_index}, but the entries below {archived_below} are archived: they are in the inspection export that archived them (`dozor verify` on the database lists it); export a period after them")]
    Archived {
        first_index: u64,
        archived_below: u64,
    },
    #[error("a resolved finding's round is missing from the ledger")]
    MissingResolvedRound,
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The reports of every gaming day of the period, by their path in the export
/// ([`fmt::report_names`]).
fn build_reports(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<(String, Vec<u8>)>, ExportError> {
    let plans = rules::PlanBook::builtin()?;
    let mut reports = Vec::new();
    for day in from.iter_days().take_while(|d| *d <= to) {
        let [daily_name, shoes_name] = fmt::report_names(day);
        let report = daily::build(conn, clock, day)?;
        reports.push((daily_name, daily::to_csv(&report)?.into_bytes()));
        let audit = crate::shoes::build(conn, clock, day, &plans)?;
        reports.push((shoes_name, crate::shoes::to_csv(&audit)?.into_bytes()));
    }
    Ok(reports)
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ExportSummary {
    pub dir: PathBuf,
    pub period_entries: u64,
    pub first_index: u64,
    pub checkpoint_size: u64,
    pub latest_size: u64,
    /// Rounds played in the period but received after it, exported with their proofs.
    pub late_rounds: u64,
    pub files: usize,
    /// Where the export's entries were read: the replica once it held the checkpoint that
    /// covers the export's seals, else the primary.
    pub read_from: crate::coverage::ReadFrom,
}

/// How long an export waits for the replica to replay the checkpoint that covers its seals
/// before it reads on the primary instead.
pub const REPLICA_CATCH_UP: std::time::Duration = std::time::Duration::from_secs(30);

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

struct Writer {
    dir: PathBuf,
    sums: BTreeMap<String, String>,
}

impl Writer {
    fn file(&mut self, name: &str, bytes: &[u8]) -> Result<(), ExportError> {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ExportError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(&path, bytes).map_err(|source| ExportError::Io { path, source })?;
        self.sums.insert(name.to_owned(), fmt::sha256_hex(bytes));
        Ok(())
    }

    /// A large file written a piece at a time: `fill` gets a sink to write into.
    fn stream(
        &mut self,
        name: &str,
        fill: impl FnOnce(&mut StreamSink) -> Result<(), ExportError>,
    ) -> Result<(), ExportError> {
        let path = self.dir.join(name);
        let file = std::fs::File::create(&path).map_err(|source| ExportError::Io {
            path: path.clone(),
            source,
        })?;
        let mut sink = StreamSink {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            hasher: sha2::Sha256::new(),
            path: path.clone(),
        };
        fill(&mut sink)?;
        sink.out
            .flush()
            .map_err(|source| ExportError::Io { path, source })?;
        self.sums
            .insert(name.to_owned(), hex::encode(sink.hasher.finalize()));
        Ok(())
    }

    fn json(&mut self, name: &str, value: &impl serde::Serialize) -> Result<(), ExportError> {
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        self.file(name, &bytes)
    }
}

/// Where a streamed file goes: written and hashed as it is filled.
struct StreamSink {
    out: std::io::BufWriter<std::fs::File>,
    hasher: sha2::Sha256,
    path: PathBuf,
}

impl StreamSink {
    fn line(&mut self, bytes: &[u8]) -> Result<(), ExportError> {
        use sha2::Digest as _;
        self.hasher.update(bytes);
        self.hasher.update(b"\n");
        self.out
            .write_all(bytes)
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|source| ExportError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

/// Rows read per query when streaming the large files.
const PAGE: i64 = 20_000;

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

/// Flushes the files and their directories to disk, so that an export reported as written
/// survives a crash.
fn make_durable<'a>(dir: &Path, files: impl Iterator<Item = &'a str>) -> Result<(), ExportError> {
    let sync = |path: PathBuf| {
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(|source| ExportError::Io { path, source })
    };
    let mut dirs = std::collections::BTreeSet::new();
    // The directory's own entry in its parent too.
    match dir.parent() {
        Some(parent) if parent.as_os_str().is_empty() => dirs.insert(PathBuf::from(".")),
        Some(parent) => dirs.insert(parent.to_path_buf()),
        None => false,
    };
    for name in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            dirs.insert(parent.to_path_buf());
        }
        sync(path)?;
    }
    dirs.into_iter().try_for_each(sync)
}

/// Inclusion proofs of the entries at `indexes` to the tree of size `size`.
fn proofs_file(
    conn: &mut PgConnection,
    indexes: &[u64],
    size: u64,
) -> Result<ProofsFile, ExportError> {
    let proofs = indexes
        .iter()
        .map(|&index| {
            let (_, proof) = tree::inclusion_proof(conn, index, size)?;
            Ok(InclusionProof {
                index,
                proof: proof.iter().map(hex::encode).collect(),
            })
        })
        .collect::<Result<_, ExportError>>()?;
    Ok(ProofsFile { size, proofs })
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

/// The export's latest checkpoint: the newest with `witnesses.quorum` cosignatures at least as
/// large as `latest` (waiting up to `witnesses.wait` for the witnesses to cosign it), else
/// `latest` with the cosignatures it has; with its note, cosignature lines included.
fn witnessed_latest(
    conn: &mut PgConnection,
    witnesses: &ExportWitnesses,
    latest: checkpoints::CheckpointRow,
) -> Result<(checkpoints::CheckpointRow, String), ExportError> {
    if witnesses.keys.is_empty() {
        let note = latest.note.clone();
        return Ok((latest, note));
    }
    let deadline = std::time::Instant::now() + witnesses.wait;
    loop {
        let found = cosignatures::latest_with_quorum(conn, &witnesses.keys, witnesses.quorum)?;
        if let Some(found) = found.filter(|f| f.checkpoint.size >= latest.size) {
            let note = found.note();
            return Ok((found.checkpoint, note));
        }
        if std::time::Instant::now() >= deadline {
            let found = cosignatures::cosigned(conn, latest, &witnesses.keys)?;
            let note = found.note();
            return Ok((found.checkpoint, note));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Writes the export of gaming days `from..=to` into `dir` (created; must be empty), its
/// reports sealed in the name of `actor` (whose request it is), calling
/// `progress(entries written, entries to write)` after each page of entries (for a progress
/// bar on long exports).
#[allow(clippy::too_many_arguments)]
pub fn write_export(
    conn: &mut PgConnection,
    clock: &GamingDayClock,
    sealer: &NoteSigner,
    actor: &str,
    from: NaiveDate,
    to: NaiveDate,
    dir: &Path,
    now: DateTime<Utc>,
    nightly_from: Option<&Path>,
    witnesses: &ExportWitnesses,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExportSummary, ExportError> {
    write_export_reading(
        conn,
        None,
        clock,
        sealer,
        actor,
        (from, to),
        dir,
        now,
        nightly_from,
        witnesses,
        progress,
    )
}

/// [`write_export`], its entries read on `replica` (when given, and once it holds the
/// checkpoint that covers the export's seals, which are written on `conn`, the primary).
#[allow(clippy::too_many_arguments)]
pub fn write_export_reading(
    primary: &mut PgConnection,
    replica: Option<&mut PgConnection>,
    clock: &GamingDayClock,
    sealer: &NoteSigner,
    actor: &str,
    (from, to): (NaiveDate, NaiveDate),
    dir: &Path,
    now: DateTime<Utc>,
    nightly_from: Option<&Path>,
    witnesses: &ExportWitnesses,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExportSummary, ExportError> {
    if to < from {
        return Err(ExportError::BadPeriod { from, to });
    }
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(ExportError::NotEmpty(dir.to_path_buf()));
    }
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut w = Writer {
        dir: dir.to_path_buf(),
        sums: BTreeMap::new(),
    };

    // The reports are sealed into the ledger and covered by a checkpoint before the export is
    // cut, so the export carries their seals and a verifier can tell a changed report.
    let reports = build_reports(primary, clock, from, to)?;
    let published =
        published_reports::publish(primary, sealer.signing_key(), &reports, actor, now)?;
    let sealed_size = reads::size(primary)?;
    let covered = checkpoints::latest(primary)?.map(|c| c.size as u64);
    if published.iter().any(|p| p.appended) || covered.is_none_or(|c| c < sealed_size) {
        checkpoints::create(primary, sealer, sealed_size, now)?;
    }
    // Everything below is read only, of entries below `sealed_size`: on the replica once it
    // has replayed the checkpoint just ensured.
    let (conn, read_from): (&mut PgConnection, _) = match replica {
        Some(replica) => {
            if replica_holds(replica, sealed_size, REPLICA_CATCH_UP) {
                (replica, crate::coverage::ReadFrom::Replica)
            } else {
                (primary, crate::coverage::ReadFrom::Primary)
            }
        }
        None => (primary, crate::coverage::ReadFrom::Primary),
    };

    let (starts_at, _) = clock.bounds(from);
    let (_, ends_at) = clock.bounds(to);
    // The export stops at the checkpoint just ensured: entries a running server appends
    // meanwhile belong to a later export, not to a race for a checkpoint not yet signed.
    let size = sealed_size;
    let period_first = first_index_at(conn, starts_at, size)?;
    let period_end = first_index_at(conn, ends_at, size)?;
    // Entries of an archived range are in the export that archived them, not here. A period
    // that starts where an archive ended has no link before it: the range_archived event (in
    // registry.jsonl) names the archived range's last leaf, its first entry's prev_hash.
    let archived_below = ledger::storage::archive::archived_below(conn)?;
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
    let run_end = period_end + u64::from(link_after);

    let checkpoint_row = checkpoints::covering(conn, run_end)?.ok_or(ExportError::NoCheckpoint)?;
    let latest_row = checkpoints::latest(conn)?.ok_or(ExportError::NoCheckpoint)?;
    let (latest_row, latest_note) = witnessed_latest(conn, witnesses, latest_row)?;
    let parse = |note: &str, key: &str| -> Result<Checkpoint, ExportError> {
        let unreadable = ExportError::Checkpoint;
        let verifier = NoteVerifier::parse(key).map_err(unreadable)?;
        let (text, _) = open(note, &[verifier]).map_err(unreadable)?;
        Checkpoint::parse(text).map_err(unreadable)
    };
    let checkpoint = parse(&checkpoint_row.note, &checkpoint_row.verifier_key)?;
    let latest = parse(&latest_row.note, &latest_row.verifier_key)?;

    // Entries, from the link before the period to the link after it.
    w.stream(fmt::ENTRIES, |sink| {
        let mut next = first_index as i64;
        while (next as u64) < run_end {
            let page = report_reads::inspection::entries_from(conn, next, run_end as i64, PAGE)?;
            if page.is_empty() {
                break;
            }
            for e in &page {
                sink.line(e)?;
            }
            next += page.len() as i64;
            progress(next as u64 - first_index, run_end - first_index);
        }
        Ok(())
    })?;

    let run_len = run_end - first_index;
    let wanted = range_nodes_needed(first_index, run_len, checkpoint.size)
        .map_err(|e| ExportError::Tree(e.into()))?;
    let nodes = tree::fetch(conn, &wanted)?;
    let tree_file = TreeFile {
        size: checkpoint.size,
        nodes: wanted
            .iter()
            .map(|(level, index)| {
                nodes
                    .get(&(*level, *index))
                    .map(|h| TreeNode {
                        level: *level,
                        index: *index,
                        hash: hex::encode(h),
                    })
                    .ok_or_else(|| ExportError::MissingNode {
                        level: *level,
                        index: *index,
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    w.json(fmt::TREE, &tree_file)?;
    w.file(fmt::CHECKPOINT, checkpoint_row.note.as_bytes())?;
    w.file(fmt::CHECKPOINT_LATEST, latest_note.as_bytes())?;
    let proof = if checkpoint.size == 0 || checkpoint.size == latest.size {
        Vec::new()
    } else {
        tree::consistency_proof(conn, checkpoint.size, latest.size)?.2
    };
    w.json(
        fmt::CONSISTENCY,
        &ConsistencyFile {
            first: checkpoint.size,
            second: latest.size,
            proof: proof.iter().map(hex::encode).collect(),
        },
    )?;

    // Registry events the latest checkpoint covers, with inclusion proofs: the table-key
    // history, the API keys and every resolution of a finding made so far.
    let registry_rows: Vec<_> = registry_log::events_after(conn, None)?
        .into_iter()
        .filter(|row| row.idx < latest.size as i64)
        .collect();
    let mut history = RegistryHistory::default();
    let mut registry_lines = Vec::new();
    let mut registry_indexes = Vec::with_capacity(registry_rows.len());
    for row in &registry_rows {
        let index = row.idx as u64;
        let registry = |reason| ExportError::Registry { index, reason };
        let (signer, event) = RegistryEvent::with_signer(&row.entry).map_err(registry)?;
        history
            .apply(index, row.received_at, &signer, &event)
            .map_err(registry)?;
        registry_lines.extend_from_slice(&row.entry);
        registry_lines.push(b'\n');
        registry_indexes.push(index);
    }
    w.file(fmt::REGISTRY, &registry_lines)?;
    w.json(
        fmt::REGISTRY_PROOFS,
        &proofs_file(conn, &registry_indexes, latest.size)?,
    )?;

    // The rounds of the resolved findings, wherever they lie, so that each resolution can be
    // checked against its round's re-adjudication; an archived round is in the export that
    // archived it (its range_archived event is in registry.jsonl).
    let resolved: BTreeSet<u64> = history
        .resolutions()
        .resolved_findings()
        .map(|r| r.round_index)
        .filter(|index| *index >= history.archived_below())
        .collect();
    let resolved: Vec<u64> = resolved.into_iter().collect();
    let mut round_lines = Vec::new();
    for chunk in resolved.chunks(PAGE as usize) {
        let wanted: Vec<i64> = chunk.iter().map(|i| *i as i64).collect();
        let rows = report_reads::inspection::entries_at(conn, &wanted)?;
        if rows.len() != chunk.len() {
            return Err(ExportError::MissingResolvedRound);
        }
        for entry in rows {
            round_lines.extend_from_slice(&entry);
            round_lines.push(b'\n');
        }
    }
    w.file(fmt::RESOLVED_ROUNDS, &round_lines)?;
    w.json(
        fmt::RESOLVED_ROUNDS_PROOFS,
        &proofs_file(conn, &resolved, latest.size)?,
    )?;
    // Rounds played in the period but received after it (a back-filled month, a table that
    // was offline): the entries above are the period by receipt, these complete it by play.
    let late = report_reads::inspection::rounds_played_in_received_from(
        conn,
        (starts_at, ends_at),
        period_end as i64,
        latest.size as i64,
    )?;
    let late: Vec<u64> = late.into_iter().map(|i| i as u64).collect();
    w.stream(fmt::LATE_ROUNDS, |sink| {
        for chunk in late.chunks(PAGE as usize) {
            let wanted: Vec<i64> = chunk.iter().map(|i| *i as i64).collect();
            let rows = report_reads::inspection::entries_at(conn, &wanted)?;
            for entry in rows {
                sink.line(&entry)?;
            }
        }
        Ok(())
    })?;
    w.json(
        fmt::LATE_ROUNDS_PROOFS,
        &proofs_file(conn, &late, latest.size)?,
    )?;
    w.json(fmt::KEYS, &KeyRecord::from_history(&history))?;
    let mut plan_ids: BTreeSet<String> = history.tables().map(|t| t.plan_id.clone()).collect();

    w.stream(fmt::ADJUDICATIONS, |sink| {
        let mut next = period_first as i64;
        loop {
            let page =
                report_reads::inspection::verdicts_from(conn, next, period_end as i64, PAGE)?;
            let Some(last) = page.last() else {
                return Ok(());
            };
            next = last.ledger_index + 1;
            for StoredVerdict {
                ledger_index: index,
                plan_id,
                verdict,
            } in page
            {
                plan_ids.insert(plan_id);
                let verdict: serde_json::Value = serde_json::from_str(&verdict)?;
                // Canonical, so that a verifier can compare its own verdict byte for byte.
                let line = serde_json::to_value(AdjudicationLine {
                    index: index as u64,
                    verdict,
                })?;
                sink.line(
                    &dozor_log::canonical::canonicalize(&line)
                        .map_err(ledger::LedgerError::from)?,
                )?;
            }
        }
    })?;
    let sources: HashMap<String, &str> = plan_ids
        .iter()
        .filter_map(|id| rules::PlanBook::builtin_source(id).map(|s| (id.clone(), s)))
        .collect();
    for (id, text) in sources {
        w.file(&format!("plans/{id}.toml"), text.as_bytes())?;
        if let Some(figures) = rules::PlanBook::builtin_figures_source(&id) {
            w.file(&format!("plans/{id}.rtp.toml"), figures.as_bytes())?;
        }
    }
    for (name, bytes) in &reports {
        w.file(name, bytes)?;
    }
    if let Some(data_dir) = nightly_from {
        // The nightly job's reports of the period, as they are under the data directory: the
        // verifier checks each against its seal (a missing one fails too).
        let sealed = published_reports::latest_publications(conn)?;
        for day in from.iter_days().take_while(|d| *d <= to) {
            let prefix = crate::nightly::night_prefix(day);
            let mut names: Vec<&String> =
                sealed.keys().filter(|n| n.starts_with(&prefix)).collect();
            names.sort();
            for name in names {
                let path = data_dir.join(name);
                match std::fs::read(&path) {
                    Ok(bytes) => w.file(name, &bytes)?,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => return Err(ExportError::Io { path, source }),
                }
            }
        }
    }

    let info = ExportInfo {
        format: fmt::FORMAT.to_owned(),
        origin: checkpoint.origin.clone(),
        from: from.to_string(),
        to: to.to_string(),
        starts_at,
        ends_at,
        first_index,
        period_first_index: period_first,
        period_entries: period_end - period_first,
        link_after,
        late_rounds: late.len() as u64,
        created_at: now,
    };
    w.json(fmt::EXPORT_JSON, &info)?;

    let mut manifest = Vec::new();
    for (path, sum) in &w.sums {
        let _ = writeln!(manifest, "{sum}  {path}");
    }
    let path = dir.join(fmt::MANIFEST);
    std::fs::write(&path, manifest).map_err(|source| ExportError::Io { path, source })?;
    let written: Vec<&str> = w.sums.keys().map(String::as_str).collect();
    make_durable(dir, written.iter().copied().chain([fmt::MANIFEST]))?;
    Ok(ExportSummary {
        dir: dir.to_path_buf(),
        period_entries: info.period_entries,
        first_index: period_first,
        checkpoint_size: checkpoint.size,
        latest_size: latest.size,
        late_rounds: info.late_rounds,
        files: w.sums.len() + 1,
        read_from,
    })
}
