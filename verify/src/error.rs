//! The first thing found wrong with an export, named by its file and line.

use crate::format::ENTRIES;

/// The first thing that is wrong with an export, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{item}: {message}")]
pub struct InspectionError {
    /// File, and line or index where it applies.
    pub item: String,
    pub message: String,
}

impl From<dozor_log::parallel::WorkerPanicked> for InspectionError {
    fn from(_: dozor_log::parallel::WorkerPanicked) -> Self {
        fail(ENTRIES, "a verification thread failed")
    }
}

pub(crate) fn fail(item: impl Into<String>, message: impl Into<String>) -> InspectionError {
    InspectionError {
        item: item.into(),
        message: message.into(),
    }
}
