//! How far each witness has cosigned: what the witness clients learn, and readiness and the
//! metrics show.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

/// What the server knows of one witness, for readiness and metrics.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct WitnessProgress {
    pub witness: String,
    /// The largest checkpoint size it has cosigned, as far as dozor knows.
    pub cosigned_size: Option<u64>,
    /// The size of the latest checkpoint signed, when last looked at.
    pub checkpoint_size: u64,
    /// Entries of the latest checkpoint not yet covered by its cosignature.
    pub lag_entries: u64,
    /// When it last answered with a cosignature.
    pub last_cosigned_at: Option<DateTime<Utc>>,
    /// The last failure since then, if any (the witness unreachable, a refusal with its status).
    pub last_error: Option<String>,
}
