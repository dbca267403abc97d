//! What the games' tests share: a round judged under a plan, and the findings of a kind.

use serde_json::Value;

use crate::game::TableSetup;
use crate::plan::document::Plan;
use crate::record::Round;
use crate::verdict::Finding;
use crate::verdict::FindingKind;
use crate::verdict::Verdict;

/// `message` says `said` (the whole message is shown when it does not).
pub(crate) fn assert_says(message: &str, said: &str) {
    assert!(message.contains(said), "{message}");
}

/// The verdict of `record` under `plan`; leaks both so the borrowed verdict can outlive the
/// helper (tests only).
pub(crate) fn verdict_with(plan: Plan, record: Value) -> Verdict<'static> {
    verdict_at(plan, TableSetup::NONE, record)
}

/// [`verdict_with`] on a table set up as `setup` (its posted limits, say).
pub(crate) fn verdict_at(plan: Plan, setup: TableSetup, record: Value) -> Verdict<'static> {
    let plan: &'static Plan = Box::leak(Box::new(plan));
    let setup: &'static TableSetup = Box::leak(Box::new(setup));
    let round: &'static Round = Box::leak(Box::new(Round::parse(&record).unwrap()));
    crate::adjudication::adjudicate_at(plan, setup, round).unwrap()
}

/// A table that posts `limits` (checked against `plan` for `game` first).
pub(crate) fn posting(
    plan: &Plan,
    game: crate::round_header::GameCode,
    limits: Value,
) -> TableSetup {
    let limits: crate::table_limits::TableLimits = serde_json::from_value(limits).unwrap();
    TableSetup::for_table(plan, game, None, Some(&limits)).unwrap()
}

/// The kinds of `findings`, in order.
pub(crate) fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    findings.iter().map(|f| f.kind).collect()
}

/// The kinds of `findings` with their amounts, in order.
pub(crate) fn kinds_and_amounts(findings: &[Finding]) -> Vec<(FindingKind, i64)> {
    findings.iter().map(|f| (f.kind, f.amount_h)).collect()
}

/// The messages of the findings of `kind`, in order.
pub(crate) fn messages(findings: &[Finding], kind: FindingKind) -> Vec<&str> {
    findings
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.message.as_str())
        .collect()
}

/// The findings with their amounts of `record` under the bundled plan on a table that posts
/// `limits` for `game`.
pub(crate) fn posted_findings(
    game: crate::round_header::GameCode,
    limits: Value,
    record: Value,
) -> Vec<(FindingKind, i64)> {
    let plan = crate::plan::bundled_plan();
    let setup = posting(&plan, game, limits);
    kinds_and_amounts(&verdict_at(plan, setup, record).findings)
}
