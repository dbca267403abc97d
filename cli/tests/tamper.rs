#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The ledger's promises against the database's own users: the writer role cannot change derived
//! data, and what a superuser changes past every trigger is named by `verify`.

mod common;

use chrono::{Duration, Utc};
use common::*;
use diesel::connection::SimpleConnection as _;
use diesel::{Connection as _, PgConnection, RunQueryDsl as _};
use ledger::storage::{checkpoints, connect};
use serde_json::{json, Value};

/// Entry 0 registers roulette table R01; entry 1 is a spin of 17 with a straight on 17 of 100 Kč
/// paid 3 700 Kč (35 × 10 000 h + the stake 10 000 h = 360 000 h due: finding 1.0, overpaid by
/// 10 000 h); entries 2 and 3 are spins paid correctly (360 000 h). A checkpoint covers all 4.
fn ledger() -> (api::state::AppState, String) {
    let (state, url) = state();
    let mut conn = connect(&url).unwrap();
    let k = key(11);
    let start = Utc::now() - Duration::hours(1);
    register_roulette(&mut conn, "R01", &k, start);
    for (seq, paid) in [(1u64, 370_000), (2, 360_000), (3, 360_000)] {
        let mut record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, paid)]));
        record["played_at"] = json!((start + Duration::minutes(seq as i64)).to_rfc3339());
        let received = start + Duration::minutes(seq as i64) + Duration::seconds(1);
        append_signed(&state, &mut conn, record, &k, received);
    }
    checkpoints::create(&mut conn, &operator(), 4, Utc::now()).unwrap();
    (state, url)
}

fn failure(report: &Value) -> (u64, String) {
    let failure = &report["failure"];
    (
        failure["index"].as_u64().unwrap(),
        failure["reason"].as_str().unwrap().to_owned(),
    )
}

/// `verify` of the database at `url` fails at entry `index` for a reason holding `expected`
/// (after `tamper`).
fn assert_verify_names(url: &str, index: u64, expected: &str, tamper: &str) {
    let (code, report, _) = verify_database(url);
    assert_eq!(code, Some(1), "{tamper}: {report}");
    let (at, reason) = failure(&report);
    assert_eq!(at, index, "{tamper}: {reason}");
    assert!(reason.contains(expected), "{tamper}: {reason}");
}

/// A connection as a login role that is a member of `dozor_writer` only, as the server's is.
fn as_writer(url: &str) -> PgConnection {
    let mut admin = connect(url).unwrap();
    admin
        .batch_execute(
            "DO $$ BEGIN CREATE ROLE tamper_writer LOGIN IN ROLE dozor_writer; \
             EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        )
        .unwrap();
    let writer_url = url.replacen("://postgres@", "://tamper_writer@", 1);
    assert_ne!(
        writer_url, url,
        "the test cluster's URL names its superuser"
    );
    PgConnection::establish(&writer_url).unwrap()
}

/// The superuser with triggers off (`session_replication_role = replica`): past every rule
/// the database can hold.
fn past_the_triggers(url: &str) -> PgConnection {
    let mut conn = connect(url).unwrap();
    conn.batch_execute("SET session_replication_role = replica")
        .unwrap();
    conn
}

#[test]
fn the_writer_role_cannot_change_verdicts_or_findings() {
    let (_, url) = ledger();
    let mut writer = as_writer(&url);
    for statement in [
        "UPDATE findings SET amount_h = 0",
        "DELETE FROM findings",
        "UPDATE adjudications SET paid_h = 0 WHERE ledger_index = 2",
        "DELETE FROM adjudications WHERE ledger_index = 2",
        "TRUNCATE adjudications CASCADE",
    ] {
        let err = diesel::sql_query(statement)
            .execute(&mut writer)
            .unwrap_err();
        assert!(
            err.to_string().contains("permission denied"),
            "{statement}: {err}"
        );
    }
    // It still reads and appends: the restriction is not a locked door.
    let rows: Vec<Count> = diesel::sql_query("SELECT count(*) AS n FROM findings")
        .load(&mut writer)
        .unwrap();
    assert_eq!(rows[0].n, 1);
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["rounds_readjudicated"], 3);
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[test]
fn verify_names_each_verdict_or_finding_changed_past_the_triggers() {
    for (tamper, index, expected) in [
        (
            "UPDATE findings SET amount_h = 0",
            1,
            "stored finding 1.0 differs from re-adjudication: amount_h is 0, re-adjudication gives 10000",
        ),
        (
            "UPDATE findings SET kind = 'underpaid'",
            1,
            "kind is \"underpaid\", re-adjudication gives \"overpaid\"",
        ),
        (
            "DELETE FROM findings",
            1,
            "0 findings are stored for the round; re-adjudication gives 1",
        ),
        (
            "UPDATE adjudications SET paid_h = 0 WHERE ledger_index = 2",
            2,
            "the stored verdict differs from re-adjudication: paid_h is 0, re-adjudication gives 360000",
        ),
        (
            // The wheel statistics count these.
            "UPDATE adjudications SET wheel_result = 0 WHERE ledger_index = 2",
            2,
            "the stored verdict differs from re-adjudication: wheel_result is Some(0), re-adjudication gives Some(17)",
        ),
        (
            // The daily report and the tax sum these.
            "UPDATE adjudications SET tournament_fee_h = 500 WHERE ledger_index = 3",
            3,
            "the stored verdict differs from re-adjudication: tournament_fee_h is 500, re-adjudication gives 0",
        ),
        (
            "UPDATE adjudications SET verdict = replace(verdict, '360000', '0') WHERE ledger_index = 3",
            3,
            "the stored verdict differs from re-adjudication: the verdict JSON differs",
        ),
        (
            // The monthly RTP report sums these per bet kind.
            "UPDATE adjudications SET kind_paid_h = '{0}' WHERE ledger_index = 2",
            2,
            "the stored bet-kind figures differ from re-adjudication: straight: paid_h is 0, re-adjudication gives 360000",
        ),
        (
            "UPDATE adjudications SET kind_variance_h2[1] = 0 WHERE ledger_index = 2",
            2,
            "the stored bet-kind figures differ from re-adjudication: straight: variance_h2 is 0, re-adjudication gives ",
        ),
        (
            "UPDATE adjudications SET kind_names = '{}', kind_bets = '{}', kind_stakes_h = '{}', \
             kind_paid_h = '{}', kind_expected_payout_mh = '{}', kind_variance_h2 = '{}', \
             kind_third_moment_h3 = '{}' WHERE ledger_index = 3",
            3,
            "the stored bet-kind figures differ from re-adjudication: kinds are [], re-adjudication gives [\"straight\"]",
        ),
        (
            "UPDATE adjudications SET kind_names = kind_names || kind_names, \
             kind_bets = kind_bets || kind_bets, kind_stakes_h = kind_stakes_h || kind_stakes_h, \
             kind_paid_h = kind_paid_h || kind_paid_h, \
             kind_expected_payout_mh = kind_expected_payout_mh || kind_expected_payout_mh, \
             kind_variance_h2 = kind_variance_h2 || kind_variance_h2, \
             kind_third_moment_h3 = kind_third_moment_h3 || kind_third_moment_h3 \
             WHERE ledger_index = 2",
            2,
            "kinds are [\"straight\", \"straight\"], re-adjudication gives [\"straight\"]",
        ),
        (
            "UPDATE adjudications SET payout_third_moment_h3 = 0 WHERE ledger_index = 2",
            2,
            "the stored verdict differs from re-adjudication: payout_third_moment_h3 is 0,",
        ),
        (
            "DELETE FROM adjudications WHERE ledger_index = 2",
            2,
            "the round's stored verdict is missing",
        ),
        (
            "INSERT INTO adjudications SELECT 0, table_id, game, plan_id, rules_version, played_at, \
             void, stakes_h, expected_paid_h, paid_h, rtp_stakes_h, expected_payout_mh, \
             payout_variance_h2, finding_count, verdict, payout_third_moment_h3, tournament_fee_h, \
             tournament_overlay_h, time_collection, wheel_result, kind_names, kind_bets, \
             kind_stakes_h, kind_paid_h, kind_expected_payout_mh, kind_variance_h2, \
             kind_third_moment_h3 \
             FROM adjudications WHERE ledger_index = 2",
            0,
            "a verdict is stored for an entry that is not a round",
        ),
    ] {
        let (_, url) = ledger();
        past_the_triggers(&url).batch_execute(tamper).unwrap();
        assert_verify_names(&url, index, expected, tamper);
        // Read and checked in small pages and chunks, the same failure.
        for (page, chunk) in [(3, 2), (1, 1)] {
            let report = ledger::storage::verify::verify_ledger_paged(
                &mut connect(&url).unwrap(),
                &operators(),
                dozor_log::entry_check::SignatureCheck::Batch,
                ledger::storage::verify::Paging { page, chunk },
            )
            .unwrap();
            let failure = report.failure.expect(tamper);
            assert_eq!(failure.index, index, "{tamper}, pages of {page}");
            assert!(failure.reason.contains(expected), "{tamper}: {}", failure.reason);
        }
    }
}

/// The operator's verifier key, as `verify` is given it.
fn operators() -> std::collections::HashMap<String, ed25519_dalek::VerifyingKey> {
    // The seed of `operator()`.
    let public = key(42).verifying_key();
    std::collections::HashMap::from([(dozor_log::keys::key_id(&public), public)])
}

#[test]
fn a_tail_removed_with_its_merkle_nodes_is_a_rollback_named_by_verify_and_refused_at_start() {
    let (_, url) = ledger();
    // Entry 3 and every node over it: (level 1, index 1) and (level 2, index 0). What is left is
    // a consistent tree of 3 entries, but the checkpoint of 4 was signed.
    past_the_triggers(&url)
        .batch_execute(
            "DELETE FROM findings WHERE ledger_index = 3; \
             DELETE FROM adjudications WHERE ledger_index = 3; \
             DELETE FROM merkle_nodes WHERE (idx + 1) * (1::bigint << level) > 3; \
             DELETE FROM ledger_entries WHERE idx = 3",
        )
        .unwrap();
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    let (at, reason) = failure(&report);
    assert_eq!(at, 3);
    assert!(
        reason.starts_with("rollback: a checkpoint signed at ")
            && reason.ends_with("covers 4 entries, but the ledger holds 3: entries were removed after they were signed"),
        "{reason}"
    );
    let refused = api::server::state(&api::server::Settings::new(url.clone(), operator()));
    let Err(api::server::StartError::Ledger(ledger::LedgerError::RolledBack(why))) = refused else {
        panic!(
            "a server started on a rolled-back ledger: {:?}",
            refused.err()
        );
    };
    assert!(
        why.contains("covers 4 entries, but the ledger holds 3"),
        "{why}"
    );
    // Not a restore (the database's own checkpoint is larger than its entries): the operator
    // cannot accept it as one, and nothing is appended.
    let mut conn = connect(&url).unwrap();
    let err = ledger::storage::rollbacks::accept(
        &mut conn,
        &operator(),
        Vec::new(),
        "tail lost",
        "cli:root",
        Utc::now(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("which no restore leaves"), "{err}");
    assert_eq!(ledger::storage::reads::size(&mut conn).unwrap(), 3);
}

/// A ledger of 4 entries whose checkpoint is also kept in a witness file, then rolled back by a
/// superuser to 3 entries with the nodes and every checkpoint row that covered the fourth: the
/// database URL, the witness file's directory (kept alive) and the witness.
fn rolled_back_behind_the_witness_file() -> (String, tempfile::TempDir, ledger::witness::Witness) {
    let (_, url) = ledger();
    let dir = tempfile::tempdir().unwrap();
    let witness = ledger::witness::Witness::new(dir.path().join("checkpoints.witness"));
    let latest = checkpoints::latest(&mut connect(&url).unwrap())
        .unwrap()
        .unwrap();
    witness
        .record(latest.size as u64, latest.created_at, &latest.note)
        .unwrap();
    past_the_triggers(&url)
        .batch_execute(
            "DELETE FROM findings WHERE ledger_index = 3; \
             DELETE FROM adjudications WHERE ledger_index = 3; \
             DELETE FROM round_ids WHERE ledger_index = 3; \
             DELETE FROM merkle_nodes WHERE (idx + 1) * (1::bigint << level) > 3; \
             DELETE FROM ledger_entries WHERE idx = 3; \
             DELETE FROM checkpoints",
        )
        .unwrap();
    (url, dir, witness)
}

/// A server's settings on `url` that keep its checkpoints in `witness`.
fn settings_keeping(url: &str, witness: &ledger::witness::Witness) -> api::server::Settings {
    let mut settings = api::server::Settings::new(url.to_owned(), operator());
    settings.checkpoints = Some(ledger::ingest::CheckpointPolicy {
        every_entries: 1000,
        every: std::time::Duration::from_secs(10),
        witness: Some(witness.clone()),
    });
    settings
}

/// The strongest rollback: the tail, its nodes **and** every checkpoint row that covers it. The
/// database alone is then a consistent smaller ledger; the witness file kept outside it is not.
#[test]
fn a_rollback_that_also_deletes_the_checkpoints_is_caught_by_the_witness_file() {
    let (url, _dir, witness) = rolled_back_behind_the_witness_file();
    let (code, report, _) = verify_database(&url);
    assert_eq!(
        code,
        Some(0),
        "without the witness the database is consistent: {report}"
    );

    let path = witness.path().to_str().unwrap();
    let (code, report, _) = verify_database_with(&url, &["--witness", path]);
    assert_eq!(code, Some(1), "{report}");
    let (at, reason) = failure(&report);
    assert_eq!(at, 3);
    assert!(
        reason.starts_with("rollback: a checkpoint signed at ")
            && reason
                .contains("(kept in the witness file) covers 4 entries, but the ledger holds 3"),
        "{reason}"
    );
    let settings = settings_keeping(&url, &witness);
    let refused = api::server::state(&settings);
    let Err(api::server::StartError::Ledger(ledger::LedgerError::RolledBack(why))) = refused else {
        panic!("a server started behind its witness: {:?}", refused.err());
    };
    assert!(
        why.contains("(kept in the witness file) covers 4 entries"),
        "{why}"
    );

    // A rewritten witnessed checkpoint is not excused by accepting a rollback; the lost one is,
    // once accepted on the record, and the server starts again.
    let witnessed = witness.read(&[operator().verifier()]).unwrap();
    let mut conn = connect(&url).unwrap();
    let mut rewritten = witnessed.clone();
    rewritten.push(ledger::storage::issued::IssuedCheckpoint {
        size: 2,
        root: [7; 32],
        created_at: Utc::now(),
        witnessed: true,
    });
    let err = ledger::storage::rollbacks::accept(
        &mut conn,
        &operator(),
        rewritten,
        "restore",
        "cli:root",
        Utc::now(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("were rewritten"), "{err}");
    let receipt = ledger::storage::rollbacks::accept(
        &mut conn,
        &operator(),
        witnessed,
        "restored after the disk failed",
        "cli:root",
        Utc::now(),
    )
    .unwrap();
    assert_eq!((receipt.index, receipt.lost.len()), (3, 1));
    assert_eq!(receipt.lost[0].size, 4);
    assert!(api::server::state(&settings).is_ok());
    let (code, report, _) = verify_database_with(&url, &["--witness", path]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["accepted_rollbacks"][0]["lost_size"], 4, "{report}");

    // A witness line that is not the operator's is refused, not trusted.
    std::fs::write(
        witness.path(),
        r#"{"size": 9, "created_at": "2026-11-24T00:00:00Z", "note": "forged
"}"#,
    )
    .unwrap();
    let err = witness.read(&[operator().verifier()]).unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
}

/// A superuser who rolls the ledger back and appends an acceptance signed by a key of their own
/// (well formed, in the chain) gets neither a server that starts nor a verify that passes.
#[test]
fn an_accepted_rollback_not_signed_by_the_operator_is_refused() {
    let (url, _dir, witness) = rolled_back_behind_the_witness_file();
    let witnessed = witness.read(&[operator().verifier()]).unwrap();
    let forger = operator_with(7);
    let forged = ledger::storage::rollbacks::accept(
        &mut connect(&url).unwrap(),
        &forger,
        witnessed,
        "nothing to see",
        "cli:root",
        Utc::now(),
    )
    .unwrap();
    assert_eq!(forged.index, 3);
    let settings = settings_keeping(&url, &witness);
    let refused = api::server::state(&settings);
    let Err(api::server::StartError::Ledger(ledger::LedgerError::RolledBack(why))) = refused else {
        panic!(
            "a server started on a forged acceptance: {:?}",
            refused.err()
        );
    };
    assert!(why.contains("registry does not verify at index 3"), "{why}");
    let path = witness.path().to_str().unwrap();
    let (code, report, _) = verify_database_with(&url, &["--witness", path]);
    assert_eq!(code, Some(1), "{report}");
}

#[test]
fn verify_changes_nothing_not_even_a_missing_merkle_node() {
    let (_, url) = ledger();
    past_the_triggers(&url)
        .batch_execute("DELETE FROM merkle_nodes WHERE level = 1 AND idx = 1")
        .unwrap();
    let nodes = |url: &str| -> i64 {
        let rows: Vec<Count> = diesel::sql_query("SELECT count(*) AS n FROM merkle_nodes")
            .load(&mut connect(url).unwrap())
            .unwrap();
        rows[0].n
    };
    let before = nodes(&url);
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    let (at, reason) = failure(&report);
    assert_eq!(at, 2, "{reason}");
    assert!(
        reason.contains("Merkle node (level 1, index 1) over entries 2..=3 is missing"),
        "{reason}"
    );
    assert_eq!(nodes(&url), before, "verify wrote to the database");
}

#[test]
fn a_table_key_slipped_into_its_table_is_not_trusted_by_the_server_and_named_by_verify() {
    use actix_web::ResponseError as _;
    let (state, url) = ledger();
    let intruder = key(66);
    let public = intruder.verifying_key();
    diesel::sql_query(
        "INSERT INTO table_keys (key_id, table_id, public_key, valid_from, registered_at) \
         VALUES ($1, 'R01', $2, now() - interval '1 day', now())",
    )
    .bind::<diesel::sql_types::Text, _>(dozor_log::keys::key_id(&public))
    .bind::<diesel::sql_types::Bytea, _>(public.as_bytes().to_vec())
    .execute(&mut as_writer(&url))
    .unwrap();
    let record = spin("R01", 4, 17, json!([straight("b1", 17, 10_000, 360_000)]));
    let body = serde_json::to_vec(&signed(record, &intruder)).unwrap();
    let envelope = ledger::ingest::parse_envelope(&body).unwrap();
    let refused = api::error::ApiError::from(state.ingest.prepare(envelope).unwrap_err());
    assert_eq!(
        (refused.status_code().as_u16(), refused.body().code.as_str()),
        (422, "unknown_key")
    );
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(1), "{report}");
    let (_, reason) = failure(&report);
    assert!(
        reason.contains(&dozor_log::keys::key_id(&public)),
        "{reason}"
    );
}

/// The round ids kept unique per table are derived data too: a row deleted or changed past the
/// triggers, or one stored for an entry that is not a round, is named by `verify`; a round whose
/// id an earlier round of its table holds (as rounds appended before the ids were kept could)
/// is counted, not a failure.
#[test]
fn verify_names_a_round_id_row_changed_past_the_triggers_and_counts_shared_ids() {
    let (state, url) = state();
    let mut conn = connect(&url).unwrap();
    let k = key(11);
    let start = Utc::now() - Duration::hours(1);
    register_roulette(&mut conn, "R01", &k, start);
    let append = |conn: &mut PgConnection, seq: u64, round_id: &str| {
        let mut record = spin("R01", seq, 17, json!([straight("b1", 17, 10_000, 360_000)]));
        record["played_at"] = json!((start + Duration::minutes(seq as i64)).to_rfc3339());
        record["round_id"] = json!(round_id);
        append_signed(&state, conn, record, &k, Utc::now())
    };
    // Entries 1 and 2: rounds A and B.
    append(&mut conn, 1, "A");
    append(&mut conn, 2, "B");
    // Entry 3 also says A, as a round appended before ids were kept could: its row is made
    // with A's row out of the way, then removed and A's row put back.
    past_the_triggers(&url)
        .batch_execute("UPDATE round_ids SET round_id = 'Z' WHERE ledger_index = 1")
        .unwrap();
    let out = append(&mut conn, 3, "A");
    assert!(
        matches!(out[0], ledger::storage::append::AppendOutcome::Appended(_)),
        "{out:?}"
    );
    past_the_triggers(&url)
        .batch_execute(
            "DELETE FROM round_ids WHERE ledger_index = 3; \
             UPDATE round_ids SET round_id = 'A' WHERE ledger_index = 1",
        )
        .unwrap();
    checkpoints::create(&mut conn, &operator(), 4, Utc::now()).unwrap();
    let (code, report, stderr) = verify_database(&url);
    assert_eq!(code, Some(0), "{report} {stderr}");
    assert_eq!(
        counts(&report, ["rounds_readjudicated", "rounds_sharing_an_id"]),
        [Some(3), Some(1)],
        "{report}"
    );
    // Past the triggers: B's row removed, changed, or a row for the registration.
    for (tamper, undo, index, expected) in [
        (
            "DELETE FROM round_ids WHERE ledger_index = 2",
            "INSERT INTO round_ids VALUES ('R01', 'B', 2)",
            2,
            "the round's id `B` of table `R01` is not kept for it",
        ),
        (
            "UPDATE round_ids SET round_id = 'Q' WHERE ledger_index = 2",
            "UPDATE round_ids SET round_id = 'B' WHERE ledger_index = 2",
            2,
            "the round's id `B` of table `R01` is not kept for it",
        ),
        (
            "INSERT INTO round_ids VALUES ('R01', 'R', 0)",
            "DELETE FROM round_ids WHERE ledger_index = 0",
            0,
            "a round id is stored for an entry that is not a round",
        ),
        // A second id claimed for round B, its own row kept.
        (
            "INSERT INTO round_ids VALUES ('R01', 'C', 2)",
            "DELETE FROM round_ids WHERE round_id = 'C'",
            2,
            "2 round ids are stored for the round, which has one at most",
        ),
    ] {
        past_the_triggers(&url).batch_execute(tamper).unwrap();
        assert_verify_names(&url, index, expected, tamper);
        past_the_triggers(&url).batch_execute(undo).unwrap();
    }
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(0), "{report}");
}

#[derive(diesel::QueryableByName, Debug, PartialEq)]
struct Text {
    #[diesel(sql_type = diesel::sql_types::Text)]
    text: String,
}

fn texts(url: &str, sql: &str) -> Vec<String> {
    let rows: Vec<Text> = diesel::sql_query(sql)
        .load(&mut connect(url).unwrap())
        .unwrap();
    rows.into_iter().map(|r| r.text).collect()
}

/// The bet-kind figures moved from a row per kind into the verdict's arrays (migration 000026):
/// back to rows and into the arrays again, every figure is as it was, bit for bit, and `verify`
/// re-derives the same from the signed records.
#[test]
fn the_bet_kind_figures_survive_the_move_into_the_verdicts_and_back() {
    use diesel_migrations::MigrationHarness as _;
    let (_, url) = ledger();
    let arrays = "SELECT format('%s %s %s %s %s %s %s %s', ledger_index, kind_names, kind_bets, \
                  kind_stakes_h, kind_paid_h, kind_expected_payout_mh, \
                  float8send(kind_variance_h2[1]), float8send(kind_third_moment_h3[1])) AS text \
                  FROM adjudications ORDER BY ledger_index";
    let before = texts(&url, arrays);
    // Three spins, each one straight bet of 10 000 h on 17: the first paid 370 000 h, the others
    // 360 000 h (35 × 10 000 + 10 000).
    assert_eq!(before.len(), 3, "{before:?}");
    assert!(
        before[0].starts_with("1 {straight} {1} {10000} {370000} "),
        "{before:?}"
    );
    assert!(
        before[1].starts_with("2 {straight} {1} {10000} {360000} "),
        "{before:?}"
    );
    let mut conn = connect(&url).unwrap();
    // The migrations after it first (each down migration run on the way), then 000026.
    let mut reverted = Vec::new();
    while reverted.last().map(String::as_str) != Some("20261209000026") {
        reverted.push(
            conn.revert_last_migration(ledger::storage::MIGRATIONS)
                .unwrap()
                .to_string(),
        );
        assert!(reverted.len() <= 8, "{reverted:?}");
    }
    assert_eq!(
        reverted,
        [
            "20261213000030",
            "20261212000029",
            "20261211000028",
            "20261210000027",
            "20261209000026"
        ]
    );
    // A row per kind again, each with its verdict's table, game and time.
    assert_eq!(
        texts(
            &url,
            "SELECT format('%s %s %s %s %s %s %s', k.ledger_index, k.kind, k.bets, k.stakes_h, \
             k.paid_h, k.table_id = a.table_id AND k.game = a.game, k.played_at = a.played_at) \
             AS text FROM round_kinds k JOIN adjudications a USING (ledger_index) \
             ORDER BY ledger_index"
        ),
        [
            "1 straight 1 10000 370000 t t",
            "2 straight 1 10000 360000 t t",
            "3 straight 1 10000 360000 t t"
        ]
    );
    ledger::storage::migrate(&mut conn).unwrap();
    assert_eq!(texts(&url, arrays), before);
    let (code, report, _) = verify_database(&url);
    assert_eq!(code, Some(0), "{report}");
}
