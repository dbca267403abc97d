//! Reading the JSON the server and the reports answer with.

use serde_json::Value;

/// `f` of each item of the JSON array `list`, in order.
pub fn each<'a, T>(list: &'a Value, f: impl FnMut(&'a Value) -> T) -> Vec<T> {
    list.as_array().unwrap().iter().map(f).collect()
}

/// The `message` of an answer or a finding.
pub fn message_of(answer: &Value) -> &str {
    answer["message"].as_str().unwrap()
}

/// Each finding of a JSON list (a page's `items`, a verdict's `findings`): (kind, amount).
pub fn kinds_and_amounts(findings: &Value) -> Vec<(String, i64)> {
    each(findings, |f| {
        (
            f["kind"].as_str().unwrap().to_owned(),
            f["amount_h"].as_i64().unwrap(),
        )
    })
}

/// A finding of a table audit as the tests compare them: (kind, table, seq_no, the seq_no of
/// the round it was compared with).
pub type AuditTuple<'a> = (&'a str, &'a str, u64, Option<u64>);

/// What the server's table audit and the offline verifier's have in common.
pub trait AuditLine {
    fn line(&self) -> AuditTuple<'_>;
}

impl AuditLine for reports::table_audit::TableAuditLine {
    fn line(&self) -> AuditTuple<'_> {
        (
            &self.kind,
            &self.table_id,
            self.seq_no,
            self.previous_seq_no,
        )
    }
}

impl AuditLine for rules::table_audit::AuditFinding {
    fn line(&self) -> AuditTuple<'_> {
        (
            self.kind.as_str(),
            &self.table_id,
            self.seq_no,
            self.previous_seq_no,
        )
    }
}

/// The lines of a table audit's findings, in order.
pub fn audit_lines<T: AuditLine>(findings: &[T]) -> Vec<AuditTuple<'_>> {
    findings.iter().map(AuditLine::line).collect()
}

/// The counts `names` of a verifier's `report`, in order (`None` for one missing or not a count).
pub fn counts<const N: usize>(report: &Value, names: [&str; N]) -> [Option<u64>; N] {
    names.map(|name| report[name].as_u64())
}
