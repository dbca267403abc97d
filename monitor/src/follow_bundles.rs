//! The entry bundles of a walked range, followed: fetched in order on one thread, checked on
//! every core (each bundle on its own: its entries, their signatures, its rounds judged), and
//! taken in the log's order on this thread, where each continues the followed state, its table
//! records are checked against every record followed before, and it is committed with the
//! bundles before it, a group of them a transaction: a monitor killed anywhere resumes at the
//! last group committed and counts nothing twice.
//!
//! A bundle is checked with the registry as it stood when it was handed out; if a bundle before
//! it changed the registry (a table registered, a key rotated) it is checked again, in order,
//! with the registry that bundle left.

use std::cell::RefCell;
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use diesel::PgConnection;
use serde_json::json;

use dozor_log::entry_check::SignatureCheck;
use dozor_log::merkle::Hash;
use dozor_log::tiles::TILE_WIDTH;
use dozor_log::tiles::{bundle_leaf_hashes, decode_bundle, decode_hashes, Tile, TileKind};

use crate::bundle_check::{
    check_entries, continue_followed, first_difference, BundleProblem, BundleStart, CheckedBundle,
    Context, Evidence, Followed, Mismatch, Notice, Registry,
};
use crate::config::CasinoConfig;
use crate::fetch::{
    get_tile, need_tile, FetchError, TileSource, BUNDLE_LIMIT, HASH_TILE_LIMIT, VERDICTS_LIMIT,
};
use crate::record_runs::{replay_message, RecordRuns};
use crate::step::FollowError;
use crate::store::alerts::{raise, NewAlert};
use crate::store::state;
use crate::tile_math::{run_root, verdicts_path};
use crate::tree_check::TileSummary;
use crate::verdict_lines::{parse_verdict_lines, VerdictLine};

/// How many bundles (with their verdict lines) are fetched ahead of the ones being checked, and
/// by how many threads.
const FETCH_AHEAD: usize = 16;
pub(crate) const FETCHING_THREADS: usize = 4;

/// A group's transaction is committed once it holds `[follow] commit_entries` entries, or once
/// its first bundle has waited this long: few transactions while catching up, little delay when
/// live.
const GROUP_WAIT: Duration = Duration::from_secs(1);

/// A bundle's bytes and its casino's verdict lines (none when not published), as fetched.
type FetchedBundle = Result<(Vec<u8>, Option<Vec<u8>>), FetchError>;

/// Raises `alert` and answers the step with it.
pub(crate) fn alarm(conn: &mut PgConnection, casino: &str, alert: NewAlert) -> FollowError {
    let message = alert.message.clone();
    match raise(conn, casino, &alert, Utc::now()) {
        Ok(_) => FollowError::Log(message),
        Err(e) => FollowError::Monitor(e),
    }
}

/// `text` cut to at most 4 096 bytes (at a character boundary): what an alert's evidence keeps
/// of what the casino sent.
pub(crate) fn cut(text: &str) -> String {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The entry bundle a walked tile summary stands for.
fn bundle_of(summary: &TileSummary) -> Tile {
    Tile {
        kind: TileKind::Entries,
        ..summary.tile
    }
}

/// The registry bundles are handed out with, and how many times it changed in this step.
type Snapshot = (Arc<Registry>, u64);

/// A bundle to check: its summary, what was fetched, the leaf its first new entry links to, and
/// the registry it is checked with.
struct Job<'s> {
    summary: &'s TileSummary,
    fetched: FetchedBundle,
    prev_leaf: Option<Hash>,
    registry: Snapshot,
}

/// A bundle checked on a checking thread, with what it was checked from (to check it again, or
/// to name a wrong entry).
struct Done<'s> {
    summary: &'s TileSummary,
    prev_leaf: Option<Hash>,
    version: u64,
    bytes: Vec<u8>,
    /// The casino's verdict lines, or why there are none.
    verdicts: Result<Vec<VerdictLine>, String>,
    checked: Result<CheckedBundle, BundleProblem>,
}

/// The casino's verdict lines of `bundle`, or why there are none.
fn verdict_lines(fetched: Option<Vec<u8>>, bundle: &Tile) -> Result<Vec<VerdictLine>, String> {
    match fetched {
        Some(bytes) => {
            parse_verdict_lines(&bytes, bundle.index * TILE_WIDTH, u64::from(bundle.width))
        }
        None => Err("not published".to_owned()),
    }
}

fn check(
    summary: &TileSummary,
    bytes: &[u8],
    prev_leaf: Option<Hash>,
    registry: &Registry,
    verdicts: &Result<Vec<VerdictLine>, String>,
    context: Context<'_>,
) -> Result<CheckedBundle, BundleProblem> {
    let start = BundleStart {
        prev_leaf,
        history: &registry.history,
        operators: &registry.operators,
    };
    let lines = verdicts.as_ref().ok().map(Vec::as_slice);
    check_entries(&bundle_of(summary), bytes, summary, start, lines, context)
}

/// A checking thread's work.
fn work<'s>(job: Job<'s>, context: Context<'_>) -> Result<Done<'s>, FetchError> {
    let (bytes, lines) = job.fetched?;
    let verdicts = verdict_lines(lines, &bundle_of(job.summary));
    let (registry, version) = job.registry;
    let checked = check(
        job.summary,
        &bytes,
        job.prev_leaf,
        &registry,
        &verdicts,
        context,
    );
    Ok(Done {
        summary: job.summary,
        prev_leaf: job.prev_leaf,
        version,
        bytes,
        verdicts,
        checked,
    })
}

/// Checks and commits each bundle of the walked range; the rounds judged and the state followed.
/// The bundles and their verdict lines are fetched by [`FETCHING_THREADS`] threads and handed
/// over in order, at most [`FETCH_AHEAD`] ahead; the first one that cannot be fetched ends the
/// fetching, and the step ends there once the bundles before it are committed.
pub(crate) fn follow_bundles(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &(dyn TileSource + Sync),
    followed: Followed,
    runs: &mut RecordRuns,
    summaries: &[TileSummary],
) -> Result<(u64, Followed), FollowError> {
    std::thread::scope(|scope| {
        let (send, fetched) = std::sync::mpsc::sync_channel::<FetchedBundle>(FETCH_AHEAD);
        scope.spawn(move || {
            // Several requests at once: one at a time, each waits its turn for the server and
            // for this thread while every core checks (the fetching paced the whole step).
            let stopped = dozor_log::ordered_pool::run_in_order(
                FETCHING_THREADS,
                FETCH_AHEAD,
                summaries.iter(),
                |summary| {
                    let bundle = bundle_of(summary);
                    need_tile(source, &bundle, BUNDLE_LIMIT).and_then(|bytes| {
                        Ok((bytes, get_tile(source, &bundle, true, VERDICTS_LIMIT)?))
                    })
                },
                |item| {
                    let failed = item.is_err();
                    // A closed channel: the step ended without the bundles still to come.
                    match send.send(item) {
                        Ok(()) if !failed => Ok(()),
                        _ => Err(()),
                    }
                },
                || (),
            );
            let _ = stopped;
        });
        let mut following = Following {
            conn,
            casino,
            source,
            committed: followed.size,
            followed,
            runs,
            pending: Pending::new(),
            rounds: 0,
        };
        let result = following.check_in_order(summaries, fetched);
        result.map(|()| (following.rounds, following.followed))
    })
}

/// What is checked but not committed yet.
struct Pending {
    evidence: Evidence,
    alerts: Vec<NewAlert>,
    entries: u64,
    since: Instant,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            evidence: Evidence::default(),
            alerts: Vec::new(),
            entries: 0,
            since: Instant::now(),
        }
    }
}

/// The in-order side of [`follow_bundles`].
struct Following<'a, 'c> {
    conn: &'a mut PgConnection,
    casino: &'c CasinoConfig,
    source: &'a dyn TileSource,
    followed: Followed,
    /// The size the casino's state was committed at.
    committed: u64,
    runs: &'a mut RecordRuns,
    pending: Pending,
    rounds: u64,
}

impl Following<'_, '_> {
    /// Hands the fetched bundles to every core and takes them back in order.
    fn check_in_order(
        &mut self,
        summaries: &[TileSummary],
        fetched: Receiver<FetchedBundle>,
    ) -> Result<(), FollowError> {
        let context = Context {
            plans: &self.casino.plans,
            clock: &self.casino.clock,
            signatures: SignatureCheck::Batch,
        };
        let registry = Registry {
            history: self.followed.history.clone(),
            operators: self.followed.operators.clone(),
        };
        let snapshot = RefCell::new((Arc::new(registry), 0u64));
        let first_prev = self.followed.last_leaf;
        let jobs = summaries.iter().enumerate().map(|(k, summary)| Job {
            summary,
            fetched: fetched.recv().unwrap_or_else(|_| {
                Err(FetchError::Unreachable {
                    path: bundle_of(summary).path(),
                    why: "the fetching stopped".into(),
                })
            }),
            prev_leaf: match k {
                0 => first_prev,
                _ => Some(summaries[k - 1].last),
            },
            registry: snapshot.borrow().clone(),
        });
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let casino = self.casino.name.clone();
        let result = dozor_log::ordered_pool::run_in_order(
            threads,
            4 * threads + 8,
            jobs,
            |job| work(job, context),
            |done| self.take(done?, &snapshot, context),
            || {
                FollowError::Monitor(crate::error::MonitorError::Casino {
                    casino: casino.clone(),
                    message: "a checking thread failed".into(),
                })
            },
        );
        // What was checked before a failure is kept.
        let flushed = self.flush();
        result.and(flushed)
    }

    /// Takes the next bundle in order: checked again if the registry changed since it was
    /// handed out; its records checked against those followed; then the followed state continued
    /// and its evidence added to the group. Nothing of a refused bundle is kept: the group
    /// before it is committed and the alert raised.
    fn take(
        &mut self,
        done: Done<'_>,
        snapshot: &RefCell<Snapshot>,
        context: Context<'_>,
    ) -> Result<(), FollowError> {
        let bundle = bundle_of(done.summary);
        if let Err(why) = &done.verdicts {
            self.verdicts_missing(&bundle, why)?;
        }
        let current = snapshot.borrow().clone();
        let checked = if done.version == current.1 {
            done.checked
        } else {
            let (registry, _) = &current;
            check(
                done.summary,
                &done.bytes,
                done.prev_leaf,
                registry,
                &done.verdicts,
                context,
            )
        };
        let mut checked = match checked {
            Ok(checked) => checked,
            Err(problem) => return Err(self.refuse(&bundle, done.summary, &done.bytes, problem)),
        };
        if let Some((record, held)) = self.runs.find_replay(&checked.evidence.records) {
            let why = format!("entry {}: {}", record.index, replay_message(record, &held));
            let key = format!("entry:{}", record.index);
            return Err(self.refuse_with(&bundle, key, why));
        }
        // The group's tallies with the bundle's, before anything is changed.
        let mut tallies = self.pending.evidence.tallies.clone();
        if let Err(overflow) = tallies.absorb(std::mem::take(&mut checked.evidence.tallies)) {
            let key = format!("bundle:{}", bundle.path());
            return Err(self.refuse_with(&bundle, key, overflow.to_string()));
        }
        if let Err(problem) = continue_followed(&mut self.followed, &bundle, done.summary, &checked)
        {
            return Err(self.refuse(&bundle, done.summary, &done.bytes, problem));
        }
        self.runs.add(&checked.evidence.records);
        if let Some(registry) = checked.registry {
            *snapshot.borrow_mut() = (Arc::new(registry), current.1 + 1);
        }
        self.pending.evidence.tallies = tallies;
        let entries = (checked.leaves.len() - checked.before) as u64;
        self.add(checked.evidence, entries)
    }

    /// Adds a bundle's evidence (its tallies already added) to the group; commits the group
    /// when it is large or old enough.
    fn add(&mut self, evidence: Evidence, entries: u64) -> Result<(), FollowError> {
        self.rounds += evidence.rounds;
        self.pending
            .alerts
            .extend(outcome_alerts(&evidence.notices, &evidence.mismatches));
        if self.pending.entries == 0 {
            self.pending.since = Instant::now();
        }
        self.pending.entries += entries;
        self.pending.evidence.absorb(evidence).map_err(|overflow| {
            FollowError::Log(format!("the group's sums overflow: {overflow}"))
        })?;
        if self.pending.entries >= self.casino.commit_entries
            || self.pending.since.elapsed() >= GROUP_WAIT
        {
            self.flush()?;
        }
        Ok(())
    }

    /// Commits the group: its evidence, alerts, the records' runs and the followed state.
    fn flush(&mut self) -> Result<(), FollowError> {
        if self.followed.size == self.committed {
            return Ok(());
        }
        let pending = std::mem::replace(&mut self.pending, Pending::new());
        let changes = self.runs.take_changes();
        let casino = self.casino.name.as_str();
        state::commit_group(
            self.conn,
            casino,
            self.committed,
            &self.followed,
            &pending.evidence,
            &changes,
            &pending.alerts,
            Utc::now(),
        )?;
        self.committed = self.followed.size;
        Ok(())
    }

    /// The alert for a bundle whose verdict lines are missing or do not read: the monitor's own
    /// judgement goes on without them.
    fn verdicts_missing(&mut self, bundle: &Tile, why: &str) -> Result<(), FollowError> {
        let path = verdicts_path(bundle);
        let casino = self.casino.name.clone();
        raise(
            self.conn,
            &casino,
            &NewAlert {
                kind: "verdicts_missing",
                key: format!("verdicts:{}", bundle.index),
                message: format!(
                    "{path}: {why}; the rounds are judged without the casino's verdicts"
                ),
                evidence: json!({"path": path, "problem": why}),
            },
            Utc::now(),
        )?;
        Ok(())
    }

    /// A bundle refused: what came before it committed, the alert raised.
    fn refuse(
        &mut self,
        bundle: &Tile,
        summary: &TileSummary,
        bytes: &[u8],
        problem: BundleProblem,
    ) -> FollowError {
        let problem = name_leaf(self.source, summary, bytes, problem);
        let key = match &problem {
            BundleProblem::Entry { index, .. } => format!("entry:{index}"),
            BundleProblem::Leaves {
                first: Some(index), ..
            } => format!("entry:{index}"),
            _ => format!("bundle:{}", bundle.path()),
        };
        self.refuse_with(bundle, key, problem.to_string())
    }

    /// [`Self::refuse`] with the alert's key and message.
    fn refuse_with(&mut self, bundle: &Tile, key: String, message: String) -> FollowError {
        if let Err(e) = self.flush() {
            return e;
        }
        let casino = self.casino.name.clone();
        alarm(
            self.conn,
            &casino,
            NewAlert {
                kind: "entry",
                key,
                message: message.clone(),
                evidence: json!({"bundle": bundle.path(), "problem": cut(&message)}),
            },
        )
    }
}

/// Entries that do not hash to the verified leaves: the first one named, from the level-0 tile
/// fetched again (if it still gives the verified root).
fn name_leaf(
    source: &dyn TileSource,
    summary: &TileSummary,
    bundle: &[u8],
    problem: BundleProblem,
) -> BundleProblem {
    let BundleProblem::Leaves { path, first: None } = problem else {
        return problem;
    };
    let skip = (summary.from - summary.tile.index * TILE_WIDTH) as usize;
    let bundle_tile = bundle_of(summary);
    let first = get_tile(source, &summary.tile, false, HASH_TILE_LIMIT)
        .ok()
        .flatten()
        .and_then(|bytes| decode_hashes(&summary.tile, &bytes).ok())
        .filter(|hashes| hashes.len() >= skip && run_root(&hashes[skip..]) == summary.root)
        .and_then(|hashes| {
            let entries = decode_bundle(&bundle_tile, bundle).ok()?;
            let leaves = bundle_leaf_hashes(&entries);
            first_difference(leaves.get(skip..)?, &hashes[skip..])
        })
        .map(|n| summary.from + n as u64);
    BundleProblem::Leaves { path, first }
}

/// The alerts a committed bundle raises: a round not judged, a plan not held, each round whose
/// verdict differs from the casino's.
fn outcome_alerts(notices: &[Notice], mismatches: &[Mismatch]) -> Vec<NewAlert> {
    let mut alerts: Vec<NewAlert> = notices
        .iter()
        .map(|notice| match notice {
            Notice::UnknownPlan { index, plan_id } => NewAlert {
                kind: "unknown_plan",
                key: format!("plan:{plan_id}"),
                message: format!("entry {index}: a round under plan {plan_id}, which the monitor does not hold: its rounds are counted, not judged"),
                evidence: json!({"index": index, "plan_id": plan_id}),
            },
            Notice::Unjudged { index, why } => NewAlert {
                kind: "unjudged_round",
                key: format!("unjudged:{index}"),
                message: format!("entry {index}: the round cannot be judged: {why}"),
                evidence: json!({"index": index, "why": why}),
            },
        })
        .collect();
    let mut indexes: Vec<u64> = mismatches.iter().map(|m| m.index).collect();
    indexes.dedup();
    for index in indexes {
        let fields: Vec<_> = mismatches.iter().filter(|m| m.index == index).collect();
        let evidence: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|m| {
                (
                    m.difference.field.to_owned(),
                    json!({"casino": m.difference.casino, "monitor": m.difference.monitor}),
                )
            })
            .collect();
        let names: Vec<&str> = fields.iter().map(|m| m.difference.field).collect();
        alerts.push(NewAlert {
            kind: "verdict_mismatch",
            key: format!("mismatch:{index}"),
            message: format!(
                "entry {index}: the casino's verdict differs from the monitor's in {}",
                names.join(", ")
            ),
            evidence: json!({"index": index, "differences": evidence}),
        });
    }
    alerts
}
