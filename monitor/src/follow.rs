//! One step of following one casino: its checkpoint fetched and opened; compared with the one
//! held (a smaller tree or another root: both notes kept, an alert, never followed again); the
//! new range's tiles walked to the checkpoint's root; then the entry bundles checked and
//! committed with their tallies and the followed state (`follow_bundles`).

use std::ops::ControlFlow;

use chrono::Utc;
use diesel::PgConnection;
use serde_json::json;
use sha2::Digest as _;

use dozor_log::checkpoint::Checkpoint;
use dozor_log::merkle::empty_root;
use dozor_log::tiles::{decode_hashes, Tile, TILE_WIDTH};

use crate::bundle_check::Followed;
use crate::checkpoint_check::{
    check_rotation, compare, known_operator_keys, open_checkpoint, Against, Held, OpenedCheckpoint,
    Trust,
};
use crate::config::CasinoConfig;
use crate::consistency::{self, Consistency};
use crate::fetch::{
    fetch_ahead, get_tile, need_tile, FetchError, TileSource, CHECKPOINT_LIMIT, HASH_TILE_LIMIT,
};
use crate::follow_bundles::{alarm, cut, follow_bundles, FETCHING_THREADS};
use crate::step::{FollowError, Step};
use crate::store::alerts::{keep_fork, raise, NewAlert};
use crate::store::state::{self, CasinoState};
use crate::tree_check::{tiles_to_fetch, TreeProblem, TreeWalk, WalkedTree};

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

/// One step of following `casino` from `source`.
pub fn follow_once(
    conn: &mut PgConnection,
    casino: &CasinoConfig,
    source: &(dyn TileSource + Sync),
) -> Result<Step, FollowError> {
    let name = casino.name.as_str();
    let mut state = state::load(conn, name, &casino.operator_keys)?;
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
    let (rounds, followed) = follow_bundles(
        conn,
        casino,
        source,
        state.followed,
        &mut state.runs,
        &walked.summaries,
    )?;
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

/// How many level-0 tiles a walk fetches ahead of the one it checks.
const WALK_AHEAD: usize = 32;

/// The prefix of the message a walk whose signed tree does not contain the held one fails with.
const NOT_EXTENDING: &str = "not extending: ";

/// Walks the tiles from the followed size to `target`.
fn walk(
    source: &(dyn TileSource + Sync),
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
    source: &(dyn TileSource + Sync),
    frontier: dozor_log::merkle::Frontier,
    held: Held,
    target: &Checkpoint,
) -> Result<Result<WalkedTree, TreeProblem>, FollowError> {
    let (level0, higher) = tiles_to_fetch(frontier.size(), target.size);
    let mut walk = TreeWalk::new(frontier, held, target.clone());
    let fetch = |tile: &Tile| need_tile(source, tile, HASH_TILE_LIMIT);
    // The level-0 tiles fetched ahead on another thread while each is checked.
    let problem = fetch_ahead(
        &level0,
        FETCHING_THREADS,
        WALK_AHEAD,
        fetch,
        |tile, bytes| match bytes {
            Ok(bytes) => match walk.push_level0(tile, &bytes) {
                Ok(()) => ControlFlow::Continue(()),
                Err(p) => ControlFlow::Break(Ok(p)),
            },
            Err(e) => ControlFlow::Break(Err(e)),
        },
    );
    match problem {
        Some(Ok(p)) => return Ok(Err(p)),
        Some(Err(e)) => return Err(e.into()),
        None => {}
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
