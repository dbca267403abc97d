use thiserror::Error;

/// A record that cannot be adjudicated at all: it is rejected, never stored.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RecordError {
    #[error("record is not valid: {0}")]
    Malformed(String),
    #[error("unsupported record type `{0}`")]
    UnsupportedType(String),
    #[error("game `{0}` is not supported by this version of the rules")]
    UnsupportedGame(String),
    #[error("plan `{plan_id}` has no section for game `{game}`")]
    GameNotInPlan { plan_id: String, game: String },
    #[error("{field}: {reason}")]
    Invalid { field: String, reason: String },
    /// Readable, but it cannot have happened (a card dealt twice from one deck, a pocket the
    /// wheel does not have): never refused, the round is kept with a `record_impossible` finding.
    #[error("{field}: {reason}")]
    Impossible { field: String, reason: String },
}

impl RecordError {
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        RecordError::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// Content that cannot have happened (see [`RecordError::Impossible`]).
    pub fn impossible(field: impl Into<String>, reason: impl Into<String>) -> Self {
        RecordError::Impossible {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The same error with its field named inside `parent` (`bets[3]` + `stake_h` →
    /// `bets[3].stake_h`); the path is built only when there is an error.
    pub fn within(self, parent: impl std::fmt::Display) -> Self {
        match self {
            RecordError::Invalid { field, reason } => RecordError::Invalid {
                field: format!("{parent}.{field}"),
                reason,
            },
            RecordError::Impossible { field, reason } => RecordError::Impossible {
                field: format!("{parent}.{field}"),
                reason,
            },
            other => other,
        }
    }
}

/// A plan file that cannot be used.
#[derive(Debug, Error)]
pub enum PlanError {
    #[error("plan file is not valid TOML for a plan: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("plan `{plan_id}`: {reason}")]
    Inconsistent { plan_id: String, reason: String },
    #[error("plan `{0}` is defined twice")]
    Duplicate(String),
}
