//! The id of the request being answered: set by the request observer for the task that answers
//! it, read by the error body and the log (below both, so neither imports the other).

tokio::task_local! {
    /// Set by [`crate::observe`] around each request it answers.
    pub(crate) static REQUEST_ID: String;
}

/// The id of the request being answered on this task, if any.
pub fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}
