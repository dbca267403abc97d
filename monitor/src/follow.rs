//! One step of following one casino: its checkpoint fetched and opened; compared with the one
//! held (a smaller tree or another root: both notes kept, an alert, never followed again); the
//! new range's tiles walked to the checkpoint's root; then each entry bundle checked and
//! committed with its tallies and the followed state in one transaction.

use chrono::Utc;
use diesel::PgConnection;
use serde_json::json;
use sha2::Digest as _;

use dozor_log::checkpoint::Checkpoint;
use dozor_log::entry_check::SignatureCheck;
use dozor_log::merkle::empty_root;
use dozor_log::tiles::{
    bundle_leaf_hashes, decode_bundle, decode_hashes, Tile, TileKind, TILE_WIDTH,
};

use crate::bundle_check::{
    check_bundle, first_difference, replayed, BundleProblem, Context, Followed, Notice,
};
use crate::checkpoint_check::{
    check_rotation, compare, known_operator_keys, open_checkpoint, Against, Held, OpenedCheckpoint,
    Trust,
};
use crate::config::CasinoConfig;
use crate::consistency::{self, Consistency};
use crate::error::MonitorError;
use crate::fetch::{
    FetchError, TileSource, BUNDLE_LIMIT, CHECKPOINT_LIMIT, HASH_TILE_LIMIT, VERDICTS_LIMIT,
};
use crate::store::alerts::{keep_fork, raise, NewAlert};
use crate::store::state::{self, CasinoState};
use crate::tile_math::{cut_to_width, run_root, verdicts_path};
use crate::tree_check::{tiles_to_fetch, TileSummary, TreeProblem, TreeWalk, WalkedTree};
use crate::verdict_lines::{parse_verdict_lines, VerdictLine};

/// How a step ended when nothing went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing new: followed to the checkpoint's size.
    UpToDate { size: u64 },
    /// Followed from one size to another; the rounds judged on the way.
    Followed { from: u64, to: u64, rounds: u64 },
    /// The checkpoint lacks its witnesses' cosignatures (yet): not followed.
    Waiting { size: u64, why: String },
    /// The log forked or was rolled back: it is not followed any more.
    Halted { why: String },
}

/// Why a step did not end well.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error(transparent)]
    Monitor(#[from] MonitorError),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The casino's log is wrong here; an alert says so.
    #[error("{0}")]
    Log(String),
}

/// SHA-256 of a note, hex: what tells one checkpoint's alerts from another's.
fn note_digest(note: &str) -> String {
    hex::encode(sha2::Sha256::digest(note.as_bytes()))
}

fn get(source: &dyn TileSource, path: &str, limit: u64) -> Result<Vec<u8>, FollowError> {
    source.get(path, limit)?.ok_or_else(|| {
        FollowError::Fetch(FetchError::Status {
            path: path.to_owned(),
            status: 404,
            message: "not published".into(),
        })
    })
}

/// A tile's bytes: the tile, or when a partial one is gone (the casino published the full tile
/// since), the prefix of the full tile of the same index: those bytes are checked against the
/// tree being followed like any others. Never a partial tile of another width: tlog-tiles lets a
/// client fetch only the partial tiles a checkpoint it verified requires, and a checkpoint fetched
/// here would be unverified. `verdicts` for the casino's verdict lines of a bundle.
pub(crate) fn get_tile(
    source: &dyn TileSource,
    tile: &Tile,
    verdicts: bool,
    limit: u64,
) -> Result<Option<Vec<u8>>, FetchError> {
    let path_of = |t: &Tile| if verdicts { verdicts_path(t) } else { t.path() };
    if let Some(bytes) = source.get(&path_of(tile), limit)? {
        return Ok(Some(bytes));
    }
    if tile.is_full() {
        return Ok(None);
    }
    let full = Tile {
        width: TILE_WIDTH as u16,
        ..*tile
    };
    Ok(source
        .get(&path_of(&full), limit)?
        .and_then(|bytes| cut_to_width(tile, &full, &bytes, verdicts)))
}

/// [`get_tile`], which must be there.
fn need_tile(source: &dyn TileSource, tile: &Tile, limit: u64) -> Result<Vec<u8>, FetchError> {
    get_tile(source, tile, false, limit)?.ok_or_else(|| FetchError::Status {
        path: tile.path(),
        status: 404,
        message: "not published".into(),
    })
}

/// Raises `alert` and answers the step with it.
fn alarm(conn: &mut PgConnection, casino: &str, alert: NewAlert) -> FollowError {
    let message = alert.message.clone();
    match raise(conn, casino, &alert, Utc::now()) {
        Ok(_) => FollowError::Log(message),
        Err(e) => FollowError::Monitor(e),
    }
}

/// One step of following `casino` from `source`.
pub fn follow_once(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &(dyn TileSource + Sync),
) -> Result<Step, FollowError> {
    let name = casino.name.as_str();
    let state = state::load(conn, name, &casino.operator_keys)?;
    if let Some(why) = state.halted {
        return Ok(Step::Halted { why });
    }
    let held = state.checkpoint.as_ref().map(|c| c.held);
    let opened = match fetch_checkpoint(conn, casino, source, &state)? {
        Ok(opened) => opened,
        Err((waiting, Some(signed))) => {
            return unwitnessed(conn, casino, source, &state, waiting, &signed)
        }
        Err((waiting, None)) => return Ok(waiting),
    };
    let note = opened.note.clone();
    let target = match compare(held, &opened.checkpoint) {
        Against::Smaller => return smaller(conn, name, source, &state, &opened),
        Against::Forked => return fork(conn, name, &state, &opened, "fork"),
        Against::Same if state.followed.size == opened.checkpoint.size => {
            return Ok(Step::UpToDate {
                size: state.followed.size,
            })
        }
        Against::Same | Against::Larger => opened.checkpoint.clone(),
    };
    let from = state.followed.size;
    if target.size - from > casino.max_step_entries {
        return Err(alarm(
            conn,
            name,
            NewAlert {
                kind: "too_far_ahead",
                key: format!("too_far_ahead:{from}"),
                message: format!(
                    "the checkpoint is {} entries ahead of the {from} followed, more than one step follows ([follow] max_step_entries = {})",
                    target.size - from,
                    casino.max_step_entries
                ),
                evidence: json!({"note": note, "followed": from}),
            },
        ));
    }
    let walked = match walk(source, &state, &target) {
        Ok(walked) => walked,
        Err(FollowError::Log(m)) if m.starts_with(NOT_EXTENDING) => {
            return fork(conn, name, &state, &opened, "not_extending")
        }
        Err(FollowError::Log(m)) => {
            return Err(alarm(
                conn,
                name,
                NewAlert {
                    kind: "tiles",
                    key: format!("tiles:{from}"),
                    message: format!(
                        "the tiles of the checkpoint of size {} are wrong: {m}",
                        target.size
                    ),
                    evidence: json!({"note": note, "problem": cut(&m)}),
                },
            ))
        }
        Err(e) => return Err(e),
    };
    if held.is_none_or(|h| h.size < target.size) {
        let held = Held {
            size: target.size,
            root: target.root,
        };
        state::record_checkpoint(conn, name, held, &note, Utc::now())?;
    }
    let (rounds, followed) =
        follow_bundles(conn, casino, source, state.followed, &walked.summaries)?;
    check_signer(conn, &casino.name, &followed, &opened)?;
    Ok(Step::Followed {
        from,
        to: target.size,
        rounds,
    })
}

/// The casino's checkpoint, opened with the keys and witnesses trusted for it; or the step ends
/// waiting for its witnesses' cosignatures (with the checkpoint as the operator signed it, when
/// that signature verifies); or (an alert raised) it is refused.
fn fetch_checkpoint(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &dyn TileSource,
    state: &CasinoState,
) -> Result<Result<OpenedCheckpoint, (Step, Option<OpenedCheckpoint>)>, FollowError> {
    let note = get(source, "checkpoint", CHECKPOINT_LIMIT)?;
    let note = String::from_utf8(note)
        .map_err(|_| FollowError::Log("the checkpoint is not UTF-8".into()))?;
    let keys = known_operator_keys(&casino.operator_keys, &state.followed.history);
    let trust = Trust {
        operator_keys: &keys,
        witnesses: &casino.witnesses,
        quorum: casino.quorum,
    };
    match open_checkpoint(&note, trust) {
        Ok(opened) => Ok(Ok(opened)),
        Err(problem) if problem.is_waiting() => {
            let size = Checkpoint::parse(note.split("\n\n").next().unwrap_or_default())
                .map_or(0, |c| c.size);
            let signed = open_checkpoint(&note, Trust { quorum: 0, ..trust }).ok();
            let waiting = Step::Waiting {
                size,
                why: problem.to_string(),
            };
            Ok(Err((waiting, signed)))
        }
        Err(problem) => Err(alarm(
            conn,
            &casino.name,
            NewAlert {
                kind: "checkpoint",
                key: format!("checkpoint:refused:{}", state.followed.size),
                message: format!(
                    "the published checkpoint is refused: {}",
                    cut(&problem.to_string())
                ),
                evidence: json!({"note": cut(&note), "problem": cut(&problem.to_string())}),
            },
        )),
    }
}

/// A checkpoint the operator signed that lacks its witnesses' quorum. A smaller tree not in the
/// held one, another root of the held size, or a larger tree that does not contain the held one,
/// signed by the operator, is the operator's own evidence of a rollback or fork: the witnesses
/// that refuse to cosign it add nothing to it, and waiting for them would hide it. The larger
/// tree is checked with the few tiles a consistency proof needs, never walked: the walk waits for
/// the quorum. Anything else waits (a tile that cannot be read now included).
fn unwitnessed(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &dyn TileSource,
    state: &CasinoState,
    waiting: Step,
    signed: &OpenedCheckpoint,
) -> Result<Step, FollowError> {
    let name = casino.name.as_str();
    let held = state.checkpoint.as_ref().map(|c| c.held);
    match (compare(held, &signed.checkpoint), held) {
        (Against::Smaller, _) => smaller(conn, name, source, state, signed),
        (Against::Forked, _) => fork(conn, name, state, signed, "fork"),
        (Against::Larger, Some(held)) => {
            match consistency::check(&fetch_hashes(source), held, held_of(signed))? {
                Consistency::Differs => fork(conn, name, state, signed, "not_extending"),
                Consistency::Contains | Consistency::Unproven(_) => Ok(waiting),
            }
        }
        (Against::Same | Against::Larger, _) => Ok(waiting),
    }
}

/// The tree a checkpoint signs.
fn held_of(opened: &OpenedCheckpoint) -> Held {
    Held {
        size: opened.checkpoint.size,
        root: opened.checkpoint.root,
    }
}

/// Fetches hash tiles for [`consistency::check`].
fn fetch_hashes(
    source: &dyn TileSource,
) -> impl Fn(&Tile) -> Result<Option<Vec<u8>>, FetchError> + '_ {
    move |tile| get_tile(source, tile, false, HASH_TILE_LIMIT)
}

/// A signed tree smaller than the held one. When the held tree's tiles show the held tree
/// contains it, it is an older checkpoint served again (a stale cache): a warning, once per
/// held size, and nothing followed. When they show another root at that size, or the held
/// tree's tiles are not served any more (nor a larger tree's checkpoint), the log was rolled
/// back: both notes kept and the casino halted. A tile that cannot be fetched now is the step's
/// error.
fn smaller(
    conn: &mut PgConnection,
    casino: &str,
    source: &dyn TileSource,
    state: &CasinoState,
    seen: &OpenedCheckpoint,
) -> Result<Step, FollowError> {
    let Some(held) = state.checkpoint.as_ref().map(|c| c.held) else {
        return fork(conn, casino, state, seen, "rollback");
    };
    match consistency::check(&fetch_hashes(source), held_of(seen), held)? {
        Consistency::Contains => {
            let size = seen.checkpoint.size;
            raise(
                conn,
                casino,
                &NewAlert {
                    kind: "stale_checkpoint_served",
                    key: format!("stale_served:{}", held.size),
                    message: format!(
                        "the casino serves an older checkpoint, of {size} entries, after one of {} (a stale copy: the tree held contains it)",
                        held.size
                    ),
                    evidence: json!({"seen": seen.note, "held_size": held.size}),
                },
                Utc::now(),
            )?;
            Ok(Step::UpToDate {
                size: state.followed.size,
            })
        }
        Consistency::Differs | Consistency::Unproven(_) => {
            fork(conn, casino, state, seen, "rollback")
        }
    }
}

/// `text` cut to at most 4 096 bytes (at a character boundary): what an alert's evidence keeps
/// of what the casino sent.
fn cut(text: &str) -> String {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The prefix of the message a walk whose signed tree does not contain the held one fails with.
const NOT_EXTENDING: &str = "not extending: ";

/// Walks the tiles from the followed size to `target`.
fn walk(
    source: &dyn TileSource,
    state: &CasinoState,
    target: &Checkpoint,
) -> Result<WalkedTree, FollowError> {
    let held = state.checkpoint.as_ref().map_or(
        Held {
            size: 0,
            root: empty_root(),
        },
        |c| c.held,
    );
    let walked = match walk_from(source, state.followed.frontier.clone(), held, target)? {
        // The tiles give other leaves than those verified before: a fork when, from the start
        // of that tile, they make the signed tree (which then does not contain the held one);
        // a wrong tile otherwise.
        Err(rewritten @ TreeProblem::Rewritten { .. }) => {
            let start = state.followed.size / TILE_WIDTH * TILE_WIDTH;
            match frontier_from_tiles(source, start).map(|f| walk_from(source, f, held, target)) {
                Some(Ok(Err(fork @ TreeProblem::NotExtending { .. }))) => Err(fork),
                _ => Err(rewritten),
            }
        }
        walked => walked,
    };
    walked.map_err(|p| match p {
        p @ TreeProblem::NotExtending { .. } => FollowError::Log(format!("{NOT_EXTENDING}{p}")),
        p => FollowError::Log(p.to_string()),
    })
}

/// The walk from `frontier` to `target`'s root, through `held`: the tree, or what is wrong with
/// the tiles (a tile that cannot be fetched is the step's error).
fn walk_from(
    source: &dyn TileSource,
    frontier: dozor_log::merkle::Frontier,
    held: Held,
    target: &Checkpoint,
) -> Result<Result<WalkedTree, TreeProblem>, FollowError> {
    let (level0, higher) = tiles_to_fetch(frontier.size(), target.size);
    let mut walk = TreeWalk::new(frontier, held, target.clone());
    for tile in &level0 {
        if let Err(p) = walk.push_level0(tile, &need_tile(source, tile, HASH_TILE_LIMIT)?) {
            return Ok(Err(p));
        }
    }
    for tile in &higher {
        if let Err(p) = walk.check_higher(tile, &need_tile(source, tile, HASH_TILE_LIMIT)?) {
            return Ok(Err(p));
        }
    }
    Ok(walk.finish())
}

/// The frontier of the first `start` leaves (a multiple of 256) as the published hash tiles give
/// it, or none if they cannot be read. Unverified: a walk from it to a signed root verifies it.
fn frontier_from_tiles(source: &dyn TileSource, start: u64) -> Option<dozor_log::merkle::Frontier> {
    let mut set = dozor_log::tiles::TileSet::default();
    for tile in dozor_log::tiles::tiles_for_root(start).ok()? {
        let bytes = get_tile(source, &tile, false, HASH_TILE_LIMIT).ok()??;
        set.insert(&tile, decode_hashes(&tile, &bytes).ok()?);
    }
    dozor_log::merkle::Frontier::at(&set, start).ok()
}

/// Keeps both notes of a rollback or fork, raises the alert and stops following the casino.
fn fork(
    conn: &mut PgConnection,
    casino: &str,
    state: &CasinoState,
    seen: &OpenedCheckpoint,
    kind: &'static str,
) -> Result<Step, FollowError> {
    let held_note = state
        .checkpoint
        .as_ref()
        .map(|c| c.note.as_str())
        .unwrap_or_default();
    let held_size = state.checkpoint.as_ref().map_or(0, |c| c.held.size);
    let why = match kind {
        "rollback" => format!(
            "the log was rolled back: it now signs a tree of {} entries after one of {held_size}",
            seen.checkpoint.size
        ),
        "fork" => {
            format!("the log forked: two signed trees of {held_size} entries with different roots")
        }
        _ => format!(
            "the log forked: the signed tree of {} entries does not contain the one of {held_size}",
            seen.checkpoint.size
        ),
    };
    let now = Utc::now();
    keep_fork(conn, casino, kind, held_note, &seen.note, now)?;
    raise(
        conn,
        casino,
        &NewAlert {
            kind,
            key: format!("{kind}:{}", note_digest(&seen.note)),
            message: why.clone(),
            evidence: json!({"held": held_note, "seen": seen.note}),
        },
        now,
    )?;
    state::halt(conn, casino, &why)?;
    Ok(Step::Halted { why })
}

/// The casino's verdict lines of `bundle`, or none (with an alert) when they are missing or do
/// not read: the monitor's own judgement goes on without them.
fn verdicts(
    conn: &mut PgConnection,
    casino: &str,
    fetched: Option<Vec<u8>>,
    bundle: &Tile,
) -> Result<Option<Vec<VerdictLine>>, FollowError> {
    let path = verdicts_path(bundle);
    let why = match fetched {
        Some(bytes) => {
            match parse_verdict_lines(&bytes, bundle.index * TILE_WIDTH, u64::from(bundle.width)) {
                Ok(lines) => return Ok(Some(lines)),
                Err(why) => why,
            }
        }
        None => "not published".to_owned(),
    };
    raise(
        conn,
        casino,
        &NewAlert {
            kind: "verdicts_missing",
            key: format!("verdicts:{}", bundle.index),
            message: format!("{path}: {why}; the rounds are judged without the casino's verdicts"),
            evidence: json!({"path": path, "problem": why}),
        },
        Utc::now(),
    )?;
    Ok(None)
}

/// How many bundles (with their verdict lines) are fetched ahead of the one being checked.
const FETCH_AHEAD: usize = 6;

/// A bundle's bytes and its casino's verdict lines (none when not published), as fetched.
type FetchedBundle = Result<(Vec<u8>, Option<Vec<u8>>), FetchError>;

/// The entry bundle a walked tile summary stands for.
fn bundle_of(summary: &TileSummary) -> Tile {
    Tile {
        kind: TileKind::Entries,
        ..summary.tile
    }
}

/// Checks and commits each bundle of the walked range; the rounds judged and the state followed.
/// The bundles and their verdict lines are fetched in order on another thread, at most
/// [`FETCH_AHEAD`] ahead of the bundle being checked; the first one that cannot be fetched ends
/// the fetching, and the step ends there once the bundles before it are committed.
fn follow_bundles(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &(dyn TileSource + Sync),
    followed: Followed,
    summaries: &[TileSummary],
) -> Result<(u64, Followed), FollowError> {
    std::thread::scope(|scope| {
        let (send, fetched) = std::sync::mpsc::sync_channel::<FetchedBundle>(FETCH_AHEAD);
        scope.spawn(move || {
            for summary in summaries {
                let bundle = bundle_of(summary);
                let item = need_tile(source, &bundle, BUNDLE_LIMIT).and_then(|bytes| {
                    Ok((bytes, get_tile(source, &bundle, true, VERDICTS_LIMIT)?))
                });
                let failed = item.is_err();
                // A closed channel: the step ended without the bundles still to come.
                if send.send(item).is_err() || failed {
                    return;
                }
            }
        });
        commit_bundles(conn, casino, source, followed, summaries, fetched)
    })
}

/// [`follow_bundles`]' checking and committing, one bundle at a time in the log's order, from
/// the bundles `fetched` ahead.
fn commit_bundles(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &dyn TileSource,
    mut followed: Followed,
    summaries: &[TileSummary],
    fetched: std::sync::mpsc::Receiver<FetchedBundle>,
) -> Result<(u64, Followed), FollowError> {
    let name = casino.name.as_str();
    let context = Context {
        plans: &casino.plans,
        clock: &casino.clock,
        signatures: SignatureCheck::Batch,
    };
    let mut rounds = 0;
    for summary in summaries {
        let bundle = bundle_of(summary);
        let (bytes, lines) = fetched.recv().map_err(|_| {
            FollowError::Fetch(FetchError::Unreachable {
                path: bundle.path(),
                why: "the fetching stopped".into(),
            })
        })??;
        let lines = verdicts(conn, name, lines, &bundle)?;
        let outcome = match check_bundle(
            &bundle,
            &bytes,
            summary,
            &followed,
            lines.as_deref(),
            context,
        ) {
            Ok(outcome) => outcome,
            Err(problem) => {
                let problem = name_leaf(source, summary, &bytes, problem);
                let key = match &problem {
                    BundleProblem::Entry { index, .. } => format!("entry:{index}"),
                    BundleProblem::Leaves {
                        first: Some(index), ..
                    } => format!("entry:{index}"),
                    _ => format!("bundle:{}", bundle.path()),
                };
                return Err(alarm(
                    conn,
                    name,
                    NewAlert {
                        kind: "entry",
                        key,
                        message: format!("{problem}"),
                        evidence: json!({"bundle": bundle.path(), "problem": cut(&problem.to_string())}),
                    },
                ));
            }
        };
        if let Some((record, earlier)) = state::replayed_record(conn, name, &outcome.records)? {
            let why = replayed(record, earlier);
            return Err(alarm(
                conn,
                name,
                NewAlert {
                    kind: "entry",
                    key: format!("entry:{}", record.index),
                    message: format!("entry {}: {why}", record.index),
                    evidence: json!({"bundle": bundle.path(), "problem": why}),
                },
            ));
        }
        let alerts = outcome_alerts(&outcome.notices, &outcome.mismatches);
        state::commit_bundle(conn, name, followed.size, &outcome, &alerts, Utc::now())?;
        rounds += outcome.rounds;
        followed = outcome.followed;
    }
    Ok((rounds, followed))
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
    let bundle_tile = Tile {
        kind: TileKind::Entries,
        ..summary.tile
    };
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
fn outcome_alerts(
    notices: &[Notice],
    mismatches: &[crate::bundle_check::Mismatch],
) -> Vec<NewAlert> {
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

/// Once the log is followed to a checkpoint, its signer must be the key that held the log at that
/// size by the rotations the log records; an alert otherwise.
fn check_signer(
    conn: &mut PgConnection,
    casino: &str,
    followed: &Followed,
    opened: &OpenedCheckpoint,
) -> Result<(), FollowError> {
    let size = opened.checkpoint.size;
    let checked = followed
        .history
        .check_checkpoint_signer(&opened.signer, size)
        .and_then(|()| check_rotation(opened, &followed.history));
    if let Err(why) = checked {
        raise(
            conn,
            casino,
            &NewAlert {
                kind: "checkpoint",
                key: format!("signer:{size}"),
                message: format!("the checkpoint of size {size} is {why}"),
                evidence: json!({"note": opened.note, "problem": why}),
            },
            Utc::now(),
        )?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
