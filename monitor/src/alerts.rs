//! Alerts beside following, and their delivery: the periodic checks (`checks`: a checkpoint gone
//! stale and moving again, findings left open, a game's RTP past ±3σ of theory, the daily
//! summary), how grave each kind is, and the webhook every alert is POSTed to from the outbox
//! (`webhook`). Each alert is raised once per casino and key (`store::alerts::raise`) and put
//! in the outbox in the same transaction.

pub mod checks;
pub mod config;
#[cfg(test)]
pub(crate) mod db_tests;
pub mod periodic;
pub mod readings;
pub mod rtp;
pub mod summary;
pub mod webhook;
#[cfg(test)]
mod webhook_tests;

/// How grave an alert is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The log cannot be trusted as published (a fork, a wrong tile or entry, a bad signature).
    Critical,
    /// Something to look into (a stale checkpoint, a mismatch, a missing quorum, findings left
    /// open, RTP past ±3σ).
    Warning,
    /// Nothing wrong: the daily summary, a checkpoint moving again.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The severity of an alert of `kind`: a kind this list does not know is a warning.
pub fn severity(kind: &str) -> Severity {
    match kind {
        "fork" | "rollback" | "not_extending" | "tiles" | "entry" | "checkpoint" => {
            Severity::Critical
        }
        "daily_summary" | "checkpoint_recovered" => Severity::Info,
        _ => Severity::Warning,
    }
}

/// The most characters of an alert's evidence its log line shows.
const EVIDENCE_SHOWN: usize = 400;

/// One log line for an alert raised: its casino, kind, severity and key, and what it says with
/// its evidence (cut short when long; the whole of it is kept in `monitor_alerts`).
pub fn log_alert(casino: &str, kind: &str, key: &str, message: &str, evidence: &serde_json::Value) {
    let mut shown = evidence.to_string();
    if let Some((cut, _)) = shown.char_indices().nth(EVIDENCE_SHOWN) {
        shown.truncate(cut);
        shown.push('…');
    }
    let grade = severity(kind);
    let severity = grade.as_str();
    match grade {
        Severity::Critical => {
            tracing::error!(casino, kind, severity, key, evidence = %shown, "{message}")
        }
        Severity::Warning => {
            tracing::warn!(casino, kind, severity, key, evidence = %shown, "{message}")
        }
        Severity::Info => {
            tracing::info!(casino, kind, severity, key, evidence = %shown, "{message}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_severity() {
        for kind in [
            "fork",
            "rollback",
            "not_extending",
            "tiles",
            "entry",
            "checkpoint",
        ] {
            assert_eq!(severity(kind), Severity::Critical, "{kind}");
        }
        for kind in [
            "checkpoint_stale",
            "verdict_mismatch",
            "quorum_missing",
            "findings_open",
            "rtp_deviation",
            "too_far_ahead",
            "verdicts_missing",
            "unknown_plan",
            "unjudged_round",
        ] {
            assert_eq!(severity(kind), Severity::Warning, "{kind}");
        }
        for kind in ["daily_summary", "checkpoint_recovered"] {
            assert_eq!(severity(kind), Severity::Info, "{kind}");
        }
    }
}
