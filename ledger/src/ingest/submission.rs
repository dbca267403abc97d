//! A record on its way into the ledger: its verified signature and canonical bytes, and what
//! re-adjudication derived from it (stored beside its entry).

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::error::LedgerError;

/// What re-adjudication produced for a round, stored beside its entry.
#[derive(Debug, Clone)]
pub struct Derived {
    pub game: String,
    pub played_at: DateTime<Utc>,
    pub table_id: String,
    pub plan_id: String,
    pub rules_version: String,
    pub void: bool,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
    pub findings: Vec<rules::Finding>,
    /// The whole verdict as stored and shown: JSON, serialized where it was computed.
    pub verdict: String,
    pub statistics: rules::RoundStatistics,
    /// The table's own id for the round: unique per table in the ledger.
    pub round_id: Option<String>,
    /// What reports read of the verdict, stored as columns so that no report reads its JSON.
    pub report_figures: ReportFigures,
}

/// The figures of a verdict reports sum or count, beyond its money and statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportFigures {
    /// A tournament's fee and the operator's overlay (0 in other games).
    pub tournament_fee_h: i64,
    pub tournament_overlay_h: i64,
    /// A poker cash game's time collection: its bets are the players' payments for their seats.
    pub time_collection: bool,
    /// The pocket (roulette) or segment index (money wheel) the spin stopped on.
    pub wheel_result: Option<i32>,
}

impl ReportFigures {
    pub fn of(verdict: &rules::Verdict<'_>) -> ReportFigures {
        ReportFigures {
            tournament_fee_h: verdict.tournament.map_or(0, |t| t.fee_h),
            tournament_overlay_h: verdict.tournament.map_or(0, |t| t.overlay_h),
            time_collection: verdict
                .bets
                .first()
                .is_some_and(|b| b.kind == TIME_COLLECTION_KIND),
            wheel_result: verdict
                .segment
                .map(i32::from)
                .or(verdict.winning_number.map(i32::from)),
        }
    }
}

/// The bet kind of a time collection's payments (`rules::poker_cash`'s time collection).
const TIME_COLLECTION_KIND: &str = "time_collection";

/// Why a round could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error(transparent)]
    Record(#[from] rules::RecordError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl Derived {
    /// What ingest stores beside a judged round (see [`dozor_log::judge`]) and what every later
    /// check recomputes: its verdict and statistics.
    pub fn of(judged: &dozor_log::judge::Judged<'_>) -> Result<Derived, JudgeError> {
        Derived::expecting(judged, None)
    }

    /// [`Derived::of`], given the JSON its verdict is expected to serialize to (what a check
    /// compares with): when the verdict serializes to exactly that, the JSON is taken as it
    /// is, not made again in a string of its own (the same bytes, at a fraction of the cost).
    pub fn expecting(
        judged: &dozor_log::judge::Judged<'_>,
        verdict_json: Option<&[u8]>,
    ) -> Result<Derived, JudgeError> {
        let statistics = judged.statistics()?;
        let played_at = judged.round.played_at();
        let mut derived = Derived::with_json(played_at, &judged.verdict, statistics, verdict_json)?;
        derived.round_id = judged.round.round_id().map(str::to_owned);
        Ok(derived)
    }

    pub fn new(
        played_at: DateTime<Utc>,
        verdict: &rules::Verdict<'_>,
        statistics: rules::RoundStatistics,
    ) -> Result<Derived, LedgerError> {
        Derived::with_json(played_at, verdict, statistics, None)
    }

    fn with_json(
        played_at: DateTime<Utc>,
        verdict: &rules::Verdict<'_>,
        statistics: rules::RoundStatistics,
        expected_json: Option<&[u8]>,
    ) -> Result<Derived, LedgerError> {
        // What the table paid per kind comes from the verdict.
        let statistics = statistics.with_actual(verdict);
        Ok(Derived {
            game: verdict.game.to_string(),
            played_at,
            table_id: verdict.table_id.to_owned(),
            plan_id: verdict.plan_id.to_owned(),
            rules_version: verdict.rules_version.to_owned(),
            void: verdict.void,
            stakes_h: verdict.stakes_h,
            expected_paid_h: verdict.expected_paid_h,
            paid_h: verdict.paid_h,
            findings: verdict.findings.clone(),
            verdict: verdict_json(verdict, expected_json)?,
            statistics,
            round_id: None,
            report_figures: ReportFigures::of(verdict),
        })
    }
}

/// The verdict's JSON: `expected` if the verdict serializes to exactly those bytes.
fn verdict_json(
    verdict: &rules::Verdict<'_>,
    expected: Option<&[u8]>,
) -> Result<String, LedgerError> {
    let same = expected.filter(|json| dozor_log::json_compare::serializes_to(verdict, json));
    match same.map(std::str::from_utf8) {
        Some(Ok(json)) => Ok(json.to_owned()),
        _ => serde_json::to_string(verdict).map_err(|source| LedgerError::VerdictJson {
            index: None,
            source,
        }),
    }
}

/// A signed record whose signature has been verified, ready to append. It holds the record only
/// as its canonical bytes: the writer needs nothing else, and the parsed record is freed where it
/// was parsed, not by the single writer.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The envelope's `key_id` and `signature`, exactly as submitted.
    pub key_id: String,
    pub signature: String,
    /// RFC 8785 bytes of the envelope's record (as signed).
    pub canonical_record: String,
    pub record_type: String,
    pub table_id: String,
    pub seq_no: u64,
    pub record_hash: [u8; 32],
    pub derived: Option<Derived>,
    /// A round received more than this long after it was played is stored and logged as the
    /// significant event `late_record`.
    pub late_after: Option<chrono::Duration>,
    /// The last registry event the round was judged with (its table's posted limits): if the
    /// table's limits changed after it, the round is judged again before it is appended, so its
    /// verdict is the one every verifier gives it at its place in the ledger. `None`: a caller
    /// that does not judge from the registry.
    pub judged_as_of: Option<Option<u64>>,
}

impl Submission {
    /// A record whose signature (`key_id`, `signature`) has been verified over its canonical
    /// bytes; `record_type`, `table_id` and `seq_no` from its header.
    pub fn new(
        key_id: String,
        signature: String,
        canonical_record: String,
        record_type: String,
        table_id: String,
        seq_no: u64,
        derived: Option<Derived>,
    ) -> Submission {
        Submission {
            key_id,
            signature,
            record_hash: dozor_log::entry::record_hash(canonical_record.as_bytes()),
            canonical_record,
            record_type,
            table_id,
            seq_no,
            derived,
            late_after: None,
            judged_as_of: None,
        }
    }

    /// [`Submission::new`] with the type, table and sequence number from the record's header.
    pub fn with_header(
        key_id: String,
        signature: String,
        canonical_record: String,
        header: rules::RecordHeader,
        derived: Option<Derived>,
    ) -> Submission {
        Submission::new(
            key_id,
            signature,
            canonical_record,
            header.record_type,
            header.table_id,
            header.seq_no,
            derived,
        )
    }

    /// Records that the round was judged with the registry as of event `last_event`.
    pub fn judged_as_of(mut self, last_event: Option<u64>) -> Submission {
        self.judged_as_of = Some(last_event);
        self
    }

    /// Flags the round as late when it is received more than `window` after it was played.
    pub fn late_after(mut self, window: chrono::Duration) -> Submission {
        self.late_after = Some(window);
        self
    }

    /// The envelope as submitted, its record in canonical form: evidence kept with a rejection.
    pub(crate) fn envelope_evidence(&self) -> serde_json::Value {
        let record = serde_json::from_str::<serde_json::Value>(&self.canonical_record)
            .unwrap_or_else(|_| json!(self.canonical_record));
        json!({ "record": record, "key_id": self.key_id, "signature": self.signature })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_verdict_json_expected_is_taken_only_when_it_is_the_verdicts_exactly() {
        let mut verdict = rules::Verdict::new("p", rules::GameCode::Roulette, "R01", 7);
        verdict.stakes_h = 10_000;
        let made = serde_json::to_string(&verdict).unwrap();
        assert!(made.contains(r#""stakes_h":10000"#));
        assert_eq!(verdict_json(&verdict, None).unwrap(), made);
        assert_eq!(verdict_json(&verdict, Some(made.as_bytes())).unwrap(), made);
        // Another verdict's JSON, one byte more, or none at all: the verdict's own is made.
        let other = made.replace("10000", "10001");
        let longer = format!("{made} ");
        for expected in [other.as_bytes(), longer.as_bytes(), b"", &[0xff]] {
            assert_eq!(verdict_json(&verdict, Some(expected)).unwrap(), made);
        }
    }
}
