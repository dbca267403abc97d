//! Where the server's parts are mounted.

/// The JSON API.
pub const API_PREFIX: &str = "/api/v1";
/// Pages people read in a browser.
pub const PAGES_PREFIX: &str = "/reports";
/// The officer's workbench.
pub const WORKBENCH_PREFIX: &str = "/workbench";
