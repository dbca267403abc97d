#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `[tiles] publish_dir`: `dozor serve` keeps a folder of the ledger's tiles as checkpoints are
//! signed, ending with the final checkpoint at shutdown; `dozor log publish-tiles` fills another
//! folder from the database alone with the same bytes, and says when there is nothing new.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::tiles_reader::read_log;
use common::Succeeds as _;
use dozor_log::checkpoint::NoteSigner;
use serde_json::Value;

/// Every file under `dir`, by its path relative to it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
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

fn size_of(note: &[u8]) -> Option<u64> {
    std::str::from_utf8(note).ok()?.lines().nth(1)?.parse().ok()
}

#[test]
fn serve_publishes_the_ledger_as_tiles_and_publish_tiles_refills_a_folder_with_the_same_bytes() {
    let site = common::site::Site::new();
    // A relative folder starts at the configuration file's folder (the data directory here).
    std::fs::write(
        site.path().join("dozor.toml"),
        "[tiles]\npublish_dir = \"site/tiles\"\n",
    )
    .unwrap();
    let published = site.path().join("site/tiles");
    let server = site.serve();
    site.dozor()
        .args(["simulate", "--server", &server.http.base, "--seed", "3"])
        .args(["--tables", "2", "--rounds", "150", "--error-share", "0.1"])
        .succeeds();
    let compliance = site.apikey("officer", "compliance");
    let (status, head) = server.http.get("/api/v1/ledger/head", Some(&compliance));
    assert_eq!(status, 200, "{head}");
    let size = head["size"].as_u64().unwrap();
    // Two tables of 150 rounds and their registrations: past one full tile of 256.
    assert!(size > 256, "{head}");
    common::poll_until(
        std::time::Duration::from_secs(30),
        std::time::Duration::from_millis(100),
        || match std::fs::read(published.join("checkpoint"))
            .ok()
            .as_deref()
            .and_then(size_of)
        {
            Some(s) if s >= size => Ok(()),
            other => Err(format!("published {other:?} of {size}:\n{}", server.log())),
        },
    );
    // The metrics say how far the folder is published (set just after each publication).
    let published_size = size_of(&std::fs::read(published.join("checkpoint")).unwrap()).unwrap();
    let metrics = common::poll_until(
        std::time::Duration::from_secs(10),
        std::time::Duration::from_millis(100),
        || {
            let (_, metrics) = server
                .http
                .try_call("GET", "/metrics", Some(&compliance), None)
                .unwrap();
            let gauge = metrics
                .lines()
                .find_map(|l| l.strip_prefix("dozor_tiles_published_size "))
                .and_then(|v| v.parse::<u64>().ok());
            match gauge {
                Some(g) if g >= published_size => Ok(metrics),
                _ => Err(format!("the folder holds {published_size}:\n{metrics}")),
            }
        },
    );
    assert!(
        metrics.contains("dozor_tiles_publish_failures_total 0"),
        "{metrics}"
    );
    // Shutdown signs a final checkpoint (of the API key's registry event too) and publishes it.
    assert!(server.terminate().success());
    let served = files(&published);

    let final_size = size_of(&served["checkpoint"]).unwrap();
    // The independent reader (Python, from the specifications) finds the checkpoint, signed
    // by the operator, its root in the tiles and every entry in the bundles.
    let operator = std::fs::read_to_string(site.path().join("operator.key")).unwrap();
    let vkey = NoteSigner::from_private_key(&operator).unwrap().verifier();
    let read = read_log(published.to_str().unwrap(), &vkey.to_string(), &[], None).summary();
    assert_eq!(read["size"], final_size, "{read}");
    assert_eq!(read["entries_checked"], final_size, "{read}");

    // From the database alone, into a new folder: the same files, byte for byte.
    let refill = site.path().join("refill");
    let publish = || -> Value {
        let out = site
            .dozor()
            .args(["log", "publish-tiles", "--dir"])
            .arg(&refill)
            .succeeds();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let report = publish();
    assert_eq!(report["published"], "tiles", "{report}");
    assert_eq!(
        (report["from"].as_u64(), report["to"].as_u64()),
        (Some(0), Some(final_size))
    );
    let refilled = files(&refill);
    assert_eq!(
        refilled.keys().collect::<Vec<_>>(),
        served.keys().collect::<Vec<_>>()
    );
    assert!(refilled == served, "the refilled folder differs");
    assert!(served.contains_key("tile/0/000"));
    assert!(served.contains_key("tile/entries/000"));
    assert!(served.contains_key("verdicts/000"));
    assert_eq!(served["minimum-index"], b"0\n");
    // Once more: nothing new.
    let report = publish();
    assert_eq!(report["published"], "up_to_date", "{report}");
    assert_eq!(report["size"].as_u64(), Some(final_size));
    // A file where the folder should be: one line naming it, and nothing written.
    let not_a_folder = site.path().join("not-a-folder");
    std::fs::write(&not_a_folder, "x").unwrap();
    let said = site
        .dozor()
        .args(["log", "publish-tiles", "--dir"])
        .arg(&not_a_folder)
        .fails();
    assert!(said.contains("not-a-folder"), "{said}");
    // The server does not start with such a folder: one line naming the key.
    std::fs::write(
        site.path().join("dozor.toml"),
        "[tiles]\npublish_dir = \"not-a-folder\"\n",
    )
    .unwrap();
    let said = site
        .dozor()
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{}", common::free_port()),
        ])
        .fails();
    assert!(said.contains("tiles.publish_dir"), "{said}");
}
