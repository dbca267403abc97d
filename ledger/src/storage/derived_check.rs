//! The verdicts and findings stored beside the rounds are derived data: `verify` re-adjudicates
//! every round from its signed record and compares, naming each stored value that differs, a
//! verdict that is missing, and one stored for an entry that is not a round.

use std::fmt::Debug;

use diesel::prelude::*;

use super::append::rows::{finding_rows, verdict_columns};
use super::columns::index_within;
use super::copy_round_ids::{RoundIdPage, StoredRoundId};
use super::copy_verdicts::{StoredVerdict, VerdictPage};
use super::models::{FindingRow, NewAdjudication};
use super::schema::{findings, round_ids};
use crate::error::LedgerError;
use crate::ingest::submission::Derived;
use dozor_log::entry_check::{CheckedEntry, Subject};
use dozor_log::judge;
use dozor_log::registry_history::RegistryHistory;

/// What re-adjudicating an entry gives.
enum Expected {
    NotARound,
    Round(Box<Derived>),
}

/// What re-adjudicating `entry` gives; `stored_json` is the verdict JSON stored for it, if any
/// (taken as the verdict's when it serializes to exactly that).
fn derive(
    entry: &CheckedEntry<'_>,
    history: &RegistryHistory,
    plans: &rules::PlanBook,
    stored_json: Option<&[u8]>,
) -> Result<Expected, String> {
    let Subject::Record(header) = &entry.subject else {
        return Ok(Expected::NotARound);
    };
    if rules::operations::is_operation(&header.record_type) {
        // Not adjudicated, but it must still read as what it says it is.
        let operation = rules::operations::Operation::parse_json(entry.record)
            .map_err(|e| format!("a {} record that does not read: {e}", header.record_type))?;
        let game = history.table(&header.table_id).map(|t| t.game.as_str());
        if !game.is_some_and(|g| dozor_log::registration::submits(g, operation.station())) {
            return Err(format!(
                "a {} record from `{}`, registered as `{}`",
                header.record_type,
                header.table_id,
                game.unwrap_or("nothing")
            ));
        }
        return Ok(Expected::NotARound);
    }
    if !rules::is_adjudicated(&header.record_type) {
        return Ok(Expected::NotARound);
    }
    let round = judge::read_round(header, entry.record).map_err(|e| e.to_string())?;
    judge::judge(
        &round,
        entry.index,
        |p| plans.get(p),
        history,
        |j| Derived::expecting(&j, stored_json),
    )
    .map_err(|e| e.to_string())?
    .map(|d| Expected::Round(Box::new(d)))
    .map_err(|e| e.to_string())
}

/// The first field that differs, as `name: stored …, re-adjudication gives …`.
fn first_difference(fields: impl IntoIterator<Item = Option<String>>) -> Option<String> {
    fields.into_iter().flatten().next()
}

/// How `stored` differs from `expected`, if it does: compared as values, formatted only when
/// they differ (nearly every stored row is what re-adjudication gives).
fn field<T: PartialEq + Debug>(name: &'static str, stored: T, expected: T) -> Option<String> {
    (stored != expected)
        .then(|| format!("{name} is {stored:?}, re-adjudication gives {expected:?}"))
}

/// What is wrong with the round id row stored for a round (table, id), if anything.
fn round_id_problem(
    stored: Option<(&str, &str)>,
    expected: Option<(&str, &str)>,
) -> Option<String> {
    match (stored, expected) {
        (stored, expected) if stored == expected => None,
        (_, Some((table, id))) => Some(format!(
            "the round's id `{id}` of table `{table}` is not kept for it (another round of the table holds it, or its row is missing or changed)"
        )),
        (Some((_, id)), None) => Some(format!(
            "a round id `{id}` is stored for a round whose record gives none"
        )),
        (None, None) => None,
    }
}

/// The database keeps microseconds.
fn micros(t: chrono::DateTime<chrono::Utc>) -> i64 {
    t.timestamp_micros()
}

fn verdict_difference(row: &StoredVerdict<'_>, e: &NewAdjudication<'_>) -> Option<String> {
    first_difference([
        field("table_id", row.table_id, e.table_id),
        field("game", row.game, e.game),
        field("plan_id", row.plan_id, e.plan_id),
        field("played_at", row.played_at_micros, micros(e.played_at)),
        field("void", row.void, e.void),
        field("stakes_h", row.stakes_h, e.stakes_h),
        field("expected_paid_h", row.expected_paid_h, e.expected_paid_h),
        field("paid_h", row.paid_h, e.paid_h),
        field("rtp_stakes_h", row.rtp_stakes_h, e.rtp_stakes_h),
        field(
            "expected_payout_mh",
            row.expected_payout_mh,
            e.expected_payout_mh,
        ),
        field(
            "payout_variance_h2",
            row.payout_variance_h2,
            e.payout_variance_h2.to_bits(),
        ),
        field(
            "payout_third_moment_h3",
            row.payout_third_moment_h3,
            e.payout_third_moment_h3.to_bits(),
        ),
        field("finding_count", row.finding_count, e.finding_count),
        field("tournament_fee_h", row.tournament_fee_h, e.tournament_fee_h),
        field(
            "tournament_overlay_h",
            row.tournament_overlay_h,
            e.tournament_overlay_h,
        ),
        field("time_collection", row.time_collection, e.time_collection),
        field("wheel_result", row.wheel_result, e.wheel_result),
    ])
    .or_else(|| {
        (row.verdict != e.verdict.as_bytes()).then(|| "the verdict JSON differs".to_owned())
    })
}

fn finding_difference(row: &FindingRow, e: &FindingRow) -> Option<String> {
    first_difference([
        field("position", row.position, e.position),
        field("table_id", &row.table_id, &e.table_id),
        field("game", &row.game, &e.game),
        field("played_at", micros(row.played_at), micros(e.played_at)),
        field("kind", &row.kind, &e.kind),
        field("bet_ids", &row.bet_ids, &e.bet_ids),
        field("expected_h", row.expected_h, e.expected_h),
        field("actual_h", row.actual_h, e.actual_h),
        field("amount_h", row.amount_h, e.amount_h),
        field("message", &row.message, &e.message),
    ])
}

/// The first difference between a round's stored bet-kind figures and the re-derived ones
/// (both in kind order), naming the kind; figures are formatted only when they differ.
fn kinds_difference(row: &StoredVerdict<'_>, kinds: &[rules::KindStatistics]) -> Option<String> {
    let names_differ = row.kind_names.len() != kinds.len()
        || row
            .kind_names
            .text()
            .zip(kinds)
            .any(|(a, b)| a != b.kind.as_str());
    if names_differ {
        return Some(format!(
            "kinds are {:?}, re-adjudication gives {:?}",
            row.kind_names.text().collect::<Vec<_>>(),
            kinds.iter().map(|k| k.kind.as_str()).collect::<Vec<_>>()
        ));
    }
    // SQL keeps an element per kind in every array (a CHECK); a database without it is named.
    let lengths = [
        row.kind_bets.len(),
        row.kind_stakes_h.len(),
        row.kind_paid_h.len(),
        row.kind_expected_payout_mh.len(),
        row.kind_variance_h2.len(),
        row.kind_third_moment_h3.len(),
    ];
    if lengths.iter().any(|&n| n != row.kind_names.len()) {
        return Some(format!(
            "{} kinds with figures of {lengths:?} elements",
            row.kind_names.len()
        ));
    }
    let mut bets = row.kind_bets.int8();
    let mut stakes_h = row.kind_stakes_h.int8();
    let mut paid_h = row.kind_paid_h.int8();
    let mut expected_payout_mh = row.kind_expected_payout_mh.int8();
    let mut variance_h2 = row.kind_variance_h2.float8_bits();
    let mut third_moment_h3 = row.kind_third_moment_h3.float8_bits();
    kinds.iter().find_map(|e| {
        first_difference([
            field("bets", bets.next().unwrap_or_default(), e.bets),
            field("stakes_h", stakes_h.next().unwrap_or_default(), e.stakes_h),
            field("paid_h", paid_h.next().unwrap_or_default(), e.paid_h),
            field(
                "expected_payout_mh",
                expected_payout_mh.next().unwrap_or_default(),
                e.expected_payout_mh,
            ),
            field(
                "variance_h2",
                variance_h2.next().unwrap_or_default(),
                e.variance_h2.to_bits(),
            ),
            field(
                "third_moment_h3",
                third_moment_h3.next().unwrap_or_default(),
                e.third_moment_h3.to_bits(),
            ),
        ])
        .map(|d| format!("{}: {d}", e.kind))
    })
}

/// The derived rows stored for a range of entries, read ahead of their checking.
#[derive(Default)]
pub(super) struct StoredDerived {
    verdicts: VerdictPage,
    // Keyed by ledger index: a fast hash, seeded per process.
    findings: foldhash::HashMap<i64, Vec<FindingRow>>,
    round_ids: RoundIdPage,
}

impl StoredDerived {
    /// No rows yet, the memory of the verdict rows taking `bytes` of them without growing.
    pub(super) fn with_capacity(bytes: usize) -> Self {
        StoredDerived {
            verdicts: VerdictPage::with_capacity(bytes),
            ..StoredDerived::default()
        }
    }

    /// The bytes of the verdict rows read.
    pub(super) fn verdict_bytes(&self) -> usize {
        self.verdicts.copy_len()
    }

    /// The rows stored for the entries `start..end`, read into the memory of `self` (what an
    /// earlier range held).
    pub(super) fn load_again(
        mut self,
        conn: &mut PgConnection,
        start: u64,
        end: u64,
    ) -> Result<Self, LedgerError> {
        let (start, end) = (start as i64, end as i64);
        self.verdicts = std::mem::take(&mut self.verdicts).read_again(conn, start, end)?;
        self.findings.clear();
        for row in findings::table
            .filter(index_within(findings::ledger_index, start, end))
            .order((findings::ledger_index.asc(), findings::position.asc()))
            .select(FindingRow::as_select())
            .load(conn)?
        {
            self.findings.entry(row.ledger_index).or_default().push(row);
        }
        self.round_ids = std::mem::take(&mut self.round_ids).read_again(conn, start, end)?;
        Ok(self)
    }
}

/// A round whose id the stored rows do not keep for it: a failure, unless an earlier round of
/// its table holds the id (appended before ids were kept unique), which only the database can
/// say; it is asked once the entries are walked.
pub(super) struct UnkeptRoundId {
    table_id: String,
    round_id: String,
    problem: String,
}

impl UnkeptRoundId {
    /// Whether a round before `index` holds the id (then the round shares it).
    pub(super) fn held_before(
        &self,
        conn: &mut PgConnection,
        index: u64,
    ) -> Result<bool, LedgerError> {
        Ok(round_ids::table
            .find((&self.table_id, &self.round_id))
            .select(round_ids::ledger_index)
            .first::<i64>(conn)
            .optional()?
            .is_some_and(|holder| holder < index as i64))
    }

    pub(super) fn problem(self) -> String {
        self.problem
    }
}

/// What checking one entry's derived rows found.
#[derive(Default)]
pub(super) struct EntryCheck {
    /// A round re-adjudicated (verdicts of another rules version are not).
    pub readjudicated: bool,
    /// Comes before `difference`: a round id is checked before the verdict.
    pub unkept_id: Option<UnkeptRoundId>,
    pub difference: Option<String>,
}

impl EntryCheck {
    fn differs(difference: String) -> Self {
        EntryCheck {
            difference: Some(difference),
            ..EntryCheck::default()
        }
    }
}

/// Checks the stored verdict, findings, bet-kind figures and round id of the entry at `index`
/// against what re-adjudicating it gives.
pub(super) fn check_entry(
    index: u64,
    entry: &CheckedEntry<'_>,
    stored: &StoredDerived,
    history: &RegistryHistory,
    plans: &rules::PlanBook,
) -> Result<EntryCheck, LedgerError> {
    let at = index as i64;
    let differs = |reason: String| Ok(EntryCheck::differs(reason));
    let stored_row = stored.verdicts.get(at);
    let stored_json = match &stored_row {
        Some(Ok(row)) => Some(row.verdict),
        _ => None,
    };
    let (derived, row) = match (derive(entry, history, plans, stored_json), stored_row) {
        (Err(reason), _) => return differs(format!("the record cannot be re-checked: {reason}")),
        (Ok(Expected::NotARound), None) => {
            if stored.round_ids.get(at) != StoredRoundId::Missing {
                return differs("a round id is stored for an entry that is not a round".into());
            }
            return Ok(EntryCheck::default());
        }
        (Ok(Expected::NotARound), Some(_)) => {
            return differs("a verdict is stored for an entry that is not a round".into())
        }
        (Ok(Expected::Round(_)), None) => {
            return differs("the round's stored verdict is missing".into())
        }
        (Ok(Expected::Round(d)), Some(row)) => (d, row),
    };
    let row = match row {
        Ok(row) => row,
        Err(e) => return differs(format!("the stored verdict row does not read: {e}")),
    };
    // The round's id, as its signed record gives it: the row that keeps it unique per table,
    // or none (a round under an id already used is never appended; one appended before the
    // ids were kept lacks its row and is named here).
    let stored_pair = match stored.round_ids.get(at) {
        StoredRoundId::Missing => None,
        StoredRoundId::One(table, id) => Some((table, id)),
        StoredRoundId::Several(n) => {
            return differs(format!(
                "{n} round ids are stored for the round, which has one at most"
            ))
        }
    };
    let expected_id = derived.round_id.as_deref().map(|id| (row.table_id, id));
    let mut check = EntryCheck::default();
    if let Some(problem) = round_id_problem(stored_pair, expected_id) {
        match (stored_pair, expected_id) {
            // A round appended before round ids were kept unique may share its id with an
            // earlier round of the table, which holds the row.
            (None, Some((table, id))) => {
                check.unkept_id = Some(UnkeptRoundId {
                    table_id: table.to_owned(),
                    round_id: id.to_owned(),
                    problem,
                });
            }
            _ => return differs(problem),
        }
    }
    if row.rules_version != derived.rules_version {
        // Judged by other rules: what they gave cannot be re-derived here.
        return Ok(check);
    }
    check.difference = stored_difference(at, &derived, &row, stored)?;
    check.readjudicated = check.difference.is_none();
    Ok(check)
}

/// How the stored verdict, findings and bet-kind figures of the round at `at` differ from what
/// re-adjudication gives (`derived`), if they do.
fn stored_difference(
    at: i64,
    derived: &Derived,
    row: &StoredVerdict<'_>,
    stored: &StoredDerived,
) -> Result<Option<String>, LedgerError> {
    let expected_verdict = verdict_columns(at, derived);
    if let Some(difference) = verdict_difference(row, &expected_verdict) {
        return Ok(Some(format!(
            "the stored verdict differs from re-adjudication: {difference}"
        )));
    }
    let found = stored.findings.get(&at).map_or(&[][..], Vec::as_slice);
    let expected_findings = finding_rows(at, derived)?;
    if found.len() != expected_findings.len() {
        return Ok(Some(format!(
            "{} findings are stored for the round; re-adjudication gives {}",
            found.len(),
            expected_findings.len()
        )));
    }
    for (row, e) in found.iter().zip(&expected_findings) {
        if let Some(difference) = finding_difference(row, e) {
            return Ok(Some(format!(
                "stored finding {at}.{} differs from re-adjudication: {difference}",
                row.position
            )));
        }
    }
    Ok(
        kinds_difference(row, &derived.statistics.by_kind).map(|difference| {
            format!("the stored bet-kind figures differ from re-adjudication: {difference}")
        }),
    )
}
