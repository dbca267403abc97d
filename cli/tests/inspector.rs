#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! An inspector's visit as docs/EXPORT.md tells it: a back-filled month's summary counts its
//! late rounds, `verify` takes the ZIP as downloaded and the folder it unpacks to (a wrong path
//! is a usage error, never "BROKEN"), a checkpoint kept from an earlier visit pins the ledger,
//! an export made with the server stopped passes the witnesses' quorum, and `dozor round` shows
//! a round as played, in Prague time and in Czech, with the commands that check it offline.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use chrono::{DateTime, Duration, NaiveDate, TimeZone as _, Utc};
use common::*;
use dozor_log::checkpoint::Checkpoint;
use dozor_log::cosignature::{self, CosignatureSigner};
use ledger::storage::{checkpoints, connect};
use serde_json::json;

/// 11:00 UTC of `day`: 13:00 in Prague in summer time (to 25 October), 12:00 after.
fn eleven_utc(day: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&day.and_hms_opt(11, 0, 0).unwrap())
}

/// 5 October 2026, the back-filled day.
fn october_5() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, 5).unwrap()
}

/// Appends R01's spins `seqs`, each played at `played` plus `seq` minutes and received at
/// `received` plus `seq` seconds; spin 3 overpaid.
fn spins(
    state: &api::state::AppState,
    conn: &mut diesel::PgConnection,
    seqs: std::ops::RangeInclusive<u64>,
    (played, received): (DateTime<Utc>, DateTime<Utc>),
) {
    for seq in seqs {
        // 17 wins: 35 × 10 000 + 10 000 = 360 000 due; spin 3 pays 361 000, 1 000 (10 Kč) over.
        let paid = if seq == 3 { 361_000 } else { 360_000 };
        let mut record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, paid)]));
        record["played_at"] = json!((played + Duration::minutes(seq as i64)).to_rfc3339());
        let at = received + Duration::seconds(seq as i64);
        append_signed(state, conn, record, &key(12), at);
    }
}

/// A ledger whose 5 October arrived on 3 November: R01 registered (entry 0, on 1 October) and
/// spins 1-4 played on 5 October, received on 3 November (entries 1-4), under a checkpoint.
fn back_filled() -> (api::state::AppState, String) {
    let (state, url) = state();
    let mut conn = connect(&url).unwrap();
    register_roulette(
        &mut conn,
        "R01",
        &key(12),
        eleven_utc(october_5()) - Duration::days(4),
    );
    let november_3 = NaiveDate::from_ymd_opt(2026, 11, 3).unwrap();
    spins(
        &state,
        &mut conn,
        1..=4,
        (eleven_utc(october_5()), eleven_utc(november_3)),
    );
    checkpoints::create(&mut conn, &operator(), 5, Utc::now()).unwrap();
    (state, url)
}

/// A working folder with the operator's key file, where `dozor export` writes.
struct Office {
    dir: tempfile::TempDir,
    url: String,
}

impl Office {
    fn new(url: &str) -> Office {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("operator.key"), operator().private_key()).unwrap();
        Office {
            dir,
            url: url.to_owned(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `dozor export` of gaming day `day` into `name`, with `extra` arguments.
    fn export(&self, day: NaiveDate, name: &str, extra: &[&str]) -> PathBuf {
        let out = self.path(name);
        dozor()
            .arg("--data-dir")
            .arg(self.dir.path())
            .arg("export")
            .arg("--operator-key")
            .arg(self.path("operator.key"))
            .args(["--from", &day.to_string(), "--to", &day.to_string()])
            .args(extra)
            .arg(&out)
            .env("DATABASE_URL", &self.url)
            .succeeds();
        out
    }
}

/// `dozor verify` of `export` with the operator's verifier key and `extra` arguments.
fn verify(export: &Path, extra: &[&str]) -> Output {
    dozor()
        .arg("verify")
        .arg(export)
        .args(["--operator-key", &operator().verifier().to_string()])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts `dozor verify` of `export` with `extra` finds the export broken (exit 1), saying
/// `said`.
fn assert_broken(export: &Path, extra: &[&str], said: impl AsRef<str>) {
    let out = verify(export, extra);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(said.as_ref()), "{}", stderr(&out));
}

/// [`assert_broken`] pinned to the checkpoint file `pin`.
fn assert_pin_broken(export: &Path, pin: &Path, said: impl AsRef<str>) {
    assert_broken(export, &["--pin", pin.to_str().unwrap()], said);
}

/// Asserts `out` is a usage error: exit 2, one line, no verdict on any export.
fn assert_usage_error(out: &Output, said: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert_eq!(text.trim_end().lines().count(), 1, "{text}");
    assert!(text.contains(said), "`{said}` missing: {text}");
    assert!(!text.contains("BROKEN"), "{text}");
}

#[test]
fn a_back_filled_month_counts_its_late_rounds_as_rounds() {
    let (_state, url) = back_filled();
    let office = Office::new(&url);
    let export = office.export(october_5(), "export", &[]);
    let out = verify(&export, &[]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    // No entry was received on 5 October; its four rounds arrived later and are all
    // re-adjudicated, spin 3's overpayment (one finding) among them.
    assert!(
        text.contains("export OK: 0 entries received in 2026-10-05..2026-10-05 (plus chain links) and 4 rounds played in it but received later; 4 rounds re-adjudicated (4 of them late, with 1 findings)"),
        "{text}"
    );
}

#[actix_web::test]
async fn verify_takes_the_zip_as_downloaded_and_the_folder_it_unpacks_to() {
    use actix_web::test as web_test;
    let (state, url) = back_filled();
    create_key(&url, dozor_log::access::Role::Regulator);
    let app = test_app(&state).await;
    let day = october_5();
    let request = web_test::TestRequest::get()
        .uri(&format!("/api/v1/exports?from={day}&to={day}"))
        .insert_header(bearer(dozor_log::access::Role::Regulator))
        .to_request();
    let bytes = call_for_file(&app, request, "content-type", "application/zip").await;
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join(format!("dozor-export-{day}-{day}.zip"));
    std::fs::write(&zip, &bytes).unwrap();
    // Unpacked as an inspector would, by Info-ZIP's unzip.
    let unpacked = dir.path().join("unpacked");
    std::process::Command::new("unzip")
        .arg("-q")
        .arg(&zip)
        .arg("-d")
        .arg(&unpacked)
        .succeeds();
    let folder = unpacked.join(format!("dozor-export-{day}-{day}"));
    // The ZIP, the folder it unpacks to, and the folder it was unpacked into all verify.
    for given in [&zip, &folder, &unpacked] {
        let out = verify(given, &[]);
        assert!(
            out.status.success(),
            "{}: {}",
            given.display(),
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("4 rounds re-adjudicated"),
            "{}",
            stderr(&out)
        );
    }
    // `dozor round` reads the ZIP too.
    let round = dozor()
        .arg("round")
        .arg(&zip)
        .args(["--table", "R01", "--seq-no", "3"])
        .args(["--operator-key", &operator().verifier().to_string()])
        .succeeds();
    assert!(String::from_utf8_lossy(&round.stdout).contains("Záznam stolu R01 #3"));

    // A wrong path is the command's mistake, said in one line with exit 2.
    assert_usage_error(
        &verify(&dir.path().join("nothing.zip"), &[]),
        "nothing.zip: no such file or folder",
    );
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not an export").unwrap();
    assert_usage_error(&verify(&notes, &[]), "a file that is not a ZIP");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_usage_error(&verify(&empty, &[]), "a folder without MANIFEST");

    // A ZIP whose entries were changed is a broken export, not a wrong path.
    let tampered = dir.path().join("tampered.zip");
    rezip(&bytes, &tampered, |name, content| {
        if name.ends_with("/late-rounds.jsonl") {
            *content = content.replacen(b"361000", b"360000");
        }
    });
    assert_broken(
        &tampered,
        &[],
        "export BROKEN: late-rounds.jsonl: SHA-256 is",
    );
}

/// Writes the ZIP `bytes` again to `out`, each file passed through `change`.
fn rezip(bytes: &[u8], out: &Path, change: impl Fn(&str, &mut Vec<u8>)) {
    use std::io::{Read as _, Write as _};
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut writer = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let name = file.name().to_owned();
        let mut content = Vec::new();
        file.read_to_end(&mut content).unwrap();
        change(&name, &mut content);
        writer
            .start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(&content).unwrap();
    }
    writer.finish().unwrap();
}

trait ReplaceBytes {
    fn replacen(&self, from: &[u8], to: &[u8]) -> Vec<u8>;
}

impl ReplaceBytes for Vec<u8> {
    /// The bytes with the first `from` replaced by `to`.
    fn replacen(&self, from: &[u8], to: &[u8]) -> Vec<u8> {
        let at = self.windows(from.len()).position(|w| w == from).unwrap();
        [&self[..at], to, &self[at + from.len()..]].concat()
    }
}

/// A checkpoint of `size` entries at `root`, signed by the tests' operator, in a file.
fn signed_checkpoint(dir: &Path, name: &str, size: u64, root: [u8; 32]) -> PathBuf {
    let text = Checkpoint {
        origin: operator().name().to_owned(),
        size,
        root,
    }
    .text();
    let path = dir.join(name);
    std::fs::write(&path, operator().sign(&text).unwrap()).unwrap();
    path
}

#[test]
fn a_checkpoint_kept_from_an_earlier_visit_pins_the_ledger() {
    let (state, url) = back_filled();
    let mut conn = connect(&url).unwrap();
    // The earlier visit kept the checkpoint of the first 5 entries (the server serves it).
    let kept = checkpoints::latest(&mut conn).unwrap().unwrap();
    let office = Office::new(&url);
    let pin = office.path("kept-checkpoint.txt");
    std::fs::write(&pin, &kept.note).unwrap();
    // Since then: spins 5-6 played and received on 20 November (entries 5-6).
    let november_20 = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let at = eleven_utc(november_20);
    spins(&state, &mut conn, 5..=6, (at, at));
    checkpoints::create(&mut conn, &operator(), 7, Utc::now()).unwrap();
    let export = office.export(november_20, "export", &[]);
    let pin_arg = pin.to_str().unwrap();
    let out = verify(&export, &["--pin", pin_arg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "pinned checkpoint {pin_arg} (5 entries) is a prefix of the ledger"
        )),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["pin"]["proven_by"], "entries", "{report}");

    // Another tree of 5 entries, signed by the same key (a ledger rewritten and re-signed):
    // the export's entries do not extend it, and the failure names the pinned file.
    let forked = signed_checkpoint(office.dir.path(), "forked.txt", 5, [7; 32]);
    assert_pin_broken(
        &export,
        &forked,
        format!(
            "export BROKEN: pinned checkpoint {}: is not consistent with the export's checkpoint",
            forked.display()
        ),
    );
    // A pinned tree larger than the export's latest: the ledger was cut back since.
    let latest: serde_json::Value = serde_json::from_slice(&verify(&export, &[]).stdout).unwrap();
    let latest_size = latest["latest_size"].as_u64().unwrap();
    let larger = signed_checkpoint(office.dir.path(), "larger.txt", latest_size + 3, [9; 32]);
    assert_pin_broken(
        &export,
        &larger,
        format!(
            "covers {} entries, more than the export's latest checkpoint ({latest_size})",
            latest_size + 3
        ),
    );
    // The same tree at the export's own checkpoint size but another root.
    let other_root = signed_checkpoint(office.dir.path(), "other.txt", latest_size, [3; 32]);
    assert_pin_broken(&export, &other_root, "not the ledger it was kept from");
    // A checkpoint no operator key given signed.
    let foreign = office.path("foreign.txt");
    std::fs::write(
        &foreign,
        operator_with(9)
            .sign(
                &Checkpoint {
                    origin: operator().name().to_owned(),
                    size: 5,
                    root: [0; 32],
                }
                .text(),
            )
            .unwrap(),
    )
    .unwrap();
    assert_pin_broken(&export, &foreign, "not signed by an operator key given");
    // A pin the export's entries do not reach (the tree of 2 entries ends before them) is
    // named with the export that would prove it.
    let (early_root, _, _) = ledger::storage::tree::consistency_proof(&mut conn, 2, 7).unwrap();
    let early = signed_checkpoint(office.dir.path(), "early.txt", 2, early_root);
    assert_pin_broken(
        &export,
        &early,
        "an export whose period holds entry 1 proves it",
    );
    // On the server, the same pin is held against the ledger in the database.
    let (code, printed, said) = verify_database_with(&url, &["--pin", pin_arg]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(printed["pin"]["prefix"], true, "{printed}");
    assert!(
        said.contains(&format!(
            "pinned checkpoint {pin_arg} (5 entries) is a prefix of the ledger"
        )),
        "{said}"
    );
    let (code, _, said) = verify_database_with(&url, &["--pin", forked.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "ledger NOT PINNED: pinned checkpoint {}: the tree of 5 entries has root 0707",
            forked.display()
        )),
        "{said}"
    );
    // A pin file that is not there is a usage error.
    assert_usage_error(
        &verify(
            &export,
            &["--pin", office.path("none.txt").to_str().unwrap()],
        ),
        "none.txt: cannot be read",
    );
}

/// Two witnesses' signers and the `[[witness]]` configuration naming them.
fn witnesses(office: &Office) -> (Vec<CosignatureSigner>, PathBuf) {
    let signers: Vec<CosignatureSigner> = [("witness.test/one", 31), ("witness.test/two", 32)]
        .into_iter()
        .map(|(name, seed)| CosignatureSigner::new(name, key(seed)).unwrap())
        .collect();
    let config = office.path("dozor.toml");
    let text: String = signers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "[[witness]]\nurl = \"http://127.0.0.1:{}\"\nkey = \"{}\"\n",
                9 + i,
                s.verifier()
            )
        })
        .collect();
    std::fs::write(&config, text).unwrap();
    (signers, config)
}

/// Each of `signers` cosigns the stored checkpoint `row`, and the server keeps it, as it keeps
/// what the witnesses answer while it runs.
fn cosign(
    conn: &mut diesel::PgConnection,
    row: &checkpoints::CheckpointRow,
    signers: &[CosignatureSigner],
) {
    let text = dozor_log::checkpoint::open(&row.note, &[operator().verifier()])
        .unwrap()
        .0
        .to_owned();
    for signer in signers {
        let note = format!("{}{}", row.note, signer.cosign(&text, 1_790_000_000));
        let found = cosignature::cosignatures(&note, &[signer.verifier()]).unwrap();
        ledger::storage::cosignatures::record(conn, row.size as u64, &found[0], Utc::now())
            .unwrap();
    }
}

#[test]
fn an_export_made_with_the_server_stopped_passes_the_witnesses_quorum() {
    let (state, url) = back_filled();
    let mut conn = connect(&url).unwrap();
    let office = Office::new(&url);
    let (signers, config) = witnesses(&office);
    // While the server ran, both witnesses cosigned the checkpoint of 5 entries; then it
    // stopped. The export seals its reports in a checkpoint no witness has seen.
    let row = checkpoints::latest(&mut conn).unwrap().unwrap();
    cosign(&mut conn, &row, &signers);
    let config_arg = config.to_str().unwrap();
    let wait = ["--config", config_arg, "--witness-wait-seconds", "0"];
    let export = office.export(october_5(), "export", &wait);
    let keys: Vec<String> = signers.iter().map(|s| s.verifier().to_string()).collect();
    let quorum = [
        "--witness-key",
        &keys[0],
        "--witness-key",
        &keys[1],
        "--quorum",
        "2",
    ];
    let out = verify(&export, &quorum);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("witnessed up to 5 entries by witness.test/one, witness.test/two"),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["witnessed_size"], 5, "{report}");
    assert!(report["latest_size"].as_u64().unwrap() > 5, "{report}");

    // A witnessed checkpoint whose cosignature was changed fails.
    let changed = office.path("changed");
    copy_dir(&export, &changed);
    let witnessed = changed.join("checkpoint-witnessed.txt");
    let note = std::fs::read_to_string(&witnessed).unwrap();
    let last = note.trim_end().lines().next_back().unwrap().to_owned();
    let flipped = format!(
        "{}{}",
        &last[..last.len() - 3],
        if last.ends_with("AAA") { "BBB" } else { "AAA" }
    );
    std::fs::write(&witnessed, note.replace(&last, &flipped)).unwrap();
    fix_manifest(&changed);
    assert_broken(
        &changed,
        &quorum,
        "checkpoint-witnessed.txt: a witness's cosignature",
    );

    // Rounds received after what the witnesses saw are not vouched for by them: today, whose
    // entries (the first export's seals, a spin) run past the witnessed checkpoint, fails the
    // quorum and says so.
    let now = Utc::now();
    spins(&state, &mut conn, 5..=5, (now - Duration::minutes(10), now));
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
    let today = rules::gaming_day::GamingDayClock::default().day_of(now);
    let unseen = office.export(today, "unseen", &wait);
    assert_broken(
        &unseen,
        &quorum,
        "the witnesses cosigned the ledger up to 5 entries",
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_round_is_shown_as_played_in_prague_time_with_its_findings_in_czech_and_how_to_check_it() {
    let (_state, url) = back_filled();
    let office = Office::new(&url);
    let export = office.export(october_5(), "export", &[]);
    let verifier = operator().verifier().to_string();
    let out = dozor()
        .arg("round")
        .arg(&export)
        .args([
            "--table",
            "R01",
            "--seq-no",
            "3",
            "--operator-key",
            &verifier,
        ])
        .succeeds();
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "Záznam stolu R01 #3 — index v knize 3".to_owned(),
        // Played 11:03 UTC on 5 October (summer time, +2), received 11:00:03 UTC on
        // 3 November (winter time, +1).
        "odehráno 5. 10. 2026 13:03:00, přijato 3. 11. 2026 12:00:03 (čas v Praze)".to_owned(),
        // 361 000 − 360 000 = 1 000 haléřů over.
        "3.0 přeplaceno 10,00 Kč".to_owned(),
        // The rules' English message, read in Czech by their catalogue.
        "popis: sázka b1 (číslo (plein)): přeplaceno; vyplaceno 3 610,00 Kč, plán požaduje 3 600,00 Kč".to_owned(),
        "Ověření offline".to_owned(),
        format!(
            "dozor round {} --table R01 --seq-no 3 --operator-key {verifier}",
            export.display()
        ),
        format!(
            "dozor verify {} --operator-key {verifier}",
            export.display()
        ),
    ] {
        assert!(text.contains(&expected), "`{expected}` missing:\n{text}");
    }
    assert!(!text.contains("2026-11-03T11:00:03"), "{text}");
    // The printed check is the one an inspector runs, and it passes.
    let out = verify(&export, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}
