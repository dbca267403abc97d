//! How one step of following a casino ends: followed, up to date, waiting, halted, or an error.

use crate::error::MonitorError;
use crate::fetch::FetchError;

/// How a step ended when nothing went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing new: followed to the checkpoint's size.
    UpToDate { size: u64 },
    /// Followed from one size to another; the rounds judged on the way.
    Followed { from: u64, to: u64, rounds: u64 },
    /// The checkpoint lacks its witnesses' cosignatures (yet): not followed.
    Waiting { size: u64, why: String },
    /// The log forked or was rolled back: it is not followed any more.
    Halted { why: String },
}

/// Why a step did not end well.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error(transparent)]
    Monitor(#[from] MonitorError),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The casino's log is wrong here; an alert says so.
    #[error("{0}")]
    Log(String),
}
