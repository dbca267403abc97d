//! Re-judging a round: the one way every caller turns a signed round into its verdict — ingest,
//! the database verify, the offline verify and the check of a resolved finding. The plan the
//! round names, the table as it was set up when the round was received (its posted limits, a
//! wheel's segment order), then the rules.

use crate::registry_history::history::RegistryHistory;

/// Where a round's table setup comes from: the registry's history at the round's entry (the
/// verifiers), or the registry as the server holds it now (ingest).
pub trait TableSetups {
    type Error;
    /// The setup of `round`'s table under `plan`, for the round at ledger index `index`.
    fn table_setup(
        &self,
        plan: &rules::Plan,
        round: &rules::Round,
        index: u64,
    ) -> Result<rules::TableSetup, Self::Error>;
}

impl TableSetups for RegistryHistory {
    type Error = rules::RecordError;
    fn table_setup(
        &self,
        plan: &rules::Plan,
        round: &rules::Round,
        index: u64,
    ) -> Result<rules::TableSetup, rules::RecordError> {
        RegistryHistory::table_setup(self, plan, round, index)
    }
}

/// One setup for every table: for a round judged outside any ledger (benchmarks, a single
/// record checked by hand).
impl TableSetups for rules::TableSetup {
    type Error = std::convert::Infallible;
    fn table_setup(
        &self,
        _plan: &rules::Plan,
        _round: &rules::Round,
        _index: u64,
    ) -> Result<rules::TableSetup, std::convert::Infallible> {
        Ok(self.clone())
    }
}

/// Why a round could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError<E> {
    /// The record does not read as a round, or the rules cannot judge it.
    #[error(transparent)]
    Record(#[from] rules::RecordError),
    /// The plan the round names is not among those given.
    #[error("plan {0} is not available")]
    UnknownPlan(String),
    /// The table's setup could not be had.
    #[error("the table's setup: {0}")]
    Setup(E),
}

/// A round judged: what it was judged with and the verdict.
pub struct Judged<'a> {
    pub round: &'a rules::Round,
    pub plan: &'a rules::Plan,
    pub setup: &'a rules::TableSetup,
    pub verdict: rules::Verdict<'a>,
}

impl Judged<'_> {
    /// The round's theoretical statistics on the same table setup, for the RTP figures.
    pub fn statistics(&self) -> Result<rules::RoundStatistics, rules::RecordError> {
        rules::round_statistics_at(self.plan, self.setup, self.round)
    }

    /// [`Self::statistics`] of the round as a whole (`by_kind` may be empty): cheaper.
    pub fn round_totals(&self) -> Result<rules::RoundStatistics, rules::RecordError> {
        rules::round_totals_at(self.plan, self.setup, self.round)
    }
}

/// Reads `record` (canonical JSON whose header is `header`) as a round.
pub fn read_round(
    header: &rules::RecordHeader,
    record: &str,
) -> Result<rules::Round, rules::RecordError> {
    rules::Round::parse_json_with_header(header, record)
}

/// Judges `round`, received as ledger entry `index`, under the plan it names (`plan_of`) on its
/// table as `tables` gives it, and hands the result to `then` (the verdict borrows the setup,
/// which lives only for this call).
pub fn judge<'p, T: TableSetups, R>(
    round: &rules::Round,
    index: u64,
    plan_of: impl FnOnce(&str) -> Option<&'p rules::Plan>,
    tables: &T,
    then: impl FnOnce(Judged<'_>) -> R,
) -> Result<R, JudgeError<T::Error>> {
    let plan = plan_of(round.plan_id())
        .ok_or_else(|| JudgeError::UnknownPlan(round.plan_id().to_owned()))?;
    let setup = tables
        .table_setup(plan, round, index)
        .map_err(JudgeError::Setup)?;
    let verdict = rules::adjudicate_at(plan, &setup, round)?;
    Ok(then(Judged {
        round,
        plan,
        setup: &setup,
        verdict,
    }))
}

#[cfg(test)]
mod tests {
    use ed25519_dalek::SigningKey;

    use super::*;

    const PLAN: &str = "69games-ziva-hra";

    fn plans() -> rules::PlanBook {
        rules::PlanBook::builtin().unwrap()
    }

    fn round(number: u8, paid_h: i64) -> rules::Round {
        let text = format!(
            r#"{{"bets":[{{"bet_id":"b1","kind":"straight","numbers":[17],"paid_h":{paid_h},"player":"seat-1","stake_h":10000}}],"game":"roulette","outcome":{{"number":{number},"result":"number"}},"plan_id":"{PLAN}","played_at":"2026-11-20T18:00:00Z","seq_no":1,"table_id":"R1","type":"round"}}"#
        );
        let header = rules::RecordHeader::read_json(&text).unwrap();
        read_round(&header, &text).unwrap()
    }

    fn history() -> RegistryHistory {
        crate::registry_history::with_roulette_table_r1(PLAN, &SigningKey::from_bytes(&[1; 32]))
    }

    #[test]
    fn a_straight_paid_as_the_plan_says_has_no_finding_and_an_overpaid_one_has_one() {
        let (plans, history) = (plans(), history());
        // 17 wins a straight on 17: 35 × 10 000 h + the stake 10 000 h = 360 000 h due.
        let due = judge(
            &round(17, 360_000),
            1,
            |p| plans.get(p),
            &history,
            |j| (j.verdict.expected_paid_h, j.verdict.findings.len()),
        )
        .unwrap();
        assert_eq!(due, (360_000, 0));
        // Paid 370 000 h: overpaid by 10 000 h.
        let kinds = judge(
            &round(17, 370_000),
            1,
            |p| plans.get(p),
            &history,
            |j| {
                j.verdict
                    .findings
                    .iter()
                    .map(|f| (f.kind.as_str().to_owned(), f.amount_h))
                    .collect::<Vec<_>>()
            },
        )
        .unwrap();
        assert_eq!(kinds, vec![("overpaid".to_owned(), 10_000)]);
    }

    #[test]
    fn a_round_under_a_plan_not_given_is_not_judged() {
        let history = history();
        let judged = judge(&round(17, 0), 1, |_| None, &history, |_| ());
        assert!(matches!(judged, Err(JudgeError::UnknownPlan(p)) if p == PLAN));
    }
}
