//! An entry bundle, checked against the leaves the tree walk verified: each entry hashes to its
//! leaf, reads as a canonical entry of its index, links to the one before, and is signed by a
//! key allowed to sign it there (the signatures of the bundle in one batch, as the verifiers
//! do); registry events are applied to the registry's history in ledger order; every round is
//! re-judged by the one judge under the plan it names, counted in the monitor's tallies, and its
//! verdict compared with the casino's.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use ed25519_dalek::VerifyingKey;
use serde_json::value::RawValue;

use dozor_log::entry_check::{check_entry, verify_signatures, SignatureCheck, Signers, Subject};
use dozor_log::judge::{self, JudgeError};
use dozor_log::merkle::{Frontier, Hash};
use dozor_log::registry_event::RegistryEvent;
use dozor_log::registry_history::RegistryHistory;
use dozor_log::tiles::{bundle_leaf_hashes, decode_bundle, Tile, TILE_WIDTH};
use rules::gaming_day::GamingDayClock;

use crate::tally::{Overflow, RoundFigures, Tallies};
use crate::tile_math::{check_prefix, run_root};
use crate::tree_check::TileSummary;
use crate::verdict_lines::{compare, Difference, VerdictFacts, VerdictLine};

/// What every bundle of a casino is checked with.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub plans: &'a rules::PlanBook,
    pub clock: &'a GamingDayClock,
    pub signatures: SignatureCheck,
}

/// What the monitor has followed of a log: its first `size` entries, their tree's frontier, the
/// last one's hash, the registry their events built, and the operator keys (by envelope key id)
/// that may sign registry events: the configured ones and those the log's rotations handed it to.
#[derive(Debug, Clone, Default)]
pub struct Followed {
    pub size: u64,
    pub frontier: Frontier,
    pub last_leaf: Option<Hash>,
    pub history: RegistryHistory,
    pub operators: HashMap<String, VerifyingKey>,
}

/// A registry event as the log holds it, kept to build the history again on a restart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenEvent {
    pub index: u64,
    pub received_at: DateTime<Utc>,
    /// The key id of the operator key whose signature verified.
    pub signer: String,
    /// The event's canonical JSON, as signed.
    pub event: String,
}

/// A finding of the monitor's own judgement of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnFinding {
    pub index: u64,
    /// Its place among the round's findings.
    pub position: usize,
    pub table_id: String,
    pub seq_no: u64,
    pub kind: String,
    pub amount_h: i64,
    pub message: String,
    /// When the round was played (how long the finding has been open counts from there).
    pub played_at: DateTime<Utc>,
}

/// A table record followed: the `(table_id, seq_no)` its table signed and its place in the log.
/// Ingest appends a `(table_id, seq_no)` once; the table's signature does not cover the index,
/// so the same signed record appended again is a replay, never a new record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRecord {
    pub index: u64,
    pub table_id: String,
    pub seq_no: u64,
}

/// Why the record at `index` is a replay: its table and seq_no are already at `earlier`.
pub fn replayed(record: &SeenRecord, earlier: u64) -> String {
    format!(
        "table {} seq_no {} already at index {earlier}",
        record.table_id, record.seq_no
    )
}

/// Where the casino's verdict of a round differs from the monitor's.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub index: u64,
    pub difference: Difference,
}

/// Something to tell the regulator that does not stop the monitor following the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A round under a plan the monitor does not hold: counted, not judged.
    UnknownPlan { index: u64, plan_id: String },
    /// A round the rules do not read or cannot judge (ingest judged every round it took).
    Unjudged { index: u64, why: String },
}

/// What a bundle's entries gave to be kept: its registry events and table records, the tallies,
/// findings and verdict differences of its rounds; what several bundles gave, added up, is
/// committed in one transaction with the followed state after them.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    pub events: Vec<SeenEvent>,
    /// The table records, each `(table_id, seq_no)` once.
    pub records: Vec<SeenRecord>,
    pub tallies: Tallies,
    pub findings: Vec<OwnFinding>,
    pub mismatches: Vec<Mismatch>,
    pub notices: Vec<Notice>,
    pub rounds: u64,
}

impl Evidence {
    /// Adds what a later bundle gave.
    pub fn absorb(&mut self, later: Evidence) -> Result<(), Overflow> {
        self.tallies.absorb(later.tallies)?;
        self.events.extend(later.events);
        self.records.extend(later.records);
        self.findings.extend(later.findings);
        self.mismatches.extend(later.mismatches);
        self.notices.extend(later.notices);
        self.rounds += later.rounds;
        Ok(())
    }
}

/// What a bundle gave, with the followed state after it.
#[derive(Debug, Clone)]
pub struct BundleOutcome {
    pub followed: Followed,
    pub evidence: Evidence,
}

/// Where a bundle continues the log, and the registry its entries are checked with: enough to
/// check it on any thread while the bundles before it are still being checked.
#[derive(Debug, Clone, Copy)]
pub struct BundleStart<'a> {
    /// The hash of the entry before the bundle's first new one (none: not known, not checked).
    pub prev_leaf: Option<Hash>,
    pub history: &'a RegistryHistory,
    pub operators: &'a HashMap<String, VerifyingKey>,
}

/// The registry after a bundle's events: its history and the operator keys.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub history: RegistryHistory,
    pub operators: HashMap<String, VerifyingKey>,
}

/// A bundle checked on its own (see [`check_entries`]).
#[derive(Debug, Clone)]
pub struct CheckedBundle {
    /// The leaf hash of each of its entries, those followed before included.
    pub leaves: Vec<Hash>,
    /// How many of its entries were followed before.
    pub before: usize,
    /// The registry after its events; none when it has none.
    pub registry: Option<Registry>,
    pub evidence: Evidence,
}

/// Why a bundle stops the monitor following the log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleProblem {
    #[error("{path}: {why}")]
    Unreadable { path: String, why: String },
    #[error("{path}: entry {index}, already verified, is not the entry the monitor followed")]
    Rewritten { path: String, index: u64 },
    /// The new entries do not hash to the verified leaves; `first` names the first that does
    /// not, when the level-0 tile is at hand.
    #[error("{path}: the entries do not hash to the leaves of the signed tree{}", first.map(|i| format!(" (entry {i} first)")).unwrap_or_default())]
    Leaves { path: String, first: Option<u64> },
    #[error("entry {index}: {why}")]
    Entry { index: u64, why: String },
    #[error(transparent)]
    Sums(#[from] Overflow),
}

/// The first position at which a bundle's leaves differ from the level-0 tile's hashes.
pub fn first_difference(leaves: &[Hash], hashes: &[Hash]) -> Option<usize> {
    (0..leaves.len().max(hashes.len())).find(|&n| leaves.get(n) != hashes.get(n))
}

/// A bundle's entries, their leaves, and how many of them were followed already.
type VerifiedEntries<'b> = (Vec<&'b [u8]>, Vec<Hash>, usize);

/// The leaves of a bundle's entries; its new ones (from the walk's summary on) checked against
/// the summary. Those followed before are checked by [`continue_followed`].
fn verified_entries<'b>(
    tile: &Tile,
    bytes: &'b [u8],
    summary: &TileSummary,
) -> Result<VerifiedEntries<'b>, BundleProblem> {
    let path = tile.path();
    let entries = decode_bundle(tile, bytes).map_err(|e| BundleProblem::Unreadable {
        path: path.clone(),
        why: e.to_string(),
    })?;
    let leaves = bundle_leaf_hashes(&entries);
    let start = tile.index * TILE_WIDTH;
    let before = summary.from.saturating_sub(start) as usize;
    if summary.tile.index != tile.index || summary.from < start || before > leaves.len() {
        return Err(BundleProblem::Unreadable {
            path,
            why: format!(
                "it does not continue the followed entries at {}",
                summary.from
            ),
        });
    }
    if run_root(&leaves[before..]) != summary.root {
        return Err(BundleProblem::Leaves { path, first: None });
    }
    Ok((entries, leaves, before))
}

/// Checks a bundle as [`check_entries`] and [`continue_followed`] do, one after the other.
pub fn check_bundle(
    tile: &Tile,
    bytes: &[u8],
    summary: &TileSummary,
    followed: &Followed,
    verdicts: Option<&[VerdictLine]>,
    context: Context<'_>,
) -> Result<BundleOutcome, BundleProblem> {
    let start = BundleStart {
        prev_leaf: followed.last_leaf,
        history: &followed.history,
        operators: &followed.operators,
    };
    let checked = check_entries(tile, bytes, summary, start, verdicts, context)?;
    let mut next = followed.clone();
    continue_followed(&mut next, tile, summary, &checked)?;
    Ok(BundleOutcome {
        followed: next,
        evidence: checked.evidence,
    })
}

/// Continues `followed` with a bundle checked on its own: the bundle must start where `followed`
/// ends, the entries of it followed before must be those held, and its registry (if its events
/// changed it) becomes the one held.
pub fn continue_followed(
    followed: &mut Followed,
    tile: &Tile,
    summary: &TileSummary,
    checked: &CheckedBundle,
) -> Result<(), BundleProblem> {
    let path = tile.path();
    if summary.from != followed.size {
        return Err(BundleProblem::Unreadable {
            path,
            why: format!(
                "it does not continue the followed entries at {}",
                followed.size
            ),
        });
    }
    let start = tile.index * TILE_WIDTH;
    check_prefix(&followed.frontier, start, &checked.leaves[..checked.before])
        .map_err(|index| BundleProblem::Rewritten { path, index })?;
    for leaf in &checked.leaves[checked.before..] {
        followed.frontier.push(*leaf);
    }
    followed.size = start + checked.leaves.len() as u64;
    if let Some(last) = checked.leaves.last() {
        followed.last_leaf = Some(*last);
    }
    if let Some(registry) = &checked.registry {
        followed.history = registry.history.clone();
        followed.operators = registry.operators.clone();
    }
    Ok(())
}

/// Checks a bundle's new entries on their own (see the module's text), from `start`: each
/// hashes to the walk's leaves, reads, links to the one before, is signed by a key allowed to
/// sign it there, and each round is judged; `verdicts`, the casino's lines for the bundle when
/// it published them.
pub fn check_entries(
    tile: &Tile,
    bytes: &[u8],
    summary: &TileSummary,
    start: BundleStart<'_>,
    verdicts: Option<&[VerdictLine]>,
    context: Context<'_>,
) -> Result<CheckedBundle, BundleProblem> {
    let (entries, leaves, before) = verified_entries(tile, bytes, summary)?;
    let first = tile.index * TILE_WIDTH;
    let mut history = Cow::Borrowed(start.history);
    let mut operators = Cow::Borrowed(start.operators);
    let mut last_leaf = start.prev_leaf;
    let mut checked = Vec::with_capacity(entries.len() - before);
    let mut out = Gathered::default();
    for (n, (bytes, leaf)) in entries.iter().zip(&leaves).enumerate().skip(before) {
        let index = first + n as u64;
        let failed = |why: String| BundleProblem::Entry { index, why };
        let signers = Signers {
            operators: &operators,
            tables: &history,
        };
        let entry = check_entry(bytes, index, signers).map_err(&failed)?;
        let expected_prev = if index == 0 {
            Some(dozor_log::GENESIS_PREV_HASH)
        } else {
            last_leaf
        };
        if expected_prev.is_some_and(|prev| prev != entry.prev_hash) {
            return Err(failed(format!(
                "prev_hash is not the hash of entry {}",
                index.saturating_sub(1)
            )));
        }
        if let Subject::Record(header) = &entry.subject {
            out.record(index, header).map_err(&failed)?;
        }
        match &entry.subject {
            Subject::Registry(event) => {
                history
                    .to_mut()
                    .apply(index, entry.received_at, entry.key_id, event)
                    .map_err(&failed)?;
                if let RegistryEvent::LogRotated { .. } = event {
                    if let Some(rotation) = history.rotations().last() {
                        let key = rotation.to_key.key;
                        operators
                            .to_mut()
                            .insert(dozor_log::keys::key_id(&key), key);
                    }
                }
                if let Some(Some(verdict)) = verdict_of(verdicts, n) {
                    out.differ(index, compare(Some(verdict), None));
                }
                out.evidence.events.push(SeenEvent {
                    index,
                    received_at: entry.received_at,
                    signer: entry.key_id.to_owned(),
                    event: entry.record.to_owned(),
                });
            }
            Subject::Record(header) if rules::is_adjudicated(&header.record_type) => {
                let line = verdict_of(verdicts, n);
                out.round(
                    index,
                    header,
                    entry.record,
                    entry.received_at,
                    &history,
                    line,
                    context,
                )?;
            }
            Subject::Record(_) => {
                if let Some(Some(verdict)) = verdict_of(verdicts, n) {
                    out.differ(index, compare(Some(verdict), None));
                }
            }
        }
        last_leaf = Some(*leaf);
        checked.push(entry);
    }
    verify_signatures(&checked, context.signatures).map_err(|(n, why)| BundleProblem::Entry {
        index: first + (before + n) as u64,
        why,
    })?;
    let registry = match (history, operators) {
        (Cow::Borrowed(_), Cow::Borrowed(_)) => None,
        (history, operators) => Some(Registry {
            history: history.into_owned(),
            operators: operators.into_owned(),
        }),
    };
    Ok(CheckedBundle {
        leaves,
        before,
        registry,
        evidence: out.evidence,
    })
}

/// The casino's verdict line of the bundle's `n`th entry: none when it published no lines.
fn verdict_of(verdicts: Option<&[VerdictLine]>, n: usize) -> Option<Option<&RawValue>> {
    verdicts
        .and_then(|lines| lines.get(n))
        .map(|l| l.verdict.as_deref())
}

/// What the rounds and events of a bundle gave so far.
#[derive(Default)]
struct Gathered {
    evidence: Evidence,
    /// The bundle's records by `(table_id, seq_no)`: their index.
    record_at: HashMap<(String, u64), u64>,
}

/// A round judged: its figures and verdict facts, its findings.
struct JudgedRound {
    figures: RoundFigures,
    facts: VerdictFacts,
    findings: Vec<(String, i64, String)>,
    played_at: DateTime<Utc>,
    game: String,
}

fn judge_round(
    index: u64,
    header: &rules::RecordHeader,
    record: &str,
    history: &RegistryHistory,
    plans: &rules::PlanBook,
) -> Result<JudgedRound, Notice> {
    let unjudged = |why: String| Notice::Unjudged { index, why };
    let round = judge::read_round(header, record).map_err(|e| unjudged(e.to_string()))?;
    let judged = judge::judge(
        &round,
        index,
        |p| plans.get(p),
        history,
        |j| {
            let statistics = j.round_totals().map_err(|e| e.to_string())?;
            let v = &j.verdict;
            let findings_amount_h = v
                .findings
                .iter()
                .try_fold(0i64, |sum, f| sum.checked_add(f.amount_h))
                .ok_or("the findings' amounts overflow")?;
            Ok::<_, String>(JudgedRound {
                figures: RoundFigures {
                    void: v.void,
                    stakes_h: v.stakes_h,
                    paid_h: v.paid_h,
                    expected_paid_h: v.expected_paid_h,
                    rtp_stakes_h: statistics.rtp_stakes_h,
                    expected_payout_mh: statistics.expected_payout_mh,
                    payout_variance_h2: statistics.payout_variance_h2,
                    payout_third_moment_h3: statistics.payout_third_moment_h3,
                    findings: v.findings.len() as i64,
                    findings_amount_h,
                },
                facts: VerdictFacts::of(v),
                findings: v
                    .findings
                    .iter()
                    .map(|f| (f.kind.as_str().to_owned(), f.amount_h, f.message.clone()))
                    .collect(),
                played_at: round.played_at(),
                game: round.game().as_str().to_owned(),
            })
        },
    );
    match judged {
        Ok(Ok(judged)) => Ok(judged),
        Ok(Err(why)) => Err(unjudged(why)),
        Err(JudgeError::UnknownPlan(plan_id)) => Err(Notice::UnknownPlan { index, plan_id }),
        Err(e) => Err(unjudged(e.to_string())),
    }
}

impl Gathered {
    /// A table record: refused when its `(table_id, seq_no)` is already in the bundle.
    fn record(&mut self, index: u64, header: &rules::RecordHeader) -> Result<(), String> {
        let record = SeenRecord {
            index,
            table_id: header.table_id.clone(),
            seq_no: header.seq_no,
        };
        let key = (record.table_id.clone(), record.seq_no);
        if let Some(earlier) = self.record_at.insert(key, index) {
            return Err(replayed(&record, earlier));
        }
        self.evidence.records.push(record);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn round(
        &mut self,
        index: u64,
        header: &rules::RecordHeader,
        record: &str,
        received_at: DateTime<Utc>,
        history: &RegistryHistory,
        casino: Option<Option<&RawValue>>,
        context: Context<'_>,
    ) -> Result<(), BundleProblem> {
        self.evidence.rounds += 1;
        match judge_round(index, header, record, history, context.plans) {
            Ok(judged) => {
                let day = context.clock.day_of(judged.played_at);
                self.evidence
                    .tallies
                    .add(day, &judged.game, Some(&judged.figures))?;
                for (position, (kind, amount_h, message)) in judged.findings.into_iter().enumerate()
                {
                    self.evidence.findings.push(OwnFinding {
                        index,
                        position,
                        table_id: header.table_id.clone(),
                        seq_no: header.seq_no,
                        kind,
                        amount_h,
                        message,
                        played_at: judged.played_at,
                    });
                }
                if let Some(casino) = casino {
                    self.differ(index, compare(casino, Some(&judged.facts)));
                }
            }
            Err(notice) => {
                let day = context.clock.day_of(received_at);
                self.evidence.tallies.add(
                    day,
                    header.game.as_deref().unwrap_or("unknown"),
                    None,
                )?;
                self.evidence.notices.push(notice);
            }
        }
        Ok(())
    }

    fn differ(&mut self, index: u64, differences: Vec<Difference>) {
        self.evidence.mismatches.extend(
            differences
                .into_iter()
                .map(|difference| Mismatch { index, difference }),
        );
    }
}

#[cfg(test)]
mod tests;
