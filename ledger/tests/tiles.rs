#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger as C2SP tlog-tiles on a real (throwaway) PostgreSQL cluster: the tiles read from
//! the database, and their publication to a folder, checked against the tree the tiles give back.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use chrono::Utc;
use diesel::connection::SimpleConnection as _;
use diesel::PgConnection;
use dozor_log::checkpoint::{Checkpoint, NoteSigner};
use dozor_log::cosignature::CosignatureSigner;
use dozor_log::tiles::{
    bundle_leaf_hashes, decode_bundle, decode_hashes, tiles_between, Tile, TileKind, TileSet,
};
use ed25519_dalek::SigningKey;
use ledger::ingest::submission::Derived;
use ledger::storage::append::{append_batch, AppendOutcome, Submission};
use ledger::storage::tiles::{
    minimum_index, minimum_index_at, published_checkpoint, published_checkpoint_between, read_tile,
    read_verdict_lines,
};
use ledger::storage::{checkpoints, connect, cosignatures, reads, testing};
use ledger::tile_publish::error::PublishError;
use ledger::tile_publish::handoff::Handoff;
use ledger::tile_publish::{Published, Publisher};
use ledger::LedgerError;
use serde_json::json;

mod common;

use common::{note_submission, register_r01};

fn signer() -> NoteSigner {
    NoteSigner::new("dozor.test/tiles", SigningKey::from_bytes(&[9u8; 32])).unwrap()
}

/// Entry `seq_no`'s record: every seventh a judged round (every fourteenth with an overpayment
/// of 10 000 h on bet `b<seq_no>`), the others notes.
fn submission(key: &SigningKey, seq_no: u64) -> Submission {
    let record = json!({"type": "note", "table_id": "R01", "seq_no": seq_no, "plan_id": "p"});
    let mut submission = note_submission(key, record, "R01", seq_no);
    if seq_no.is_multiple_of(7) {
        submission.derived = Some(derived(seq_no));
    }
    submission
}

/// A verdict stored for round `seq_no`: stakes 10 000 h, the plan requires 360 000 h back, the
/// table paid 370 000 h on even multiples of 7 (overpaid by 370 000 − 360 000 = 10 000 h), else
/// 360 000 h.
fn derived(seq_no: u64) -> Derived {
    let bet = format!("b{seq_no}");
    let mut verdict = rules::Verdict::new("p", rules::GameCode::Roulette, "R01", seq_no);
    verdict.stakes_h = 10_000;
    verdict.expected_paid_h = 360_000;
    verdict.paid_h = 360_000;
    if seq_no.is_multiple_of(14) {
        verdict.paid_h = 370_000;
        verdict.findings.push(rules::Finding::new(
            rules::FindingKind::Overpaid,
            Some(&bet),
            Some(360_000),
            Some(370_000),
            format!("bet {bet}: overpaid"),
        ));
    }
    Derived::new(Utc::now(), &verdict, rules::RoundStatistics::default()).unwrap()
}

/// A ledger of R01's registration (entry 0) and nothing else yet; the table's key.
fn ledger() -> (PgConnection, SigningKey) {
    let mut conn = connect(&testing::fresh_database().unwrap()).unwrap();
    let key = register_r01(&mut conn, &SigningKey::from_bytes(&[9u8; 32]));
    (conn, key)
}

/// Appends entries up to `size` and signs a checkpoint of them.
fn grow_to(conn: &mut PgConnection, key: &SigningKey, size: u64) {
    let from = reads::size(conn).unwrap();
    let batch: Vec<_> = (from..size).map(|seq_no| submission(key, seq_no)).collect();
    append_batch(conn, &batch, Utc::now()).unwrap();
    assert_eq!(reads::size(conn).unwrap(), size);
    checkpoints::create(conn, &signer(), size, Utc::now()).unwrap();
}

/// Every file under `dir/sub`, by its path relative to `dir`.
fn files(dir: &Path, sub: &str) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.join(sub)];
    while let Some(at) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
                found.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// The bundle a `verdicts/…` path is beside.
fn bundle_of(verdicts: &str) -> Tile {
    Tile::parse(&format!(
        "tile/entries/{}",
        verdicts.strip_prefix("verdicts/").unwrap()
    ))
    .unwrap()
}

/// The size of the tree `tile` is read from in a folder whose checkpoint is of `size`: that
/// size for a full tile, the tree whose edge it is for a partial one (a narrower partial is kept
/// for each checkpoint signed until the full tile is there).
fn tree_of(tile: &Tile, size: u64) -> u64 {
    if tile.is_full() {
        return size;
    }
    let edge = tile.positions().end << (8 * u32::from(tile.level()));
    assert!(edge <= size, "{} is beyond the tree of {size}", tile.path());
    edge
}

/// Checks the folder against the database and the tree: the checkpoint is the ledger's latest;
/// every tile is the bytes `read_tile` gives for its tree, and every tile of the checkpoint's
/// tree is there (bundles from `minimum`), and no partial beside a full tile; the root the tiles
/// give is the checkpoint's; every bundle's entries hash to its level-0 tile; every verdict file
/// is `read_verdict_lines`, one beside each bundle.
fn check_folder(conn: &mut PgConnection, dir: &Path, minimum: u64) -> u64 {
    let text = std::fs::read_to_string(dir.join("checkpoint")).unwrap();
    let checkpoint = Checkpoint::parse(&text).unwrap();
    let size = checkpoint.size;
    let signed = published_checkpoint_between(conn, size - 1, size).unwrap();
    assert_eq!(
        text,
        signed.unwrap().text,
        "the signed checkpoint of {size}"
    );
    let tiles = files(dir, "tile");
    let mut set = TileSet::default();
    for (path, bytes) in &tiles {
        let tile = Tile::parse(path).unwrap();
        let tree = tree_of(&tile, size);
        assert_eq!(bytes, &read_tile(conn, &tile, tree).unwrap(), "{path}");
        if !tile.is_full() {
            let full = Tile { width: 256, ..tile }.path();
            assert!(!tiles.contains_key(&full), "{path} beside {full}");
        }
        if let TileKind::Hashes(_) = tile.kind {
            set.insert(&tile, decode_hashes(&tile, bytes).unwrap());
        } else {
            let level0 = Tile {
                kind: TileKind::Hashes(0),
                ..tile
            };
            let entries = decode_bundle(&tile, bytes).unwrap();
            let hashes = decode_hashes(&level0, &tiles[&level0.path()]).unwrap();
            assert_eq!(bundle_leaf_hashes(&entries), hashes, "{path}");
        }
    }
    for tile in tiles_between(0, size) {
        if tile.kind != TileKind::Entries || tile.entry_range().start >= minimum {
            assert!(
                tiles.contains_key(&tile.path()),
                "{} is missing",
                tile.path()
            );
        }
    }
    assert_eq!(
        dozor_log::merkle::root(&set, size).unwrap(),
        checkpoint.root,
        "the root of the folder's tiles"
    );
    let verdicts = files(dir, "verdicts");
    let bundles: Vec<String> = tiles
        .keys()
        .filter_map(|p| p.strip_prefix("tile/entries/"))
        .map(|p| format!("verdicts/{p}"))
        .collect();
    assert_eq!(verdicts.keys().cloned().collect::<Vec<_>>(), bundles);
    for (path, bytes) in &verdicts {
        assert_eq!(
            bytes,
            &read_verdict_lines(conn, &bundle_of(path)).unwrap(),
            "{path}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("minimum-index")).unwrap(),
        format!("{minimum}\n")
    );
    size
}

/// (inode, modification time) of every full tile (and full verdicts file) of the folder.
fn full_tiles(dir: &Path) -> BTreeMap<String, (u64, i64, i64)> {
    let mut all = files(dir, "tile");
    all.extend(files(dir, "verdicts"));
    all.into_keys()
        .filter(|p| !p.contains(".p/"))
        .map(|p| {
            let meta = std::fs::metadata(dir.join(&p)).unwrap();
            (p, (meta.ino(), meta.mtime(), meta.mtime_nsec()))
        })
        .collect()
}

#[test]
fn the_folder_follows_the_ledger_checkpoint_by_checkpoint() {
    let (mut conn, key) = ledger();
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    assert_eq!(
        publisher.publish(&mut conn).unwrap(),
        Published::NoCheckpoint
    );
    let mut seen_full = BTreeMap::new();
    // 200: one partial per sequence; 300: tile 0 full; 700: crosses 512 (level 1 of width 2);
    // then more checkpoints up to 2 100 (8 full tiles and a partial of 2 100 − 2 048 = 52),
    // the one of 2 070 signed but not published on its own.
    for size in [200, 300, 700, 701, 1_300, 2_070, 2_100] {
        grow_to(&mut conn, &key, size);
        if size == 2_070 {
            continue;
        }
        let outcome = publisher.publish(&mut conn).unwrap();
        assert!(
            matches!(outcome, Published::Grew { to, kept: 0, .. } if to == size),
            "{outcome:?}"
        );
        assert_eq!(check_folder(&mut conn, dir.path(), 0), size);
        // Full tiles are written once: the same file (inode, time) across later publications.
        let now = full_tiles(dir.path());
        for (path, stamp) in &seen_full {
            assert_eq!(now.get(path), Some(stamp), "{path} was rewritten");
        }
        seen_full = now;
        assert_eq!(
            publisher.publish(&mut conn).unwrap(),
            Published::UpToDate { size }
        );
    }
    // 2 100 entries: 2 100 / 256 = 8 full level-0 tiles, bundles and verdicts files; level 1
    // has 2 100 >> 8 = 8 hashes, a partial tile.
    assert_eq!(seen_full.len(), 8 * 3);
    assert!(!dir.path().join("tile/1/000").exists());
    // The partials of every checkpoint at the edge of each level, until the full tile is
    // there: at level 0, 2 070 − 2 048 = 22 (the checkpoint not published on its own) and 52;
    // at level 1, 300 >> 8 = 1, 700 >> 8 = 2, 1 300 >> 8 = 5 and 2 100 >> 8 = 8. The partials
    // of level-0 tiles now full are gone.
    let partials: Vec<String> = files(dir.path(), "tile")
        .into_keys()
        .chain(files(dir.path(), "verdicts").into_keys())
        .filter(|p| p.contains(".p/"))
        .collect();
    assert_eq!(
        partials,
        [
            "tile/0/008.p/22",
            "tile/0/008.p/52",
            "tile/1/000.p/1",
            "tile/1/000.p/2",
            "tile/1/000.p/5",
            "tile/1/000.p/8",
            "tile/entries/008.p/22",
            "tile/entries/008.p/52",
            "verdicts/008.p/22",
            "verdicts/008.p/52",
        ]
    );
}

/// The verdict lines of the first bundle, checked by hand: entry 0 is the registration (no
/// verdict), 7 a clean round, 14 an overpaid one.
#[test]
fn verdict_lines_are_the_stored_verdicts_in_canonical_json() {
    let (mut conn, key) = ledger();
    grow_to(&mut conn, &key, 20);
    let tile = Tile {
        kind: TileKind::Entries,
        index: 0,
        width: 20,
    };
    let text = String::from_utf8(read_verdict_lines(&mut conn, &tile).unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 20);
    assert!(text.ends_with('\n'));
    assert_eq!(lines[0], r#"{"index":0,"verdict":null}"#);
    for line in &lines {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        let canonical = dozor_log::canonical::canonical_text(&value).unwrap();
        assert_eq!(line, &canonical, "RFC 8785");
    }
    assert_eq!(lines[1], r#"{"index":1,"verdict":null}"#);
    let version = rules::RULES_VERSION;
    assert_eq!(
        lines[7],
        format!(
            r#"{{"index":7,"verdict":{{"expected_paid_h":360000,"findings":[],"paid_h":360000,"plan_id":"p","rules_version":"{version}","stakes_h":10000,"void":false}}}}"#
        )
    );
    assert_eq!(
        lines[14],
        format!(
            r#"{{"index":14,"verdict":{{"expected_paid_h":360000,"findings":[{{"actual_h":370000,"amount_h":10000,"bet_ids":["b14"],"expected_h":360000,"kind":"overpaid","message":"bet b14: overpaid"}}],"paid_h":370000,"plan_id":"p","rules_version":"{version}","stakes_h":10000,"void":false}}}}"#
        )
    );
    // A bundle beyond the ledger: not found.
    let beyond = Tile { width: 21, ..tile };
    assert!(matches!(
        read_verdict_lines(&mut conn, &beyond),
        Err(LedgerError::TileNotFound { .. })
    ));
    // A tile of another width than the tree of 20 gives it: not found.
    assert!(matches!(
        read_tile(&mut conn, &Tile { width: 19, ..tile }, 20),
        Err(LedgerError::TileNotFound { .. })
    ));
    assert!(matches!(
        read_tile(
            &mut conn,
            &Tile {
                index: 1,
                width: 1,
                ..tile
            },
            20
        ),
        Err(LedgerError::TileNotFound { .. })
    ));
}

#[test]
fn a_publication_stopped_half_way_leaves_the_last_checkpoint_and_the_next_completes_it() {
    let (mut conn, key) = ledger();
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    grow_to(&mut conn, &key, 200);
    publisher.publish(&mut conn).unwrap();
    let before = std::fs::read_to_string(dir.path().join("checkpoint")).unwrap();
    grow_to(&mut conn, &key, 700);
    // tiles_between(200, 700): level 0's tiles 0 and 1 (full) and 2.p/188, each written with
    // its bundle and verdicts, then level 1's 000.p/2. Asked to stop at 4 files, it stops after
    // tile 1's three: 6 files, all full.
    publisher.fail_after(Some(4));
    assert!(matches!(
        publisher.publish(&mut conn),
        Err(PublishError::Injected(6))
    ));
    // The checkpoint is the last one, and what it needs is all there still.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("checkpoint")).unwrap(),
        before
    );
    assert!(dir.path().join("tile/0/000.p/200").exists());
    assert!(dir.path().join("tile/0/000").exists());
    // Run again (a new process): the 6 full files written are there with the same bytes, kept.
    let mut again = Publisher::new(dir.path()).unwrap();
    let outcome = again.publish(&mut conn).unwrap();
    assert!(
        matches!(
            outcome,
            Published::Grew {
                from: 200,
                to: 700,
                kept: 6,
                ..
            }
        ),
        "{outcome:?}"
    );
    check_folder(&mut conn, dir.path(), 0);
    assert!(!dir.path().join("tile/0/000.p").exists());
}

#[test]
fn a_full_tile_with_other_bytes_is_an_error_and_is_never_overwritten() {
    let (mut conn, key) = ledger();
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    grow_to(&mut conn, &key, 100);
    publisher.publish(&mut conn).unwrap();
    let before = std::fs::read_to_string(dir.path().join("checkpoint")).unwrap();
    grow_to(&mut conn, &key, 300);
    // A full tile 0 already there with other bytes (a folder mixed up with another's).
    let forged = vec![7u8; 256 * 32];
    std::fs::create_dir_all(dir.path().join("tile/0")).unwrap();
    std::fs::write(dir.path().join("tile/0/000"), &forged).unwrap();
    let error = publisher.publish(&mut conn).unwrap_err();
    assert!(matches!(error, PublishError::Conflict { .. }), "{error}");
    assert!(error.to_string().contains("tile/0/000"), "{error}");
    assert_eq!(
        std::fs::read(dir.path().join("tile/0/000")).unwrap(),
        forged
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("checkpoint")).unwrap(),
        before
    );
}

#[test]
fn cosignatures_alone_replace_the_checkpoint_and_another_ledgers_folder_is_refused() {
    let (mut conn, key) = ledger();
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    grow_to(&mut conn, &key, 50);
    publisher.publish(&mut conn).unwrap();
    let note = checkpoints::latest(&mut conn).unwrap().unwrap().note;
    let body = &note[..note.find("\n\n").unwrap() + 1];
    let witness =
        CosignatureSigner::new("witness.test/w1", SigningKey::from_bytes(&[3u8; 32])).unwrap();
    let line = witness.cosign(body, 1_700_000_000);
    let cosigned =
        dozor_log::cosignature::cosignatures(&format!("{note}{line}"), &[witness.verifier()])
            .unwrap();
    cosignatures::record(&mut conn, 50, &cosigned[0], Utc::now()).unwrap();
    assert_eq!(
        publisher.publish(&mut conn).unwrap(),
        Published::Cosignatures { size: 50 }
    );
    let text = std::fs::read_to_string(dir.path().join("checkpoint")).unwrap();
    assert_eq!(text, format!("{note}{line}"));
    check_folder(&mut conn, dir.path(), 0);

    // Another ledger's folder: its checkpoint of the same size has another root.
    let (mut other, other_key) = ledger();
    grow_to(&mut other, &other_key, 60);
    let refused = Publisher::new(dir.path())
        .unwrap()
        .publish(&mut other)
        .unwrap_err();
    assert!(refused.to_string().contains("another root"), "{refused}");
    // A folder beyond the ledger: refused, nothing written.
    let (mut small, small_key) = ledger();
    grow_to(&mut small, &small_key, 10);
    let refused = Publisher::new(dir.path())
        .unwrap()
        .publish(&mut small)
        .unwrap_err();
    assert!(refused.to_string().contains("beyond"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("checkpoint")).unwrap(),
        text
    );
}

/// Archives entries below `to` as `dozor log archive` leaves them, without its export and seals:
/// their leaf hashes kept in `archived_entries`, their rows gone (as a superuser past the
/// append-only triggers).
fn archive_below(conn: &mut PgConnection, to: u64) {
    conn.batch_execute(&format!(
        "SET session_replication_role = replica;
         INSERT INTO archived_entries (idx, received_at, leaf_hash, record_hash)
             SELECT idx, received_at, leaf_hash, record_hash FROM ledger_entries WHERE idx < {to};
         DELETE FROM findings WHERE ledger_index < {to};
         DELETE FROM adjudications WHERE ledger_index < {to};
         DELETE FROM ledger_entries WHERE idx < {to};
         SET session_replication_role = DEFAULT;"
    ))
    .unwrap();
}

#[test]
fn bundles_holding_archived_entries_are_refused_and_not_published() {
    let (mut conn, key) = ledger();
    grow_to(&mut conn, &key, 800);
    let level0 = Tile {
        kind: TileKind::Hashes(0),
        index: 0,
        width: 256,
    };
    let hashes = read_tile(&mut conn, &level0, 800).unwrap();
    assert_eq!(minimum_index(&mut conn).unwrap(), 0);
    archive_below(&mut conn, 300);
    // Archived below 300: bundles 0 (0..256) and 1 (256..512) hold archived entries; the first
    // without any starts at 2 · 256 = 512.
    assert_eq!(minimum_index(&mut conn).unwrap(), 512);
    // Never above the tree's size (tlog-tiles): in a tree of 301 entries the edge bundle 1.p/45
    // (256..301) still holds archived entries, and the minimum index is 301, its end index.
    assert_eq!(minimum_index_at(&mut conn, 301).unwrap(), 301);
    assert_eq!(minimum_index_at(&mut conn, 600).unwrap(), 512);
    for index in [0, 1] {
        let bundle = Tile {
            kind: TileKind::Entries,
            index,
            width: 256,
        };
        assert!(matches!(
            read_tile(&mut conn, &bundle, 800),
            Err(LedgerError::TilePruned {
                minimum_index: 512,
                ..
            })
        ));
        assert!(matches!(
            read_verdict_lines(&mut conn, &bundle),
            Err(LedgerError::TilePruned { .. })
        ));
    }
    // Hash tiles stay whole: the leaf hashes were kept.
    assert_eq!(read_tile(&mut conn, &level0, 800).unwrap(), hashes);
    let dir = tempfile::tempdir().unwrap();
    Publisher::new(dir.path())
        .unwrap()
        .publish(&mut conn)
        .unwrap();
    check_folder(&mut conn, dir.path(), 512);
    // 800 = 3 · 256 + 32: bundles 2 and 3.p/32 published, 0 and 1 not.
    assert!(!dir.path().join("tile/entries/001").exists());
    assert!(dir.path().join("tile/entries/002").exists());
    assert!(dir.path().join("tile/entries/003.p/32").exists());
}

#[test]
fn the_publishing_thread_follows_new_checkpoints_until_stopped() {
    let url = testing::fresh_database().unwrap();
    let mut conn = connect(&url).unwrap();
    let key = register_r01(&mut conn, &SigningKey::from_bytes(&[9u8; 32]));
    grow_to(&mut conn, &key, 40);
    let dir = tempfile::tempdir().unwrap();
    let pool = ledger::storage::pool(&url, 2).unwrap();
    let reported = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let report = reported.clone();
    let publishing = ledger::tile_publish::thread::spawn(
        pool,
        dir.path().join("tiles"),
        None,
        Box::new(move |size| report.lock().unwrap().push(size)),
    )
    .unwrap();
    let size_there = || {
        std::fs::read_to_string(dir.path().join("tiles/checkpoint"))
            .ok()
            .and_then(|t| Checkpoint::parse(&t).ok())
            .map(|c| c.size)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while size_there() != Some(40) {
        assert!(std::time::Instant::now() < deadline, "not published");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // A checkpoint signed just before the stop is published by the stop.
    grow_to(&mut conn, &key, 90);
    publishing.stop();
    assert_eq!(size_there(), Some(90));
    // Each attempt was reported: 40 while it waited, 90 last, no failure.
    let reported = reported.lock().unwrap().clone();
    assert!(reported.contains(&Some(40)), "{reported:?}");
    assert_eq!(reported.last(), Some(&Some(90)));
    assert!(!reported.contains(&None), "{reported:?}");
    check_folder(&mut conn, &dir.path().join("tiles"), 0);
}

#[test]
fn a_long_catch_up_goes_by_steps_of_signed_checkpoints() {
    let (mut conn, key) = ledger();
    for size in [200, 300, 700, 2_100] {
        grow_to(&mut conn, &key, size);
    }
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    publisher.set_step(500);
    // Steps of at most 500 entries where a checkpoint allows: from 0 the largest checkpoint at
    // most 500 is 300; from 300, 700 (at most 800); from 700 none is at most 1 200, so the next
    // one, 2 100. Each step leaves a folder whole at its checkpoint.
    let mut steps = Vec::new();
    loop {
        match publisher.publish(&mut conn).unwrap() {
            Published::Grew {
                from, to, latest, ..
            } => {
                assert_eq!(latest, 2_100);
                assert_eq!(check_folder(&mut conn, dir.path(), 0), to);
                steps.push((from, to));
            }
            Published::UpToDate { size } => {
                assert_eq!(size, 2_100);
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(steps, [(0, 300), (300, 700), (700, 2_100)]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("checkpoint")).unwrap(),
        published_checkpoint(&mut conn).unwrap().unwrap().text
    );
}

/// An appender on `url` handing what it commits to `handoff`, ready (it has read the head).
fn handing_appender(url: &str, handoff: &std::sync::Arc<Handoff>) -> ledger::ingest::Appender {
    let appender = ledger::ingest::Appender::start(
        url.to_owned(),
        100,
        2_000,
        signer(),
        None,
        Some(handoff.clone()),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while appender.status().head_problem().is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "the writer is not ready"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    appender
}

/// Appends entries up to `size` through `appender` (batches of at most 100) and signs a
/// checkpoint of them.
async fn append_through(
    appender: &ledger::ingest::Appender,
    conn: &mut PgConnection,
    key: &SigningKey,
    size: u64,
) {
    let from = reads::size(conn).unwrap();
    let batch: Vec<_> = (from..size).map(|seq_no| submission(key, seq_no)).collect();
    for outcome in appender.append_all(batch).await {
        assert!(
            matches!(outcome, Ok(AppendOutcome::Appended(_))),
            "{outcome:?}"
        );
    }
    checkpoints::create(conn, &signer(), size, Utc::now()).unwrap();
}

/// Publishes `conn`'s ledger to a new folder (taking from `handoff` if given): the folder and
/// how many bundles were taken from the hand-off.
fn publish_once(
    conn: &mut PgConnection,
    handoff: Option<&std::sync::Arc<Handoff>>,
) -> (tempfile::TempDir, usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut publisher = Publisher::new(dir.path()).unwrap();
    if let Some(handoff) = handoff {
        publisher.take_handed(handoff.clone());
    }
    match publisher.publish(conn).unwrap() {
        Published::Grew { handed, .. } => (dir, handed),
        other => panic!("{other:?}"),
    }
}

/// The folder's files a reader reads: every tile, bundle and verdict file, and the checkpoint.
fn published_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = files(dir, "tile");
    all.extend(files(dir, "verdicts"));
    all.insert(
        "checkpoint".into(),
        std::fs::read(dir.join("checkpoint")).unwrap(),
    );
    all
}

#[tokio::test]
async fn bundles_handed_over_by_the_writer_are_the_files_read_back_from_the_database() {
    let url = testing::fresh_database().unwrap();
    let mut conn = connect(&url).unwrap();
    let key = register_r01(&mut conn, &SigningKey::from_bytes(&[9u8; 32]));
    let handoff = std::sync::Arc::new(Handoff::new());
    let appender = handing_appender(&url, &handoff);
    // 1 100 = 4 · 256 + 76 entries. Entry 0 (the table's registration) was not appended by the
    // writer: bundle 0 is read back, and so is the partial bundle 4.p/76 at the edge; bundles
    // 1, 2 and 3 (every seventh entry a judged round, every fourteenth with a finding) are
    // taken from the hand-off.
    append_through(&appender, &mut conn, &key, 1_100).await;
    let (handed_dir, handed) = publish_once(&mut conn, Some(&handoff));
    assert_eq!(handed, 3);
    let (read_dir, none) = publish_once(&mut conn, None);
    assert_eq!(none, 0);
    let (with, without) = (
        published_files(handed_dir.path()),
        published_files(read_dir.path()),
    );
    assert!(with.contains_key("verdicts/003") && with.contains_key("tile/entries/004.p/76"));
    assert_eq!(with, without);
    check_folder(&mut conn, handed_dir.path(), 0);
    // What was taken is gone; the edge's entries stay until their bundle is full.
    assert_eq!(handoff.counts(), (76, 0));
}

#[tokio::test]
async fn entries_handed_over_that_are_not_the_databases_are_read_back_instead() {
    // Two ledgers of the same table: the writer of one hands over its entries, the publisher
    // reads the other (what a publisher would find after a failover to a standby that did not
    // have them, and other entries appended at their places).
    let (ours, theirs) = (
        testing::fresh_database().unwrap(),
        testing::fresh_database().unwrap(),
    );
    let operator = SigningKey::from_bytes(&[9u8; 32]);
    let mut ours_conn = connect(&ours).unwrap();
    let key = register_r01(&mut ours_conn, &operator);
    let mut theirs_conn = connect(&theirs).unwrap();
    register_r01(&mut theirs_conn, &operator);
    let handoff = std::sync::Arc::new(Handoff::new());
    let appender = handing_appender(&ours, &handoff);
    append_through(&appender, &mut ours_conn, &key, 600).await;
    // The other ledger: the same records but one (entry 300 a judged round of another seq_no).
    let mut batch: Vec<_> = (1..600).map(|seq_no| submission(&key, seq_no)).collect();
    batch[299] = submission(&key, 700);
    append_batch(&mut theirs_conn, &batch, Utc::now()).unwrap();
    checkpoints::create(&mut theirs_conn, &signer(), 600, Utc::now()).unwrap();
    let (dir, handed) = publish_once(&mut theirs_conn, Some(&handoff));
    // Bundle 1 (256 – 511) was handed over whole, and its root is not the database's.
    assert_eq!(handed, 0);
    check_folder(&mut theirs_conn, dir.path(), 0);
    let (read_dir, _) = publish_once(&mut theirs_conn, None);
    assert_eq!(
        published_files(dir.path()),
        published_files(read_dir.path())
    );
}
