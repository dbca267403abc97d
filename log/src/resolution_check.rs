//! That a resolution names a real finding: the round it points at, re-adjudicated from its
//! signed record, has a finding of that kind at that position. Verifiers do this from the ledger
//! alone (the database walk and the offline export check alike), never from the findings table.

use crate::entry_check::{CheckedEntry, Subject};
use crate::judge;
use crate::registry_history::history::RegistryHistory;
use crate::registry_history::resolutions::RecordedResolution;

/// What checking a resolved finding found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingCheck {
    /// Re-adjudication gives that finding at that position.
    Confirmed,
    /// Resolved under another rules version: the round is a round of the table, but its
    /// findings are not re-derived (as with verdicts of other rules versions).
    OtherRulesVersion,
}

/// Checks `resolution` against `round`, the checked entry at its `round_index`.
pub fn check_resolved_finding<'p>(
    resolution: &RecordedResolution,
    round: &CheckedEntry<'_>,
    history: &RegistryHistory,
    plan: impl FnOnce(&str) -> Option<&'p rules::Plan>,
) -> Result<FindingCheck, String> {
    let reference = format!("{}.{}", resolution.round_index, resolution.finding);
    let Subject::Record(header) = &round.subject else {
        return Err(format!(
            "resolution of finding {reference}: entry {} is not a round",
            resolution.round_index
        ));
    };
    if !rules::is_adjudicated(&header.record_type) || header.table_id != resolution.table_id {
        return Err(format!(
            "resolution of finding {reference} at table `{}`: entry {} is not a round of that table",
            resolution.table_id, resolution.round_index
        ));
    }
    if resolution.rules_version != rules::RULES_VERSION {
        return Ok(FindingCheck::OtherRulesVersion);
    }
    let parsed = judge::read_round(header, round.record).map_err(|e| e.to_string())?;
    let found = judge::judge(&parsed, round.index, plan, history, |judged| {
        usize::try_from(resolution.finding)
            .ok()
            .map(|n| judged.verdict.findings.get(n).cloned())
            .unwrap_or_default()
            .ok_or(judged.verdict.findings.len())
    })
    .map_err(|e| e.to_string())?;
    match found {
        Ok(f) if f.kind.as_str() == resolution.kind => {
            resolution
                .decision
                .check_against(f.amount_h)
                .map_err(|(field, m)| format!("resolution of finding {reference}: {field}: {m}"))?;
            Ok(FindingCheck::Confirmed)
        }
        Ok(f) => Err(format!(
            "resolution of finding {reference} names a `{}` finding; re-adjudication gives `{}` there",
            resolution.kind,
            f.kind.as_str()
        )),
        Err(count) => Err(format!(
            "resolution of finding {reference}: re-adjudication gives the round {count} finding(s)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};
    use ed25519_dalek::SigningKey;
    use serde_json::json;

    use super::*;
    use crate::access::{Decision, FindingState, Role};
    use crate::entry::Entry;
    use crate::entry_check::{check_entry, Signers};

    use crate::envelope::Envelope;

    const PLAN: &str = "69games-ziva-hra";

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    /// Entry 0 registers roulette table R1; entry 1 is a spin of 17 with a straight on 17 of
    /// 100 Kč paid 3 700 Kč: 35 × 10 000 h + the stake 10 000 h = 360 000 h is due, so the
    /// round has one finding, `overpaid` by 10 000 h, at position 0.
    fn ledger() -> (RegistryHistory, Vec<u8>) {
        let table_key = SigningKey::from_bytes(&[1; 32]);
        let history = crate::registry_history::with_roulette_table_r1(PLAN, &table_key);
        let record = json!({"type": "round", "game": "roulette", "table_id": "R1", "seq_no": 1,
            "plan_id": PLAN, "played_at": "2026-11-20T18:00:00Z",
            "outcome": {"result": "number", "number": 17},
            "bets": [{"bet_id": "b1", "player": "seat-1", "kind": "straight", "numbers": [17],
                      "stake_h": 10_000, "paid_h": 370_000}]});
        let envelope = Envelope::sign(record, &table_key).unwrap();
        let entry = Entry::build(1, at("2026-11-20T18:00:01Z"), [7; 32], &envelope).unwrap();
        (history, entry.bytes)
    }

    fn resolution(
        table_id: &str,
        finding: u32,
        kind: &str,
        rules_version: &str,
    ) -> RecordedResolution {
        RecordedResolution {
            index: 2,
            resolved_at: at("2026-11-21T09:00:00Z"),
            table_id: table_id.into(),
            round_index: 1,
            finding,
            kind: kind.into(),
            rules_version: rules_version.into(),
            decision: Decision {
                state: FindingState::Confirmed,
                amount_settled_h: Some(10_000),
                reason: None,
                comment: "repaid".into(),
            },
            key_id: "k".into(),
            key_name: "officer".into(),
            key_role: Role::Compliance,
        }
    }

    fn check(resolution: &RecordedResolution) -> Result<FindingCheck, String> {
        let (history, bytes) = ledger();
        let operators = std::collections::HashMap::new();
        let signers = Signers {
            operators: &operators,
            tables: &history,
        };
        let round = check_entry(&bytes, 1, signers)?;
        let plans = rules::PlanBook::builtin().unwrap();
        check_resolved_finding(resolution, &round, &history, |id| plans.get(id))
    }

    #[test]
    fn the_finding_re_adjudication_gives_is_confirmed() {
        let found = check(&resolution("R1", 0, "overpaid", rules::RULES_VERSION));
        assert_eq!(found, Ok(FindingCheck::Confirmed));
    }

    #[test]
    fn another_kind_position_or_table_is_named() {
        let other_kind = check(&resolution("R1", 0, "underpaid", rules::RULES_VERSION));
        assert_eq!(
            other_kind,
            Err("resolution of finding 1.0 names a `underpaid` finding; re-adjudication gives `overpaid` there".into())
        );
        let beyond = check(&resolution("R1", 1, "overpaid", rules::RULES_VERSION));
        assert_eq!(
            beyond,
            Err("resolution of finding 1.1: re-adjudication gives the round 1 finding(s)".into())
        );
        let other_table = check(&resolution("R2", 0, "overpaid", rules::RULES_VERSION));
        assert!(
            other_table
                .as_ref()
                .is_err_and(|m| m.contains("is not a round of that table")),
            "{other_table:?}"
        );
    }

    #[test]
    fn a_settlement_above_the_finding_without_a_reason_is_named() {
        // The finding is overpaid by 10 000 h; settling 10 001 h needs a reason.
        let mut above = resolution("R1", 0, "overpaid", rules::RULES_VERSION);
        above.decision.amount_settled_h = Some(10_001);
        let found = check(&above);
        assert!(
            found.as_ref().is_err_and(|m| m.contains("1.0: reason:")),
            "{found:?}"
        );
        above.decision.reason = Some("the player returned the next win too".into());
        assert_eq!(check(&above), Ok(FindingCheck::Confirmed));
    }

    #[test]
    fn a_finding_of_other_rules_is_not_re_derived() {
        let found = check(&resolution("R1", 7, "anything", "0.0.0-other"));
        assert_eq!(found, Ok(FindingCheck::OtherRulesVersion));
    }
}
