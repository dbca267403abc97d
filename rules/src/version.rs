//! The version of the rules, stored with every verdict.

/// Version of the adjudication rules. Stored with every verdict so that a corrected rule can
/// re-run history and show what changed.
pub const RULES_VERSION: &str = "2026.11.5";
