//! What a validation is given besides the package, and what it gives: the Ministry's errors.

use chrono::{DateTime, Utc};
use rules::gaming_day::GamingDayClock;

/// One error, as the Ministry's validator reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MfError {
    pub code: &'static str,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for MfError {
    /// `CODE [file] [line] [field]: message`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code)?;
        if let Some(file) = &self.file {
            write!(f, " {file}")?;
        }
        if let Some(line) = self.line {
            write!(f, " {line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, " {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// What the checks need besides the package.
#[derive(Debug, Clone, Copy)]
pub struct ValidationSettings {
    /// Metadata lines may not be dated later than this.
    pub now: DateTime<Utc>,
    /// The month's gaming days are the package's timespan.
    pub clock: GamingDayClock,
}
