#![allow(clippy::unwrap_used)]

use super::*;

/// A record of table `table_id`.
pub(crate) fn record(table_id: &str, seq_no: u64, index: u64) -> SeenRecord {
    SeenRecord {
        index,
        table_id: table_id.to_owned(),
        seq_no,
    }
}

pub(crate) fn run(first_seq: u64, last_seq: u64, first_index: u64, last_index: u64) -> Run {
    Run {
        first_seq,
        last_seq,
        first_index,
        last_index,
    }
}

fn change(table_id: &str, from_seq: u64, runs: Vec<Run>) -> RunChange {
    RunChange {
        table_id: table_id.to_owned(),
        from_seq,
        runs,
    }
}

/// Records of table `t` with seq_nos `seqs`, at indices from `index` on.
fn records(t: &str, seqs: impl IntoIterator<Item = u64>, index: u64) -> Vec<SeenRecord> {
    seqs.into_iter()
        .zip(index..)
        .map(|(seq_no, index)| record(t, seq_no, index))
        .collect()
}

#[test]
fn contiguous_appends_make_one_run_and_change_only_it() {
    let mut held = RecordRuns::default();
    // seq_nos 1..=256 at indices 10..=265 (10 + 255).
    held.add(&records("R01", 1..=256, 10));
    assert_eq!(held.run_count(), 1);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 1, vec![run(1, 256, 10, 265)])]
    );
    assert_eq!(held.take_changes(), vec![]);
    // The next bundle, 257..=512 at 266..=521, extends the same run: replaced from seq_no 1.
    held.add(&records("R01", 257..=512, 266));
    assert_eq!(held.run_count(), 1);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 1, vec![run(1, 512, 10, 521)])]
    );
}

#[test]
fn gaps_make_runs_of_their_own() {
    let mut held = RecordRuns::default();
    // 1, 2, 3 at 0, 1, 2; then 7, 8 at 3, 4 (4..=6 missing); then 20 at 5.
    held.add(&records("R01", [1, 2, 3, 7, 8, 20], 0));
    assert_eq!(
        held.runs_of("R01"),
        vec![run(1, 3, 0, 2), run(7, 8, 3, 4), run(20, 20, 5, 5)]
    );
    assert_eq!(held.run_count(), 3);
    assert_eq!(
        held.take_changes(),
        vec![change(
            "R01",
            1,
            vec![run(1, 3, 0, 2), run(7, 8, 3, 4), run(20, 20, 5, 5)]
        )]
    );
    // 21 at 6 extends the last run only: replaced from its first seq_no, 20.
    held.add(&[record("R01", 21, 6)]);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 20, vec![run(20, 21, 5, 6)])]
    );
    // 9 at 7 extends the middle run: from 7, the runs after it come along.
    held.add(&[record("R01", 9, 7)]);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 7, vec![run(7, 9, 3, 7), run(20, 21, 5, 6)])]
    );
}

#[test]
fn a_gap_filled_joins_its_two_runs_from_the_earlier_one() {
    let mut held = RecordRuns::from_runs([
        ("R01".to_owned(), run(1, 4, 100, 103)),
        ("R01".to_owned(), run(6, 9, 105, 108)),
        ("R01".to_owned(), run(20, 30, 120, 130)),
    ])
    .unwrap();
    assert_eq!(held.take_changes(), vec![], "loaded runs are not changes");
    // 5 at 200 joins 1..4 and 6..9: the run 1..9 from index 100 (seq 1) to 108 (seq 9).
    held.add(&[record("R01", 5, 200)]);
    assert_eq!(held.run_count(), 2);
    assert_eq!(
        held.take_changes(),
        vec![change(
            "R01",
            1,
            vec![run(1, 9, 100, 108), run(20, 30, 120, 130)]
        )]
    );
    // 19 at 201 extends 20..30 downwards: it starts at 19 now, at index 201.
    held.add(&[record("R01", 19, 201)]);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 19, vec![run(19, 30, 201, 130)])]
    );
    // 10..=18 at 202..=210 join everything into one run 1..30.
    held.add(&records("R01", 10..=18, 202));
    assert_eq!(held.runs_of("R01"), vec![run(1, 30, 100, 130)]);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 1, vec![run(1, 30, 100, 130)])]
    );
}

#[test]
fn a_seq_no_below_a_run_and_not_next_to_it_is_a_run_of_its_own() {
    let mut held = RecordRuns::default();
    held.add(&records("R01", 10..=12, 0));
    held.take_changes();
    held.add(&[record("R01", 3, 3)]);
    assert_eq!(
        held.runs_of("R01"),
        vec![run(3, 3, 3, 3), run(10, 12, 0, 2)]
    );
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 3, vec![run(3, 3, 3, 3), run(10, 12, 0, 2)])]
    );
}

#[test]
fn out_of_order_seq_nos_keep_the_index_of_each_run_s_ends() {
    let mut held = RecordRuns::default();
    // 5 at 0, 3 at 1, 4 at 2, 6 at 3: one run 3..6, seq 3 at index 1, seq 6 at index 3.
    held.add(&[
        record("R01", 5, 0),
        record("R01", 3, 1),
        record("R01", 4, 2),
        record("R01", 6, 3),
    ]);
    assert_eq!(held.runs_of("R01"), vec![run(3, 6, 1, 3)]);
    assert_eq!(
        held.take_changes(),
        vec![change("R01", 3, vec![run(3, 6, 1, 3)])]
    );
    // The inner 5 (at index 0, before both ends) is told by its run, not by an index.
    let replay = record("R01", 5, 4);
    let (found, at) = held.find_replay(std::slice::from_ref(&replay)).unwrap();
    assert_eq!(found, &replay);
    assert_eq!(at, HeldAt::Earlier(run(3, 6, 1, 3)));
    assert_eq!(
        replay_message(found, &at),
        "table R01 seq_no 5 already followed, in its run of seq_nos 3 to 6 \
         (seq_no 3 at index 1, seq_no 6 at index 3)"
    );
}

#[test]
fn a_replay_inside_a_run_or_at_its_ends_is_found_and_told() {
    let mut held = RecordRuns::default();
    // 1..=100 at indices 1000..=1099.
    held.add(&records("R01", 1..=100, 1000));
    let earlier = HeldAt::Earlier(run(1, 100, 1000, 1099));
    for (seq_no, message) in [
        (1, "table R01 seq_no 1 already at index 1000"),
        (100, "table R01 seq_no 100 already at index 1099"),
        (
            50,
            "table R01 seq_no 50 already followed, in its run of seq_nos 1 to 100 \
             (seq_no 1 at index 1000, seq_no 100 at index 1099)",
        ),
    ] {
        // New records 101, 102 at 2000, 2001, then the replay at 2002.
        let batch = vec![
            record("R01", 101, 2000),
            record("R01", 102, 2001),
            record("R01", seq_no, 2002),
        ];
        let (found, at) = held.find_replay(&batch).unwrap();
        assert_eq!(found, &batch[2]);
        assert_eq!(at, earlier);
        assert_eq!(replay_message(found, &at), message);
    }
    // Next to the run, on both sides, is not a replay.
    assert_eq!(held.find_replay(&[record("R01", 0, 3000)]), None);
    assert_eq!(held.find_replay(&[record("R01", 101, 3000)]), None);
    assert_eq!(held.find_replay(&[]), None);
}

#[test]
fn a_replay_within_the_batch_is_told_with_the_earlier_index() {
    let held = RecordRuns::default();
    let batch = vec![
        record("R01", 7, 40),
        record("B1", 7, 41),
        record("R01", 8, 42),
        record("R01", 7, 43),
        record("R01", 8, 44),
    ];
    let (found, at) = held.find_replay(&batch).unwrap();
    assert_eq!(found, &batch[3], "the first replay in order");
    assert_eq!(at, HeldAt::InBatch(40));
    assert_eq!(
        replay_message(found, &at),
        "table R01 seq_no 7 already at index 40"
    );
}

#[test]
fn the_ends_of_u64_neither_overflow_nor_join_what_is_not_next() {
    let mut held = RecordRuns::default();
    held.add(&[
        record("R01", u64::MAX, 0),
        record("R01", u64::MAX - 1, 1),
        record("R01", 0, 2),
        record("R01", 1, 3),
    ]);
    assert_eq!(
        held.runs_of("R01"),
        vec![run(0, 1, 2, 3), run(u64::MAX - 1, u64::MAX, 1, 0)]
    );
    assert_eq!(
        held.take_changes(),
        vec![change(
            "R01",
            0,
            vec![run(0, 1, 2, 3), run(u64::MAX - 1, u64::MAX, 1, 0)]
        )]
    );
    let (_, at) = held.find_replay(&[record("R01", u64::MAX, 9)]).unwrap();
    assert_eq!(at, HeldAt::Earlier(run(u64::MAX - 1, u64::MAX, 1, 0)));
    assert_eq!(held.find_replay(&[record("R01", 2, 9)]), None);
}

#[test]
fn two_tables_are_apart() {
    let mut held = RecordRuns::default();
    // Interleaved: R01 1, 2, 3 at 0, 2, 4 and B1 1, 2 at 1, 3.
    held.add(&[
        record("R01", 1, 0),
        record("B1", 1, 1),
        record("R01", 2, 2),
        record("B1", 2, 3),
        record("R01", 3, 4),
    ]);
    assert_eq!(held.run_count(), 2);
    assert_eq!(
        held.take_changes(),
        vec![
            change("B1", 1, vec![run(1, 2, 1, 3)]),
            change("R01", 1, vec![run(1, 3, 0, 4)]),
        ]
    );
    // Only the table that changed is taken.
    held.add(&[record("B1", 3, 5)]);
    assert_eq!(
        held.take_changes(),
        vec![change("B1", 1, vec![run(1, 3, 1, 5)])]
    );
    // B1's 3 is held; R01's 4 is not.
    assert_eq!(held.find_replay(&[record("R01", 4, 6)]), None);
    assert_eq!(
        held.find_replay(&[record("B1", 3, 6)]).map(|(_, at)| at),
        Some(HeldAt::Earlier(run(1, 3, 1, 5)))
    );
}

#[test]
fn a_held_record_added_again_changes_nothing() {
    let mut held = RecordRuns::default();
    held.add(&records("R01", 1..=3, 0));
    held.take_changes();
    held.add(&[record("R01", 2, 9)]);
    assert_eq!(held.runs_of("R01"), vec![run(1, 3, 0, 2)]);
    assert_eq!(held.take_changes(), vec![]);
}

#[test]
fn overlapping_or_backward_runs_are_refused_when_loaded() {
    let r = |first, last| ("R01".to_owned(), run(first, last, 0, 0));
    let refused = RecordRuns::from_runs([r(1, 5), r(5, 9)]).unwrap_err();
    assert_eq!(
        refused,
        "table R01: the runs of seq_nos 1 to 5 and 5 to 9 overlap"
    );
    let refused = RecordRuns::from_runs([r(3, 9), r(3, 4)]).unwrap_err();
    assert_eq!(
        refused,
        "table R01: the runs of seq_nos 3 to 9 and 3 to 4 overlap"
    );
    let refused = RecordRuns::from_runs([r(9, 3)]).unwrap_err();
    assert_eq!(
        refused,
        "table R01: the run of seq_nos 9 to 3 ends before it starts"
    );
    // Runs next to each other, or of other tables, are not overlapping.
    let held =
        RecordRuns::from_runs([r(6, 9), r(1, 5), ("B1".to_owned(), run(1, 9, 0, 0))]).unwrap();
    assert_eq!(held.run_count(), 3);
}
