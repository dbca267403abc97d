//! The casino's own verdicts, published beside its entry bundles (`verdicts/<N>[.p/<W>]`, one
//! JSON line per entry of the bundle, docs/TILES.md), and their comparison with the monitor's
//! judgement of the same rounds.

use std::borrow::Cow;

use serde_json::value::RawValue;
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
/// round), kept as the JSON text the casino wrote, so that what it wrote is what is shown.
#[derive(Debug, Clone)]
pub struct VerdictLine {
    pub index: u64,
    pub verdict: Option<Box<RawValue>>,
}

impl VerdictLine {
    /// The casino's verdict as JSON.
    pub fn verdict_value(&self) -> Option<Value> {
        self.verdict.as_deref().map(raw_to_value)
    }
}

fn raw_to_value(raw: &RawValue) -> Value {
    // It was read as JSON already: it reads again.
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// A line as read: its members kept as written (a `null` too: only a missing member is none).
#[derive(serde::Deserialize)]
struct RawLine<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    index: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    verdict: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<&'de RawValue>, D::Error> {
    serde::Deserialize::deserialize(member).map(Some)
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
            let raw: RawLine<'_> =
                serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
            let index = raw.index.and_then(|i| i.get().parse::<u64>().ok());
            if index != Some(expected) {
                return Err(format!("line {} is not of index {expected}", n + 1));
            }
            let verdict = match raw.verdict.map(|v| v.get().trim()) {
                Some("null") => None,
                Some(text) if text.starts_with('{') => RawValue::from_string(text.to_owned()).ok(),
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

/// The members of a casino's verdict the monitor compares, read as the types they should be:
/// the fast way to find a verdict the same as the monitor's. What does not read so is compared
/// member by member as JSON.
#[derive(serde::Deserialize)]
struct TypedVerdict<'a> {
    #[serde(borrow)]
    plan_id: Cow<'a, str>,
    #[serde(borrow)]
    rules_version: Cow<'a, str>,
    void: bool,
    stakes_h: i64,
    expected_paid_h: i64,
    paid_h: i64,
    #[serde(borrow)]
    findings: Vec<TypedFinding<'a>>,
}

#[derive(serde::Deserialize)]
struct TypedFinding<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
    amount_h: i64,
    #[serde(borrow, default)]
    bet_ids: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow, default)]
    bet_id: Option<Cow<'a, str>>,
}

/// Whether the casino's verdict (as written) states exactly the monitor's facts.
fn states_the_same(casino: &RawValue, monitor: &VerdictFacts) -> bool {
    let Ok(theirs) = serde_json::from_str::<TypedVerdict<'_>>(casino.get()) else {
        return false;
    };
    let findings_agree = theirs.findings.len() == monitor.findings.len()
        && theirs.findings.iter().zip(&monitor.findings).all(|(t, m)| {
            let bets = match (&t.bet_ids, &t.bet_id) {
                (Some(ids), _) => ids.join(","),
                (None, Some(id)) => id.to_string(),
                (None, None) => String::new(),
            };
            t.kind == m.kind && t.amount_h == m.amount_h && bets == m.bets
        });
    findings_agree
        && theirs.plan_id == monitor.plan_id
        && theirs.rules_version == monitor.rules_version
        && theirs.void == monitor.void
        && theirs.stakes_h == monitor.stakes_h
        && theirs.expected_paid_h == monitor.expected_paid_h
        && theirs.paid_h == monitor.paid_h
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

/// Where the casino's verdict (`casino`, as written) and the monitor's (`monitor`) differ; none
/// for an entry neither judged.
pub fn compare(casino: Option<&RawValue>, monitor: Option<&VerdictFacts>) -> Vec<Difference> {
    if let (Some(c), Some(m)) = (casino, monitor) {
        if states_the_same(c, m) {
            return Vec::new();
        }
    }
    compare_values(casino.map(raw_to_value).as_ref(), monitor)
}

/// [`compare`] of the casino's verdict as JSON, member by member.
pub fn compare_values(casino: Option<&Value>, monitor: Option<&VerdictFacts>) -> Vec<Difference> {
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
        assert_eq!((lines[0].index, lines[0].verdict_value()), (256, None));
        assert_eq!(lines[1].index, 257);
        assert_eq!(lines[1].verdict_value(), Some(json!({"paid_h": 1})));
        // A verdict that is neither null nor an object, a line without one, or a bad index.
        for (line, why) in [
            (
                &b"{\"index\":256,\"verdict\":7}"[..],
                "line 1: `verdict` is neither null nor an object",
            ),
            (
                &b"{\"index\":256}"[..],
                "line 1: `verdict` is neither null nor an object",
            ),
            (
                &b"{\"index\":\"256\",\"verdict\":null}"[..],
                "line 1 is not of index 256",
            ),
        ] {
            assert_eq!(parse_verdict_lines(line, 256, 1).unwrap_err(), why);
        }
        assert_eq!(
            parse_verdict_lines(text, 256, 3).unwrap_err(),
            "2 lines for 3 entries"
        );
        assert_eq!(
            parse_verdict_lines(text, 255, 2).unwrap_err(),
            "line 1 is not of index 255"
        );
    }

    /// `compare` of a verdict given as JSON, and the member-by-member comparison, which must agree.
    fn compare(casino: Option<&Value>, monitor: Option<&VerdictFacts>) -> Vec<Difference> {
        let raw = casino.map(|c| serde_json::value::to_raw_value(c).unwrap());
        let fast = super::compare(raw.as_deref(), monitor);
        assert_eq!(fast, compare_values(casino, monitor));
        fast
    }

    #[test]
    fn a_verdict_read_as_typed_agrees_with_one_compared_member_by_member() {
        let same = json!({"plan_id": "p", "rules_version": "1", "void": false, "stakes_h": 10_000,
            "expected_paid_h": 360_000, "paid_h": 370_000, "extra": [1, 2],
            "findings": [{"kind": "overpaid", "amount_h": 10_000, "bet_ids": ["b1"]}]});
        assert!(compare(Some(&same), Some(&ours())).is_empty());
        // Members of other types are differences, not errors: as JSON they differ.
        for (field, value) in [
            ("stakes_h", json!(10_000.0)),
            ("stakes_h", json!("10000")),
            ("void", json!(0)),
            ("plan_id", json!(null)),
            (
                "findings",
                json!([{"kind": "overpaid", "amount_h": 10_000, "bet_id": 1}]),
            ),
            (
                "findings",
                json!([{"kind": "overpaid", "amount_h": 10_000, "bet_ids": [1]}]),
            ),
            (
                "findings",
                json!([{"kind": "overpaid", "amount_h": 10_000, "bet_ids": ["b1", "b2"]}]),
            ),
        ] {
            let mut other = same.clone();
            other[field] = value;
            let differences = compare(Some(&other), Some(&ours()));
            assert_eq!(differences.len(), 1, "{other}");
            assert_eq!(differences[0].field, field);
        }
        // bet_ids null: the finding's bet_id counts, as member by member.
        let mut by_id = same.clone();
        by_id["findings"] =
            json!([{"kind": "overpaid", "amount_h": 10_000, "bet_ids": null, "bet_id": "b1"}]);
        assert!(compare(Some(&by_id), Some(&ours())).is_empty());
        // Text with escapes reads the same.
        let mut escaped = same.clone();
        escaped["plan_id"] = json!("p");
        let text = serde_json::to_string(&escaped)
            .unwrap()
            .replace("\"p\"", "\"\\u0070\"");
        let raw = RawValue::from_string(text).unwrap();
        assert!(super::compare(Some(&raw), Some(&ours())).is_empty());
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
