#![allow(clippy::unwrap_used)]

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel_migrations::MigrationHarness as _;

use super::*;
use crate::record_runs::tests::{record, run};
use crate::record_runs::HeldAt;
use crate::store::connection::{connect, MIGRATIONS};
use crate::store::test_db;

fn casino(conn: &mut PgConnection, name: &str) {
    diesel::sql_query("INSERT INTO monitor_casinos (casino) VALUES ($1)")
        .bind::<Text, _>(name)
        .execute(conn)
        .unwrap();
}

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct RunRow {
    #[diesel(sql_type = Text)]
    casino: String,
    #[diesel(sql_type = Text)]
    table_id: String,
    #[diesel(sql_type = BigInt)]
    first_seq: i64,
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
    #[diesel(sql_type = BigInt)]
    first_index: i64,
    #[diesel(sql_type = BigInt)]
    last_index: i64,
}

fn row(
    casino: &str,
    table_id: &str,
    first_seq: i64,
    last_seq: i64,
    first_index: i64,
    last_index: i64,
) -> RunRow {
    RunRow {
        casino: casino.to_owned(),
        table_id: table_id.to_owned(),
        first_seq,
        last_seq,
        first_index,
        last_index,
    }
}

/// Every row of monitor_record_runs, in key order.
fn rows(conn: &mut PgConnection) -> Vec<RunRow> {
    diesel::sql_query(
        "SELECT casino, table_id, first_seq, last_seq, first_index, last_index \
         FROM monitor_record_runs ORDER BY casino, table_id, first_seq",
    )
    .load(conn)
    .unwrap()
}

#[test]
fn record_runs_saved_are_loaded_as_they_were() {
    let mut conn = test_db::database();
    casino(&mut conn, "c");
    casino(&mut conn, "d");
    let mut held = RecordRuns::default();
    // R01: 1..=3 at 10..=12, 7 at 13, 8 at 14; B1: 0 at 15.
    held.add(&[
        record("R01", 1, 10),
        record("R01", 2, 11),
        record("R01", 3, 12),
        record("R01", 7, 13),
        record("R01", 8, 14),
        record("B1", 0, 15),
    ]);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    // Another casino's runs of a table of the same name are its own.
    let mut other = RecordRuns::default();
    other.add(&[record("R01", 1, 0)]);
    save(&mut conn, "d", &other.take_changes()).unwrap();

    let loaded = load(&mut conn, "c").unwrap();
    assert_eq!(
        loaded.runs_of("R01"),
        vec![run(1, 3, 10, 12), run(7, 8, 13, 14)]
    );
    assert_eq!(loaded.runs_of("B1"), vec![run(0, 0, 15, 15)]);
    assert_eq!(loaded.run_count(), 3);
    assert_eq!(
        load(&mut conn, "d").unwrap().runs_of("R01"),
        vec![run(1, 1, 0, 0)]
    );
    assert_eq!(load(&mut conn, "nobody").unwrap().run_count(), 0);
    // Nothing to save writes nothing.
    save(&mut conn, "c", &[]).unwrap();
    assert_eq!(rows(&mut conn).len(), 4);
}

#[test]
fn record_runs_joined_replace_their_rows() {
    let mut conn = test_db::database();
    casino(&mut conn, "c");
    let mut held = RecordRuns::default();
    // 1..=4 at 100..=103, 6..=9 at 105..=108 (5 missing), 20 at 109.
    let first: Vec<_> = (1..=4)
        .map(|s| record("R01", s, 99 + s))
        .chain((6..=9).map(|s| record("R01", s, 99 + s)))
        .chain([record("R01", 20, 109), record("B1", 1, 110)])
        .collect();
    held.add(&first);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    assert_eq!(
        rows(&mut conn),
        vec![
            row("c", "B1", 1, 1, 110, 110),
            row("c", "R01", 1, 4, 100, 103),
            row("c", "R01", 6, 9, 105, 108),
            row("c", "R01", 20, 20, 109, 109),
        ]
    );
    // As following goes on: loaded again, 5 arrives at 200 and joins 1..4 with 6..9; 21 at 201.
    let mut held = load(&mut conn, "c").unwrap();
    let bundle = [record("R01", 5, 200), record("R01", 21, 201)];
    assert_eq!(held.find_replay(&bundle), None);
    held.add(&bundle);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    assert_eq!(
        rows(&mut conn),
        vec![
            row("c", "B1", 1, 1, 110, 110),
            row("c", "R01", 1, 9, 100, 108),
            row("c", "R01", 20, 21, 109, 201),
        ]
    );
    // The replay check of what was loaded finds a record of the joined run.
    let held = load(&mut conn, "c").unwrap();
    let replay = [record("R01", 5, 300)];
    assert_eq!(
        held.find_replay(&replay).map(|(_, at)| at),
        Some(HeldAt::Earlier(run(1, 9, 100, 108)))
    );
}

#[test]
fn record_runs_beyond_bigint_are_refused_before_anything_is_written() {
    let mut conn = test_db::database();
    casino(&mut conn, "c");
    let mut held = RecordRuns::default();
    held.add(&[record("R01", 1, 0)]);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    // 2 joins the run (a change from 1), 2^63 is a run of its own that BIGINT cannot keep.
    held.add(&[record("R01", 2, 1), record("R01", 1 << 63, 2)]);
    let refused = save(&mut conn, "c", &held.take_changes()).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "casino `c`: table R01: seq_no 9223372036854775808 is beyond what the monitor's state \
         keeps (9223372036854775807)"
    );
    assert_eq!(rows(&mut conn), vec![row("c", "R01", 1, 1, 0, 0)]);
}

#[test]
fn record_runs_kept_by_hand_overlapping_are_a_corrupt_state_and_negative_ones_refused() {
    let mut conn = test_db::database();
    casino(&mut conn, "c");
    diesel::sql_query(
        "INSERT INTO monitor_record_runs VALUES ('c', 'R01', 1, 5, 0, 4), ('c', 'R01', 3, 9, 5, 6)",
    )
    .execute(&mut conn)
    .unwrap();
    let refused = load(&mut conn, "c").unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the monitor's state of casino `c` is corrupt: table R01: the runs of seq_nos 1 to 5 and \
         3 to 9 overlap"
    );
    // A negative value, or a run that ends before it starts, the table itself refuses.
    for change in [
        "first_seq = -1",
        "first_index = -1",
        "last_index = -1",
        "last_seq = 0",
    ] {
        let refused = diesel::sql_query(format!("UPDATE monitor_record_runs SET {change}"))
            .execute(&mut conn)
            .unwrap_err();
        assert!(
            refused.to_string().contains("violates check constraint"),
            "{change}: {refused}"
        );
    }
}

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct RoundRow {
    #[diesel(sql_type = Text)]
    casino: String,
    #[diesel(sql_type = Text)]
    table_id: String,
    #[diesel(sql_type = BigInt)]
    seq_no: i64,
    #[diesel(sql_type = BigInt)]
    ledger_index: i64,
}

fn rounds(conn: &mut PgConnection) -> Vec<(String, String, i64, i64)> {
    diesel::sql_query(
        "SELECT casino, table_id, seq_no, ledger_index FROM monitor_rounds \
         ORDER BY casino, table_id, seq_no",
    )
    .load::<RoundRow>(conn)
    .unwrap()
    .into_iter()
    .map(|r| (r.casino, r.table_id, r.seq_no, r.ledger_index))
    .collect()
}

#[derive(QueryableByName)]
struct Regclass {
    #[diesel(sql_type = Nullable<Text>)]
    name: Option<String>,
}

fn table_exists(conn: &mut PgConnection, table: &str) -> bool {
    diesel::sql_query("SELECT to_regclass($1)::text AS name")
        .bind::<Text, _>(table)
        .get_result::<Regclass>(conn)
        .unwrap()
        .name
        .is_some()
}

#[test]
fn record_runs_migration_turns_the_records_kept_into_runs_and_back() {
    let mut conn = connect(&test_db::empty_database()).unwrap();
    // The migrations up to 2026-11-29-000005_table_records: the records one a row.
    for _ in 0..5 {
        conn.run_next_migration(MIGRATIONS).unwrap();
    }
    let applied = conn.applied_migrations().unwrap();
    assert_eq!(applied.first().unwrap().to_string(), "20261129000005");
    casino(&mut conn, "c");
    casino(&mut conn, "d");
    // c R01: 1, 2, 3 at 10, 11, 12; 5 at 20; 7, 8 at 30, 31. c B1: 0 at 5. d R01: 1, 2 at 1, 2.
    diesel::sql_query(
        "INSERT INTO monitor_rounds (casino, table_id, seq_no, ledger_index) VALUES \
         ('c', 'R01', 1, 10), ('c', 'R01', 2, 11), ('c', 'R01', 3, 12), ('c', 'R01', 5, 20), \
         ('c', 'R01', 7, 30), ('c', 'R01', 8, 31), ('c', 'B1', 0, 5), \
         ('d', 'R01', 2, 2), ('d', 'R01', 1, 1)",
    )
    .execute(&mut conn)
    .unwrap();
    let before = rounds(&mut conn);

    // Up: the islands of consecutive seq_nos, each with its ends' indices.
    assert_eq!(
        conn.run_next_migration(MIGRATIONS).unwrap().to_string(),
        "20261129000006"
    );
    let runs = vec![
        row("c", "B1", 0, 0, 5, 5),
        row("c", "R01", 1, 3, 10, 12),
        row("c", "R01", 5, 5, 20, 20),
        row("c", "R01", 7, 8, 30, 31),
        row("d", "R01", 1, 2, 1, 2),
    ];
    assert_eq!(rows(&mut conn), runs);
    assert!(!table_exists(&mut conn, "monitor_rounds"));
    let held = load(&mut conn, "c").unwrap();
    assert_eq!(
        held.find_replay(&[record("R01", 2, 40)]).map(|(_, at)| at),
        Some(HeldAt::Earlier(run(1, 3, 10, 12)))
    );
    assert_eq!(held.find_replay(&[record("R01", 4, 40)]), None);

    // Down: a row per seq_no again; seq_no 2, inside its run, gets the run's first index (10,
    // not the 11 it had), the others their own.
    conn.revert_last_migration(MIGRATIONS).unwrap();
    assert!(!table_exists(&mut conn, "monitor_record_runs"));
    let expected: Vec<_> = before
        .iter()
        .map(|(c, t, s, i)| {
            let i = if (c.as_str(), t.as_str(), *s) == ("c", "R01", 2) {
                10
            } else {
                *i
            };
            (c.clone(), t.clone(), *s, i)
        })
        .collect();
    assert_eq!(rounds(&mut conn), expected);
    // With its append-only triggers.
    let refused = diesel::sql_query("DELETE FROM monitor_rounds")
        .execute(&mut conn)
        .unwrap_err();
    assert!(refused.to_string().contains("append-only"), "{refused}");

    // Up again: the same runs.
    conn.run_next_migration(MIGRATIONS).unwrap();
    assert_eq!(rows(&mut conn), runs);
}

#[test]
fn record_runs_of_many_gaps_are_saved_past_one_insert_s_parameters() {
    let mut conn = test_db::database();
    casino(&mut conn, "c");
    let mut held = RecordRuns::default();
    // seq_nos 0, 2, 4, …, 19 998 (10 000 of them, none next to another) at indices 0..10 000:
    // 10 000 runs, 60 000 values, more than one INSERT of 8 192 rows takes.
    let gaps: Vec<_> = (0..10_000u64).map(|i| record("R01", 2 * i, i)).collect();
    held.add(&gaps);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    assert_eq!(rows(&mut conn).len(), 10_000);
    assert_eq!(load(&mut conn, "c").unwrap().run_count(), 10_000);
    // 1 at 10 000 joins 0 and 2: the runs from 0 on are replaced, 9 999 of them now.
    held.add(&[record("R01", 1, 10_000)]);
    save(&mut conn, "c", &held.take_changes()).unwrap();
    let kept = rows(&mut conn);
    assert_eq!(kept.len(), 9_999);
    assert_eq!(kept[0], row("c", "R01", 0, 2, 0, 1));
    assert_eq!(kept[1], row("c", "R01", 4, 4, 2, 2));
}
