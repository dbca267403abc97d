#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger on a real (throwaway) PostgreSQL cluster.

use chrono::{Duration, Utc};
use diesel::connection::SimpleConnection as _;
use diesel::prelude::*;
use dozor_log::entry_check::SignatureCheck;
use ed25519_dalek::{SigningKey, VerifyingKey};
use ledger::storage::append::{
    append_batch, append_batch_cached, AppendOutcome, Submission, WriterCache,
};
use ledger::storage::registry::{add_key, revoke_key, KeyRevocation};
use ledger::storage::verify::{verify_ledger, VerifyReport};
use ledger::storage::verify_failure::VerifyFailure;
use ledger::storage::{connect, reads, testing};
use serde_json::json;
use std::collections::HashMap;

mod common;

use common::{note_submission, register_r01};

fn db() -> PgConnection {
    connect(&testing::fresh_database().unwrap()).unwrap()
}

fn submission(key: &SigningKey, table: &str, seq_no: u64, marker: i64) -> Submission {
    let record = json!({"type": "note", "table_id": table, "seq_no": seq_no,
                        "plan_id": "p", "marker": marker});
    note_submission(key, record, table, seq_no)
}

/// The operator's key: signs registry events.
fn operator() -> SigningKey {
    SigningKey::from_bytes(&[9u8; 32])
}

fn operators(key: &SigningKey) -> HashMap<String, VerifyingKey> {
    let public = key.verifying_key();
    HashMap::from([(dozor_log::keys::key_id(&public), public)])
}

/// Whether `result` is the refusal of an actor not allowed, for a reason that says `why`.
fn not_allowed_because<T>(
    result: &Result<T, ledger::storage::api_keys::ApiKeyError>,
    why: &str,
) -> bool {
    matches!(
        result,
        Err(ledger::storage::api_keys::ApiKeyError::Storage(
            ledger::LedgerError::ActorNotAllowed { why: said, .. }
        )) if said.contains(why)
    )
}

fn verify(conn: &mut PgConnection) -> VerifyReport {
    verify_ledger(conn, &operators(&operator()), SignatureCheck::Batch, |_| {}).unwrap()
}

/// Asserts that `failure` names the entry at `index`, for a reason that says `why`.
fn assert_fails_at(failure: &VerifyFailure, index: u64, why: &str) {
    assert_eq!(failure.index, index);
    assert!(failure.reason.contains(why), "{}", failure.reason);
}

/// Registers table R01 (ledger entry 0) and returns its key.
fn setup(conn: &mut PgConnection) -> SigningKey {
    register_r01(conn, &operator())
}

/// A fresh ledger: table R01 (entry 0) and its notes 1..=`notes` (entries 1..=`notes`); the
/// table's key.
fn ledger_of_notes(notes: u64) -> (PgConnection, SigningKey) {
    let mut conn = db();
    let key = setup(&mut conn);
    let batch: Vec<_> = (1..=notes).map(|i| submission(&key, "R01", i, 0)).collect();
    append_batch(&mut conn, &batch, Utc::now()).unwrap();
    (conn, key)
}

#[test]
fn appends_chain_and_verify() {
    let mut conn = db();
    let key = setup(&mut conn);
    let batch: Vec<_> = (1..=5).map(|i| submission(&key, "R01", i, 0)).collect();
    let out = append_batch(&mut conn, &batch, Utc::now()).unwrap();
    let receipts: Vec<_> = out
        .iter()
        .map(|o| match o {
            AppendOutcome::Appended(r) => r.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        receipts.iter().map(|r| r.index).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5],
        "entry 0 is the table's registration"
    );
    // The chain: each entry's prev_hash is the previous entry's hash.
    let second = reads::entry(&mut conn, 2).unwrap().unwrap();
    assert_eq!(second.prev_hash, receipts[0].entry_hash.to_vec());
    let report = verify(&mut conn);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(report.entries_checked, 6);
    assert_eq!(report.registry_events, 1);
    assert_eq!(report.head_hash, Some(hex::encode(receipts[4].entry_hash)));
}

#[test]
fn same_record_same_receipt_and_conflicts_are_events() {
    let mut conn = db();
    let key = setup(&mut conn);
    let first = append_batch(&mut conn, &[submission(&key, "R01", 1, 0)], Utc::now()).unwrap();
    let again = append_batch(&mut conn, &[submission(&key, "R01", 1, 0)], Utc::now()).unwrap();
    let (AppendOutcome::Appended(a), AppendOutcome::AlreadyRecorded(b)) = (&first[0], &again[0])
    else {
        panic!("{first:?} {again:?}");
    };
    assert_eq!(a, b);
    let conflict = append_batch(&mut conn, &[submission(&key, "R01", 1, 99)], Utc::now()).unwrap();
    assert!(matches!(&conflict[0], AppendOutcome::SeqNoConflict { existing } if existing == a));
    assert_eq!(
        reads::size(&mut conn).unwrap(),
        2,
        "nothing appended after the registration and the first record"
    );
    let events = reads::significant_events(
        &mut conn,
        reads::EventFilter {
            table_id: Some("R01"),
            kind: Some("seq_no_conflict"),
            since: None,
        },
        10,
    )
    .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, "seq_no_conflict");
    // Within one batch too.
    let batch = [
        submission(&key, "R01", 2, 0),
        submission(&key, "R01", 2, 0),
        submission(&key, "R01", 2, 1),
    ];
    let out = append_batch(&mut conn, &batch, Utc::now()).unwrap();
    assert!(matches!(out[0], AppendOutcome::Appended(_)));
    assert!(matches!(out[1], AppendOutcome::AlreadyRecorded(_)));
    assert!(matches!(out[2], AppendOutcome::SeqNoConflict { .. }));
}

#[test]
fn a_long_lived_writer_still_recognises_every_repeat() {
    let mut conn = db();
    let key = setup(&mut conn);
    let mut cache = WriterCache::default();
    let append = |conn: &mut PgConnection, cache: &mut WriterCache, batch: &[Submission]| {
        append_batch_cached(conn, batch, Utc::now(), cache).unwrap()
    };
    let batch: Vec<_> = [1, 2, 5].map(|i| submission(&key, "R01", i, 0)).to_vec();
    let first = append(&mut conn, &mut cache, &batch);
    assert!(first
        .iter()
        .all(|o| matches!(o, AppendOutcome::Appended(_))));

    // A repeat, a conflict and a late record below the table's highest number, from the cache.
    let out = append(
        &mut conn,
        &mut cache,
        &[
            submission(&key, "R01", 2, 0),
            submission(&key, "R01", 5, 7),
            submission(&key, "R01", 3, 0),
            submission(&key, "R01", 6, 0),
        ],
    );
    assert!(matches!(&out[0], AppendOutcome::AlreadyRecorded(r) if r.index == 2));
    assert!(matches!(&out[1], AppendOutcome::SeqNoConflict { existing } if existing.index == 3));
    assert!(matches!(&out[2], AppendOutcome::Appended(r) if r.index == 4));
    assert!(matches!(&out[3], AppendOutcome::Appended(r) if r.index == 5));

    // Another writer appends seq_no 7; the cached writer must not take 7 for new.
    let other = append_batch(&mut conn, &[submission(&key, "R01", 7, 0)], Utc::now()).unwrap();
    let AppendOutcome::Appended(seven) = &other[0] else {
        panic!("{other:?}")
    };
    let out = append(
        &mut conn,
        &mut cache,
        &[submission(&key, "R01", 7, 0), submission(&key, "R01", 7, 1)],
    );
    assert!(matches!(&out[0], AppendOutcome::AlreadyRecorded(r) if r == seven));
    assert!(matches!(&out[1], AppendOutcome::SeqNoConflict { existing } if existing == seven));
    // A refused record does not count as recorded.
    let stranger = SigningKey::from_bytes(&[6u8; 32]);
    let out = append(&mut conn, &mut cache, &[submission(&stranger, "R01", 8, 0)]);
    assert!(
        matches!(&out[0], AppendOutcome::KeyNotValid { .. }),
        "{out:?}"
    );
    let out = append(&mut conn, &mut cache, &[submission(&key, "R01", 8, 0)]);
    assert!(matches!(&out[0], AppendOutcome::Appended(r) if r.index == 7));
    assert_eq!(reads::size(&mut conn).unwrap(), 8);
    let report = verify(&mut conn);
    assert!(report.failure.is_none(), "{:?}", report.failure);
}

#[test]
fn gaps_are_listed() {
    let mut conn = db();
    let key = setup(&mut conn);
    let batch: Vec<_> = [1, 2, 5, 6, 10]
        .iter()
        .map(|i| submission(&key, "R01", *i, 0))
        .collect();
    append_batch(&mut conn, &batch, Utc::now()).unwrap();
    let gaps =
        reads::sequence_gaps(&mut conn, ledger::storage::read_cut::LedgerCut::ALL, None).unwrap();
    let spans: Vec<_> = gaps
        .iter()
        .map(|g| (g.after_seq_no, g.before_seq_no, g.missing))
        .collect();
    // 3 and 4 are missing between 2 and 5; 7, 8 and 9 between 6 and 10.
    assert_eq!(spans, vec![(2, 5, 2), (6, 10, 3)]);
}

#[test]
fn revoked_key_is_refused_after_revocation() {
    let mut conn = db();
    let key = setup(&mut conn);
    let now = Utc::now();
    let key_id = dozor_log::keys::key_id(&key.verifying_key());
    revoke_key(
        &mut conn,
        &operator(),
        KeyRevocation {
            table_id: "R01",
            key_id: &key_id,
            revoked_at: now,
            reason: "tablet stolen",
        },
        "cli:tests",
        now,
    )
    .unwrap();
    let out = append_batch(
        &mut conn,
        &[submission(&key, "R01", 1, 0)],
        now + Duration::seconds(1),
    )
    .unwrap();
    assert!(
        matches!(&out[0], AppendOutcome::KeyNotValid { reason, .. } if reason.contains("revoked"))
    );
    assert_eq!(
        reads::size(&mut conn).unwrap(),
        2,
        "registration and revocation only"
    );
}

#[test]
fn the_database_refuses_update_delete_and_truncate() {
    let mut conn = db();
    let key = setup(&mut conn);
    append_batch(&mut conn, &[submission(&key, "R01", 1, 0)], Utc::now()).unwrap();
    // A verdict and a finding beside entry 1, so that row triggers have rows to refuse.
    conn.batch_execute(
        "INSERT INTO adjudications SELECT 1, 'R01', 'roulette', 'p', 'v', now(), false, \
             0, 0, 0, 0, 0, 0, 1, '{}', 0, 0, 0, false, NULL, '{straight}', '{1}', '{100}', \
             '{0}', '{97297}', '{0}', '{0}'; \
         INSERT INTO findings (ledger_index, table_id, game, played_at, kind, bet_ids, amount_h, \
             message, position) VALUES (1, 'R01', 'roulette', now(), 'overpaid', '[]', 5, 'x', 0)",
    )
    .unwrap();
    for statement in [
        "UPDATE ledger_entries SET seq_no = 7",
        "DELETE FROM ledger_entries",
        "TRUNCATE ledger_entries CASCADE",
        "UPDATE table_keys SET valid_from = now() - interval '1 year'",
        "DELETE FROM gaming_tables",
        "UPDATE adjudications SET paid_h = 0",
        "UPDATE adjudications SET kind_paid_h = '{360000}'",
        "DELETE FROM adjudications",
        "UPDATE findings SET amount_h = 0",
        "DELETE FROM findings",
        "TRUNCATE findings",
    ] {
        let err = diesel::sql_query(statement).execute(&mut conn).unwrap_err();
        assert!(
            err.to_string().contains("append-only"),
            "{statement}: {err}"
        );
    }
    assert_eq!(reads::size(&mut conn).unwrap(), 2);
}

/// A verdict keeps an element per bet kind in each figure's array, none of them NULL: SQL
/// refuses any other shape, whoever writes it.
#[test]
fn the_database_refuses_bet_kind_figures_that_are_not_an_element_per_kind() {
    let mut conn = db();
    let key = setup(&mut conn);
    append_batch(&mut conn, &[submission(&key, "R01", 1, 0)], Utc::now()).unwrap();
    let verdict_with = |names: &str, bets: &str, paid: &str| {
        format!(
            "INSERT INTO adjudications SELECT 1, 'R01', 'roulette', 'p', 'v', now(), false, \
             0, 0, 0, 0, 0, 0, 0, '{{}}', 0, 0, 0, false, NULL, '{names}', '{bets}', '{{100}}', \
             '{paid}', '{{97297}}', '{{0}}', '{{0}}'"
        )
    };
    for (names, bets, paid) in [
        ("{straight}", "{1,2}", "{0}"),
        ("{straight,red}", "{1,1}", "{0,0}"),
        ("{straight}", "{NULL}", "{0}"),
        ("{NULL}", "{1}", "{0}"),
        ("{straight}", "{1}", "{}"),
    ] {
        let statement = verdict_with(names, bets, paid);
        let err = conn
            .transaction(|c| c.batch_execute(&statement))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("adjudications_an_element_per_kind"),
            "{names} {bets} {paid}: {err}"
        );
    }
    assert_eq!(adjudications_count(&mut conn), 0);
    // One kind, one element in each figure: accepted.
    conn.batch_execute(&verdict_with("{straight}", "{1}", "{0}"))
        .unwrap();
    assert_eq!(adjudications_count(&mut conn), 1);
}

/// The references once held by foreign keys are checked per statement: an entry of an
/// unregistered table or a verdict without its entry is refused, and nothing of it stays.
#[test]
fn the_database_refuses_entries_of_unknown_tables_and_verdicts_of_missing_entries() {
    let mut conn = db();
    let key = setup(&mut conn);
    append_batch(&mut conn, &[submission(&key, "R01", 1, 0)], Utc::now()).unwrap();
    let entry_of = |table: &str| {
        format!(
            "INSERT INTO ledger_entries (idx, received_at, prev_hash, leaf_hash, entry, record_type, \
             table_id, seq_no, key_id, record_hash) \
             SELECT 2, now(), leaf_hash, sha256('x'), 'x', 'note', '{table}', 2, key_id, sha256('y') \
             FROM ledger_entries WHERE idx = 1"
        )
    };
    let verdict_of = |index: i64| {
        format!(
            "INSERT INTO adjudications SELECT {index}, 'R01', 'roulette', 'p', 'v', now(), false, \
             0, 0, 0, 0, 0, 0, 0, '{{}}'::json, 0, 0, 0, false, NULL, '{{}}', '{{}}', '{{}}', \
             '{{}}', '{{}}', '{{}}', '{{}}'"
        )
    };
    let refused = [entry_of("R99"), verdict_of(7)];
    for statement in &refused {
        let err = conn
            .transaction(|c| c.batch_execute(statement))
            .unwrap_err();
        assert!(
            err.to_string().contains("does not exist in"),
            "{statement}: {err}"
        );
    }
    assert_eq!(
        (
            reads::size(&mut conn).unwrap(),
            adjudications_count(&mut conn)
        ),
        (2, 0)
    );
    // The same statements with what they name in place are accepted: the checks are not
    // refusing everything.
    diesel::sql_query(entry_of("R01"))
        .execute(&mut conn)
        .unwrap();
    diesel::sql_query(verdict_of(1)).execute(&mut conn).unwrap();
    assert_eq!(
        (
            reads::size(&mut conn).unwrap(),
            adjudications_count(&mut conn)
        ),
        (3, 1)
    );
}

fn adjudications_count(conn: &mut PgConnection) -> i64 {
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    diesel::sql_query("SELECT count(*) AS n FROM adjudications")
        .get_result::<Count>(conn)
        .unwrap()
        .n
}

/// The columns reports read instead of the verdict's JSON are filled for the verdicts stored
/// before they existed, from that JSON, and the rows stay insert-only.
#[test]
fn the_report_columns_are_filled_from_the_verdicts_stored_before_them() {
    use diesel_migrations::MigrationHarness as _;
    let (mut conn, _) = ledger_of_notes(5);
    // Back to the schema before the columns (migration 2026-12-05-000022_report_columns).
    while conn
        .revert_last_migration(ledger::storage::MIGRATIONS)
        .unwrap()
        .to_string()
        != "20261205000022"
    {}
    for (index, verdict) in [
        (
            1,
            r#"{"game":"poker_tournament","tournament":{"entries":9,"fee_h":4500,"moneypool_h":40500,"overlay_h":1200,"prize_pool_h":45000}}"#,
        ),
        (
            2,
            r#"{"bets":[{"kind":"time_collection","stake_h":20000}],"game":"poker_cash"}"#,
        ),
        (
            3,
            r#"{"game":"money_wheel_1","segment":41,"segment_label":"20"}"#,
        ),
        (4, r#"{"game":"roulette","winning_number":0}"#),
        (
            5,
            r#"{"bets":[{"kind":"straight","stake_h":100}],"game":"roulette","void":true}"#,
        ),
    ] {
        diesel::sql_query(format!(
            "INSERT INTO adjudications SELECT {index}, 'R01', 'roulette', 'p', 'v', now(), false, \
             0, 0, 0, 0, 0, 0, 0, $1, 0"
        ))
        .bind::<diesel::sql_types::Text, _>(verdict)
        .execute(&mut conn)
        .unwrap();
    }
    ledger::storage::migrate(&mut conn).unwrap();
    #[derive(QueryableByName, Debug, PartialEq)]
    struct Columns {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        tournament_fee_h: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        tournament_overlay_h: i64,
        #[diesel(sql_type = diesel::sql_types::Bool)]
        time_collection: bool,
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Integer>)]
        wheel_result: Option<i32>,
    }
    let columns: Vec<Columns> = diesel::sql_query(
        "SELECT tournament_fee_h, tournament_overlay_h, time_collection, wheel_result \
         FROM adjudications ORDER BY ledger_index",
    )
    .load(&mut conn)
    .unwrap();
    let row = |fee, overlay, time, wheel| Columns {
        tournament_fee_h: fee,
        tournament_overlay_h: overlay,
        time_collection: time,
        wheel_result: wheel,
    };
    assert_eq!(
        columns,
        vec![
            row(4500, 1200, false, None),
            row(0, 0, true, None),
            row(0, 0, false, Some(41)),
            row(0, 0, false, Some(0)),
            row(0, 0, false, None),
        ]
    );
    let err = diesel::sql_query("UPDATE adjudications SET wheel_result = 1")
        .execute(&mut conn)
        .unwrap_err();
    assert!(err.to_string().contains("append-only"), "{err}");
}

#[test]
fn verify_names_the_first_tampered_index() {
    let (mut conn, _) = ledger_of_notes(6);
    // A superuser can switch the triggers off; verify must still catch the edit.
    ledger::storage::testing::rewrite_entry(&mut conn, 3, "\"marker\":0", "\"marker\":1").unwrap();
    let report = verify(&mut conn);
    let failure = report.failure.expect("tampering must be detected");
    assert_fails_at(&failure, 3, "hash");
    assert_eq!(report.entries_checked, 3);

    // Recomputing the stored hash too moves the break to the next link.
    diesel::sql_query(
        "UPDATE ledger_entries SET leaf_hash = sha256('\\x00'::bytea || entry) WHERE idx = 3",
    )
    .execute(&mut conn)
    .unwrap();
    let failure = verify(&mut conn).failure.unwrap();
    assert_eq!(
        failure.index, 3,
        "the signature no longer matches the record"
    );
    assert!(failure.reason.contains("signature"), "{}", failure.reason);
}

/// Verify with pages of `page` entries checked in chunks of `chunk`.
fn verify_paged(conn: &mut PgConnection, page: usize, chunk: usize) -> VerifyReport {
    ledger::storage::verify::verify_ledger_paged(
        conn,
        &operators(&operator()),
        SignatureCheck::Batch,
        ledger::storage::verify::Paging { page, chunk },
    )
    .unwrap()
}

/// Verifies with pages and chunks of `(page, chunk)` entries and asserts that it fails at the
/// entry at `index`, for a reason that says `why`.
fn verify_paged_fails_at(
    conn: &mut PgConnection,
    (page, chunk): (usize, usize),
    index: u64,
    why: &str,
) -> VerifyReport {
    let report = verify_paged(conn, page, chunk);
    let failure = report.failure.as_ref().unwrap();
    assert_eq!(failure.index, index, "{page}/{chunk}: {}", failure.reason);
    assert!(failure.reason.contains(why), "{}", failure.reason);
    report
}

#[test]
fn pages_and_chunks_of_any_size_give_the_same_verdict() {
    let (mut conn, _) = ledger_of_notes(40);
    let sizes = [(8192, 2048), (7, 3), (5, 5), (16, 4), (1, 1)];
    for (page, chunk) in sizes {
        let report = verify_paged(&mut conn, page, chunk);
        assert!(
            report.failure.is_none(),
            "{page}/{chunk}: {:?}",
            report.failure
        );
        assert_eq!(report.entries_checked, 41, "{page}/{chunk}");
        assert_eq!(report.head_hash, verify(&mut conn).head_hash);
    }
    // The node over leaves 24..=31 changed: named at its first leaf, whatever the paging.
    conn.batch_execute(
        "SET session_replication_role = replica; \
         UPDATE merkle_nodes SET hash = sha256(hash) WHERE level = 3 AND idx = 3; \
         SET session_replication_role = origin",
    )
    .unwrap();
    for paging in sizes {
        let node = "Merkle node (level 3, index 3) over entries 24..=31";
        verify_paged_fails_at(&mut conn, paging, 24, node);
    }
    // An earlier entry's link broken (15 starts a chunk of 3 and of 5): it comes first.
    conn.batch_execute(
        "SET session_replication_role = replica; \
         UPDATE ledger_entries SET prev_hash = sha256(prev_hash) WHERE idx = 15; \
         SET session_replication_role = origin",
    )
    .unwrap();
    for paging in sizes {
        let link = "prev_hash does not match the hash of the previous entry";
        let report = verify_paged_fails_at(&mut conn, paging, 15, link);
        assert_eq!(report.entries_checked, 15);
    }
    // A still earlier entry whose signature fails (its hash recomputed, so only the signature
    // tells): the signature is named at its index.
    ledger::storage::testing::rewrite_entry(&mut conn, 6, "\"marker\":0", "\"marker\":1").unwrap();
    conn.batch_execute(
        "SET session_replication_role = replica; \
         UPDATE ledger_entries SET leaf_hash = sha256('\\x00'::bytea || entry) WHERE idx = 6; \
         SET session_replication_role = origin",
    )
    .unwrap();
    for paging in sizes {
        verify_paged_fails_at(&mut conn, paging, 6, "signature");
    }
}

fn leaf_hashes(conn: &mut PgConnection) -> Vec<[u8; 32]> {
    use ledger::storage::schema::ledger_entries;
    let rows: Vec<Vec<u8>> = ledger_entries::table
        .order(ledger_entries::idx.asc())
        .select(ledger_entries::leaf_hash)
        .load(conn)
        .unwrap();
    rows.into_iter().map(|h| h.try_into().unwrap()).collect()
}

#[test]
fn the_stored_tree_gives_rfc6962_roots_and_proofs_for_every_size() {
    use dozor_log::merkle::{self, MemoryTree};
    use ledger::storage::tree;
    let mut conn = db();
    let key = setup(&mut conn);
    let mut seq = 0;
    for batch_size in [1, 7, 13, 24] {
        let batch: Vec<_> = (0..batch_size)
            .map(|_| {
                seq += 1;
                submission(&key, "R01", seq, 0)
            })
            .collect();
        append_batch(&mut conn, &batch, Utc::now()).unwrap();
    }
    let leaves = leaf_hashes(&mut conn);
    assert_eq!(leaves.len(), 46);
    let memory = MemoryTree::from_leaves(&leaves);
    for size in [1u64, 2, 8, 13, 44, 45] {
        assert_eq!(
            tree::root(&mut conn, size).unwrap(),
            merkle::root(&memory, size).unwrap(),
            "root {size}"
        );
        for index in [0, size / 2, size - 1] {
            let (root, proof) = tree::inclusion_proof(&mut conn, index, size).unwrap();
            assert!(merkle::verify_inclusion(
                index,
                size,
                &leaves[index as usize],
                &proof,
                &root
            ));
        }
        for first in [1, size / 3 + 1, size] {
            let (r1, r2, proof) = tree::consistency_proof(&mut conn, first, size).unwrap();
            assert!(
                merkle::verify_consistency(first, size, &proof, &r1, &r2),
                "{first} -> {size}"
            );
        }
    }
    assert!(tree::inclusion_proof(&mut conn, 45, 45).is_err());
    assert!(tree::inclusion_proof(&mut conn, 3, 47).is_err());
    assert!(tree::consistency_proof(&mut conn, 10, 9).is_err());
    assert!(verify(&mut conn).failure.is_none());
}

#[test]
fn verify_catches_a_changed_tree_node() {
    let (mut conn, _) = ledger_of_notes(10);
    diesel::sql_query("SET session_replication_role = replica")
        .execute(&mut conn)
        .unwrap();
    // Node (level 2, index 1) covers entries 4..=7.
    diesel::sql_query("UPDATE merkle_nodes SET hash = sha256(hash) WHERE level = 2 AND idx = 1")
        .execute(&mut conn)
        .unwrap();
    let failure = verify(&mut conn).failure.unwrap();
    assert_fails_at(&failure, 4, "level 2, index 1");
}

#[test]
fn registry_events_are_operator_signed_entries_of_the_ledger() {
    let mut conn = db();
    let key = setup(&mut conn);
    let next = SigningKey::from_bytes(&[6u8; 32]);
    let now = Utc::now();
    let (_, added) = add_key(
        &mut conn,
        &operator(),
        "R01",
        &next.verifying_key(),
        now,
        "cli:tests",
        now,
    )
    .unwrap();
    assert_eq!(added.index, 1);
    let old_id = dozor_log::keys::key_id(&key.verifying_key());
    let (_, revoked) = revoke_key(
        &mut conn,
        &operator(),
        KeyRevocation {
            table_id: "R01",
            key_id: &old_id,
            revoked_at: now,
            reason: "rotated",
        },
        "cli:tests",
        now,
    )
    .unwrap();
    assert_eq!(revoked.index, 2);
    let out = append_batch(&mut conn, &[submission(&next, "R01", 1, 0)], Utc::now()).unwrap();
    assert!(matches!(out[0], AppendOutcome::Appended(_)), "{out:?}");
    let entry = reads::entry(&mut conn, 2).unwrap().unwrap();
    assert_eq!(entry.record_type, "table_key_revoked");
    assert_eq!(entry.seq_no, None);
    let text = String::from_utf8(entry.entry).unwrap();
    assert!(text.contains("\"previous\":1"), "{text}");
    let report = verify(&mut conn);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!((report.entries_checked, report.registry_events), (4, 3));
    // Another operator key does not vouch for them.
    let stranger = SigningKey::from_bytes(&[10u8; 32]);
    let failure = verify_ledger(
        &mut conn,
        &operators(&stranger),
        SignatureCheck::Strict,
        |_| {},
    )
    .unwrap()
    .failure
    .unwrap();
    assert_fails_at(&failure, 0, "not an operator key");
    // A table key cannot be the operator's.
    let err = add_key(
        &mut conn,
        &operator(),
        "R01",
        &operator().verifying_key(),
        now,
        "cli:tests",
        now,
    )
    .unwrap_err();
    assert!(err.to_string().contains("operator"), "{err}");
}

#[test]
fn a_key_slipped_into_the_registry_tables_does_not_pass_verification() {
    let mut conn = db();
    setup(&mut conn);
    // Someone with write access to the database adds a key row behind the ledger's back; ingest
    // trusts the tables, so the record is appended...
    let rogue = SigningKey::from_bytes(&[66u8; 32]);
    diesel::sql_query(
        "INSERT INTO table_keys (key_id, table_id, public_key, valid_from, registered_at) \
         VALUES ($1, 'R01', $2, now() - interval '1 hour', now())",
    )
    .bind::<diesel::sql_types::Text, _>(dozor_log::keys::key_id(&rogue.verifying_key()))
    .bind::<diesel::sql_types::Bytea, _>(rogue.verifying_key().as_bytes().to_vec())
    .execute(&mut conn)
    .unwrap();
    let out = append_batch(&mut conn, &[submission(&rogue, "R01", 1, 0)], Utc::now()).unwrap();
    assert!(matches!(out[0], AppendOutcome::Appended(_)));
    // ...but the ledger itself never added that key.
    let failure = verify(&mut conn).failure.expect("must be caught");
    assert_fails_at(&failure, 1, "no earlier registry event");
}

#[test]
fn api_keys_are_registry_events_found_by_the_hash_of_their_token() {
    use dozor_log::access::{ApiKeySecret, Role};
    use ledger::storage::api_keys::{self, ApiKeyError, NewApiKey};
    let mut conn = db();
    setup(&mut conn);
    let secret = ApiKeySecret::from_bytes([3; 32]);
    let new = NewApiKey {
        name: "officer-1",
        role: Role::Compliance,
        created_by: "cli:root",
        expires_at: Some(Utc::now() + Duration::days(30)),
    };
    let (created, receipt) =
        api_keys::create_api_key(&mut conn, &operator(), &new, &secret, Utc::now()).unwrap();
    assert_eq!(receipt.index, 1, "entry 0 registered the table");
    assert_eq!(created.key.ledger_index, 1);
    assert_eq!(created.role().unwrap(), Role::Compliance);
    // Only the hash is stored: the token appears nowhere in the database.
    let token = secret.token();
    let dump: Vec<String> = diesel::sql_query(
        "SELECT convert_from(entry, 'UTF8') AS text FROM ledger_entries \
         UNION ALL SELECT row_to_json(k)::text FROM api_keys k",
    )
    .load::<TextRow>(&mut conn)
    .unwrap()
    .into_iter()
    .map(|r| r.text)
    .collect();
    assert_eq!(dump.len(), 3);
    assert!(dump.iter().all(|t| !t.contains(&token[4..])));
    // Found by its token's hash in the ledger's registry events, as the gate finds it.
    let mut history = dozor_log::registry_history::RegistryHistory::default();
    ledger::storage::registry_log::follow(&mut conn, &mut history, &operators(&operator()))
        .unwrap()
        .unwrap();
    let found = history.api_keys().by_token(&secret.token_hash()).unwrap();
    assert_eq!(
        (found.key_id.as_str(), found.name.as_str(), found.role),
        (
            created.key.key_id.as_str(),
            created.key.name.as_str(),
            Role::Compliance
        )
    );
    let unknown = ApiKeySecret::from_bytes([4; 32]).token_hash();
    assert!(history.api_keys().by_token(&unknown).is_none());

    // Names are never reused; a revoked key stays listed with its revocation.
    let again = api_keys::create_api_key(
        &mut conn,
        &operator(),
        &new,
        &ApiKeySecret::from_bytes([5; 32]),
        Utc::now(),
    );
    assert!(matches!(again, Err(ApiKeyError::NameTaken(_))), "{again:?}");
    let (revoked, receipt) = api_keys::revoke_api_key(
        &mut conn,
        &operator(),
        "officer-1",
        "cli:root",
        "left",
        Utc::now(),
    )
    .unwrap();
    assert_eq!(receipt.index, 2);
    assert_eq!(revoked.revocation.unwrap().revoked_by, "cli:root");
    let twice = api_keys::revoke_api_key(
        &mut conn,
        &operator(),
        &created.key.key_id,
        "cli:root",
        "x",
        Utc::now(),
    );
    assert!(
        matches!(twice, Err(ApiKeyError::AlreadyRevoked(_))),
        "{twice:?}"
    );
    assert_eq!(api_keys::list(&mut conn).unwrap().len(), 1);

    // Keys are managed from the command line or by an admin key that is neither revoked nor
    // expired; anyone else is refused and nothing is appended.
    let admin = NewApiKey {
        name: "alice",
        role: Role::Admin,
        created_by: "cli:root",
        expires_at: None,
    };
    api_keys::create_api_key(
        &mut conn,
        &operator(),
        &admin,
        &ApiKeySecret::from_bytes([6; 32]),
        Utc::now(),
    )
    .unwrap();
    let by = |created_by| NewApiKey {
        name: "nightly",
        role: Role::Reporter,
        created_by,
        expires_at: None,
    };
    for (actor, why) in [
        (
            "officer-1",
            "its role compliance may not: this needs the role admin",
        ),
        ("nobody", "neither `cli:<user>` nor an API key"),
        ("cli:", "names no user"),
    ] {
        let refused = api_keys::create_api_key(
            &mut conn,
            &operator(),
            &by(actor),
            &ApiKeySecret::from_bytes([7; 32]),
            Utc::now(),
        );
        assert!(not_allowed_because(&refused, why), "{actor}: {refused:?}");
    }
    assert_eq!(ledger::storage::reads::size(&mut conn).unwrap(), 4);
    api_keys::create_api_key(
        &mut conn,
        &operator(),
        &by("alice"),
        &ApiKeySecret::from_bytes([7; 32]),
        Utc::now(),
    )
    .unwrap();
    let refused =
        api_keys::revoke_api_key(&mut conn, &operator(), "alice", "nightly", "x", Utc::now());
    assert!(
        not_allowed_because(
            &refused,
            "its role reporter may not: this needs the role admin"
        ),
        "{refused:?}"
    );

    api_keys::revoke_api_key(
        &mut conn,
        &operator(),
        "alice",
        "cli:root",
        "rotated",
        Utc::now(),
    )
    .unwrap();
    let refused = api_keys::create_api_key(
        &mut conn,
        &operator(),
        &NewApiKey {
            name: "later",
            ..by("alice")
        },
        &ApiKeySecret::from_bytes([9; 32]),
        Utc::now(),
    );
    assert!(
        not_allowed_because(&refused, "the key was revoked at entry"),
        "{refused:?}"
    );

    let report = verify(&mut conn);
    assert!(report.failure.is_none(), "{report:?}");
    assert_eq!((report.registry_events, report.api_keys), (6, 3));
}

#[derive(diesel::QueryableByName)]
struct TextRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    text: String,
}

#[test]
fn an_api_key_slipped_into_its_table_does_not_pass_verification() {
    use dozor_log::access::{api_key_id, ApiKeySecret};
    let mut conn = db();
    setup(&mut conn);
    // The row must point at some entry: it names the table's registration.
    let hash = ApiKeySecret::from_bytes([8; 32]).token_hash();
    diesel::sql_query(
        "INSERT INTO api_keys (key_id, token_sha256, name, role, created_by, created_at, ledger_index) \
         VALUES ($1, $2, 'intruder', 'admin', 'nobody', now(), 0)",
    )
    .bind::<diesel::sql_types::Text, _>(api_key_id(&hash))
    .bind::<diesel::sql_types::Bytea, _>(hash.to_vec())
    .execute(&mut conn)
    .unwrap();
    let failure = verify(&mut conn).failure.expect("must be caught");
    assert!(
        failure
            .reason
            .contains("(`intruder`) has no api_key_created entry"),
        "{}",
        failure.reason
    );
}

fn names(conn: &mut PgConnection, sql: &str) -> Vec<String> {
    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    diesel::sql_query(sql)
        .load::<Name>(conn)
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .collect()
}

/// The ranges of `table` (its partitions), in order.
fn ranges(conn: &mut PgConnection, table: &str) -> Vec<String> {
    names(
        conn,
        &format!(
            "SELECT c.relname::text AS name FROM pg_inherits i \
             JOIN pg_class c ON c.oid = i.inhrelid \
             WHERE i.inhparent = '{table}'::regclass ORDER BY c.relname"
        ),
    )
}

/// The growing tables are kept in ranges of 2^20 entries: the next range is made ahead of the
/// writer, a range refuses TRUNCATE and UPDATE like the whole table, and a table's sequence
/// numbers stay unique across ranges.
#[test]
fn the_ledger_is_kept_in_ranges_made_ahead_of_the_writer() {
    use ledger::storage::partitions::{ensure_room, AHEAD, DEFAULT_SPAN as SPAN};
    let mut conn = db();
    assert_eq!(ledger::storage::partitions::span(&mut conn).unwrap(), SPAN);
    let key = setup(&mut conn);
    // A new ledger has its first range and the next.
    for table in ["ledger_entries", "adjudications"] {
        assert_eq!(
            ranges(&mut conn, table),
            [format!("{table}_p000000"), format!("{table}_p000001")]
        );
    }
    // Entries far from a range's end ask for nothing; AHEAD before the end of range 1, the
    // writer has range 2 made (and only that one).
    ensure_room(&mut conn, SPAN, 5, 500).unwrap();
    assert_eq!(ranges(&mut conn, "ledger_entries").len(), 2);
    ensure_room(&mut conn, SPAN, 2 * SPAN - AHEAD - 500, 500).unwrap();
    assert_eq!(ranges(&mut conn, "ledger_entries").len(), 2);
    ensure_room(&mut conn, SPAN, 2 * SPAN - AHEAD - 499, 500).unwrap();
    for table in ["ledger_entries", "adjudications"] {
        assert_eq!(
            ranges(&mut conn, table).last().unwrap(),
            &format!("{table}_p000002")
        );
    }
    // A batch that itself needs a range two ahead waits for it to be made.
    ensure_room(&mut conn, SPAN, 3 * SPAN - 10, 20).unwrap();
    assert_eq!(
        ranges(&mut conn, "adjudications").last().unwrap(),
        "adjudications_p000003"
    );

    let batch: Vec<_> = (1..=3).map(|i| submission(&key, "R01", i, 0)).collect();
    append_batch(&mut conn, &batch, Utc::now()).unwrap();
    // Each record's sequence number is in table_records, pointing at its entry.
    let recorded = names(
        &mut conn,
        "SELECT format('%s/%s@%s', r.table_id, r.seq_no, r.ledger_index) AS name \
         FROM table_records r JOIN ledger_entries l ON l.idx = r.ledger_index \
         WHERE l.table_id = r.table_id AND l.seq_no = r.seq_no ORDER BY r.seq_no",
    );
    let first = recorded.len();
    assert_eq!(first, 3, "{recorded:?}");
    // A range refuses what the whole table refuses, even addressed directly.
    for change in [
        "TRUNCATE ledger_entries_p000000",
        "TRUNCATE adjudications_p000000",
        "UPDATE ledger_entries_p000000 SET seq_no = seq_no WHERE seq_no = 1",
        "DELETE FROM ledger_entries_p000000",
        "UPDATE table_records SET seq_no = 9",
    ] {
        let refused = conn
            .transaction::<_, diesel::result::Error, _>(|c| {
                diesel::sql_query(change).execute(c)?;
                Ok(())
            })
            .map_err(|e| e.to_string())
            .expect_err(change);
        assert!(refused.contains("append-only"), "{change}: {refused}");
    }
    // The same sequence number in another entry (past the writer, as a superuser could):
    // refused by table_records whichever range the entry lands in.
    let copied = conn.transaction::<_, diesel::result::Error, _>(|c| {
        diesel::sql_query(
            "INSERT INTO ledger_entries (idx, received_at, prev_hash, leaf_hash, entry, \
             record_type, table_id, seq_no, key_id, record_hash) \
             SELECT 1048576 + idx, received_at, prev_hash, leaf_hash, entry, record_type, \
                    table_id, seq_no, key_id, record_hash \
             FROM ledger_entries WHERE table_id = 'R01' AND seq_no = 2",
        )
        .execute(c)?;
        Ok(())
    });
    let refused = copied.unwrap_err().to_string();
    assert!(refused.contains("table_records_pkey"), "{refused}");
}

/// A small casino archives by the month with smaller ranges: set while the ledger is empty,
/// kept once it holds an entry; the writer makes each next range as it enters one.
#[test]
fn small_ranges_are_set_on_an_empty_ledger_only_and_made_as_the_writer_goes() {
    use ledger::storage::partitions::{set_span, span};
    let mut conn = db();
    set_span(&mut conn, 16).unwrap();
    assert_eq!(span(&mut conn).unwrap(), 16);
    assert_eq!(
        ranges(&mut conn, "ledger_entries"),
        ["ledger_entries_p000000", "ledger_entries_p000001"]
    );
    let refused = set_span(&mut conn, 24).unwrap_err().to_string();
    assert!(refused.contains("span"), "{refused}");
    let key = setup(&mut conn);
    // The table's registration, then 60 records in batches of 7: 61 entries need ranges
    // 0..=3 (indexes 48..=63 the last), and the writer has made the next one too.
    for batch in (1..=60u64).collect::<Vec<_>>().chunks(7) {
        let batch: Vec<_> = batch
            .iter()
            .map(|i| submission(&key, "R01", *i, 0))
            .collect();
        append_batch(&mut conn, &batch, Utc::now()).unwrap();
    }
    assert_eq!(ledger::storage::reads::size(&mut conn).unwrap(), 61);
    assert_eq!(
        ranges(&mut conn, "ledger_entries").last().unwrap(),
        "ledger_entries_p000004"
    );
    let refused = set_span(&mut conn, 32).unwrap_err().to_string();
    assert!(refused.contains("holds entries"), "{refused}");
    let verified = verify(&mut conn);
    assert!(verified.failure.is_none(), "{:?}", verified.failure);
    assert_eq!(verified.entries_checked, 61);
}

/// A page read with binary COPY holds the rows, column for column, that the query reads, the
/// registry event's NULL sequence number included, from any index and of any size.
#[test]
fn a_page_read_with_copy_is_the_rows_the_query_reads() {
    use ledger::storage::copy_pages::EntryPage;
    use ledger::storage::models::LedgerRow;
    use ledger::storage::schema::ledger_entries;
    let (mut conn, _) = ledger_of_notes(12);
    let queried: Vec<LedgerRow> = ledger_entries::table
        .order(ledger_entries::idx.asc())
        .select(LedgerRow::as_select())
        .load(&mut conn)
        .unwrap();
    assert_eq!(queried.len(), 13);
    assert_eq!(queried[0].seq_no, None, "entry 0 registers the table");
    for (from, size) in [(0u64, 13u64), (0, 5), (4, 3), (11, 10), (13, 4)] {
        // Each page followed by a prepared statement in the same transaction: the COPY has
        // left the connection ready for it.
        let (page, after) = conn
            .transaction(|conn| {
                let page = EntryPage::read(conn, from, size)?;
                let after: i64 = ledger_entries::table.count().get_result(conn)?;
                Ok::<_, ledger::error::LedgerError>((page, after))
            })
            .unwrap();
        assert_eq!(after, 13);
        let expected: Vec<&LedgerRow> = queried
            .iter()
            .skip(from as usize)
            .take(size as usize)
            .collect();
        assert_eq!(page.len(), expected.len(), "from {from}, {size}");
        for (n, row) in expected.into_iter().enumerate() {
            let read = page.get(n).unwrap();
            assert_eq!(read.idx, row.idx);
            assert_eq!(read.received_at, row.received_at);
            assert_eq!(read.prev_hash, row.prev_hash.as_slice());
            assert_eq!(read.leaf_hash, row.leaf_hash.as_slice());
            assert_eq!(read.entry, row.entry.as_slice());
            assert_eq!(read.table_id, row.table_id.as_deref());
            assert_eq!(read.seq_no, row.seq_no);
            assert_eq!(read.key_id, row.key_id);
            assert_eq!(read.record_hash, row.record_hash.as_slice());
        }
    }
}
