//! The process's logs: text for people or JSON lines for a collector, on standard error. Each
//! request's lines carry its `request_id` (the span `api::observe` opens). Neither headers nor
//! query strings are ever logged, so no API key or token reaches the log.

use std::io::IsTerminal as _;

use crate::config::{Log, LogFormat};

/// Starts logging as `log` says; `RUST_LOG`, when set, overrides the level. Text is coloured
/// only on a terminal: a log file or journald gets plain lines.
pub fn init(log: &Log) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(&log.level))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    // A second start (a test calling `run` twice) keeps the first subscriber.
    let _ = match log.format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .flatten_event(true)
            .try_init(),
    };
}

/// For the commands other than `serve`: quiet (warnings and errors) unless `verbose` or
/// `DOZOR_LOG_LEVEL` asks for more; the format from `DOZOR_LOG_FORMAT` (text unless `json`).
pub fn for_command(verbose: bool) -> Log {
    let format = match std::env::var("DOZOR_LOG_FORMAT").as_deref() {
        Ok("json") => LogFormat::Json,
        _ => LogFormat::Text,
    };
    let level = match std::env::var("DOZOR_LOG_LEVEL") {
        Ok(level) if !level.trim().is_empty() => level,
        _ if verbose => "info".to_owned(),
        _ => "warn".to_owned(),
    };
    Log { format, level }
}
