//! The casino's own verdicts, published beside its entry bundles (`verdicts/<N>[.p/<W>]`, one
//! JSON line per entry of the bundle, docs/TILES.md), and their comparison with the monitor's
//! judgement of the same rounds.

use serde_json::Value;

/// What the monitor compares of a round's verdict: the plan and rules it was judged under, the
/// money, and the findings (kind, amount, bets), in the order the verdict keeps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictFacts {
    pub plan_id: String,
    pub rules_version: String,
    pub void: bool,
    pub stakes_h: i64,
    pub expected_paid_h: i64,
    pub paid_h: i64,
    pub findings: Vec<FindingFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingFacts {
    pub kind: String,
    pub amount_h: i64,
    /// The bets concerned, joined by commas (empty: the round as a whole).
    pub bets: String,
}

impl VerdictFacts {
    /// The facts of a verdict the one judge gave.
    pub fn of(verdict: &rules::Verdict<'_>) -> VerdictFacts {
        VerdictFacts {
            plan_id: verdict.plan_id.to_owned(),
            rules_version: verdict.rules_version.to_owned(),
            void: verdict.void,
            stakes_h: verdict.stakes_h,
            expected_paid_h: verdict.expected_paid_h,
            paid_h: verdict.paid_h,
            findings: verdict
                .findings
                .iter()
                .map(|f| FindingFacts {
                    kind: f.kind.as_str().to_owned(),
                    amount_h: f.amount_h,
                    bets: f.bet_ids.as_deref().unwrap_or_default().join(","),
                })
                .collect(),
        }
    }

    fn findings_json(&self) -> Value {
        Value::Array(
            self.findings
                .iter()
                .map(
                    |f| serde_json::json!({"kind": f.kind, "amount_h": f.amount_h, "bets": f.bets}),
                )
                .collect(),
        )
    }
}

/// One line of a verdicts file: an entry's index and the casino's verdict (none: not a judged
/// round), kept as JSON so that what the casino wrote is what is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictLine {
    pub index: u64,
    pub verdict: Option<Value>,
}

/// Reads a verdicts file of a bundle of `width` entries from `first`: one line per entry, in
/// order, each `{"index": …, "verdict": …}`.
pub fn parse_verdict_lines(
    bytes: &[u8],
    first: u64,
    width: u64,
) -> Result<Vec<VerdictLine>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() as u64 != width {
        return Err(format!("{} lines for {width} entries", lines.len()));
    }
    lines
        .iter()
        .enumerate()
        .map(|(n, line)| {
            let expected = first + n as u64;
            let mut value: Value =
                serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
            let index = value.get("index").and_then(Value::as_u64);
            if index != Some(expected) {
                return Err(format!("line {} is not of index {expected}", n + 1));
            }
            let verdict = match value.get_mut("verdict").map(Value::take) {
                Some(Value::Null) => None,
                Some(v @ Value::Object(_)) => Some(v),
                _ => {
                    return Err(format!(
                        "line {}: `verdict` is neither null nor an object",
                        n + 1
                    ))
                }
            };
            Ok(VerdictLine {
                index: expected,
                verdict,
            })
        })
        .collect()
}

/// One field on which the casino's verdict and the monitor's differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// `plan_id`, `rules_version`, `void`, `stakes_h`, `expected_paid_h`, `paid_h`,
    /// `findings`, or `verdict` (one side has none).
    pub field: &'static str,
    pub casino: Value,
    pub monitor: Value,
}

/// The casino's findings as facts; what does not read is kept as the casino wrote it.
fn casino_findings(verdict: &Value) -> Option<Vec<FindingFacts>> {
    verdict
        .get("findings")?
        .as_array()?
        .iter()
        .map(|f| {
            let bets = match (f.get("bet_ids"), f.get("bet_id")) {
                (Some(Value::Array(ids)), _) => ids
                    .iter()
                    .map(|id| id.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?
                    .join(","),
                (_, Some(Value::String(id))) => id.clone(),
                _ => String::new(),
            };
            Some(FindingFacts {
                kind: f.get("kind")?.as_str()?.to_owned(),
                amount_h: f.get("amount_h")?.as_i64()?,
                bets,
            })
        })
        .collect()
}

/// Where the casino's verdict (`casino`) and the monitor's (`monitor`) differ; none for an entry
/// neither judged.
pub fn compare(casino: Option<&Value>, monitor: Option<&VerdictFacts>) -> Vec<Difference> {
    let (casino, monitor) = match (casino, monitor) {
        (None, None) => return Vec::new(),
        (Some(c), Some(m)) => (c, m),
        (c, m) => {
            return vec![Difference {
                field: "verdict",
                casino: c.cloned().unwrap_or(Value::Null),
                monitor: Value::Bool(m.is_some()),
            }]
        }
    };
    let mut differences = Vec::new();
    let mut field = |field: &'static str, theirs: Option<&Value>, ours: Value| {
        if theirs != Some(&ours) {
            differences.push(Difference {
                field,
                casino: theirs.cloned().unwrap_or(Value::Null),
                monitor: ours,
            });
        }
    };
    field(
        "plan_id",
        casino.get("plan_id"),
        Value::from(monitor.plan_id.clone()),
    );
    field(
        "rules_version",
        casino.get("rules_version"),
        Value::from(monitor.rules_version.clone()),
    );
    field("void", casino.get("void"), Value::from(monitor.void));
    field(
        "stakes_h",
        casino.get("stakes_h"),
        Value::from(monitor.stakes_h),
    );
    field(
        "expected_paid_h",
        casino.get("expected_paid_h"),
        Value::from(monitor.expected_paid_h),
    );
    field("paid_h", casino.get("paid_h"), Value::from(monitor.paid_h));
    if casino_findings(casino).as_ref() != Some(&monitor.findings) {
        differences.push(Difference {
            field: "findings",
            casino: casino.get("findings").cloned().unwrap_or(Value::Null),
            monitor: monitor.findings_json(),
        });
    }
    differences
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn ours() -> VerdictFacts {
        VerdictFacts {
            plan_id: "p".into(),
            rules_version: "1".into(),
            void: false,
            stakes_h: 10_000,
            expected_paid_h: 360_000,
            paid_h: 370_000,
            findings: vec![FindingFacts {
                kind: "overpaid".into(),
                amount_h: 10_000,
                bets: "b1".into(),
            }],
        }
    }

    #[test]
    fn lines_are_one_per_entry_in_order() {
        let text =
            b"{\"index\":256,\"verdict\":null}\n{\"index\":257,\"verdict\":{\"paid_h\":1}}\n";
        let lines = parse_verdict_lines(text, 256, 2).unwrap();
        assert_eq!(
            lines[0],
            VerdictLine {
                index: 256,
                verdict: None
            }
        );
        assert_eq!(lines[1].verdict, Some(json!({"paid_h": 1})));
        assert_eq!(
            parse_verdict_lines(text, 256, 3).unwrap_err(),
            "2 lines for 3 entries"
        );
        assert_eq!(
            parse_verdict_lines(text, 255, 2).unwrap_err(),
            "line 1 is not of index 255"
        );
    }

    #[test]
    fn the_same_verdict_has_no_difference_and_each_other_field_is_named() {
        let theirs = json!({"plan_id": "p", "rules_version": "1", "void": false, "stakes_h": 10_000, "expected_paid_h": 360_000,
            "paid_h": 370_000, "findings": [{"kind": "overpaid", "amount_h": 10_000, "bet_id": "b1"}]});
        assert!(compare(Some(&theirs), Some(&ours())).is_empty());
        // The casino says the round was paid as due: no finding, expected = paid.
        let lenient = json!({"plan_id": "p", "rules_version": "1", "void": false, "stakes_h": 10_000, "expected_paid_h": 370_000,
            "paid_h": 370_000, "findings": []});
        let fields: Vec<&str> = compare(Some(&lenient), Some(&ours()))
            .iter()
            .map(|d| d.field)
            .collect();
        assert_eq!(fields, vec!["expected_paid_h", "findings"]);
        // The casino calls the round void, or books other stakes: each named on its own.
        let mut void = theirs.clone();
        void["void"] = json!(true);
        let differences = compare(Some(&void), Some(&ours()));
        assert_eq!(differences.len(), 1);
        assert_eq!(differences[0].field, "void");
        assert_eq!(differences[0].casino, json!(true));
        assert_eq!(differences[0].monitor, json!(false));
        let mut stakes = theirs.clone();
        stakes["stakes_h"] = json!(5_000);
        let differences = compare(Some(&stakes), Some(&ours()));
        assert_eq!(differences.len(), 1);
        assert_eq!(differences[0].field, "stakes_h");
        assert_eq!(differences[0].casino, json!(5_000));
        assert_eq!(differences[0].monitor, json!(10_000));
        // A line without the fields differs on both.
        let mut bare = theirs.clone();
        bare.as_object_mut().unwrap().remove("void");
        bare.as_object_mut().unwrap().remove("stakes_h");
        let fields: Vec<&str> = compare(Some(&bare), Some(&ours()))
            .iter()
            .map(|d| d.field)
            .collect();
        assert_eq!(fields, vec!["void", "stakes_h"]);
        // A round the casino did not judge.
        let missing = compare(None, Some(&ours()));
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].field, "verdict");
        assert!(compare(None, None).is_empty());
    }
}
