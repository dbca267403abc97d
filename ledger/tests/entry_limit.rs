#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! No entry over 65 535 bytes (what a tlog-tiles entry bundle holds) reaches the ledger, from the
//! writer or from a registry event: it is refused with a typed error and nothing is written.

use chrono::Utc;
use dozor_log::tiles::TileError;
use ed25519_dalek::SigningKey;
use ledger::storage::append::{append_batch, AppendOutcome};
use ledger::storage::{connect, reads, testing};
use ledger::LedgerError;
use serde_json::json;

mod common;

use common::{note_submission, register_r01};

fn too_large(error: &LedgerError) -> Option<usize> {
    match error {
        LedgerError::TileFormat(TileError::EntryTooLarge { size }) => Some(*size),
        _ => None,
    }
}

#[test]
fn the_writer_and_registry_events_make_no_entry_over_65_535_bytes() {
    let mut conn = connect(&testing::fresh_database().unwrap()).unwrap();
    let operator = SigningKey::from_bytes(&[9u8; 32]);
    let key = register_r01(&mut conn, &operator);
    assert_eq!(reads::size(&mut conn).unwrap(), 1, "the registration");

    // `{"marker":"…","plan_id":"p","seq_no":1,"table_id":"R01","type":"note"}` is 69 bytes and
    // the marker. Its entry adds 86 bytes of fixed JSON, the quoted key id 18, the quoted
    // signature 90, 64 hex digits of prev_hash, the quoted time 29 (287) and the index. At index
    // 1 (one digit), a marker of 65 535 − 287 − 1 − 69 = 65 178 characters makes 65 535 bytes.
    let note = |seq_no: u64, marker: usize| {
        let record = json!({"type": "note", "table_id": "R01", "seq_no": seq_no,
                            "plan_id": "p", "marker": "m".repeat(marker)});
        note_submission(&key, record, "R01", seq_no)
    };
    let fits = note(1, 65_178);
    assert_eq!(fits.canonical_record.len(), 69 + 65_178);
    let out = append_batch(&mut conn, &[fits], Utc::now()).unwrap();
    assert!(matches!(out[0], AppendOutcome::Appended(_)), "{out:?}");
    let entry = reads::entry(&mut conn, 1).unwrap().unwrap();
    assert_eq!(entry.entry.len(), 65_535);

    // One byte more, at index 2: 65 536 bytes, refused; the batch writes nothing.
    let error = append_batch(&mut conn, &[note(2, 65_179), note(3, 10)], Utc::now()).unwrap_err();
    assert_eq!(too_large(&error), Some(65_536), "{error}");
    assert_eq!(reads::size(&mut conn).unwrap(), 2);

    // A registry event too: a sealed report of a name of 70 000 characters.
    let error = ledger::storage::published_reports::publish(
        &mut conn,
        &operator,
        &[("r".repeat(70_000), b"report".to_vec())],
        "cli:tests",
        Utc::now(),
    )
    .unwrap_err();
    let size = too_large(&error).unwrap_or_else(|| panic!("{error}"));
    assert!((70_000..71_000).contains(&size), "{size}");
    assert_eq!(reads::size(&mut conn).unwrap(), 2, "nothing written");
    assert!(
        ledger::storage::published_reports::latest_publications(&mut conn)
            .unwrap()
            .is_empty()
    );
    // The ledger appends on.
    let out = append_batch(&mut conn, &[note(2, 10)], Utc::now()).unwrap();
    assert!(matches!(out[0], AppendOutcome::Appended(_)), "{out:?}");
}
