#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `dozor verify --since-last`: the nightly check covers what was appended since the last
//! passing check and records its result in the ledger as an operator-signed verification mark;
//! what it cannot see (a row changed in a range already verified) the full walk names; a
//! restore of the database to before the last mark is named from the mark kept outside it.

mod common;

use std::path::Path;

use chrono::{Duration, Utc};
use common::*;
use diesel::connection::SimpleConnection as _;
use ledger::storage::{checkpoints, connect};
use serde_json::{json, Value};

/// A ledger whose entry 0 registers roulette table R01 (key 11), then `spins` spins of 17 with
/// a straight on 17 of 100 Kč paid 3 600 Kč (35 × 10 000 h + the stake = 360 000 h: correct),
/// and a checkpoint over all of it; with a data directory holding the operator's key.
fn ledger(spins: u64) -> (api::state::AppState, String, tempfile::TempDir) {
    let (state, url) = state();
    let mut conn = connect(&url).unwrap();
    register_roulette(&mut conn, "R01", &key(11), start());
    append_spins(&state, &url, 1..=spins, 360_000);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("operator.key"), operator().private_key()).unwrap();
    (state, url, dir)
}

fn start() -> chrono::DateTime<Utc> {
    Utc::now() - Duration::hours(2)
}

/// Appends spins `seqs` of R01, each paying `paid`, then signs a checkpoint over the ledger.
fn append_spins(
    state: &api::state::AppState,
    url: &str,
    seqs: std::ops::RangeInclusive<u64>,
    paid: i64,
) {
    let mut conn = connect(url).unwrap();
    let start = start();
    for seq in seqs {
        let mut record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, paid)]));
        record["played_at"] = json!((start + Duration::minutes(seq as i64)).to_rfc3339());
        let received = start + Duration::minutes(seq as i64) + Duration::seconds(1);
        append_signed(state, &mut conn, record, &key(11), received);
    }
    let size = ledger::storage::reads::size(&mut conn).unwrap();
    checkpoints::create(&mut conn, &operator(), size, Utc::now()).unwrap();
}

/// `dozor verify --since-last` on `url` with the data directory `dir`: exit code, the report,
/// the last line of standard error.
fn since_last(url: &str, dir: &Path) -> (Option<i32>, Value, String) {
    let out = dozor()
        .args(["verify", "--since-last", "--data-dir"])
        .arg(dir)
        .env("DATABASE_URL", url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .output()
        .unwrap();
    let last = last_stderr_line(&out);
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), report, last)
}

#[test]
fn the_nightly_check_covers_what_was_appended_since_the_last_and_records_it() {
    let (state, url, dir) = ledger(3);
    // No check recorded yet: the first walks the whole ledger (4 entries) and records it at 4.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(0), "{last}\n{report}");
    assert_eq!(report["scope"], "full", "{report}");
    assert_eq!(report["mark_index"], 4, "{report}");
    let full = mark_at(&url, 4);
    assert_eq!(
        (
            full["scope"].as_str(),
            full["from"].as_u64(),
            full["to"].as_u64()
        ),
        (Some("full"), Some(0), Some(4))
    );
    assert!(full["failure"].is_null(), "{full}");
    // 4 entries: 4 = 4, one subtree.
    assert_eq!(
        full["verified"]["frontier"].as_array().unwrap().len(),
        1,
        "{full}"
    );
    assert!(
        last.contains("ledger OK: entries 0..4 checked (full)"),
        "{last}"
    );

    // Nothing signed since: nothing checked, nothing recorded.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(0), "{last}");
    assert_eq!(report["nothing_new"], true, "{report}");
    let size = ledger::storage::reads::size(&mut connect(&url).unwrap()).unwrap();
    assert_eq!(size, 5, "only the first mark was appended");

    // Three more spins and a checkpoint over 8 entries: the check covers 4..8 (the mark and the
    // three spins), goes on from the mark's tree, and is recorded at 8.
    append_spins(&state, &url, 4..=6, 360_000);
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(0), "{last}\n{report}");
    assert_eq!(report["scope"], "incremental", "{report}");
    assert_eq!(
        (report["from"].as_u64(), report["to"].as_u64()),
        (Some(4), Some(8))
    );
    assert_eq!(report["entries_checked"], 4, "{report}");
    assert_eq!(report["rounds_readjudicated"], 3, "{report}");
    assert_eq!(report["registry_events"], 1, "the mark at 4: {report}");
    assert_eq!(report["since_mark"], 4, "{report}");
    assert_eq!(report["mark_index"], 8, "{report}");
    let root = ledger::storage::tree::root(&mut connect(&url).unwrap(), 8).unwrap();
    assert_eq!(report["root"], hex::encode(root), "{report}");
    let incremental = mark_at(&url, 8);
    assert_eq!(
        incremental["verified"]["root"],
        hex::encode(root),
        "{incremental}"
    );
    // 8 = 8: one subtree; the kept copy names the mark.
    let kept: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("verification-mark.json")).unwrap())
            .unwrap();
    assert_eq!(
        (
            kept["index"].as_u64(),
            kept["from"].as_u64(),
            kept["to"].as_u64()
        ),
        (Some(8), Some(4), Some(8))
    );

    // The whole ledger, marks and all, still verifies.
    let (code, full, _) = verify_database(&url);
    assert_eq!(code, Some(0), "{full}");
    // An export carries the marks, checked offline as registry events and listed.
    let day = rules::gaming_day::GamingDayClock::default().day_of(start());
    let offline = export_and_verify_day(&url, day);
    let marks: Vec<_> = offline
        .verification_marks
        .iter()
        .map(|m| (m.index, m.scope.as_str(), m.from, m.to, m.passed()))
        .collect();
    assert_eq!(
        marks,
        [(4, "full", 0, 4, true), (8, "incremental", 4, 8, true)]
    );
    assert_eq!(
        offline.verification_marks[1].root.as_deref(),
        Some(hex::encode(root).as_str())
    );
    // Each mark's tree is proven a prefix of the export's ledger: the full mark's 4 entries
    // and the incremental one's 8, under the roots they name.
    assert_eq!(offline.verification_marks_proven, 2);
}

/// A mark naming another tree than the ledger's first entries fails the export, named; the
/// export carries a consistency proof from each passing mark's tree, for an export whose
/// entries do not reach it (proven as a witnessed checkpoint is: `inspector` tests).
#[test]
fn a_mark_naming_another_tree_fails_the_export_which_carries_a_proof_from_each_mark() {
    use dozor_log::merkle::Frontier;
    use ledger::storage::verification_marks::{record, MarkToRecord};
    let (state, url, dir) = ledger(3);
    assert_eq!(since_last(&url, dir.path()).0, Some(0));
    append_spins(&state, &url, 4..=6, 360_000);
    // A mark of 4..8 whose tree is one subtree of 8 other leaves: signed by the operator and
    // accepted by the registry (which cannot see the entries), but not this ledger's tree.
    let mut conn = connect(&url).unwrap();
    let forged = MarkToRecord {
        scope: dozor_log::registry_event::VerificationScope::Incremental,
        from: 4,
        to: 8,
        checks: vec!["entries".into()],
        end: Some((
            Frontier::from_subtree_roots(8, &[[7u8; 32]]).unwrap(),
            [8u8; 32],
        )),
        failure: None,
        started_at: Utc::now(),
        finished_at: Utc::now(),
        actor: dozor_log::registry_history::cli_actor(),
    };
    let operators = std::collections::HashMap::from([(
        dozor_log::keys::key_id(&operator().verifier().key),
        operator().verifier().key,
    )]);
    record(&mut conn, &operator(), &operators, &forged, Utc::now()).unwrap();
    let day = rules::gaming_day::GamingDayClock::default().day_of(start());
    let out = tempfile::tempdir().unwrap();
    checkpoint_and_export_day(&url, day, &out.path().join("export"));
    let refused = verify_exported(&out.path().join("export"))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("verification mark at index 8")
            && refused.contains("another tree than the one it names"),
        "{refused}"
    );
    // The export carries a consistency proof to its latest checkpoint from each passing mark's
    // tree (4 and 8 entries): what proves a mark the period's entries do not reach.
    let proofs: Value = serde_json::from_slice(
        &std::fs::read(out.path().join("export/checkpoint-proofs.json")).unwrap(),
    )
    .unwrap();
    let firsts: Vec<u64> = proofs["proofs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["first"].as_u64().unwrap())
        .collect();
    assert_eq!(firsts, [4, 8], "{proofs}");
}

#[test]
fn a_row_changed_where_a_check_passed_is_not_claimed_by_the_next_but_the_full_walk_names_it() {
    let (state, url, dir) = ledger(3);
    assert_eq!(since_last(&url, dir.path()).0, Some(0));
    // Entry 2's verdict changed past every trigger, inside the range verified (0..4).
    let mut superuser = connect(&url).unwrap();
    superuser
        .batch_execute(
            "SET session_replication_role = replica; \
             UPDATE adjudications SET paid_h = 0 WHERE ledger_index = 2",
        )
        .unwrap();
    append_spins(&state, &url, 4..=6, 360_000);
    // The incremental check passes, and says it covered 4..8 only: it claims nothing of 2.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(0), "{last}\n{report}");
    assert_eq!(
        (report["from"].as_u64(), report["to"].as_u64()),
        (Some(4), Some(8))
    );
    let mark = mark_at(&url, 8);
    assert_eq!(
        (mark["from"].as_u64(), mark["to"].as_u64()),
        (Some(4), Some(8))
    );
    // The full walk names the row.
    let (code, full, _) = verify_database(&url);
    assert_eq!(code, Some(1), "{full}");
    assert_eq!(full["failure"]["index"], 2, "{full}");
    let reason = full["failure"]["reason"].as_str().unwrap();
    assert!(reason.contains("paid_h is 0"), "{reason}");
}

/// Removes every entry from `size` on with what was derived from it, past every trigger: the
/// database as a restore of a backup taken at that size leaves it.
fn roll_back_to(url: &str, size: u64) {
    connect(url)
        .unwrap()
        .batch_execute(&format!(
            "SET session_replication_role = replica; \
             DELETE FROM findings WHERE ledger_index >= {size}; \
             DELETE FROM adjudications WHERE ledger_index >= {size}; \
             DELETE FROM round_ids WHERE ledger_index >= {size}; \
             DELETE FROM table_records WHERE ledger_index >= {size}; \
             DELETE FROM merkle_nodes WHERE (idx + 1) * (1::bigint << level) > {size}; \
             DELETE FROM ledger_entries WHERE idx >= {size}; \
             DELETE FROM checkpoints WHERE size > {size}"
        ))
        .unwrap();
}

#[test]
fn an_incremental_check_after_a_rollback_names_it() {
    let (state, url, dir) = ledger(3);
    assert_eq!(since_last(&url, dir.path()).0, Some(0)); // full, recorded at 4
    append_spins(&state, &url, 4..=6, 360_000);
    assert_eq!(since_last(&url, dir.path()).0, Some(0)); // 4..8, recorded at 8
                                                         // The database restored to its first 5 entries (the first mark kept, the second lost),
                                                         // then three other spins and a checkpoint over them.
    roll_back_to(&url, 5);
    // Nothing signed since the first mark: the check has no range to record, and names the
    // loss all the same.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(1), "{last}\n{report}");
    assert!(last.contains("nothing recorded"), "{last}");
    let reason = report["failure"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("rollback: the verification mark kept outside the database (index 8"),
        "{reason}"
    );
    let size = ledger::storage::reads::size(&mut connect(&url).unwrap()).unwrap();
    assert_eq!(size, 5, "nothing appended");
    append_spins(&state, &url, 4..=6, 0);
    // Inside the database the last passing check is the one at 4, and 4..8 would pass again;
    // the mark kept outside it names what was lost.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(1), "{last}\n{report}");
    let reason = report["failure"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "rollback: the verification mark kept outside the database (index 8, entries 4..8"
        ),
        "{reason}"
    );
    assert!(last.contains("ledger BROKEN"), "{last}");
    // The failed check is on the record too.
    let failed = mark_at(&url, report["mark_index"].as_u64().unwrap());
    assert!(
        failed["failure"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("rollback"),
        "{failed}"
    );
    assert!(failed["verified"].is_null(), "{failed}");
}

#[test]
fn a_rollback_the_operator_accepted_on_the_record_is_reported_not_failed() {
    let (state, url, dir) = ledger(3);
    assert_eq!(since_last(&url, dir.path()).0, Some(0)); // full, recorded at 4
    append_spins(&state, &url, 4..=6, 360_000);
    assert_eq!(since_last(&url, dir.path()).0, Some(0)); // 4..8, recorded at 8
                                                         // Every checkpoint kept outside the database, as `serve` keeps them.
    let witness = ledger::witness::Witness::new(dir.path().join("checkpoints.jsonl"));
    let mut conn = connect(&url).unwrap();
    for size in [4, 8] {
        let row = checkpoints::of_size(&mut conn, size).unwrap().unwrap();
        witness
            .record(size as u64, row.created_at, &row.note)
            .unwrap();
    }
    // Restored to its first 5 entries, the loss accepted on the record (at index 5), then
    // three other spins.
    roll_back_to(&url, 5);
    dozor()
        .args(["log", "accept-rollback", "--witness"])
        .arg(witness.path())
        .args([
            "--reason",
            "disk failure; restored from the backup",
            "--data-dir",
        ])
        .arg(dir.path())
        .env("DATABASE_URL", &url)
        .env_remove("DOZOR_OPERATOR_KEY")
        .succeeds();
    append_spins(&state, &url, 4..=6, 360_000);
    // The check goes on from the mark at 4 over the acceptance and the spins, and reports the
    // accepted rollback that lost the mark kept outside the database.
    let (code, report, last) = since_last(&url, dir.path());
    assert_eq!(code, Some(0), "{last}\n{report}");
    assert_eq!(
        (report["from"].as_u64(), report["to"].as_u64()),
        (Some(4), Some(9))
    );
    let accepted = report["accepted_rollbacks"].as_array().unwrap();
    assert_eq!(accepted.len(), 1, "{report}");
    assert_eq!(accepted[0]["index"], 5, "{report}");
    assert_eq!(accepted[0]["lost_size"], 8, "{report}");
}
