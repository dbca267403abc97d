#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger as C2SP tlog-tiles over the API (`/api/v1/tiles/…`): who may read it, and that
//! what it serves is the ledger — the checkpoint's root computed again from the served hash
//! tiles, the bundles' entries the stored entries and their leaf hashes the level-0 tiles'.

mod common;

use actix_web::test;
use common::*;
use dozor_log::access::Role;
use dozor_log::merkle;
use dozor_log::tiles::{self, Tile, TileKind, TileSet};
use serde_json::{json, Value};

/// GET `uri` as `role` (no key: `None`): the status, the headers asked for and the body.
async fn fetch(
    app: &impl TestApp,
    uri: &str,
    role: Option<Role>,
) -> (u16, Option<String>, Option<String>, Vec<u8>) {
    let mut request = test::TestRequest::get().uri(uri);
    if let Some(role) = role {
        request = request.insert_header(bearer(role));
    }
    let response = test::call_service(app, request.to_request()).await;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let (content_type, cache) = (header("content-type"), header("cache-control"));
    let status = response.status().as_u16();
    let body = test::read_body(response).await.to_vec();
    (status, content_type, cache, body)
}

/// The regulator's answer of 200 for `uri`: its bytes, after its content type is checked.
async fn served(app: &impl TestApp, uri: &str, content_type: &str, cache: &str) -> Vec<u8> {
    let (status, ct, cc, body) = fetch(app, uri, Some(Role::Regulator)).await;
    assert_eq!(status, 200, "{uri}: {}", String::from_utf8_lossy(&body));
    assert_eq!(ct.as_deref(), Some(content_type), "{uri}");
    assert_eq!(cc.as_deref(), Some(cache), "{uri}");
    body
}

/// An error answer of `uri` to the regulator: its status and code.
async fn refused(app: &impl TestApp, uri: &str) -> (u16, String) {
    let (status, _, _, body) = fetch(app, uri, Some(Role::Regulator)).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    (status, body["code"].as_str().unwrap().to_owned())
}

const IMMUTABLE: &str = "private, max-age=31536000, immutable";

/// `bytes` decompressed by Python's gzip module.
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut python = std::process::Command::new("python3")
        .args([
            "-c",
            "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    python.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = python.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

#[actix_web::test]
async fn the_regulator_follows_the_ledger_by_its_tiles() {
    let (_state, url, app) = api_app().await;
    create_key(&url, Role::Regulator);
    create_key(&url, Role::Reporter);
    // Before any checkpoint: no tree to serve tiles of.
    let (s, code) = refused(&app, "/api/v1/tiles/checkpoint").await;
    assert_eq!((s, code.as_str()), (404, "no_checkpoint"));
    let (s, code) = refused(&app, "/api/v1/tiles/tile/0/000.p/4").await;
    assert_eq!((s, code.as_str()), (404, "no_checkpoint"));

    // Entries 0-3: the four API keys; 4: the table; 5-304: 300 rounds, every 7th overpaid.
    let k = key(1);
    let (s, b) = post(&app, "/api/v1/tables", registration("R01", &k)).await;
    assert_eq!(s, 201, "{b}");
    let rounds: Vec<Value> = (1..=300u64)
        .map(|seq_no| {
            let paid = if seq_no % 7 == 0 { 370_000 } else { 360_000 };
            signed(
                spin("R01", seq_no, 17, json!([straight("b1", 17, 10_000, paid)])),
                &k,
            )
        })
        .collect();
    let (s, b) = post(&app, "/api/v1/records/batch", Value::Array(rounds)).await;
    assert_eq!(s, 200, "{b}");
    assert!(batch_statuses(&b).iter().all(|s| *s == 201), "{b}");
    let mut conn = ledger::storage::connect(&url).unwrap();
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    assert_eq!(size, 305);
    ledger::storage::checkpoints::create(&mut conn, &operator(), size, chrono::Utc::now()).unwrap();

    let octets = "application/octet-stream";
    // The checkpoint: signed by the operator, of 305 entries.
    let note = served(
        &app,
        "/api/v1/tiles/checkpoint",
        "text/plain; charset=utf-8",
        "no-cache",
    )
    .await;
    let note = String::from_utf8(note).unwrap();
    let (text, _) = dozor_log::checkpoint::open(&note, &[operator().verifier()]).unwrap();
    let checkpoint = dozor_log::checkpoint::Checkpoint::parse(text).unwrap();
    assert_eq!(checkpoint.size, 305);

    // 305 = 256 + 49: level 0 has the full tile 000 and the partial 001.p/49; level 1 the
    // partial 000.p/1 (the root of the full tile below). The root from the served tiles is the
    // checkpoint's.
    let wanted = tiles::tiles_for_root(305).unwrap();
    let mut set = TileSet::default();
    for tile in &wanted {
        let uri = format!(
            "/api/v1/{}",
            tile.path().replacen("tile/", "tiles/tile/", 1)
        );
        let bytes = served(&app, &uri, "application/octet-stream", IMMUTABLE).await;
        set.insert(tile, tiles::decode_hashes(tile, &bytes).unwrap());
    }
    assert_eq!(merkle::root(&set, 305).unwrap(), checkpoint.root);
    let level1 = served(
        &app,
        "/api/v1/tiles/tile/1/000.p/1",
        "application/octet-stream",
        IMMUTABLE,
    )
    .await;
    let level0 = served(
        &app,
        "/api/v1/tiles/tile/0/000",
        "application/octet-stream",
        IMMUTABLE,
    )
    .await;
    let full = Tile {
        kind: TileKind::Hashes(0),
        index: 0,
        width: 256,
    };
    let leaves = tiles::decode_hashes(&full, &level0).unwrap();
    assert_eq!(level1, tiles::perfect_root(&leaves).to_vec());

    // The bundles: each entry the stored one, its leaf hash the level-0 tile's.
    for (bundle, level0_uri, first) in [
        ("entries/000", "0/000", 0u64),
        ("entries/001.p/49", "0/001.p/49", 256),
    ] {
        let tile = Tile::parse(&format!("tile/{bundle}")).unwrap();
        let bytes = served(
            &app,
            &format!("/api/v1/tiles/tile/{bundle}"),
            "application/octet-stream",
            IMMUTABLE,
        )
        .await;
        let entries = tiles::decode_bundle(&tile, &bytes).unwrap();
        let hashes = served(
            &app,
            &format!("/api/v1/tiles/tile/{level0_uri}"),
            "application/octet-stream",
            IMMUTABLE,
        )
        .await;
        assert_eq!(
            tiles::encode_hashes(&tiles::bundle_leaf_hashes(&entries)),
            hashes
        );
        for (n, entry) in entries.iter().enumerate() {
            let row = ledger::storage::reads::entry(&mut conn, first + n as u64)
                .unwrap()
                .unwrap();
            assert_eq!(*entry, row.entry.as_slice());
        }
    }

    // Compressed for a client that accepts gzip, as the spec asks of entry bundles: Python's
    // gzip reads back the same bundle.
    let response = test::call_service(
        &app,
        test::TestRequest::get()
            .uri("/api/v1/tiles/tile/entries/000")
            .insert_header(bearer(Role::Regulator))
            .insert_header(("accept-encoding", "gzip"))
            .to_request(),
    )
    .await;
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers().get("content-encoding").unwrap(), "gzip");
    let gzipped = test::read_body(response).await.to_vec();
    let plain = served(&app, "/api/v1/tiles/tile/entries/000", octets, IMMUTABLE).await;
    assert!(
        gzipped.len() < plain.len() / 2,
        "{} {}",
        gzipped.len(),
        plain.len()
    );
    assert_eq!(gunzip(&gzipped), plain);

    // The verdicts beside the second bundle: entries 256-304 are rounds 252-300; round 252 =
    // 7 · 36 was overpaid by 370 000 − 360 000 = 10 000, round 253 was not.
    let lines = served(
        &app,
        "/api/v1/tiles/verdicts/001.p/49",
        "application/x-ndjson",
        IMMUTABLE,
    )
    .await;
    let lines: Vec<Value> = String::from_utf8(lines)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 49);
    assert_eq!(lines[0]["index"], 256);
    assert_eq!(lines[0]["verdict"]["paid_h"], 370_000);
    assert_eq!(lines[0]["verdict"]["findings"][0]["kind"], "overpaid");
    assert_eq!(lines[0]["verdict"]["findings"][0]["amount_h"], 10_000);
    assert_eq!(lines[1]["verdict"]["findings"], json!([]));
    // Registry events have no verdict.
    let first = served(
        &app,
        "/api/v1/tiles/verdicts/000",
        "application/x-ndjson",
        IMMUTABLE,
    )
    .await;
    let first: Value =
        serde_json::from_str(String::from_utf8(first).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first, json!({"index": 0, "verdict": null}));

    let minimum = served(
        &app,
        "/api/v1/tiles/minimum-index",
        "text/plain; charset=utf-8",
        "no-cache",
    )
    .await;
    assert_eq!(minimum, b"0\n");

    // A reader holding an earlier checkpoint reads its partial tiles while the log grows: the
    // tree of 256 + 17 = 273 entries ends in `001.p/17`, whose hashes and entries are the first
    // 17 of the latest `001.p/49`; the tree of 9 entries in `000.p/9`.
    let latest = served(&app, "/api/v1/tiles/tile/0/001.p/49", octets, IMMUTABLE).await;
    let earlier = served(&app, "/api/v1/tiles/tile/0/001.p/17", octets, IMMUTABLE).await;
    assert_eq!(earlier, latest[..17 * 32]);
    let latest = served(
        &app,
        "/api/v1/tiles/tile/entries/001.p/49",
        octets,
        IMMUTABLE,
    )
    .await;
    let earlier = served(
        &app,
        "/api/v1/tiles/tile/entries/001.p/17",
        octets,
        IMMUTABLE,
    )
    .await;
    assert!(latest.starts_with(&earlier) && earlier.len() < latest.len());
    let nine = Tile::parse("tile/entries/000.p/9").unwrap();
    let bytes = served(
        &app,
        "/api/v1/tiles/tile/entries/000.p/9",
        octets,
        IMMUTABLE,
    )
    .await;
    assert_eq!(tiles::decode_bundle(&nine, &bytes).unwrap().len(), 9);
    let ndjson = "application/x-ndjson";
    let lines = served(&app, "/api/v1/tiles/verdicts/001.p/17", ndjson, IMMUTABLE).await;
    assert_eq!(String::from_utf8(lines).unwrap().lines().count(), 17);
    let first9 = served(&app, "/api/v1/tiles/tile/0/000.p/9", octets, IMMUTABLE).await;
    assert_eq!(first9, level0[..9 * 32]);

    // What the tree of 305 entries does not hold, or what is no tile's path.
    for (uri, status, code) in [
        ("/api/v1/tiles/tile/0/001", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/0/001.p/50", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/1/000.p/2", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/0/002.p/1", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/2/000.p/1", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/entries/x001/000", 404, "no_such_tile"),
        ("/api/v1/tiles/verdicts/001", 404, "no_such_tile"),
        ("/api/v1/tiles/verdicts/001.p/50", 404, "no_such_tile"),
        ("/api/v1/tiles/tile/0/1", 400, "invalid_path"),
        ("/api/v1/tiles/tile/0/000.p/0", 400, "invalid_path"),
        ("/api/v1/tiles/tile/0/000.p/256", 400, "invalid_path"),
        ("/api/v1/tiles/tile/64/000", 400, "invalid_path"),
        ("/api/v1/tiles/tile/0/x000/001", 400, "invalid_path"),
        ("/api/v1/tiles/tile/0/000/", 400, "invalid_path"),
        ("/api/v1/tiles/tile/entries", 400, "invalid_path"),
        ("/api/v1/tiles/verdicts/entries/000", 400, "invalid_path"),
        (
            "/api/v1/tiles/verdicts/x999/x999/x999/x999/x999/x999/x999/999",
            400,
            "invalid_path",
        ),
    ] {
        assert_eq!(refused(&app, uri).await, (status, code.to_owned()), "{uri}");
    }

    // Archived below entry 10 (as `dozor log archive` leaves them: the leaf hashes kept, the
    // rows gone): bundle 0 (entries 0..256) holds archived entries, so the minimum index is 256
    // and the bundle and its verdicts are gone (410); its hash tile stays whole.
    {
        use diesel::connection::SimpleConnection as _;
        conn.batch_execute(
            "SET session_replication_role = replica;
             INSERT INTO archived_entries (idx, received_at, leaf_hash, record_hash)
                 SELECT idx, received_at, leaf_hash, record_hash FROM ledger_entries
                 WHERE idx < 10;
             DELETE FROM findings WHERE ledger_index < 10;
             DELETE FROM adjudications WHERE ledger_index < 10;
             DELETE FROM ledger_entries WHERE idx < 10;
             SET session_replication_role = DEFAULT;",
        )
        .unwrap();
    }
    let minimum = served(
        &app,
        "/api/v1/tiles/minimum-index",
        "text/plain; charset=utf-8",
        "no-cache",
    )
    .await;
    assert_eq!(minimum, b"256\n");
    for uri in [
        "/api/v1/tiles/tile/entries/000",
        "/api/v1/tiles/tile/entries/000.p/9",
        "/api/v1/tiles/verdicts/000",
    ] {
        let (status, _, _, body) = fetch(&app, uri, Some(Role::Regulator)).await;
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (status, &body["code"]),
            (410, &json!("tile_pruned")),
            "{uri}: {body}"
        );
        assert_eq!(body["details"]["minimum_index"], 256, "{uri}: {body}");
    }
    assert_eq!(
        served(&app, "/api/v1/tiles/tile/0/000", octets, IMMUTABLE).await,
        level0
    );
    served(
        &app,
        "/api/v1/tiles/tile/entries/001.p/49",
        octets,
        IMMUTABLE,
    )
    .await;

    // Another method: a 405 naming GET, for a tile's path of several segments too.
    let response = test::call_service(
        &app,
        test::TestRequest::post()
            .uri("/api/v1/tiles/tile/0/x001/000.p/5")
            .insert_header(bearer(Role::Regulator))
            .to_request(),
    )
    .await;
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers().get("allow").unwrap(), "GET");

    // Who may read them: the regulator and the admin; no key is a 401, the compliance officer
    // and the nightly job a 403.
    for uri in [
        "/api/v1/tiles/checkpoint",
        "/api/v1/tiles/tile/0/000",
        "/api/v1/tiles/tile/entries/001.p/49",
        "/api/v1/tiles/verdicts/001.p/49",
        "/api/v1/tiles/minimum-index",
    ] {
        for (role, expected) in [
            (None, 401),
            (Some(Role::Compliance), 403),
            (Some(Role::Reporter), 403),
            (Some(Role::Regulator), 200),
            (Some(Role::Admin), 200),
        ] {
            let (status, _, cache, body) = fetch(&app, uri, role).await;
            assert_eq!(status, expected, "{uri} as {role:?}");
            if expected != 200 {
                let body: Value = serde_json::from_slice(&body).unwrap();
                let code = if expected == 401 {
                    "unauthenticated"
                } else {
                    "forbidden"
                };
                assert_eq!(body["code"], code, "{uri} as {role:?}");
                assert!(cache.is_none(), "{uri} as {role:?}: {cache:?}");
            }
        }
    }
}
