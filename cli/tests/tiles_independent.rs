#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger as C2SP tlog-tiles, read by code that is not dozor's: a Python reader written from
//! the specifications (`fixtures/tlog_tiles_reader.py`) reads tiles dozor's tile code writes,
//! and refuses each kind of damage naming the file; then the folder `dozor serve` publishes,
//! served by Debian's nginx, and the same tiles through the server's own route, read by it after
//! a simulation has played.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use base64::Engine as _;
use common::nginx::Nginx;
use common::tiles_reader::{read_log, Reading};
use common::Succeeds as _;
use dozor_log::checkpoint::{Checkpoint, NoteSigner, NoteVerifier};
use dozor_log::cosignature::CosignatureSigner;
use dozor_log::merkle::{self, MemoryTree, NodeSource as _};
use dozor_log::tiles::{self, Tile, TileKind};
use serde_json::Value;

/// Entry `i`: a JSON text of a length that varies from 2 to over 300 bytes (so that a bundle's
/// length prefixes use both bytes), and one empty entry.
fn entry(i: u64) -> Vec<u8> {
    if i == 3 {
        return Vec::new();
    }
    let pad = "x".repeat(((i * 37) % 301) as usize);
    format!("{{\"entry\":{i},\"pad\":\"{pad}\"}}").into_bytes()
}

/// A log's folder as tlog-tiles lays it out, written with dozor's tile code from
/// [`entry`]`(0..)`, grown size by size.
struct Folder {
    dir: tempfile::TempDir,
    entries: Vec<Vec<u8>>,
    tree: MemoryTree,
    size: u64,
}

const ORIGIN: &str = "dozor.test/ledger";

impl Folder {
    fn new(capacity: u64) -> Folder {
        Folder::of((0..capacity).map(entry).collect())
    }

    /// A folder that can grow to hold `entries`.
    fn of(entries: Vec<Vec<u8>>) -> Folder {
        let leaves: Vec<_> = entries
            .iter()
            .map(|e| dozor_log::entry::leaf_hash(e))
            .collect();
        Folder {
            dir: tempfile::tempdir().unwrap(),
            tree: MemoryTree::from_leaves(&leaves),
            entries,
            size: 0,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn prefix(&self) -> String {
        self.path().display().to_string()
    }

    fn bytes_of(&self, tile: &Tile) -> Vec<u8> {
        match tile.kind {
            TileKind::Hashes(level) => {
                let hashes: Vec<_> = tile
                    .positions()
                    .map(|p| self.tree.node(8 * u32::from(level), p).unwrap())
                    .collect();
                tiles::encode_hashes(&hashes)
            }
            TileKind::Entries => {
                let range = tile.entry_range();
                let entries = &self.entries[range.start as usize..range.end as usize];
                tiles::encode_bundle(entries.iter().map(Vec::as_slice)).unwrap()
            }
        }
    }

    /// Writes the tiles the tree grows by to reach `size` and a checkpoint of it signed by
    /// `signer` and cosigned by a witness (whose line the reader is to pass over): the root.
    fn grow_to(&mut self, size: u64, signer: &NoteSigner) -> [u8; 32] {
        for tile in tiles::tiles_between(self.size, size) {
            let file = self.path().join(tile.path());
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, self.bytes_of(&tile)).unwrap();
        }
        self.size = size;
        let root = merkle::root(&self.tree, size).unwrap();
        let text = Checkpoint {
            origin: ORIGIN.into(),
            size,
            root,
        }
        .text();
        let witness = CosignatureSigner::new("witness.test/w1", common::key(77)).unwrap();
        let note = signer.sign(&text).unwrap() + &witness.cosign(&text, 1_790_000_000);
        std::fs::write(self.path().join("checkpoint"), note).unwrap();
        root
    }

    /// Flips one bit of byte `at` of the file at `path` (under the folder).
    fn flip(&self, path: &str, at: usize) {
        let file = self.path().join(path);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[at] ^= 0x01;
        std::fs::write(file, bytes).unwrap();
    }
}

fn vkey() -> String {
    common::operator().verifier().to_string()
}

/// The files a summary says the reader fetched, after the checkpoint.
fn fetched(summary: &Value) -> BTreeSet<String> {
    let all = summary["fetched"].as_array().unwrap();
    assert_eq!(all[0], "checkpoint", "{summary}");
    all[1..]
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect()
}

fn paths(tiles: Vec<Tile>) -> BTreeSet<String> {
    tiles.iter().map(Tile::path).collect()
}

#[test]
fn the_independent_reader_finds_the_root_dozor_signed_at_every_size_from_exactly_the_spec_s_tiles()
{
    let operator = common::operator();
    let mut folder = Folder::new(70_000);
    for size in [1, 255, 256, 257, 70_000] {
        let root = folder.grow_to(size, &operator);
        let summary = read_log(&folder.prefix(), &vkey(), &[], None).summary();
        assert_eq!(summary["size"], size, "{summary}");
        assert_eq!(summary["root"], hex::encode(root), "{summary}");
        assert_eq!(summary["origin"], ORIGIN, "{summary}");
        // Every entry checked against its leaf hash; the witness's line passed over.
        assert_eq!(summary["entries_checked"], size, "{summary}");
        assert_eq!(summary["signatures_ignored"], 1, "{summary}");
        // What the reader, from the spec, fetched is what dozor says a tree of this size has
        // (everything a tree grows by from nothing), no more: for 70 000, 273 full level-0 tiles
        // and bundles, their partials of 112, tile/1/000, tile/1/001.p/17 and tile/2/000.p/1
        // (the spec's own example), 2 · 274 + 3 = 551 files.
        assert_eq!(fetched(&summary), paths(tiles::tiles_between(0, size)));
        // The root alone from the tiles dozor says it is computed from.
        let alone = read_log(&folder.prefix(), &vkey(), &["--root-only"], None).summary();
        assert_eq!(alone["root"], hex::encode(root), "{alone}");
        assert_eq!(
            fetched(&alone),
            paths(tiles::tiles_for_root(size).unwrap()),
            "size {size}"
        );
    }
    let summary = read_log(&folder.prefix(), &vkey(), &[], None).summary();
    assert_eq!(summary["tiles_fetched"], 551, "{summary}");
    // The spec's examples by name: a tree of 256 is one full level-0 tile and tile/1/000.p/1.
    assert_eq!(
        paths(tiles::tiles_between(0, 256)),
        BTreeSet::from([
            "tile/0/000".to_owned(),
            "tile/entries/000".to_owned(),
            "tile/1/000.p/1".to_owned()
        ])
    );
}

/// Each file the reader fetched as nginx served it: the checkpoint as UTF-8 text, tiles as
/// octet streams, bundles compressed as the spec recommends (the reader decompressed them).
fn assert_served_as_the_spec_says(nginx: &Nginx, summary: &Value) {
    let access = nginx.access_log();
    let served: Vec<&str> = access.lines().collect();
    assert_eq!(
        served.len(),
        summary["fetched"].as_array().unwrap().len(),
        "{access}"
    );
    for line in served {
        let expected = if line.contains("/checkpoint ") {
            "200 \"text/plain; charset=utf-8\" -"
        } else if line.contains("/tile/entries/") {
            "200 \"application/octet-stream\" gzip"
        } else {
            "200 \"application/octet-stream\" -"
        };
        assert!(line.ends_with(expected), "{line}");
    }
}

#[test]
fn the_folder_served_by_nginx_reads_the_same_and_a_partial_tile_gone_is_read_from_its_full_tile() {
    let operator = common::operator();
    let mut folder = Folder::new(600);
    let root = folder.grow_to(300, &operator);
    // Beside it on the same nginx, another casino's log of 5 entries.
    let other = valid_folder(5);
    let nginx = Nginx::serve_logs(&[
        (folder.path(), "kasino/praha"),
        (other.path(), "kasino/brno"),
    ]);
    let summary = read_log(&nginx.url, &vkey(), &[], None).summary();
    assert_eq!(summary["root"], hex::encode(root), "{summary}");
    assert_eq!(summary["entries_checked"], 300, "{summary}");
    assert_eq!(fetched(&summary), paths(tiles::tiles_between(0, 300)));
    assert_served_as_the_spec_says(&nginx, &summary);
    let brno = read_log(&nginx.url_of("kasino/brno"), &vkey(), &[], None).summary();
    assert_eq!(brno["size"], 5, "{brno}");
    // The log grows to 600 and its partial tiles of 300 go (the spec lets a log delete a
    // partial tile once the full one is there): a reader holding the checkpoint of 300 reads
    // the first 300 − 256 = 44 hashes and entries of tile/0/001 and tile/entries/001 instead.
    let checkpoint_of_300 = std::fs::read(folder.path().join("checkpoint")).unwrap();
    folder.grow_to(600, &operator);
    for gone in ["tile/0/001.p/44", "tile/entries/001.p/44"] {
        std::fs::remove_file(folder.path().join(gone)).unwrap();
    }
    std::fs::write(folder.path().join("checkpoint"), checkpoint_of_300).unwrap();
    let summary = read_log(&nginx.url, &vkey(), &[], None).summary();
    assert_eq!(summary["root"], hex::encode(root), "{summary}");
    assert_eq!(summary["entries_checked"], 300, "{summary}");
    assert_eq!(
        fetched(&summary),
        BTreeSet::from(
            [
                "tile/0/000",
                "tile/0/001",
                "tile/entries/000",
                "tile/entries/001",
                "tile/1/000.p/1"
            ]
            .map(String::from)
        )
    );
}

#[test]
fn a_pruned_log_reads_from_its_minimum_index_and_not_below() {
    // 600 entries; the minimum index 512 lets the log refuse what ends at or below it: bundles
    // 000 and 001 and the full level-0 tiles 000 and 001 (hash tiles dozor keeps, but another
    // log need not). The root of 600 = 512 + 88 needs none of them: tile/1/000.p/2 holds the
    // roots of the first two 256-entry tiles.
    let folder = valid_folder(600);
    for pruned in [
        "tile/entries/000",
        "tile/entries/001",
        "tile/0/000",
        "tile/0/001",
    ] {
        std::fs::remove_file(folder.path().join(pruned)).unwrap();
    }
    let summary = read_log(&folder.prefix(), &vkey(), &["--minimum-index", "512"], None).summary();
    assert_eq!(summary["size"], 600, "{summary}");
    // 600 − 512 = 88 entries, all in tile/entries/002.p/88.
    assert_eq!(summary["entries_checked"], 88, "{summary}");
    // Below the minimum index nothing may be missing; above the tree's size it is no minimum.
    for (minimum, says) in [
        (
            "256",
            "tile/0/001: the log does not serve it, but the tree's size needs it",
        ),
        ("601", "the minimum index 601 is above the tree size 600"),
    ] {
        let why = read_log(
            &folder.prefix(),
            &vkey(),
            &["--minimum-index", minimum],
            None,
        )
        .refusal();
        assert_eq!(why, format!("tlog-tiles reader: {says}"));
    }
}

/// The RFC 6962 test data's eight entries and the roots of their trees of 1 to 8, as the
/// Certificate Transparency reference implementations publish them (not computed here).
const REFERENCE_ENTRIES: [&str; 8] = [
    "",
    "00",
    "10",
    "2021",
    "3031",
    "40414243",
    "5051525354555657",
    "606162636465666768696a6b6c6d6e6f",
];
const REFERENCE_ROOTS: [&str; 8] = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

#[test]
fn dozor_and_the_independent_reader_give_the_published_reference_roots() {
    let entries = REFERENCE_ENTRIES.map(|e| hex::decode(e).unwrap()).to_vec();
    let mut folder = Folder::of(entries);
    for (size, expected) in (1..).zip(REFERENCE_ROOTS) {
        let root = folder.grow_to(size, &common::operator());
        assert_eq!(hex::encode(root), expected, "dozor's root of {size}");
        let summary = read_log(&folder.prefix(), &vkey(), &[], None).summary();
        assert_eq!(summary["root"], expected, "{summary}");
    }
}

#[test]
fn the_independent_reader_verifies_go_s_signed_note_example_and_nothing_else() {
    // golang.org/x/mod/sumdb/note's example note and key: the signature verifies, and the
    // reader goes on to refuse its text, which is not a checkpoint.
    const VERIFIER: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    const SIGNED: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().display().to_string();
    for (note, says) in [
        (
            SIGNED.to_owned(),
            "checkpoint: the text is not three or more non-empty lines",
        ),
        (
            SIGNED.replace("answer", "ANSWER"),
            "checkpoint: the signature by PeterNeumann (c74f20a3) does not verify",
        ),
    ] {
        std::fs::write(dir.path().join("checkpoint"), note).unwrap();
        assert_eq!(
            read_log(&prefix, VERIFIER, &[], None).refusal(),
            format!("tlog-tiles reader: {says}")
        );
    }
}

/// A copy of `folder`, damaged by `damage`: the reader's refusal.
fn refusal_of(folder: &Folder, damage: impl FnOnce(&Folder)) -> String {
    let copy = Folder {
        dir: tempfile::tempdir().unwrap(),
        entries: Vec::new(),
        tree: MemoryTree::default(),
        size: folder.size,
    };
    let copied = std::process::Command::new("cp")
        .args(["-a", "--"])
        .arg(format!("{}/.", folder.prefix()))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(copied.success());
    damage(&copy);
    read_log(&copy.prefix(), &vkey(), &[], None).refusal()
}

/// A folder of a tree of `size`, which the reader reads as valid.
fn valid_folder(size: u64) -> Folder {
    let mut folder = Folder::new(size);
    folder.grow_to(size, &common::operator());
    read_log(&folder.prefix(), &vkey(), &[], None).summary();
    folder
}

#[test]
fn the_independent_reader_refuses_each_damaged_file_naming_it() {
    const SAYS: &str = "tlog-tiles reader: ";
    let (one, big, some) = (valid_folder(1), valid_folder(70_000), valid_folder(257));
    // A leaf hash in a full level-0 tile: the level-1 tile's hash of it no longer matches.
    // Byte 40 is in hash 1 (32 bytes a hash).
    let why = refusal_of(&big, |f| f.flip("tile/0/005", 40));
    assert_eq!(
        why,
        format!("{SAYS}tile/1/000: hash 5 is not the Merkle tree hash of tile/0/005")
    );
    // A hash of the full level-1 tile: byte 9 · 32 + 3 is in hash 9, the root of tile/0/009.
    let why = refusal_of(&big, |f| f.flip("tile/1/000", 9 * 32 + 3));
    assert_eq!(
        why,
        format!("{SAYS}tile/1/000: hash 9 is not the Merkle tree hash of tile/0/009")
    );
    // A bundle's entry. Bundle 5 starts with entry 1280: 2 bytes of length, then `{"entry":1280,…`;
    // byte 4 is the `e` of `entry`, so entry 0 of the bundle changes.
    let why = refusal_of(&big, |f| f.flip("tile/entries/005", 4));
    assert_eq!(
        why,
        format!(
            "{SAYS}tile/entries/005: entry 0 (index 1280) does not hash to hash 0 of tile/0/005"
        )
    );
    // A length prefix: entry 0 of the bundle (`{"entry":0,"pad":""}`, 20 bytes) says 21.
    let why = refusal_of(&one, |f| f.flip("tile/entries/000.p/1", 1));
    assert_eq!(
        why,
        format!("{SAYS}tile/entries/000.p/1: entry 0 says 21 bytes, but fewer remain")
    );
    // The only leaf hash of a tree of one: the bundle no longer hashes to it.
    let why = refusal_of(&one, |f| f.flip("tile/0/000.p/1", 0));
    assert_eq!(
        why,
        format!("{SAYS}tile/entries/000.p/1: entry 0 (index 0) does not hash to hash 0 of tile/0/000.p/1")
    );
    // The partial level-2 tile of 70 000 is the root of the first 65 536 entries.
    let why = refusal_of(&big, |f| f.flip("tile/2/000.p/1", 31));
    assert_eq!(
        why,
        format!("{SAYS}tile/2/000.p/1: hash 0 is not the Merkle tree hash of tile/1/000")
    );
    // A tile cut short.
    let why = refusal_of(&some, |f| {
        let file = f.path().join("tile/0/000");
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(file, &bytes[..bytes.len() - 1]).unwrap();
    });
    assert_eq!(
        why,
        format!("{SAYS}tile/0/000: 8191 bytes, but a tile of width 256 holds 8192")
    );
    // A tile the size needs, missing.
    let why = refusal_of(&some, |f| {
        std::fs::remove_file(f.path().join("tile/1/000.p/1")).unwrap();
    });
    assert_eq!(
        why,
        format!("{SAYS}tile/1/000.p/1: the log does not serve it, but the tree's size needs it")
    );
}

/// A damage that rewrites the checkpoint's note with `edit`.
fn rewrite(edit: impl Fn(String) -> String) -> impl FnOnce(&Folder) {
    move |f: &Folder| {
        let file = f.path().join("checkpoint");
        let note = std::fs::read_to_string(&file).unwrap();
        std::fs::write(file, edit(note)).unwrap();
    }
}

#[test]
fn the_independent_reader_refuses_a_checkpoint_whose_signature_does_not_verify() {
    let some = valid_folder(257);
    let operator = common::operator();
    let id = format!("{:08x}", operator.verifier().id);
    let bad_signature =
        format!("tlog-tiles reader: checkpoint: the signature by {ORIGIN} ({id}) does not verify");
    // A bit of the signature itself (past the key id's 4 bytes, in base64 the first 6 digits).
    let flipped = rewrite(|note| {
        let line = note
            .lines()
            .find(|l| l.starts_with(&format!("\u{2014} {ORIGIN} ")))
            .unwrap();
        let blob_b64 = line.rsplit(' ').next().unwrap();
        let mut blob = base64::engine::general_purpose::STANDARD
            .decode(blob_b64)
            .unwrap();
        blob[20] ^= 0x01;
        let again = base64::engine::general_purpose::STANDARD.encode(&blob);
        note.replace(blob_b64, &again)
    });
    assert_eq!(refusal_of(&some, flipped), bad_signature);
    // The text changed under the signature: a larger tree.
    let grown = rewrite(|note| note.replacen("\n257\n", "\n258\n", 1));
    assert_eq!(refusal_of(&some, grown), bad_signature);
    // Signed by another key of the same name: no signature of the operator's key at all.
    let mut folder = Folder::new(2);
    folder.grow_to(2, &common::operator_with(43));
    assert_eq!(
        read_log(&folder.prefix(), &vkey(), &[], None).refusal(),
        format!("tlog-tiles reader: checkpoint: no signature by {ORIGIN} ({id})")
    );
    // The checkpoint's root not the tiles' (signed all the same).
    let mut folder = Folder::new(300);
    folder.grow_to(300, &operator);
    let wrong = Checkpoint {
        origin: ORIGIN.into(),
        size: 300,
        root: [7; 32],
    };
    let note = operator.sign(&wrong.text()).unwrap();
    std::fs::write(folder.path().join("checkpoint"), note).unwrap();
    let why = read_log(&folder.prefix(), &vkey(), &[], None).refusal();
    assert!(
        why.starts_with(&format!(
            "tlog-tiles reader: checkpoint: its root {} is not the root computed from the tiles",
            hex::encode([7u8; 32])
        )),
        "{why}"
    );
}

/// The operator key `dozor serve` made in the site's data directory: its verifier key.
fn site_vkey(site: &common::site::Site) -> String {
    let key = std::fs::read_to_string(site.path().join("operator.key")).unwrap();
    NoteSigner::from_private_key(&key)
        .unwrap()
        .verifier()
        .to_string()
}

/// A site whose `dozor serve` publishes its tiles to `<data dir>/tiles`, its server, and a
/// regulator's key.
fn publishing_site() -> (
    common::site::Site,
    std::path::PathBuf,
    common::site::Server,
    String,
) {
    let site = common::site::Site::new();
    let published = site.path().join("tiles");
    std::fs::write(
        site.path().join("dozor.toml"),
        format!("[tiles]\npublish_dir = \"{}\"\n", published.display()),
    )
    .unwrap();
    let server = site.serve();
    let regulator = site.apikey("inspector", "regulator");
    (site, published, server, regulator)
}

/// The tree size of a checkpoint's note.
fn size_of(note: &str) -> Option<u64> {
    note.lines().nth(1)?.parse().ok()
}

#[test]
fn what_serve_publishes_reads_through_nginx_as_the_ledger_s_checkpoint() {
    let (site, published, server, regulator) = publishing_site();
    // Three tables of 200 rounds, and their registrations and keys: over 512 entries, so two
    // full level-0 tiles and bundles, a level-1 tile of their two hashes, and partial edges.
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--seed", "7"])
        .args(["--tables", "3", "--rounds", "200", "--error-share", "0.1"])
        .succeeds();
    // The checkpoint is published last, once the ledger's checkpoint covers every entry.
    let (size, note) = settled_checkpoint(&server, &published, &regulator);
    assert!(size > 512, "{size}");
    // It is the ledger's latest signed checkpoint, byte for byte (no witness configured).
    let (status, served) = server
        .http
        .try_call("GET", "/api/v1/ledger/checkpoint", None, None)
        .unwrap();
    assert_eq!((status, &served), (200, &note));
    let vkey = site_vkey(&site);
    let (text, _) =
        dozor_log::checkpoint::open(&note, &[NoteVerifier::parse(&vkey).unwrap()]).unwrap();
    let checkpoint = Checkpoint::parse(text).unwrap();

    // The folder through Debian's nginx: the independent reader finds the checkpoint's root in
    // the tiles and every entry in them.
    let nginx = Nginx::serve_tiles(&published, "kasino/praha");
    let through_nginx = read_log(&nginx.url, &vkey, &[], None).summary();
    assert_eq!(through_nginx["size"], size, "{through_nginx}");
    assert_eq!(through_nginx["root"], hex::encode(checkpoint.root));
    assert_eq!(through_nginx["entries_checked"], size);
    assert_eq!(
        fetched(&through_nginx),
        paths(tiles::tiles_between(0, size))
    );
    assert_served_as_the_spec_says(&nginx, &through_nginx);
    // Beside the tiles, dozor's verdict lines (one per entry of the bundle) and the minimum
    // index, as nginx serves them.
    let http = common::site::Http::new(nginx.port);
    let (status, headers, lines) = http.get_with_headers("/kasino/praha/verdicts/000", None);
    assert_eq!(status, 200, "{lines}");
    assert_eq!(headers["content-type"], "application/x-ndjson");
    let indexes: Vec<u64> = lines
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["index"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(indexes, (0..256).collect::<Vec<u64>>());
    let (status, headers, minimum) = http.get_with_headers("/kasino/praha/minimum-index", None);
    assert_eq!((status, minimum.as_str()), (200, "0\n"));
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
}

#[test]
fn the_server_gives_a_regulator_the_tiles_it_publishes_and_no_one_else() {
    let (site, published, server, regulator) = publishing_site();
    // One table of 300 rounds, its registration and keys: a full tile and a partial edge.
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--tables", "1"])
        .args(["--rounds", "300", "--error-share", "0.1"])
        .succeeds();
    let (size, _) = settled_checkpoint(&server, &published, &regulator);
    assert!(size > 256, "{size}");
    let vkey = site_vkey(&site);
    let in_the_folder = read_log(&published.display().to_string(), &vkey, &[], None).summary();
    let api = format!("{}/api/v1/tiles/", server.http.base);
    let through_api = read_log(&api, &vkey, &[], Some(&regulator)).summary();
    assert_eq!(through_api, in_the_folder);
    assert_eq!(through_api["size"], size, "{through_api}");
    // Not without a key, nor to a key of a role that does not read tiles.
    let reporter = site.apikey("nightly", "reporter");
    for (token, status) in [(None, 401), (Some(reporter.as_str()), 403)] {
        assert_eq!(
            read_log(&api, &vkey, &[], token).refusal(),
            format!("tlog-tiles reader: checkpoint: the log answered HTTP {status}")
        );
    }
}

/// The published checkpoint once it covers the whole ledger (read by `regulator`'s key).
fn settled_checkpoint(
    server: &common::site::Server,
    folder: &Path,
    regulator: &str,
) -> (u64, String) {
    let (status, head) = server.http.get("/api/v1/ledger/head", Some(regulator));
    assert_eq!(status, 200, "{head}");
    let size = head["size"].as_u64().unwrap();
    let note = common::poll_until(
        std::time::Duration::from_secs(30),
        std::time::Duration::from_millis(100),
        || {
            let note = std::fs::read_to_string(folder.join("checkpoint")).unwrap_or_default();
            match size_of(&note) {
                Some(s) if s == size => Ok(note),
                other => Err(format!(
                    "published checkpoint of {other:?}, the ledger holds {size}:\n{}",
                    server.log()
                )),
            }
        },
    );
    (size, note)
}

#[test]
fn the_partial_tiles_of_an_earlier_checkpoint_are_served_until_their_full_tile_is() {
    let (site, published, server, regulator) = publishing_site();
    let simulate = |rounds: &str| {
        site.dozor()
            .args(["simulate", "--server", &server.http.base, "--tables", "1"])
            .args(["--rounds", rounds, "--error-share", "0"])
            .succeeds();
    };
    simulate("5");
    let (earlier, earlier_note) = settled_checkpoint(&server, &published, &regulator);
    simulate("5");
    let (later, _) = settled_checkpoint(&server, &published, &regulator);
    // Both trees end in the first tile: neither has a full tile yet.
    assert!(earlier < later && later < 256, "{earlier} {later}");
    // A reader that verified the earlier checkpoint reads its tree: the spec says the log
    // serves its partial tiles until the full tiles are there, through nginx as through the
    // server.
    let held = tempfile::tempdir().unwrap();
    let held_note = held.path().join("checkpoint");
    std::fs::write(&held_note, &earlier_note).unwrap();
    let held_note = held_note.display().to_string();
    let nginx = Nginx::serve_tiles(&published, "kasino/praha");
    let api = format!("{}/api/v1/tiles/", server.http.base);
    let vkey = site_vkey(&site);
    let mut refused = Vec::new();
    for (prefix, token) in [(&nginx.url, None), (&api, Some(regulator.as_str()))] {
        match read_log(prefix, &vkey, &["--checkpoint", &held_note], token) {
            Reading::Read(summary) => {
                assert_eq!(summary["size"], earlier, "{summary}");
                assert_eq!(summary["entries_checked"], earlier, "{summary}");
            }
            Reading::Refused(why) => refused.push(format!("{prefix}: {why}")),
        }
    }
    assert!(refused.is_empty(), "{refused:#?}");
}
